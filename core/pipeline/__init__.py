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

Modules: `check_pipeline` (the stages and `run()`), `run` (one run's threads and events), `text`
(segmentation), `cache` (verdicts on disk), `describe` (the session's config record), `selfcheck`,
`stats`. docs/architecture.md has the picture.
"""
from __future__ import annotations

from .cache import VerdictCache
from .check_pipeline import PIPELINE_VERSION, CheckPipeline, build_pipeline
from .context import Generation, Stages
from .describe import decoding_params, evidence_langs, stage_info
from .run import STOP_GRACE_S
from .selfcheck import selfcheck_scores
from .stats import RunStats

__all__ = ["CheckPipeline", "Stages", "Generation", "build_pipeline", "VerdictCache", "RunStats", "selfcheck_scores",
           "decoding_params", "evidence_langs", "stage_info", "PIPELINE_VERSION", "STOP_GRACE_S"]
