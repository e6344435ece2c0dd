"""`mfact check`: check one biography headless, printing events as they happen.

    mfact check --lang en --entity "Marie Curie" --offline --max-tokens 200
    mfact check --lang es --entity "Frida Kahlo" --text-file bio.txt --json > session.json
    mfact check --lang en --entity "Lyon" --text-file answer.txt --evidence passages.jsonl
    mfact check --lang sv --question "Var föddes Greta Garbo?" --text-file answer.txt --evidence page.jsonl

Without --json: the text streams to stdout as the model writes it, then one line per verdict
(label, confidence, fact) and a summary. With --json: the same progress goes to stderr and stdout
gets only the session JSON, so the output ends with (and is) the session document.
The session is saved in the store (`--no-save` to skip) so `mfact report` and `mfact-tui --open`
see it. Ctrl-C stops generation, keeps what was checked, saves it and exits with 130.
"""
from __future__ import annotations

import argparse
import queue
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, TextIO

from ..errors import MfactError, format_error
from ..figures import Calm, Counts
from ..textsafe import clean_terminal

if TYPE_CHECKING:  # pragma: no cover
    from ..config import Config
    from ..session import Session

safe = clean_terminal   # untrusted text for the terminal (core/textsafe.py)


def register(sub) -> None:
    from ..options import add_checking_options, add_knowledge_options, add_model_options

    p = sub.add_parser(
        "check", help="check the facts of one biography (generated, or from a file)",
        description="Generate a biography of ENTITY in language L with the configured model (or read it "
                    "from --text-file), split it into atomic facts, retrieve evidence and verify each fact "
                    "while the text streams; print verdicts and metrics and save the session.")
    p.add_argument("--lang", required=True, help="language code of the text, e.g. en, es, bn")
    p.add_argument("--entity", help="the person (or any topic) the text is about (optional with --question "
                                    "or --evidence: read from them)")
    p.add_argument("--question", metavar="TEXT",
                   help="the question the text answers: it steers retrieval, and a fact answering it that names "
                        "someone else is the hallucination (NS), not IR; without --text-file the model is asked it")
    p.add_argument("--text-file", help="check this UTF-8 text instead of generating one ('-' = stdin)")
    p.add_argument("--evidence", metavar="E",
                   help="with --text-file: these passages are the only evidence; E is a JSON list of "
                        "strings or JSONL lines {\"text\", \"title\"?, \"url\"?, \"lang\"?}")
    p.add_argument("--json", action="store_true",
                   help="print the session JSON on stdout (progress goes to stderr)")
    p.add_argument("--save", action=argparse.BooleanOptionalAction, default=True,
                   help="save the session in the store (default: yes)")
    p.add_argument("--selfcheck-samples", type=int,
                   help="SelfCheck: sample N more texts and score each sentence's consistency")
    p.add_argument("--stop-on-repeat", action=argparse.BooleanOptionalAction, default=None,
                   help="stop when a sentence repeats an earlier one (default: yes)")
    add_model_options(p)
    add_knowledge_options(p)
    add_checking_options(p)
    p.set_defaults(func=cmd_check)


def read_text_file(path: str) -> str:
    """The text of --text-file ('-': stdin), through core/inputs.py: a regular UTF-8 file only, not
    empty, at most the session's text limit."""
    from ..inputs import not_empty, read_text
    from ..session import MAX_TEXT_CHARS

    text, name = read_text(path, "text file (UTF-8)")
    not_empty(text, name, "text to check")
    if len(text) > MAX_TEXT_CHARS:
        raise MfactError(f"{name}: {len(text):,} characters is over the limit of {MAX_TEXT_CHARS:,}",
                         "check a shorter text, or split it (mfact run --texts)")
    return text


