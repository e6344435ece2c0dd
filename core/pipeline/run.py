"""One run of a CheckPipeline: its loop reads the inbox and emits the events.

Only the thread iterating `Run.events()` changes the run's state; the worker threads (workers.py)
talk to it through frozen messages (messages.py), dispatched here with `match`.
"""
from __future__ import annotations

import copy
import logging
import threading
import time
from dataclasses import replace
from typing import Any, Iterator

from ..events import (Event, EvidenceEvent, FactEvent, MetricsEvent, NoticeEvent, ProgressEvent,
                      SentenceEvent, StopEvent, TokenEvent, VerdictEvent)
from ..config import Config
from ..figures import CheckError, RepeatedSentence
from ..errors import MfactError
from ..protocols import Chunk, DecodingParams, FactContext, GeneratorBase, Progress, Sentence
from ..session import Fact, GeneratorInfo, Session, Verdict
from .check import CachedVerifier, FactChecker, check_fact
from .context import RecordContext, RunRequest, Stages
from .describe import decoding_params, evidence_langs, generator_info, new_notices
from .messages import (ChunkMsg, ErrorMsg, EvidenceMsg, FactsMsg, GenDone, HumanMsg, Message, ProgressMsg,
                       SamplesMsg, VerdictMsg)
from .record import Record
from .session_builder import SessionBuilder
from .stats import RunStats
from .selfcheck import SampleWatch, sample_texts
from .text import TextStream, lead_name, sentence_context
from .workers import Workers

log = logging.getLogger("mfact.pipeline")

STOP_GRACE_S = 1.0          # how long a stopped run waits for verifications already running
MAX_WARNINGS = 50           # warnings kept in a session's checks (each told once)



def _kept(session: Session, notes: list[str]) -> Iterator[Event]:
    """The stages' notices as warnings, each kept in the session's checks too (so a source skipped
    for a bad reply is on record, not only on the screen)."""
    for n in notes:
        kept = session.checks.warnings or []
        if n not in kept and len(kept) < MAX_WARNINGS:
            session.checks.warnings = kept + [n]
        yield NoticeEvent("warning", n)


def _lost_notice(reason: str) -> Iterator[Event]:
    """The warning of a text cut off by a lost connection to the model server."""
    if reason == "connection_lost":
        yield NoticeEvent("warning", "the model server's connection was lost before the end of the text:"
                          " the text is incomplete (its unfinished last sentence is not checked)",
                          "check the server's log and run it again")

