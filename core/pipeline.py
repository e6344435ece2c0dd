"""The incremental checking pipeline: one object consumes the generator's stream and emits typed
events (core/events.py) while the text is still being written.

    pipeline = build_pipeline(cfg)                      # real stages from the configuration
    for ev in pipeline.run("Marie Curie", "en", stop=stop_event):
        ...                                             # TokenEvent, SentenceEvent, FactEvent, ...

Threads: `run()` is a plain generator meant to be iterated in one worker thread (the TUI's worker,
the CLI's main thread). Generation runs in its own thread; extraction, retrieval and verification
run in a pool of `cfg.workers` threads while generation continues. Everything they produce comes
back through one queue, so the session is only ever changed by the thread iterating `run()`; the
events carry copies, never objects the pipeline still changes.

Order of events for one run: TokenEvent* interleaved with SentenceEvent (as soon as a sentence is
complete), FactEvent (its facts, pending), EvidenceEvent and VerdictEvent per fact, MetricsEvent after
every verdict; NoticeEvent for warnings and errors; the last event is always StopEvent(reason,
session) with the complete session (or the partial one on `user` / `error`).
"""
from __future__ import annotations

import copy
import hashlib
import json
import logging
import queue
import re
import sqlite3
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from .config import Config
from .events import (Event, EvidenceEvent, FactEvent, MetricsEvent, NoticeEvent, ProgressEvent,
                     SentenceEvent, StopEvent, TokenEvent, VerdictEvent)
from .protocols import (Chunk, DecodingParams, Embedder, Extractor, Generator, LanguageDetector,
                        MfactError, Progress, Retriever, Sentence, Verifier)
from .session import LABELS, Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, Verdict

log = logging.getLogger("mfact.pipeline")

PIPELINE_VERSION = "1"
STOP_GRACE_S = 1.0          # how long a stopped run waits for verifications already running


# --------------------------------------------------------------------------- segmentation glue
#
# The segmentation of mfact.core.checking is used when it is installed; the fallbacks below only
# keep the pipeline usable (and testable) without it.

_FALLBACK_END = re.compile(r"[.!?…。！？।॥؟۔]+[\"'”’»)\]]*(?=\s|$)|[。！？]")
_ABBREV = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|St|Prof|Jr|Sr|vs|etc|No|Mt)|\b[A-Z]|\d)\.$")


def _checking():
    try:
        from . import checking  # type: ignore[attr-defined]
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.endswith("checking"):
            return None
        raise
    return checking


def _fallback_split(text: str) -> list[Sentence]:
    out: list[Sentence] = []
    start = 0
    for m in _FALLBACK_END.finditer(text):
        end = m.end()
        if _ABBREV.search(text[start:m.start() + 1]) and m.group(0) == ".":
            nxt = text[end:end + 2].strip()
            if nxt and not nxt[0].isupper():
                continue
            if re.search(r"\d\.$", text[start:m.start() + 1]) and nxt[:1].isdigit():
                continue
            if re.search(r"\b[A-Z]\.$|\b(?:Dr|Mr|Mrs|Ms|St|Prof)\.$", text[start:m.start() + 1]):
                continue
        _add_sentence(out, text, start, end)
        start = end
    _add_sentence(out, text, start, len(text))
    return out