def _resolve(name: str, lang: str, cfg, printer: _Printer):
    """The entity, resolved through the knowledge sources when they know it (titles, QID). An
    ambiguous name is an error listing the choices; an unknown one is checked under its bare name
    (its facts will mostly lack evidence), with a warning."""
    from ..session import Entity

    from ..knowledge import resolve_entity

    try:
        match = resolve_entity(name, lang, cfg)
    except MfactError:
        raise
    except Exception as exc:  # noqa: BLE001 - resolution is a convenience; the retriever copes with a name
        printer.notice("warning", f"could not look {name!r} up: {exc}")
        return Entity(name=name)
    for n in match.notices:
        printer.notice("warning", str(n))
    if match.entity is not None:
        return match.entity
    if match.choices:
        match.require(name, lang)          # raises one MfactError listing the choices
    hint = ("did you mean: " + "; ".join(match.suggestions[:5])) if match.suggestions \
        else "add a source (--zim, --factscore-db) or go online for evidence"
    printer.notice("warning", f"no page about {name!r} found in '{lang}'; checking anyway ({hint})")
    return Entity(name=name)


class _Printer:
    """Prints events: streamed text, then verdict lines (held back while the text streams, so they
    never cut into it), notices, and the summary. Each notice is told once. Where the text and the
    notices share one terminal, notices wait for the text's end too: a line on stderr would cut a
    streamed word in two on the screen."""

    def __init__(self, out: TextIO, err: TextIO, stream_text: bool):
        self.out = out
        self.err = err
        self.stream_text = stream_text
        self.streaming = True
        self.held: list[str] = []
        self.held_notices: list[str] = []
        self.told: set[str] = set()
        self.facts: dict[str, str] = {}
        self.at_line_start = True

    def _write(self, s: str) -> None:
        self.out.write(s)
        self.out.flush()

    def token(self, text: str) -> None:
        if self.stream_text and text:
            t = safe(text)
            self._write(t)
            self.at_line_start = t.endswith("\n")

    def end_stream(self) -> None:
        if not self.streaming:
            return
        self.streaming = False
        if self.stream_text and not self.at_line_start:
            self._write("\n")
        if self.stream_text:
            self._write("\n")
        for line in self.held:
            self._write(line + "\n")
        self.held.clear()
        for line in self.held_notices:
            print(line, file=self.err, flush=True)
        self.held_notices.clear()

    def verdict(self, fact_id: str, label: str, confidence: float) -> None:
        fact = self.facts.get(fact_id, fact_id)
        line = f"{label:<2} {confidence:4.2f}  {safe(fact, one_line=True)}"
        if self.streaming:
            self.held.append(line)
        else:
            self._write(line + "\n")

    def notice(self, level: str, message: str, hint: str = "") -> None:
        if (level == "info" and not self.stream_text) or message in self.told:
            return
        self.told.add(message)
        line = f"mfact: {level}: {safe(format_error(message, hint), one_line=True)}"
        if self.streaming and self.stream_text and _one_terminal(self.out, self.err):
            self.held_notices.append(line)
        else:
            print(line, file=self.err, flush=True)


def _one_terminal(out: TextIO, err: TextIO) -> bool:
    """Whether both streams are terminals (then they are, in practice, one screen)."""
    try:
        return out.isatty() and err.isatty()
    except ValueError:          # a closed stream
        return False


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def summary_lines(session) -> list[str]:
    from ..session import stop_words

    m = session.metrics
    calm = m.calm or Calm()
    c = m.counts or Counts()
    lines = [
        f"facts: {len(session.facts)} (S {c.S or 0}, NS {c.NS or 0}, IR {c.IR or 0},"
        f" pending {c.pending or 0})   stop: {stop_words(session.stop_reason)}   tokens: {session.tokens}",
        f"FActScore: {_pct(m.factscore)} (IR counted as not supported)   relevant only:"
        f" {_pct(m.factscore_relevant_only)}   with length penalty: {_pct(m.factscore_gamma)}",
    ]
    if m.text_incomplete:
        lines.append("text: INCOMPLETE (the model server's connection was lost; the figures are of the text so far)")
    sd = m.semantic_drift
    if sd is not None:
        pv = m.drift_p_value
        dp = m.drift_point
        lines.append(f"semantic drift: {sd:.3f}, drift point {dp}"
                     + (f" (drifts from fact {dp + 1})" if dp is not None else "")
                     + (f" (p = {pv:.3f})" if pv is not None else ""))
    else:
        lines.append("semantic drift: n/a (too few facts)")
    lines.append(f"language: {calm.detected_language or '?'}"
                 f" ({'ok' if calm.language_ok else 'WRONG'})   repetitive: {bool(calm.repetitive)}")
    sc = session.checks.selfcheck
    if sc:
        lines.append(f"SelfCheck inconsistency (mean over sentences, {sc.samples} samples): {sc.mean}")
    return lines


