"""One run of a CheckPipeline: the threads, the inbox and the events it emits."""
from __future__ import annotations

import copy
import logging
import queue
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Iterator

from ..events import (Event, EvidenceEvent, FactEvent, MetricsEvent, NoticeEvent, ProgressEvent,
                      SentenceEvent, StopEvent, TokenEvent, VerdictEvent)
from ..protocols import Chunk, DecodingParams, MfactError, Progress, Sentence
from ..session import LABELS, Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, Verdict
from .cache import VerdictCache
from .describe import decoding_params, evidence_langs, generator_info, jsonable
from .selfcheck import selfcheck_scores
from .stats import RunStats
from .text import clean_text, complete_prefix, norm_sentence, sentences_of

if TYPE_CHECKING:
    from .check_pipeline import CheckPipeline

log = logging.getLogger("mfact.pipeline")

STOP_GRACE_S = 1.0          # how long a stopped run waits for verifications already running
_OPENERS = re.compile(r"[<\[*_`~&]")


CHECK_NICE = 5     # checking threads yield the CPU to generation (Linux: per-thread nice value)


def _lower_priority() -> None:
    """Run this checking thread at a lower CPU priority than generation, so checking uses what the
    model leaves (overhead stays low on few cores); after the last token it has the CPU alone."""
    try:
        import os
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + CHECK_NICE))
    except (AttributeError, OSError):
        pass



@dataclass
class _FactState:
    fact: Fact
    done: bool = False