class Run:
    """State of one `CheckPipeline.run` call."""

    def __init__(self, stages: Stages, cfg: Config, verifier: CachedVerifier, config: dict[str, Any],
                 req: RunRequest):
        # a text generated beforehand (a batch) is replayed as one streamed chunk
        text, entity, lang = req.text, req.entity, req.lang
        generated = req.generated
        self.replay = (text or "", int(generated[0]), str(generated[1])) if generated is not None else None
        if generated is not None:
            text = None
        self.stages, self.cfg, self.entity, self.lang = stages, cfg, entity, lang
        self.user_stop = req.stop or threading.Event()
        self.given_text = text
        self.gen_stop = threading.Event()          # tells the generation thread to stop
        self.work = Workers(self.cfg.workers)
        self.params = req.params or decoding_params(self.cfg, req.seed)
        gen = stages.generator
        self.prompt = req.prompt or (gen.default_prompt(entity.name, lang) if text is None and gen else "")
        session = _new_session(req, gen, text, self.prompt, self.params, config)
        self.builder = SessionBuilder(session)
        self.session = session
        self.langs = evidence_langs(self.cfg, lang)
        self.verifier = verifier
        self.text = TextStream(lang, lead=lead_name(self.prompt, entity.name) if text is None else "",
                               repeat_guard=bool(self.cfg.stop_on_repeat and self.params.stop_on_repeat))
        self.done_facts: set[str] = set()
        self.pending_sentences = 0
        self.pending_facts = 0
        self.gen_done = text is not None
        self.gen_reason: str | None = None
        self.reason: str | None = None     # final stop reason decided by the pipeline
        self.samples: list[str] | None = None
        self.samples_pending = False
        self.stats = RunStats(started=time.monotonic())
        self.record = Record(RecordContext(session, self.text, lang, stages.detector, stages.embedder,
                                           cfg.drift_margin, cfg.drift_threshold, self.stats))
        self.notices_seen: dict[int, int] = {}

    @property
    def tokens(self) -> int:
        """Tokens streamed so far (the session recorder keeps the count)."""
        return self.record.tokens

    # ------------------------------------------------------------------ worker-thread work

    def _chunks(self) -> Iterator[Message]:
        reason = "eos"
        for chunk in _generator(self.stages).stream(self.prompt, self.params, self.gen_stop):
            yield ChunkMsg(chunk)
            if chunk.done:
                reason = chunk.stop_reason or "eos"
                break
            if self.gen_stop.is_set():
                reason = "user"
                break
        yield GenDone(reason)

    def _samples(self) -> None:
        n = int(self.cfg.selfcheck_samples)

        def progress(i: int) -> None:
            self.work.put(ProgressMsg(Progress("selfcheck", i, n, f"SelfCheck sample {i}/{n}")))

        texts = sample_texts(_generator(self.stages), self.prompt, self.params, n,
                             SampleWatch(self.gen_stop, lambda: self.work.closed, progress))
        self.work.put(SamplesMsg(tuple(texts)))

    def _extract(self, sent: Sentence, text: str) -> None:
        facts = self.stages.extractor.extract(sent, text, self.lang, self.entity.name)
        self.work.put(FactsMsg(sent, tuple(facts)))

    def _check(self, fact_id: str, fact_text: str, context: FactContext | None = None) -> None:
        def heard(passages: list) -> bool:
            self.work.put(EvidenceMsg(fact_id, tuple(passages)))
            return not self.work.closed

        checker = FactChecker(self.stages.retriever, self.verifier, self.langs, self.cfg.k)
        result = check_fact(fact_text, self.entity, self.lang, checker=checker, on_evidence=heard, context=context)
        if result.verdict is not None:
            self.work.put(VerdictMsg(fact_id, result.verdict, result.cached))

    # ------------------------------------------------------------------ main loop

    def _begin(self) -> Iterator[Event]:
        if self.given_text is not None:
            self.text.feed(self.given_text)
            self.stats.first_token = self.stats.last_token = time.monotonic()
            shown = self.text.show(final=True)
            if shown:
                yield TokenEvent(text=shown, tokens=0, total_tokens=0, tokens_per_s=0.0)
            yield ProgressEvent(Progress("generate", 0.0, 0.0, "text given"))
            self.gen_reason = "eos"
            yield from self._commit(final=True)
        elif self.replay is not None:
            text, tokens, reason = self.replay
            yield from self._on_chunk(Chunk(text, tokens=tokens))
            yield from self._handle(GenDone(reason))
        else:
            self.work.stream(self._chunks, "mfact-generate", "generate")

    def events(self) -> Iterator[Event]:
        yield from self._begin()
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
            msg = self.work.get(timeout=0.05)
            if isinstance(msg, ErrorMsg):
                yield from self._fail(msg.error, msg.where)
                return
            if msg is not None:
                yield from self._handle(msg)

    def _stage_notices(self) -> Iterator[Event]:
        """Notices the stages collected (e.g. the retriever's "no network: offline sources only")."""
        yield from _kept(self.session, new_notices((self.stages.retriever, self.stages.verifier, self.stages.extractor),
                                                   self.notices_seen))

    def _all_done(self) -> bool:
        return (self.gen_done and self.pending_sentences == 0 and self.pending_facts == 0
                and not self.samples_pending)

    def _handle(self, msg: Message) -> Iterator[Event]:
        match msg:
            case ChunkMsg(chunk):
                yield from self._on_chunk(chunk)
            case GenDone(reason):
                yield from self._on_gen_done(reason)
            case FactsMsg(sentence, facts):
                yield from self._on_facts(sentence, facts)
            case EvidenceMsg(fact_id, passages):
                ev = EvidenceEvent(fact_id, [copy.copy(e) for e in passages])
                self.builder.add_evidence(fact_id, list(passages))
                yield ev
                yield from self._stage_notices()
            case VerdictMsg(fact_id, verdict, cached):
                if cached:
                    self.stats.cache_hits += 1
                yield from self._on_verdict(fact_id, verdict)
            case HumanMsg(fact_id, label):
                if self.builder.set_human(fact_id, label) is not None:
                    yield self.record.metrics()
            case ProgressMsg(progress):
                yield ProgressEvent(progress)
            case SamplesMsg(samples):
                self.samples = list(samples)
                self.samples_pending = False

    # ------------------------------------------------------------------ tokens and sentences

    def _on_chunk(self, chunk: Chunk) -> Iterator[Event]:
        now = time.monotonic()
        if chunk.text or chunk.tokens:
            if self.stats.first_token is None:
                self.stats.first_token = now
            self.stats.last_token = now
        if chunk.tokens:
            self.record.tokens += chunk.tokens
            self.stats.tokens = self.tokens
        if not chunk.text:
            return
        self.text.feed(chunk.text)
        yield from self._emit_tokens(chunk, final=False)
        if self.reason is None:
            yield from self._commit(final=False)

    def _on_gen_done(self, reason: str) -> Iterator[Event]:
        self.gen_reason = reason
        self.stats.last_token = self.stats.last_token or time.monotonic()
        yield from self._emit_tokens(None, final=True)
        yield ProgressEvent(Progress("generate", float(self.tokens), float(self.tokens),
                                     f"generation finished ({reason})"))
        if self.reason is None:
            yield from self._commit(final=True)
        self.gen_done = True
        yield from _lost_notice(reason)
        if (self.cfg.selfcheck_samples > 0 and self.reason is None and reason in ("eos", "max_tokens")
                and self.stages.generator is not None):
            if self.stages.embedder is None:
                yield NoticeEvent("warning", "SelfCheck skipped: no embedder configured")
            else:
                self.samples_pending = True
                self.work.thread(self._samples, "mfact-selfcheck")

    def _emit_tokens(self, chunk: Chunk | None, final: bool) -> Iterator[Event]:
        delta = self.text.show(final)
        if not delta:
            return
        yield TokenEvent(text=delta, tokens=chunk.tokens if chunk else 0, total_tokens=self.tokens,
                         tokens_per_s=round(self.stats.rate(self.tokens), 3),
                         logprob=chunk.logprob if chunk else None,
                         entropy=chunk.entropy if chunk else None)

    def _commit(self, final: bool) -> Iterator[Event]:
        """Take newly completed sentences for checking (TextStream.commit); the unfinished last
        one counts at the end only when the text ended naturally (eos) or was given."""
        whole = self.gen_reason == "eos" or self.given_text is not None
        taken = self.text.commit(final, whole=whole)
        for s in taken.sentences:
            self.record.text_changed()
            self.stats.last_sentence = time.monotonic()
            yield SentenceEvent(replace(s))
            self.pending_sentences += 1
            self.work.submit(self._extract, s, self.text.clean)
        rep = taken.repeated
        if rep is not None:
            self.reason = "repetition"
            self.gen_stop.set()
            self.record.cut = rep.start
            self.session.checks.repeated_sentence = RepeatedSentence(start=rep.start, end=rep.end)
            yield NoticeEvent("info", f"stopped: sentence {rep.index + 1} repeats an earlier one")

    # ------------------------------------------------------------------ facts and verdicts

    def _on_facts(self, sent: Sentence, extracted: tuple) -> Iterator[Event]:
        self.pending_sentences -= 1
        for j, ef in enumerate(extracted):
            a, b = int(ef.span[0]), int(ef.span[1])
            if not (0 <= a <= b <= len(self.text.clean)):
                a, b = sent.start, sent.end
            fact = self.builder.add_fact(Fact(id=f"s{sent.index + 1}f{j + 1}", text=ef.text,
                                              sentence=sent.index, span=(a, b)))
            self.stats.facts += 1
            yield FactEvent(replace(fact))
            if self.reason in ("user", "error"):
                continue
            self.pending_facts += 1
            self.work.submit(self._check, fact.id, ef.text, sentence_context(sent, (a, b)))

    def _on_verdict(self, fid: str, verdict: Verdict) -> Iterator[Event]:
        fact = self.builder.fact(fid)
        if fact is None or fid in self.done_facts:
            return
        self.done_facts.add(fid)
        self.pending_facts -= 1
        fact.auto = verdict
        self.stats.verdicts += 1
        self.stats.last_verdict = time.monotonic()
        yield VerdictEvent(fid, replace(verdict, evidence=list(verdict.evidence)))
        yield self.record.metrics()
        if self.cfg.stop_at_drift and self.reason is None and not self.gen_done:
            yield from self._check_drift()

    def _check_drift(self) -> Iterator[Event]:
        stop = self.record.drift_stop()
        if stop is not None:
            self.reason = "drift"
            self.record.cut = self.text.committed
            self.gen_stop.set()
            yield NoticeEvent("info", stop)

    # ------------------------------------------------------------------ endings

    def _finish(self) -> Iterator[Event]:
        reason = self.reason or self.gen_reason or "eos"
        yield from self.record.selfcheck(self.samples)
        s = self.record.finalize(reason)
        yield self.record.metrics(final=True)
        yield StopEvent(reason, copy.deepcopy(s))

    def _finish_stopped(self) -> Iterator[Event]:
        """The user stopped: cancel what has not started, give running work a moment."""
        self.gen_stop.set()
        self.work.cancel()
        for msg in self.work.drain_for(STOP_GRACE_S):
            match msg:
                case ChunkMsg(chunk):
                    self.text.feed(chunk.text)
                    self.record.tokens += chunk.tokens
                case EvidenceMsg() | VerdictMsg() | HumanMsg():
                    for ev in self._handle(msg):
                        if not isinstance(ev, MetricsEvent):
                            yield ev
        self.work.closed = True
        s = self.record.finalize("user")
        yield self.record.metrics(final=False)
        yield StopEvent("user", copy.deepcopy(s))

    def _fail(self, exc: BaseException, where: str) -> Iterator[Event]:
        self.work.closed = True
        self.gen_stop.set()
        self.work.cancel()
        msg, hint = _failure(exc, where)
        yield NoticeEvent("error", msg, hint)
        self.session.checks.error = CheckError(stage=where, message=msg)
        s = self.record.finalize("error")
        yield self.record.metrics(final=False)
        yield StopEvent("error", copy.deepcopy(s))

    def shutdown(self) -> None:
        self.gen_stop.set()
        self.work.shutdown()


def _new_session(req: RunRequest, gen: GeneratorBase | None, given_text: str | None, prompt: str,
                 params: DecodingParams, config: dict[str, Any]) -> Session:
    """The session a run starts from: its generator (none for a given text) and configuration."""
    session = Session(language=req.lang, entity=copy.deepcopy(req.entity), status="running")
    session.generator = (generator_info(gen, prompt, params) if given_text is None and gen is not None else
                         GeneratorInfo(backend="none", model="", prompt=prompt, params={}, seed=None))
    session.config = config
    session.question = req.question
    session.config["text_source"] = "user" if given_text is not None else "generator"   # or batched
    return session


def _generator(stages: Stages) -> GeneratorBase:
    if stages.generator is None:   # CheckPipeline.run refuses a run with neither a generator nor a text
        raise MfactError("no generator and no text to check", "give a text or configure a model")
    return stages.generator


def _failure(exc: BaseException, where: str) -> tuple[str, str]:
    """The one-line message and hint of a failed stage."""
    if isinstance(exc, MfactError):
        return exc.message, exc.hint
    log.error("pipeline stage %s failed", where, exc_info=exc)
    return f"{where} failed: {type(exc).__name__}: {exc}", "details in the log"