_DONE = object()


class _EventPump:
    """Iterates the pipeline in a thread, so that Ctrl-C in the main thread interrupts only the
    waiting, never the pipeline itself (its StopEvent with the partial session still arrives)."""

    def __init__(self, pipeline, entity, lang, stop, text, question: str = ""):
        from ..pipeline import Generation
        from ..pipeline.pump import pump

        # with a question and no text, the model is asked the question
        kw = ({"question": question, **({"generation": Generation(prompt=question)} if text is None else {})}
              if question else {})
        self.q: queue.Queue = queue.Queue()
        self.thread = pump(lambda: pipeline.run(entity, lang, stop=stop, text=text, **kw), self.q.put,
                           name="mfact-check-cli", on_error=self.q.put, on_end=lambda: self.q.put(_DONE))

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            try:
                item = self.q.get(timeout=0.1)
            except queue.Empty:
                continue
            if item is _DONE:
                raise StopIteration
            if isinstance(item, BaseException):
                raise item
            return item


def _events_in_thread(pipeline, entity, lang, stop, text, question: str = "") -> _EventPump:
    return _EventPump(pipeline, entity, lang, stop, text, question)


def _inputs(args: argparse.Namespace) -> tuple[str, str | None, Any]:
    """The language, the text of --text-file (or None) and the passages of --evidence (or None),
    each checked with a one-line error; `args.entity` and `args.question` are checked too (the
    entity read from the question or the passages when not given)."""
    from ..batch import parse_entity_lines
    from ..languages import UnknownLanguage, get_language

    try:
        lang = get_language(args.lang).code
    except UnknownLanguage as exc:
        raise MfactError(str(exc)) from None
    args.question = _question(args.question)
    if args.entity is not None and not args.entity.strip():
        raise MfactError("--entity is empty", "name the person, e.g. --entity 'Marie Curie'")
    text = read_text_file(args.text_file) if args.text_file else None
    passages = None
    if args.evidence:
        if text is None:
            raise MfactError("--evidence needs --text-file", "give the text the passages are evidence for")
        from ..knowledge.given import read_evidence
        passages = read_evidence(args.evidence, lang)
    if args.entity is None:
        from ..inputs import CONTROL
        from ..pipeline.question import topic_of
        args.entity = CONTROL.sub("", topic_of(args.question, passages or [])) if args.question or passages else ""
        if not args.entity:
            raise MfactError("--entity is required", "name the person or topic, e.g. --entity 'Marie Curie', "
                                                     "or give --question")
    parse_entity_lines([args.entity], "--entity")      # no control characters, at most 500 characters
    return lang, text, passages


def _question(q: str | None) -> str:
    from ..session import MAX_QUESTION_CHARS

    if q is None:
        return ""
    if not q.strip():
        raise MfactError("--question is empty", "give the question the text answers, or leave --question out")
    if len(q) > MAX_QUESTION_CHARS:
        raise MfactError(f"--question is {len(q):,} characters; at most {MAX_QUESTION_CHARS:,}")
    return q.strip()


def _checked_config(args: argparse.Namespace) -> Config:
    from ..options import config_from_args

    cfg = config_from_args(args)
    if cfg.selfcheck_samples < 0:
        raise MfactError("--selfcheck-samples must be >= 0")
    if cfg.k < 1:
        raise MfactError("--k must be at least 1")
    if cfg.max_tokens < 1:
        raise MfactError("--max-tokens must be at least 1")
    return cfg


def _progress_printer(err: Any) -> Callable[[Any], None]:
    def on_progress(p: Any) -> None:
        msg = p.message or p.stage
        if p.total:
            msg += f" {100 * p.done / p.total:.0f}%"
        print(f"mfact: {safe(msg, one_line=True)}", file=err, flush=True)
    return on_progress


