"""What a run records in its session besides facts: the text as checked (cut at a stop), tokens,
evidence, the CaLM checks, the metrics, SelfCheck, the drift stop, and the ending."""
from __future__ import annotations

import copy
import logging
import time
from typing import Iterator, Sequence

from ..checks import calm_checks
from ..events import Event, MetricsEvent, NoticeEvent
from ..figures import DriftStop, SelfCheck, SelfCheckSentence
from ..metrics import FigureSettings, semantic_drift, session_metrics
from ..session import Fact, Session, status_for
from .context import RecordContext
from .selfcheck import selfcheck_scores
from .text import sentences_of

log = logging.getLogger("mfact.pipeline")


class Record:
    """The session side of one run. `cut`: where a drift or repetition stop ends the text;
    `tokens`: how many tokens the run has streamed."""

    def __init__(self, ctx: RecordContext):
        self.ctx = ctx
        self.cut: int | None = None
        self.tokens = 0
        self._checks_dirty = True

    @property
    def session(self) -> Session:
        return self.ctx.session

    def text_changed(self) -> None:
        self._checks_dirty = True

    def sync(self, final: bool = False) -> None:
        """Bring the session's text, tokens, evidence and CaLM checks up to date."""
        s, text_stream = self.session, self.ctx.text
        clean = text_stream.clean
        if self.cut is None:
            text = clean
        else:   # cut after the last checked sentence, without the blank lines before the cut
            keep = max([len(clean[:self.cut].rstrip())] + [f.span[1] for f in s.facts])
            text = clean[:keep]
        if text != s.text:
            self._checks_dirty = True
        s.text = text
        s.raw_text = text_stream.raw if text_stream.raw != text else None
        s.tokens = self.tokens
        if self._checks_dirty or final:
            try:
                s.checks.update(calm_checks(s.text, s.language, self.ctx.detector))
            except Exception as exc:  # noqa: BLE001 - a check failing must not end the run
                log.warning("CaLM checks failed: %s", exc)
            self._checks_dirty = False

    def metrics(self, final: bool = False) -> MetricsEvent:
        self.sync(final)
        s = self.session
        try:
            s.metrics = session_metrics(s, p_value=final, settings=FigureSettings(m=self.ctx.drift_margin))
        except Exception as exc:  # noqa: BLE001
            log.warning("metrics failed: %s", exc)
        if s.checks.selfcheck is not None:
            s.metrics.selfcheck = s.checks.selfcheck.mean
        return MetricsEvent(copy.deepcopy(s.metrics), copy.deepcopy(s.checks))

    def ordered_facts(self) -> list[Fact]:
        return sorted(self.session.facts, key=lambda f: f.text_order)

    def drift_stop(self) -> str | None:
        """When the labelled prefix (in text order) has drifted past the threshold: record the
        stop in the checks and return its notice; else None."""
        ctx = self.ctx
        labels = []
        for f in self.ordered_facts():
            if f.label is None:
                break       # only the labelled prefix in text order counts
            labels.append(f.label)
        d = semantic_drift(labels, ctx.drift_margin)
        if d.score is None or d.score < ctx.drift_threshold:
            return None
        self.session.checks.drift_stop = DriftStop(facts=len(labels), score=round(d.score, 4),
                                                   point=d.point)
        return (f"stopped at drift: SD {d.score:.3f} >= {ctx.drift_threshold}"
                f" after {len(labels)} facts (drift point {d.point})")

    def selfcheck(self, samples: Sequence[str] | None) -> Iterator[Event]:
        embedder = self.ctx.embedder
        if samples is None or embedder is None:
            return
        lang, sentences = self.ctx.lang, self.ctx.text.sentences
        sample_sents = [[s.text.strip() for s in sentences_of(t, lang)] for t in samples]
        main = [s.text.strip() for s in sentences]
        try:
            scores = selfcheck_scores(main, sample_sents, embedder)
        except Exception as exc:  # noqa: BLE001
            yield NoticeEvent("warning", f"SelfCheck failed: {exc}")
            return
        by_sentence = [SelfCheckSentence(index=s.index, start=s.start, end=s.end, score=sc)
                       for s, sc in zip(sentences, scores)]
        vals = [x for x in scores if x is not None]
        self.session.checks.selfcheck = SelfCheck(
            samples=len(samples), embedder=embedder.name,
            sentences=by_sentence, mean=round(sum(vals) / len(vals), 4) if vals else None,
            facts={f.id: scores[f.sentence] for f in self.session.facts if f.sentence < len(scores)},
        )

    def finalize(self, reason: str) -> Session:
        s = self.session
        s.stop_reason = reason
        s.status = status_for(reason)
        s.sort_facts()
        self.sync(final=True)
        self.ctx.stats.finished = time.monotonic()
        return s