def _add_sentence(out: list[Sentence], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    if not piece.strip():
        return
    a = start + len(piece) - len(piece.lstrip())
    b = end - (len(piece) - len(piece.rstrip()))
    out.append(Sentence(len(out), a, b, text[a:b]))


def split_sentences_safe(text: str, lang: str) -> list[Sentence]:
    """Sentences of `text` with exact offsets (mfact.core.checking.split_sentences when present)."""
    ch = _checking()
    fn = getattr(ch, "split_sentences", None) if ch else None
    sents = list(fn(text, lang)) if fn else _fallback_split(text)
    return [s for s in sents if text[s.start:s.end].strip()]


def complete_prefix_safe(text: str, lang: str, final: bool = False) -> int:
    """End offset of the last complete sentence of `text` (0 when none is complete). `final`: the
    stream has ended, so a terminator at the very end closes a sentence."""
    ch = _checking()
    fn = getattr(ch, "complete_prefix", None) if ch else None
    if fn:
        if final:
            try:
                return int(fn(text, lang, final=True))
            except TypeError:
                pass
        return int(fn(text, lang))
    sents = _fallback_split(text)
    if not sents:
        return 0
    last = sents[-1]
    tail = text[last.start:last.end].rstrip()
    if _FALLBACK_END.search(tail + " ") and tail and tail[-1] in ".!?…。！？।॥؟۔\"'”’»)]":
        return last.end
    return sents[-2].end if len(sents) > 1 else 0


def clean_text_safe(raw: str) -> str:
    ch = _checking()
    fn = getattr(ch, "clean_text", None) if ch else None
    return fn(raw) if fn else raw


_OPENERS = re.compile(r"[<\[*_`~&]")


def _norm_sentence(s: str) -> str:
    return re.sub(r"\W+", " ", s.lower()).strip()


# --------------------------------------------------------------------------- verdict cache


class VerdictCache:
    """Verdicts on disk, keyed by (verifier name + version, entity, language, fact text, evidence
    ids). SQLite under paths.cache_dir(); safe to share between threads."""

    def __init__(self, path: Path | None = None):
        from .paths import cache_dir

        self.path = Path(path) if path else cache_dir() / "verdicts.sqlite3"
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verifier TEXT,"
                         " verdict TEXT NOT NULL, created REAL)")
            self._conn = conn
        return self._conn

    @staticmethod
    def key(verifier: str, version: str, entity: str, lang: str, fact: str, evidence_ids: Sequence[str]) -> str:
        blob = json.dumps([verifier, version, entity, lang, fact, list(evidence_ids)], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Verdict | None:
        try:
            with self._lock:
                row = self._db().execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:   # a broken cache never stops checking
            log.warning("verdict cache unreadable: %s", exc)
            return None
        if row is None:
            self.misses += 1
            return None
        try:
            v = Verdict.from_dict(json.loads(row[0]), "cached verdict")
        except Exception:  # noqa: BLE001 - a corrupt row is a miss
            self.misses += 1
            return None
        self.hits += 1
        return v

    def put(self, key: str, verdict: Verdict) -> None:
        try:
            with self._lock:
                db = self._db()
                db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?)",
                           (key, verdict.verifier, json.dumps(verdict.to_dict(), ensure_ascii=False),
                            time.time()))
                db.commit()
        except sqlite3.Error as exc:
            log.warning("verdict cache not written: %s", exc)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


# --------------------------------------------------------------------------- helpers


def _jsonable(obj: Any) -> Any:
    """Plain JSON data (what a stage describes about itself may hold objects: they become text)."""
    return json.loads(json.dumps(obj, default=str, ensure_ascii=False))


def stage_info(obj: Any, kind: str) -> dict[str, Any]:
    """What a stage is, for the session's config: name, version and a few options when known."""
    if obj is None:
        return {"kind": kind, "name": None}
    d: dict[str, Any] = {"kind": kind,
                         "name": getattr(obj, "name", None) or type(obj).__name__,
                         "version": str(getattr(obj, "version", "") or "")}
    describe = getattr(obj, "describe", None)
    if callable(describe):
        try:
            extra = describe()
            if isinstance(extra, dict):
                d.update(extra)
        except Exception:  # noqa: BLE001 - description is best effort
            pass
    for attr in ("backend", "model", "sources", "dim", "prompt_style", "device"):
        v = getattr(obj, attr, None)
        if attr in d or v is None:
            continue
        if isinstance(v, (list, tuple)):
            d[attr] = [x if isinstance(x, (str, int, float)) else str(getattr(x, "name", x)) for x in v]
        elif isinstance(v, (str, int, float)):
            d[attr] = v
    return d


def decoding_params(cfg: Config, seed: int | None = None) -> DecodingParams:
    """Decoding parameters from the configuration (validated by mfact.core.models when present)."""
    try:
        from .models import decoding_params as models_params
    except ImportError:
        models_params = None
    if models_params is not None:
        d = models_params(cfg)
        if seed is not None:
            d.seed = seed
        return d
    return DecodingParams(max_tokens=cfg.max_tokens, temperature=cfg.temperature, top_p=cfg.top_p,
                          seed=cfg.seed if seed is None else seed, greedy=cfg.greedy,
                          repetition_penalty=cfg.repetition_penalty, stop_on_repeat=cfg.stop_on_repeat)


def evidence_langs(cfg: Config, lang: str) -> list[str]:
    langs = list(cfg.evidence_langs) or [lang, "en"]
    out: list[str] = []
    for x in langs:
        if x and x not in out:
            out.append(x)
    return out


def selfcheck_scores(sentences: Sequence[str], samples: Sequence[Sequence[str]], embedder: Embedder) -> list[float | None]:
    """SelfCheck consistency (science.md section 2): for each sentence, 1 - the mean over samples of
    its highest cosine similarity to a sentence of that sample. Higher = less consistent."""
    if not sentences:
        return []
    samples = [s for s in samples if s]
    if not samples:
        return [None] * len(sentences)
    q = np.asarray(embedder.embed_queries(list(sentences)), dtype=np.float32)
    sims = []
    for sample in samples:
        p = np.asarray(embedder.embed_queries(list(sample)), dtype=np.float32)
        sims.append((q @ p.T).max(axis=1))
    mean = np.clip(np.mean(np.stack(sims), axis=0), -1.0, 1.0)
    return [round(float(1.0 - x), 4) for x in mean]