def cmd_check(args: argparse.Namespace) -> int:
    from ..pipeline import build_pipeline

    from ..languages import generic_notice

    lang, text, passages = _inputs(args)
    cfg = _checked_config(args)
    out, err = sys.stdout, sys.stderr
    if generic_notice(lang):
        print(f"mfact: {generic_notice(lang)}", file=err, flush=True)
    printer = _Printer(err if args.json else out, err, stream_text=not args.json)
    on_progress = _progress_printer(err)
    if text is not None:
        from ..embedders import embed_alone
        embed_alone()               # a given text: no generator beside the checks, every core embeds
    pipeline = build_pipeline(cfg, on_progress=on_progress, need_generator=text is None)
    if passages is not None:
        from ..knowledge.given import GivenRetriever, size_words
        from ..session import Entity
        if size_words(passages):
            print(f"mfact: indexing {size_words(passages)}", file=err, flush=True)
        pipeline.retriever = GivenRetriever(passages, pipeline.embedder)
        entity = Entity(name=args.entity.strip())       # no knowledge source to look it up in
    else:
        entity = _resolve(args.entity.strip(), lang, cfg, printer)
    stop = threading.Event()
    errors: list[str] = []
    session, interrupted = _follow(_events_in_thread(pipeline, entity, lang, stop, text, args.question), printer,
                                   stop, errors,
                                   None if args.json else on_progress)
    if passages is not None:
        session.config["evidence"] = {"given": len(passages), "file": str(args.evidence)}
    # a run that failed or was stopped before its first token is saved too (empty, status error or
    # interrupted): the store keeps a record of what was asked and why it has no text
    saved = _save(session) if args.save and (session.facts or session.text or errors or interrupted) else False
    if args.json:
        from ..textsafe import json_dumps_safe

        out.write(json_dumps_safe(session.to_dict(), indent=2) + "\n")
        out.flush()
    else:
        for line in summary_lines(session):
            print(line, file=out)
        if saved:
            print(f"session {session.id} saved (mfact report; mfact-tui --open {session.id})", file=out)
        out.flush()
    if errors:
        raise MfactError(errors[0] + (f"; partial session {session.id} saved" if saved else ""))
    if interrupted:
        return 130
    return 1 if session.stop_reason == "connection_lost" else 0     # the text is cut off


def _follow(events: Any, printer: _Printer, stop: threading.Event, errors: list[str],
            on_progress: Callable[[Any], None] | None) -> tuple[Session, bool]:
    """Print the run's events as they come; (the final session, whether Ctrl-C stopped it). The
    errors it reported are added to `errors`."""
    from ..events import FactEvent, NoticeEvent, ProgressEvent, StopEvent, TokenEvent, VerdictEvent

    session = None
    interrupted = False
    while True:
        try:
            ev = next(events)
        except StopIteration:
            break
        except KeyboardInterrupt:
            # Ctrl-C: stop generation, keep what was checked; the pipeline still ends with StopEvent
            if not interrupted:
                interrupted = True
                stop.set()
                print("\nmfact: stopping (the text so far is kept)", file=printer.err, flush=True)
            continue
        if isinstance(ev, TokenEvent):
            printer.token(ev.text)
        elif isinstance(ev, ProgressEvent):
            if ev.progress.stage == "generate":
                printer.end_stream()
            elif on_progress is not None:
                on_progress(ev.progress)
        elif isinstance(ev, FactEvent):
            printer.facts[ev.fact.id] = ev.fact.text
        elif isinstance(ev, VerdictEvent):
            printer.verdict(ev.fact_id, ev.verdict.label, ev.verdict.confidence)
        elif isinstance(ev, NoticeEvent):
            if ev.level == "error":
                errors.append(ev.line())
            else:
                printer.notice(ev.level, ev.message, ev.hint)
        elif isinstance(ev, StopEvent):
            session = ev.session
    printer.end_stream()
    if session is None:  # pragma: no cover - the pipeline always ends with a StopEvent
        raise MfactError("checking ended without a session")
    return session, interrupted


def _save(session: Session) -> bool:
    from ..store import Store

    store = Store()
    try:
        store.save_session(session)
        return True
    finally:
        store.close()