class Run:
    """State of one `CheckPipeline.run` call."""

    def __init__(self, p: CheckPipeline, entity: Entity, lang: str, stop: threading.Event | None,
                 text: str | None, seed: int | None, prompt: str | None, params: DecodingParams | None,
                 generated: tuple[int, str] | None = None):
        # a text generated beforehand (a batch) is replayed as one streamed chunk
        self.replay = (text, int(generated[0]), str(generated[1])) if generated is not None else None
        if generated is not None:
            text = None
        self.p = p
        self.cfg = p.cfg
        self.entity = entity
        self.lang = lang
        self.user_stop = stop or threading.Event()
        self.given_text = text
        self.gen_stop = threading.Event()          # tells the generation thread to stop
        self.inbox: queue.Queue = queue.Queue()
        self.pool = ThreadPoolExecutor(max_workers=max(1, int(self.cfg.workers)),
                                       thread_name_prefix="mfact-check", initializer=_lower_priority)
        self.futures: set[Future] = set()
        self.closed = False
        self.params = params or decoding_params(self.cfg, seed)
        gen = p.generator
        if text is None:
            self.prompt = prompt or gen.default_prompt(entity.name, lang)
        else:
            self.prompt = prompt or ""
        self.session = Session(language=lang, entity=copy.deepcopy(entity), status="running")
        if text is None:
            self.session.generator = generator_info(gen, self.prompt, self.params)
        else:
            self.session.generator = GeneratorInfo(backend="none", model="", prompt=self.prompt,
                                                   params={}, seed=None)
        self.session.config = jsonable(p.describe(lang))
        self.langs = evidence_langs(self.cfg, lang)
        # a completion prompt ends with the name the model continues ("... Marie Curie"): the text
        # starts with it, so that the first sentence has its subject
        self.lead = ""
        if text is None and entity.name and self.prompt.endswith(entity.name):
            self.lead = entity.name
        self.raw = self.lead
        self.clean = ""
        self.emitted = ""          # cleaned text already sent in TokenEvents
        self.committed = 0         # end offset (clean text) of the last sentence taken for checking
        self.sentences: list[Sentence] = []
        self.seen_sentences: set[str] = set()
        self.facts: dict[str, _FactState] = {}
        self.pending_sentences = 0
        self.pending_facts = 0
        self.gen_done = text is not None
        self.gen_reason: str | None = None
        self.reason: str | None = None     # final stop reason decided by the pipeline
        self.samples: list[str] | None = None
        self.samples_pending = False
        self.evidence: dict[str, Evidence] = {}
        self.tokens = 0
        self.stats = RunStats(started=time.monotonic())
        p.stats = self.stats
        self.checks_dirty = True
        self.cut: int | None = None   # drift / repetition stops: the session text ends here
        self.notices_seen: dict[int, int] = {}

    # ------------------------------------------------------------------ threads

    def _submit(self, fn: Callable, *args) -> None:
        if self.closed:
            return
        try:
            fut = self.pool.submit(self._guard, fn, *args)
        except RuntimeError:   # pool shut down
            return
        self.futures.add(fut)
        fut.add_done_callback(self.futures.discard)

    def _guard(self, fn: Callable, *args) -> None:
        if self.closed:
            return
        try:
            fn(*args)
        except BaseException as exc:  # noqa: BLE001 - every failure ends the run cleanly
            self.inbox.put(("error", exc, fn.__name__))

    def _generate(self) -> None:
        gen = self.p.generator
        reason = "eos"
        try:
            for chunk in gen.stream(self.prompt, self.params, self.gen_stop):
                self.inbox.put(("chunk", chunk))
                if chunk.done:
                    reason = chunk.stop_reason or "eos"
                    break
                if self.gen_stop.is_set():
                    reason = "user"
                    break
        except BaseException as exc:  # noqa: BLE001
            self.inbox.put(("error", exc, "generate"))
            return
        self.inbox.put(("gen_done", reason))

    def _samples(self) -> None:
        n = int(self.cfg.selfcheck_samples)
        out: list[str] = []
        for i in range(n):
            if self.gen_stop.is_set() or self.closed:
                break
            params = replace(self.params, seed=self.params.seed + 1 + i)
            parts = []
            for chunk in self.p.generator.stream(self.prompt, params, self.gen_stop):
                parts.append(chunk.text)
                if chunk.done:
                    break
            out.append(clean_text("".join(parts)))
            self.inbox.put(("progress", Progress("selfcheck", i + 1, n, f"SelfCheck sample {i + 1}/{n}")))
        self.inbox.put(("samples", out))

    def _extract(self, sent: Sentence, text: str) -> None:
        facts = self.p.extractor.extract(sent, text, self.lang, self.entity.name)
        self.inbox.put(("facts", sent, list(facts)))

    def _check(self, fact_id: str, fact_text: str) -> None:
        passages = list(self.p.retriever.retrieve(self.entity, fact_text, self.langs, self.cfg.k))
        self.inbox.put(("evidence", fact_id, passages))
        if self.closed:
            return
        v = self.p.verifier
        vname = getattr(v, "name", type(v).__name__)
        vversion = str(getattr(v, "version", ""))
        cache = self.p.cache
        key = None
        verdict = None
        if cache is not None:
            key = VerdictCache.key(vname, vversion, self.entity.name, self.lang, fact_text,
                                   [e.id for e in passages])
            verdict = cache.get(key)
            if verdict is not None:
                self.inbox.put(("cache_hit",))
        if verdict is None:
            verdict = v.verify(fact_text, self.entity.name, self.lang, passages)
            if verdict.label not in LABELS:
                raise MfactError(f"the verifier {vname} returned an unknown label {verdict.label!r}",
                                 "a verifier must answer S, NS or IR")
            verdict.confidence = min(1.0, max(0.0, float(verdict.confidence)))
            known = {e.id for e in passages}
            verdict.evidence = [e for e in verdict.evidence if e in known]
            if not verdict.verifier:
                verdict.verifier = f"{vname}/{vversion}" if vversion else vname
            if cache is not None and key is not None:
                cache.put(key, verdict)
        self.inbox.put(("verdict", fact_id, verdict))

    # ------------------------------------------------------------------ main loop

    def events(self) -> Iterator[Event]:
        if self.given_text is not None:
            self.raw = self.given_text
            self.clean = clean_text(self.raw)
            self.stats.first_token = self.stats.last_token = time.monotonic()
            if self.clean:
                self.emitted = self.clean
                yield TokenEvent(text=self.clean, tokens=0, total_tokens=0, tokens_per_s=0.0)
            yield ProgressEvent(Progress("generate", 0.0, 0.0, "text given"))
            self.gen_reason = "eos"
            yield from self._commit(final=True)
        elif self.replay is not None:
            text, tokens, reason = self.replay
            yield from self._on_chunk(Chunk(text, tokens=tokens))
            yield from self._handle(("gen_done", reason))
        else:
            threading.Thread(target=self._generate, name="mfact-generate", daemon=True).start()
        yield from self._stage_notices()

        while True:
            if self.user_stop.is_set() and self.reason is None:
                self.reason = "user"
                self.gen_stop.set()
                yield from self._finish_stopped()
                return
            if self._all_done():
                yield from self._finish()
                return
            try:
                msg = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            kind = msg[0]
            if kind == "error":
                yield from self._fail(msg[1], msg[2])
                return
            yield from self._handle(msg)

    def _stage_notices(self) -> Iterator[Event]:
        """Notices the stages collected (e.g. the retriever's "no network: offline sources only")."""
        for stage in (self.p.retriever, self.p.verifier, self.p.extractor):
            notes = getattr(stage, "notices", None)
            if not isinstance(notes, list):
                continue
            key = id(stage)
            seen = self.notices_seen.get(key, 0)
            for n in list(notes)[seen:]:
                yield NoticeEvent("warning", str(n))
            self.notices_seen[key] = max(seen, len(notes))

    def _all_done(self) -> bool:
        return (self.gen_done and self.pending_sentences == 0 and self.pending_facts == 0
                and not self.samples_pending)

    def _handle(self, msg: tuple) -> Iterator[Event]:
        kind = msg[0]
        if kind == "chunk":
            yield from self._on_chunk(msg[1])
        elif kind == "gen_done":
            self.gen_reason = msg[1]
            self.stats.last_token = self.stats.last_token or time.monotonic()
            yield from self._flush_tokens()
            yield ProgressEvent(Progress("generate", float(self.tokens), float(self.tokens),
                                         f"generation finished ({msg[1]})"))
            if self.reason is None:
                yield from self._commit(final=True)
            self.gen_done = True
            if (self.cfg.selfcheck_samples > 0 and self.reason is None and msg[1] in ("eos", "max_tokens")
                    and self.p.generator is not None):
                if self.p.embedder is None:
                    yield NoticeEvent("warning", "SelfCheck skipped: no embedder configured")
                else:
                    self.samples_pending = True
                    threading.Thread(target=self._guard, args=(self._samples,), daemon=True,
                                     name="mfact-selfcheck").start()
        elif kind == "facts":
            yield from self._on_facts(msg[1], msg[2])
        elif kind == "evidence":
            fid, passages = msg[1], msg[2]
            for e in passages:
                self.evidence.setdefault(e.id, e)
            yield EvidenceEvent(fid, [copy.copy(e) for e in passages])
            yield from self._stage_notices()
        elif kind == "cache_hit":
            self.stats.cache_hits += 1
        elif kind == "verdict":
            yield from self._on_verdict(msg[1], msg[2])
        elif kind == "human":
            fid, label = msg[1], msg[2]
            st = self.facts.get(fid)
            if st is not None:
                st.fact.human = HumanLabel(label) if label else None
                yield self._metrics()
        elif kind == "progress":
            yield ProgressEvent(msg[1])
        elif kind == "samples":
            self.samples = msg[1]
            self.samples_pending = False

    # ------------------------------------------------------------------ tokens and sentences

    def _on_chunk(self, chunk: Chunk) -> Iterator[Event]:
        now = time.monotonic()
        if chunk.text or chunk.tokens:
            if self.stats.first_token is None:
                self.stats.first_token = now
            self.stats.last_token = now
        if chunk.tokens:
            self.tokens += chunk.tokens
            self.stats.tokens = self.tokens
        if not chunk.text:
            return
        self.raw += chunk.text
        self.clean = clean_text(self.raw)
        yield from self._emit_tokens(chunk, final=False)
        if self.reason is None:
            yield from self._commit(final=False)

    def _tokens_per_s(self) -> float:
        tps = self.stats.tokens_per_s
        if tps is None:
            dt = (self.stats.last_token or time.monotonic()) - self.stats.started
            return self.tokens / dt if dt > 0 else 0.0
        return tps

    def _emit_tokens(self, chunk: Chunk | None, final: bool) -> Iterator[Event]:
        """Send the new part of the cleaned text. What may still change when more text arrives is
        held back: from the first possible markup opener (`<`, `[`, `*`, `_`, backtick, `~`, `&`)
        not yet sent, and a line of fewer than 4 characters (a bullet or heading may be starting).
        Text of sentences already taken for checking is always sent."""
        text = self.clean
        limit = len(text)
        if not final:
            m = _OPENERS.search(text, len(self.emitted))
            if m:
                limit = m.start()
            line_start = text.rfind("\n") + 1
            if len(text) - line_start < 4:
                limit = min(limit, line_start)
            limit = max(limit, min(self.committed, len(text)))
        if not text.startswith(self.emitted):
            # cleaning changed text already sent (rare): the session's text is authoritative
            common = 0
            for a, b in zip(text, self.emitted):
                if a != b:
                    break
                common += 1
            self.emitted = self.emitted[:common]
        if limit <= len(self.emitted):
            return
        delta = text[len(self.emitted):limit]
        self.emitted = text[:limit]
        yield TokenEvent(text=delta, tokens=chunk.tokens if chunk else 0, total_tokens=self.tokens,
                         tokens_per_s=round(self._tokens_per_s(), 3),
                         logprob=chunk.logprob if chunk else None,
                         entropy=chunk.entropy if chunk else None)

    def _flush_tokens(self) -> Iterator[Event]:
        yield from self._emit_tokens(None, final=True)

    def _commit(self, final: bool) -> Iterator[Event]:
        """Take newly completed sentences for checking. While streaming, a sentence counts as
        complete only when something follows its end (so "3." before "5" is not cut); at the end of
        the stream the unfinished last sentence is dropped unless the text ended naturally (eos) or
        was given."""
        text = self.clean
        if final:
            if self.gen_reason == "eos" or self.given_text is not None:
                end = len(text)
            else:
                end = complete_prefix(text, self.lang, final=True)
        else:
            end = complete_prefix(text, self.lang)
            if end >= len(text.rstrip()):
                return    # the boundary is at the very end: wait for the next chunk
        if end <= self.committed:
            return
        segment = text[self.committed:end]
        sents = sentences_of(segment, self.lang)
        new: list[Sentence] = []
        for s in sents:
            start, stop_ = s.start + self.committed, s.end + self.committed
            new.append(Sentence(len(self.sentences) + len(new), start, stop_, text[start:stop_]))
        self.committed = end
        for s in new:
            key = norm_sentence(s.text)
            if self.cfg.stop_on_repeat and self.params.stop_on_repeat and key and key in self.seen_sentences:
                self.reason = "repetition"
                self.gen_stop.set()
                self.cut = s.start
                self.session.checks["repeated_sentence"] = {"start": s.start, "end": s.end}
                yield NoticeEvent("info", f"stopped: sentence {s.index + 1} repeats an earlier one")
                return
            self.seen_sentences.add(key)
            self.sentences.append(s)
            self.checks_dirty = True
            self.stats.last_sentence = time.monotonic()
            yield SentenceEvent(replace(s))
            self.pending_sentences += 1
            self._submit(self._extract, s, text)

    # ------------------------------------------------------------------ facts and verdicts

    def _on_facts(self, sent: Sentence, extracted: list) -> Iterator[Event]:
        self.pending_sentences -= 1
        for j, ef in enumerate(extracted):
            a, b = int(ef.span[0]), int(ef.span[1])
            if not (0 <= a <= b <= len(self.clean)):
                a, b = sent.start, sent.end
            fid = f"s{sent.index + 1}f{j + 1}"
            fact = Fact(id=fid, text=ef.text, sentence=sent.index, span=(a, b))
            self.facts[fid] = _FactState(fact)
            self.session.facts.append(fact)
            self.stats.facts += 1
            yield FactEvent(replace(fact))
            if self.reason in ("user", "error"):
                continue
            self.pending_facts += 1
            self._submit(self._check, fid, ef.text)

    def _on_verdict(self, fid: str, verdict: Verdict) -> Iterator[Event]:
        st = self.facts.get(fid)
        if st is None or st.done:
            return
        st.done = True
        self.pending_facts -= 1
        st.fact.auto = verdict
        self.stats.verdicts += 1
        self.stats.last_verdict = time.monotonic()
        yield VerdictEvent(fid, replace(verdict, evidence=list(verdict.evidence)))
        yield self._metrics()
        if self.cfg.stop_at_drift and self.reason is None and not self.gen_done:
            yield from self._check_drift()

    def _ordered_facts(self) -> list[Fact]:
        return sorted(self.session.facts, key=lambda f: (f.span[0], f.sentence, f.span[1]))

    def _check_drift(self) -> Iterator[Event]:
        from ..metrics import semantic_drift

        labels = []
        for f in self._ordered_facts():
            if f.label is None:
                break       # only the labelled prefix in text order counts
            labels.append(f.label)
        d = semantic_drift(labels, self.cfg.drift_margin)
        if d.score is not None and d.score >= self.cfg.drift_threshold:
            self.reason = "drift"
            self.cut = self.committed
            self.gen_stop.set()
            self.session.checks["drift_stop"] = {"facts": len(labels), "score": round(d.score, 4),
                                                 "point": d.point}
            yield NoticeEvent("info", f"stopped at drift: SD {d.score:.3f} >= {self.cfg.drift_threshold}"
                                      f" after {len(labels)} facts (drift point {d.point})")

    def _sync_session(self, final: bool = False) -> None:
        s = self.session
        if self.cut is None:
            text = self.clean
        else:   # cut after the last checked sentence, without the blank lines before the cut
            keep = max([len(self.clean[:self.cut].rstrip())] + [f.span[1] for f in s.facts])
            text = self.clean[:keep]
        if text != s.text:
            self.checks_dirty = True
        s.text = text
        s.raw_text = self.raw if self.raw != text else None
        s.tokens = self.tokens
        # every retrieved passage, once (the evidence pane shows them all, verdicts cite some)
        s.evidence = list(self.evidence.values())
        if self.checks_dirty or final:
            from ..checks import calm_checks
            try:
                s.checks.update(calm_checks(s.text, s.language))
            except Exception as exc:  # noqa: BLE001 - a check failing must not end the run
                log.warning("CaLM checks failed: %s", exc)
            self.checks_dirty = False

    def _metrics(self, final: bool = False) -> MetricsEvent:
        from ..metrics import session_metrics

        self._sync_session(final)
        s = self.session
        try:
            s.metrics = session_metrics(s, p_value=final, m=self.cfg.drift_margin)
        except Exception as exc:  # noqa: BLE001
            log.warning("metrics failed: %s", exc)
        if "selfcheck" in s.checks:
            s.metrics["selfcheck"] = s.checks["selfcheck"].get("mean")
        return MetricsEvent(copy.deepcopy(s.metrics), copy.deepcopy(s.checks))

    # ------------------------------------------------------------------ endings

    def _selfcheck(self) -> Iterator[Event]:
        if self.samples is None or self.p.embedder is None:
            return
        sample_sents = [[s.text.strip() for s in sentences_of(t, self.lang)] for t in self.samples]
        main = [s.text.strip() for s in self.sentences]
        try:
            scores = selfcheck_scores(main, sample_sents, self.p.embedder)
        except Exception as exc:  # noqa: BLE001
            yield NoticeEvent("warning", f"SelfCheck failed: {exc}")
            return
        by_sentence = [{"index": s.index, "start": s.start, "end": s.end, "score": sc}
                       for s, sc in zip(self.sentences, scores)]
        vals = [x for x in scores if x is not None]
        self.session.checks["selfcheck"] = {
            "samples": len(self.samples), "embedder": getattr(self.p.embedder, "name", ""),
            "sentences": by_sentence, "mean": round(sum(vals) / len(vals), 4) if vals else None,
            "facts": {f.id: scores[f.sentence] for f in self.session.facts if f.sentence < len(scores)},
        }

    def _finalize(self, reason: str) -> Session:
        s = self.session
        s.stop_reason = reason
        s.status = {"user": "stopped", "error": "error"}.get(reason, "done")
        s.sort_facts()
        self._sync_session(final=True)
        self.stats.finished = time.monotonic()
        return s

    def _finish(self) -> Iterator[Event]:
        reason = self.reason or self.gen_reason or "eos"
        yield from self._selfcheck()
        s = self._finalize(reason)
        yield self._metrics(final=True)
        yield StopEvent(reason, _snapshot(s))

    def _finish_stopped(self) -> Iterator[Event]:
        """The user stopped: cancel what has not started, give running work a moment."""
        self.gen_stop.set()
        for fut in list(self.futures):
            fut.cancel()
        deadline = time.monotonic() + STOP_GRACE_S
        while time.monotonic() < deadline:
            running = [f for f in list(self.futures) if not f.done()]
            try:
                msg = self.inbox.get(timeout=0.02)
            except queue.Empty:
                if not running:
                    break
                continue
            if msg[0] in ("evidence", "verdict", "chunk", "cache_hit", "human"):
                if msg[0] == "chunk":
                    c = msg[1]
                    self.raw += c.text
                    self.tokens += c.tokens
                    self.clean = clean_text(self.raw)
                    continue
                for ev in self._handle(msg):
                    if not isinstance(ev, MetricsEvent):
                        yield ev
        self.closed = True
        s = self._finalize("user")
        yield self._metrics(final=False)
        yield StopEvent("user", _snapshot(s))

    def _fail(self, exc: BaseException, where: str) -> Iterator[Event]:
        self.closed = True
        self.gen_stop.set()
        for fut in list(self.futures):
            fut.cancel()
        if isinstance(exc, MfactError):
            msg, hint = exc.message, exc.hint
        else:
            log.error("pipeline stage %s failed", where, exc_info=exc)
            msg, hint = f"{where} failed: {type(exc).__name__}: {exc}", "details in the log"
        yield NoticeEvent("error", msg, hint)
        self.session.checks["error"] = {"stage": where, "message": msg}
        s = self._finalize("error")
        yield self._metrics(final=False)
        yield StopEvent("error", _snapshot(s))

    def shutdown(self) -> None:
        self.closed = True
        self.gen_stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)


def _snapshot(s: Session) -> Session:
    return copy.deepcopy(s)