@dataclass
class RunStats:
    """Timings of the last run (for bench/pipeline.py and logs). Monotonic seconds."""
    started: float = 0.0
    first_token: float | None = None
    last_token: float | None = None
    last_verdict: float | None = None
    last_sentence: float | None = None
    finished: float | None = None
    tokens: int = 0
    facts: int = 0
    verdicts: int = 0
    cache_hits: int = 0

    @property
    def verdict_lag(self) -> float | None:
        if self.last_token is None or self.last_verdict is None:
            return None
        return max(0.0, self.last_verdict - self.last_token)

    @property
    def sentence_lag(self) -> float | None:
        """Seconds from the completion of the last checked sentence to the last verdict."""
        if self.last_sentence is None or self.last_verdict is None:
            return None
        return max(0.0, self.last_verdict - self.last_sentence)

    @property
    def tokens_per_s(self) -> float | None:
        if self.first_token is None or self.last_token is None or self.tokens < 2:
            return None
        dt = self.last_token - self.first_token
        return (self.tokens - 1) / dt if dt > 0 else None


# --------------------------------------------------------------------------- the pipeline


class CheckPipeline:
    """Generation + segmentation + extraction + retrieval + verification + metrics, incrementally.

    Stages are any objects implementing the Protocols of core/protocols.py. `embedder` is needed
    only for SelfCheck (cfg.selfcheck_samples > 0); `detector` is recorded in the config (the CaLM
    language check uses mfact.core.langid). `cache=False` turns the on-disk verdict cache off.
    """

    def __init__(self, generator: Generator | None, extractor: Extractor, retriever: Retriever,
                 verifier: Verifier, cfg: Config | None = None, embedder: Embedder | None = None,
                 detector: LanguageDetector | None = None, cache: bool | VerdictCache = True):
        self.generator = generator
        self.extractor = extractor
        self.retriever = retriever
        self.verifier = verifier
        self.cfg = cfg or Config()
        self.embedder = embedder
        self.detector = detector
        if isinstance(cache, VerdictCache):
            self.cache: VerdictCache | None = cache
        else:
            self.cache = VerdictCache() if cache else None
        self.stats = RunStats()
        self._inbox: queue.Queue | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ public helpers

    def set_human_label(self, fact_id: str, label: str | None) -> None:
        """Relabel a fact of the run in progress (thread-safe; the metrics follow at once and the
        final session carries the label). Outside a run this does nothing."""
        if label is not None and label not in LABELS:
            raise ValueError(f"unknown label {label!r}; one of S, NS, IR")
        with self._lock:
            inbox = self._inbox
        if inbox is not None:
            inbox.put(("human", fact_id, label))

    def describe(self, lang: str | None = None) -> dict[str, Any]:
        cfg = self.cfg
        return {
            "pipeline": PIPELINE_VERSION,
            "mfact": _mfact_version(),
            "generator": stage_info(self.generator, "generator"),
            "extractor": stage_info(self.extractor, "extractor"),
            "retriever": {"sources": list(cfg.sources), **stage_info(self.retriever, "retriever"),
                          "offline": cfg.offline},
            "verifier": stage_info(self.verifier, "verifier"),
            "embedder": stage_info(self.embedder, "embedder") if self.embedder is not None
            else {"kind": "embedder", "name": cfg.embedder},
            "detector": stage_info(self.detector, "detector") if self.detector is not None
            else {"kind": "detector", "name": "py3langid"},
            "k": cfg.k,
            "evidence_langs": evidence_langs(cfg, lang) if lang else list(cfg.evidence_langs),
            "workers": cfg.workers,
            "stop_on_repeat": cfg.stop_on_repeat,
            "stop_at_drift": cfg.stop_at_drift,
            "drift_threshold": cfg.drift_threshold,
            "drift_margin": cfg.drift_margin,
            "selfcheck_samples": cfg.selfcheck_samples,
            "verdict_cache": self.cache is not None,
        }

    # ------------------------------------------------------------------ run

    def run(self, entity: Entity | str, lang: str, stop: threading.Event | None = None,
            text: str | None = None, *, seed: int | None = None, prompt: str | None = None,
            params: DecodingParams | None = None,
            generated: tuple[int, str] | None = None) -> Iterator[Event]:
        """Check a text: generate it (or take `text`) and stream events; see the module doc.

        `generated=(tokens, stop_reason)` with `text`: the text was generated by this pipeline's
        generator already (a batch, core/batch.py) for `prompt`/`params`; it is checked as if it
        had just been streamed (generator info, tokens, stop reason, SelfCheck samples)."""
        from .languages import UnknownLanguage, get_language

        try:
            lang = get_language(lang).code
        except UnknownLanguage as exc:
            raise MfactError(str(exc), "run `mfact languages` for the list") from None
        if isinstance(entity, str):
            if not entity.strip():
                raise MfactError("no entity given", "name the person to write about, e.g. --entity 'Marie Curie'")
            entity = Entity(name=entity.strip())
        if text is None and self.generator is None:
            raise MfactError("no generator and no text to check", "give a text or configure a model")
        if generated is not None and (text is None or self.generator is None):
            raise MfactError("generated= needs the generated text and a generator")
        run = _Run(self, entity, lang, stop, text, seed, prompt, params, generated)
        with self._lock:
            self._inbox = run.inbox
        try:
            yield from run.events()
        finally:
            with self._lock:
                if self._inbox is run.inbox:
                    self._inbox = None
            run.shutdown()


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


def _generator_info(gen: Generator, prompt: str, params: DecodingParams) -> GeneratorInfo:
    """Backend, model, the exact prompt (and the rendered one), decoding parameters and seed."""
    try:
        from .models import generator_info
        return generator_info(gen, prompt, params)
    except ImportError:
        pass
    except Exception as exc:  # noqa: BLE001 - a description must not stop the run
        log.warning("generator info: %s", exc)
    return GeneratorInfo(backend=getattr(gen, "backend", "unknown"), model=getattr(gen, "model", ""),
                         prompt=prompt, params=params.to_dict(), seed=params.seed)


def _mfact_version() -> str:
    try:
        from . import __version__
        return str(__version__)
    except Exception:  # noqa: BLE001
        return ""


@dataclass
class _FactState:
    fact: Fact
    done: bool = False


class _Run:
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
            self.session.generator = _generator_info(gen, self.prompt, self.params)
        else:
            self.session.generator = GeneratorInfo(backend="none", model="", prompt=self.prompt,
                                                   params={}, seed=None)
        self.session.config = _jsonable(p.describe(lang))
        # where the text came from: the user (a given text) or a generator (streamed or batched)
        self.session.config["text_source"] = "user" if text is not None else "generator"
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
            out.append(clean_text_safe("".join(parts)))
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
            self.clean = clean_text_safe(self.raw)
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
        self.clean = clean_text_safe(self.raw)
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
                end = complete_prefix_safe(text, self.lang, final=True)
        else:
            end = complete_prefix_safe(text, self.lang)
            if end >= len(text.rstrip()):
                return    # the boundary is at the very end: wait for the next chunk
        if end <= self.committed:
            return
        segment = text[self.committed:end]
        sents = split_sentences_safe(segment, self.lang)
        new: list[Sentence] = []
        for s in sents:
            start, stop_ = s.start + self.committed, s.end + self.committed
            new.append(Sentence(len(self.sentences) + len(new), start, stop_, text[start:stop_]))
        self.committed = end
        for s in new:
            key = _norm_sentence(s.text)
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
        from .metrics import semantic_drift

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
            from .checks import calm_checks
            try:
                s.checks.update(calm_checks(s.text, s.language))
            except Exception as exc:  # noqa: BLE001 - a check failing must not end the run
                log.warning("CaLM checks failed: %s", exc)
            self.checks_dirty = False

    def _metrics(self, final: bool = False) -> MetricsEvent:
        from .metrics import session_metrics

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
        sample_sents = [[s.text.strip() for s in split_sentences_safe(t, self.lang)] for t in self.samples]
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
                    self.clean = clean_text_safe(self.raw)
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


# --------------------------------------------------------------------------- wiring


def build_pipeline(cfg: Config, on_progress: Callable[[Progress], None] | None = None,
                   *, generator: Generator | None = None, need_generator: bool = True) -> CheckPipeline:
    """The real stages from the configuration (model, embedder, knowledge, extractor, verifier).

    `need_generator=False` skips loading a model (checking a given text with the rules extractor
    and a verifier that needs no model)."""
    from .checking import build_extractor, build_verifier
    from .embedders import load_embedder
    from .knowledge import build_retriever

    def progress(stage: str, msg: str) -> None:
        if on_progress:
            on_progress(Progress(stage, 0, None, msg))

    gen = generator
    if gen is None and (need_generator or cfg.extractor == "llm" or cfg.verifier == "llm"):
        from .models import load_generator
        progress("model", "loading the model")
        gen = load_generator(cfg, on_progress)
    progress("embedder", f"loading the embedder {cfg.embedder}")
    embedder = load_embedder(cfg.embedder)
    progress("knowledge", "opening the knowledge sources")
    retriever = build_retriever(cfg, embedder)
    extractor = build_extractor(cfg, gen)
    verifier = build_verifier(cfg, embedder, gen)
    return CheckPipeline(gen, extractor, retriever, verifier, cfg, embedder=embedder)
