"""The figures mfact reports, as pure functions (FActScore, Min et al. 2023; semantic drift, Spataru et al. 2024;
the hallucination rate, Islam et al. 2025; docs/foundation.md, "What the figures mean").

Labels are the strings "S" (supported), "NS" (not supported) and "IR" (irrelevant); `None` is a
fact still waiting for its verdict and is left out of every figure. All figures are fractions in
[0, 1], or `None` when they cannot be computed (then a `*_reason` says why where it matters).

Conventions (documented in docs/foundation.md):
- FActScore of one text = S / (S + NS + IR): FActScore's own convention, IR counts as not supported.
  `factscore_relevant_only` = S / (S + NS). The length penalty multiplies by exp(1 - gamma / n)
  when n < gamma (gamma = 10).
- Semantic drift: IR counts as not supported (1 only for S), like FActScore. A text needs at least
  2 * max(m, 1) labelled facts to have a drift score; below that SD is `None` (not 0), so that short
  texts do not pull the mean down.
- A text with no facts is an abstention: counted apart, never scored.
"""
from __future__ import annotations

import bisect
import functools
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, NamedTuple, Sequence

from .checking.text.textutil import COMBINING_MARKS, MARKED_WORD
from .checks import session_checks
from .figures import Agreement, Calm, Checks, Counts, Metrics

if TYPE_CHECKING:  # pragma: no cover
    from .session import Session

GAMMA = 10
DRIFT_MARGIN = 3
DRIFT_THRESHOLD = 0.75
PERMUTATIONS = 1000
PERMUTATION_SEED = 0
MIN_RELABELS = 30

_EPS = 1e-12


# --------------------------------------------------------------------------- FActScore


def _counts(labels: Iterable[str | None]) -> tuple[int, int, int]:
    s = ns = ir = 0
    for lab in labels:
        if lab == "S":
            s += 1
        elif lab == "NS":
            ns += 1
        elif lab == "IR":
            ir += 1
        elif lab is not None:
            raise ValueError(f"unknown label {lab!r}; one of S, NS, IR")
    return s, ns, ir


def factscore(labels: Iterable[str | None]) -> float | None:
    """S / (S + NS + IR) over labelled facts; None when no fact is labelled."""
    s, ns, ir = _counts(labels)
    n = s + ns + ir
    return s / n if n else None


def factscore_relevant_only(labels: Iterable[str | None]) -> float | None:
    """S / (S + NS): IR facts left out; None when no fact is S or NS."""
    s, ns, _ = _counts(labels)
    return s / (s + ns) if s + ns else None


def gamma_penalty(n: int, gamma: int = GAMMA) -> float:
    """FActScore's length penalty exp(1 - gamma / n) for 0 < n < gamma, else 1 (0 for n = 0)."""
    if n <= 0:
        return 0.0
    return math.exp(1.0 - gamma / n) if n < gamma else 1.0


def factscore_gamma(labels: Iterable[str | None], gamma: int = GAMMA) -> float | None:
    """FActScore with the length penalty; n = number of labelled facts."""
    labels = list(labels)
    fs = factscore(labels)
    if fs is None:
        return None
    n = sum(1 for lab in labels if lab is not None)
    return fs * gamma_penalty(n, gamma)


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not None; None when there are none."""
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


BOOTSTRAP = 1000
BOOTSTRAP_SEED = 0


def bootstrap_ci(values: Iterable[float | None], level: float = 0.95, n_resamples: int = BOOTSTRAP,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """Percentile bootstrap confidence interval of the mean of `values` (None left out): the texts
    resampled with replacement `n_resamples` times, seeded. None below two values."""
    import numpy as np

    vals = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if vals.size < 2:
        return None
    rng = np.random.default_rng(seed)
    step = max(1, 2_000_000 // vals.size)          # resamples at a time: bounded memory
    means = np.concatenate([vals[rng.integers(0, vals.size, size=(min(step, n_resamples - i), vals.size))]
                            .mean(axis=1) for i in range(0, n_resamples, step)])
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


# --------------------------------------------------------------------------- semantic drift


class Drift(NamedTuple):
    """Result of `semantic_drift`. `score` is SD_m in [0, 1] (None: too few facts), `point` the
    drift point k (facts [0, k) before, [k, N) after), with the two shares that make up the score."""
    score: float | None
    point: int | None
    supported_before: float | None
    unsupported_after: float | None


def _binary(labels: Iterable[Any]) -> list[int]:
    """Labels to 1 (supported) / 0 (not: NS and IR); pending (None) facts are dropped."""
    out: list[int] = []
    for lab in labels:
        if lab is None:
            continue
        if lab in ("S", 1, True):
            out.append(1)
        elif lab in ("NS", "IR", 0, False):
            out.append(0)
        else:
            raise ValueError(f"unknown label {lab!r}; one of S, NS, IR")
    return out


def _split_range(n: int, m: int) -> range:
    lo = max(m, 1)
    return range(lo, n - lo + 1)


def semantic_drift(labels: Sequence[Any], m: int = DRIFT_MARGIN) -> Drift:
    """SD_m(P) = max_k 1/2 (mean(s_0..s_{k-1}) + mean(1 - s_k..s_{N-1})), k in max(m,1)..N-max(m,1).

    Labels in generation order ("S"/"NS"/"IR" or 1/0; IR counts as not supported; None skipped).
    The first k reaching the maximum is the drift point."""
    if m < 0:
        raise ValueError("margin m must be >= 0")
    s = _binary(labels)
    n = len(s)
    ks = _split_range(n, m)
    if n < 2 * m or len(ks) == 0:
        return Drift(None, None, None, None)
    prefix = [0]
    for v in s:
        prefix.append(prefix[-1] + v)
    total = prefix[-1]
    best = (-1.0, 0, 0.0, 0.0)
    for k in ks:
        before = prefix[k] / k
        after = 1.0 - (total - prefix[k]) / (n - k)
        sd = 0.5 * (before + after)
        if sd > best[0] + _EPS:
            best = (sd, k, before, after)
    return Drift(best[0], best[1], best[2], best[3])


def _sd_batch(batch, m: int):
    """SD_m of every row of a 0/1 matrix (rows = label sequences of the same length)."""
    import numpy as np

    n = batch.shape[1]
    ks = np.arange(max(m, 1), n - max(m, 1) + 1)
    cs = np.cumsum(batch, axis=1, dtype=np.float64)
    total = cs[:, -1:]
    before_sum = cs[:, ks - 1]
    before = before_sum / ks
    after = 1.0 - (total - before_sum) / (n - ks)
    return 0.5 * (before + after).max(axis=1)


def drift_p_value(labels: Sequence[Any], m: int = DRIFT_MARGIN, n_permutations: int = PERMUTATIONS,
                  seed: int = PERMUTATION_SEED) -> float | None:
    """Permutation test: share of `n_permutations` seeded shuffles of the labels whose SD_m is at
    least the observed one. None when the text has no drift score."""
    import numpy as np

    observed = semantic_drift(labels, m)
    if observed.score is None:
        return None
    s = np.asarray(_binary(labels), dtype=np.int8)
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.broadcast_to(s, (n_permutations, s.size)).copy(), axis=1)
    sds = _sd_batch(shuffled, m)
    return float(np.mean(sds >= observed.score - 1e-9))


# --------------------------------------------------------------------------- agreement


def agreement(pairs: Iterable[tuple[str, str]]) -> Agreement:
    """Accuracy and Cohen's kappa between (human, automatic) label pairs."""
    pairs = [(h, a) for h, a in pairs if h is not None and a is not None]
    n = len(pairs)
    if n == 0:
        return Agreement(0, None, None, "no fact has both a human and an automatic label")
    po = sum(1 for h, a in pairs if h == a) / n
    cats = sorted({x for p in pairs for x in p})
    pe = sum((sum(1 for h, _ in pairs if h == c) / n) * (sum(1 for _, a in pairs if a == c) / n)
             for c in cats)
    if abs(1.0 - pe) < _EPS:
        # both raters used one and the same label throughout: kappa is undefined
        return Agreement(n, po, None, "kappa undefined: both sides used a single label")
    return Agreement(n, po, (po - pe) / (1.0 - pe))


# --------------------------------------------------------------------------- hallucination rate

_TOKEN_RE = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]|\w+|[^\w\s]", re.UNICODE)


def text_tokens(text: str) -> list[tuple[int, int]]:
    """Word-level tokens (start, end) of a text: runs of word characters, single punctuation marks,
    and single characters of scripts written without spaces (Han, kana, Hangul, Thai)."""
    return list(_text_tokens(text))


@functools.lru_cache(maxsize=4)
def _text_tokens(text: str) -> tuple[tuple[int, int], ...]:
    # kept for the last few texts: a window recomputes the metrics after every relabel of one text
    return tuple(m.span() for m in _TOKEN_RE.finditer(text))


_EDGE = " \t\r\n.,;:!?，。；：！？、،؛۔।"


_LETTER = re.compile(r"[^\W_]")
MARK_REACH = 300        # characters around a reworded fact's span where its marked words are looked for
MARK_FOUND = 0.5        # ... at least this share of a mark's words found, else the fact's span counts


def _word_at(text: str, word: str, lo: int, hi: int) -> list[int]:
    """Where `word` stands in `text[lo:hi]` as a whole word."""
    pat = re.compile(rf"(?<![^\W_]){re.escape(word)}(?![^\W_{COMBINING_MARKS}])")
    return [m.start() for m in pat.finditer(text, lo, hi)]


def _found_words(text: str, mark: str, span: tuple[int, int]) -> list[tuple[int, int]] | None:
    """The words of `mark` (marked words of a fact the extractor reworded, which are not one piece
    of the text: "Vorsetzende in Der Strafverfolgung" of 'Der Vorsetzende von Dina Madanis in "Der
    Strafverfolgung"') found in the text in their order near the fact's span, the first where it
    is nearest the span; words that only spaces and punctuation part are one range. None where
    fewer than MARK_FOUND of them are found."""
    a0, b0 = span
    lo, hi = max(0, a0 - MARK_REACH), min(len(text), b0 + MARK_REACH)
    words = MARKED_WORD.findall(mark)
    found: list[tuple[int, int]] = []
    for w in words:
        at = _word_at(text, w, found[-1][1] if found else lo, hi)
        if not at:
            continue
        i = at[0] if found else min(at, key=lambda i: 0 if a0 <= i < b0 else min(abs(i - a0), abs(i - b0)))
        found.append((i, i + len(w)))
    if not words or len(found) < MARK_FOUND * len(words):
        return None
    out: list[tuple[int, int]] = []
    for a, b in found:
        if out and not _LETTER.search(text, out[-1][1], a):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def mark_ranges(text: str, fact: Any) -> list[tuple[int, int]]:
    """Where in `text` the wrong words of an NS fact are: its automatic verdict's marks (words of the
    fact's own text) found in the fact's span of the text, or near it for a fact the extractor
    reworded (a mark that is not one piece of the text found word by word, `_found_words`). Empty
    when the fact has no marks, a person's label is not NS, the automatic verdict is not NS, or
    the words of a mark cannot be found (the whole fact's span counts then)."""
    auto = getattr(fact, "auto", None)
    if auto is None or auto.label != "NS" or not auto.marks or fact.label != "NS":
        return []
    n = len(text)
    a0, b0 = max(0, min(fact.span[0], n)), max(0, min(fact.span[1], n))
    ftext = fact.text
    direct = text[a0:b0] == ftext
    out: list[tuple[int, int]] = []
    for s, e in auto.marks:
        word = ftext[max(0, s):max(0, e)]
        if not word.strip():
            continue
        if direct:
            out.append((a0 + s, a0 + e))
            continue
        i = text.find(word, a0, b0)
        if i >= 0:
            out.append((i, i + len(word)))
            continue
        found = _found_words(text, word, (a0, b0))
        if found is None:
            return []
        out.extend(found)
    return out


def span_items(text: str, facts: Sequence[Any]) -> list[tuple[tuple[int, int], str | None, list[tuple[int, int]]]]:
    """The (span, label, marks) of each fact, as `ns_spans` takes them."""
    return [(f.span, f.label, mark_ranges(text, f)) for f in facts]


def session_ns_spans(session: "Session") -> list[tuple[int, int, str]]:
    """A session's hallucination spans: the union of the spans of the facts whose effective label
    is NS, sorted and non-overlapping, as `(start, end, "NS")` offsets into its text."""
    return ns_spans(session.text, span_items(session.text, session.facts))


def fact_p(fact: Any) -> float:
    """p(hallucinated) of a fact's characters: 1.0 for a person's NS, the verdict's confidence for an
    automatic NS, 0.0 otherwise."""
    if fact.human is not None:
        return 1.0 if fact.human.label == "NS" else 0.0
    auto = fact.auto
    if auto is None or auto.label != "NS":
        return 0.0
    return max(0.0, min(1.0, float(auto.confidence)))


def session_ns_spans_p(session: "Session") -> list[tuple[int, int, str, float]]:
    """The hallucination spans of `session_ns_spans`, each with its p(hallucinated): the highest p of
    the not-supported facts whose marks (or span) it holds."""
    text = session.text
    items = span_items(text, session.facts)
    covering = [(x, y, fact_p(f)) for f, (span, lab, marks) in zip(session.facts, items) if lab == "NS"
                for x, y in (marks or [span])]
    out = []
    for a, b, lab in ns_spans(text, items):
        ps = [p for x, y, p in covering if x < b and y > a]
        out.append((a, b, lab, round(max(ps, default=1.0), 4)))
    return out


def ns_spans(text: str, facts: Sequence[tuple]) -> list[tuple[int, int, str]]:
    """The hallucination spans of a text: the union, over its not-supported facts, of the wrong
    words the verifier marked (the third item of a fact's `(span, label, marks)`, see
    `mark_ranges`) or, where none are known, the fact's span (the smallest part of its sentence that
    carries the fact). Sorted, non-overlapping (touching spans are merged), inside the text,
    without surrounding spaces or punctuation; each is `(start, end, "NS")`."""
    n = len(text)
    spans = []
    for item in facts:
        (a, b), lab = item[0], item[1]
        if lab != "NS":
            continue
        marks = item[2] if len(item) > 2 else None
        for x, y in (marks or [(a, b)]):
            spans.append((max(0, min(x, n)), max(0, min(y, n))))
    spans.sort()
    merged: list[list[int]] = []
    for a, b in spans:
        while a < b and text[a] in _EDGE:
            a += 1
        while b > a and text[b - 1] in _EDGE:
            b -= 1
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b, "NS") for a, b in merged]


@functools.lru_cache(maxsize=4)
def _token_bounds(text: str) -> tuple[list[int], list[int]]:
    tokens = _text_tokens(text)
    return [t[0] for t in tokens], [t[1] for t in tokens]


def tokens_in(text: str, spans: Sequence[tuple[int, int, str]] | Sequence[tuple[int, int]]) -> int:
    """How many tokens of the text lie in (overlap) the given spans."""
    if not spans:
        return 0
    if len(spans) == 1:      # one span (a fact's): two binary searches, not a walk over the text
        starts, ends = _token_bounds(text)
        a, b = spans[0][0], spans[0][1]
        return max(0, bisect.bisect_left(starts, b) - bisect.bisect_right(ends, a))
    bounds = sorted((s[0], s[1]) for s in spans)
    count = 0
    i = 0
    for start, end in _text_tokens(text):
        while i < len(bounds) and bounds[i][1] <= start:
            i += 1
        if i < len(bounds) and bounds[i][0] < end:
            count += 1
    return count


def hallucinated_tokens(text: str, facts: Sequence[tuple]) -> tuple[float, int]:
    """(H, N): the tokens inside the hallucination spans (the union of the NS facts' spans, see
    `ns_spans`) and the number of tokens of the text, as Islam et al. count a detector's flagged
    tokens. Tokens no NS fact covers count as not hallucinated."""
    return float(tokens_in(text, ns_spans(text, facts))), len(_text_tokens(text))


@dataclass
class Calibration:
    """The automatic verifier's precision and recall for NS, measured on facts a person labelled."""
    n: int
    precision: float | None
    recall: float | None
    reason: str | None = None

    @property
    def usable(self) -> bool:
        return self.precision is not None and self.recall is not None and self.recall > 0

    def to_dict(self) -> dict:
        return {"n": self.n, "precision": self.precision, "recall": self.recall, "reason": self.reason}


def ns_calibration(pairs: Iterable[tuple], min_relabels: int = MIN_RELABELS) -> Calibration:
    """Precision/recall of the automatic NS against the human label, from (human, auto) pairs or
    (human, auto, tokens) triples: with tokens (the fact's span) they are token-weighted, the
    detector's token precision and recall of Islam et al."""
    rows = [(p[0], p[1], float(p[2]) if len(p) > 2 else 1.0) for p in pairs
            if p[0] is not None and p[1] is not None]
    n = len(rows)
    if n < min_relabels:
        return Calibration(n, None, None, f"not enough relabels ({n} < {min_relabels})")
    tp = sum(w for h, a, w in rows if h == "NS" and a == "NS")
    auto_ns = sum(w for _, a, w in rows if a == "NS")
    human_ns = sum(w for h, _, w in rows if h == "NS")
    return calibration_from_sums(n, tp, auto_ns, human_ns, min_relabels)


def calibration_from_sums(n: int, tp: float, auto_ns: float, human_ns: float,
                          min_relabels: int = MIN_RELABELS) -> Calibration:
    """`ns_calibration` from its sums over the n relabelled facts: (token-)weights of the facts
    both sides call NS, the verifier calls NS, the person calls NS."""
    if n < min_relabels:
        return Calibration(n, None, None, f"not enough relabels ({n} < {min_relabels})")
    precision = tp / auto_ns if auto_ns else None
    recall = tp / human_ns if human_ns else None
    reason = None
    if precision is None:
        reason = "the verifier labelled no relabelled fact NS"
    elif recall is None:
        reason = "no relabelled fact is NS for the person"
    elif recall == 0:
        reason = "recall is 0: the verifier found none of the person's NS facts"
    return Calibration(n, precision, recall, reason)


def hallucination_rate(h_det: float, n_tokens: int, calibration: Calibration | None) -> float | None:
    """HR_est = (P * H_det) / (R * N) (Islam et al. 2025); without calibration (labels known
    true, e.g. all set by a person) the plain share H / N. Clipped to [0, 1]."""
    if n_tokens <= 0:
        return None
    if calibration is None:
        return min(1.0, h_det / n_tokens)
    p, r = calibration.precision, calibration.recall
    if not calibration.usable or p is None or r is None:
        return None
    return min(1.0, max(0.0, p * h_det / (r * n_tokens)))


# --------------------------------------------------------------------------- one session


def labels_of(session: "Session") -> list[str | None]:
    """Effective labels in text order (human when set, else automatic, None while pending)."""
    return [f.label for f in sorted(session.facts, key=lambda f: f.text_order)]


def all_human(session: "Session") -> bool:
    """True when every labelled fact carries a human label (imported human-labelled data)."""
    labelled = [f for f in session.facts if f.label is not None]
    return bool(labelled) and all(f.human is not None for f in labelled)


def relabel_pairs(session: "Session") -> list[tuple[str, str]]:
    return [(f.human.label, f.auto.label) for f in session.facts
            if f.human is not None and f.auto is not None]


def relabel_token_pairs(session: "Session") -> list[tuple[str, str, int]]:
    """(human, auto, tokens of the fact's span) for every relabelled fact (token-weighted P / R)."""
    return [(f.human.label, f.auto.label, max(1, tokens_in(session.text, [f.span])))
            for f in session.facts if f.human is not None and f.auto is not None]


def session_hallucination(session: "Session", calibration: Calibration | None = None,
                          min_relabels: int = MIN_RELABELS) -> dict:
    """Hallucination-rate estimate for one session. With no `calibration` given, the labels are
    taken as truth when a person set all of them; otherwise the session's own relabels calibrate
    (usually too few: None with the reason)."""
    h, n = hallucinated_tokens(session.text, span_items(session.text, session.facts))
    return hallucination_from(h, n, calibration is None and all_human(session), calibration,
                              lambda: ns_calibration(relabel_token_pairs(session), min_relabels))


def hallucination_from(h: float, n: int, by_person: bool, calibration: Calibration | None,
                       calibrate: Callable[[], Calibration]) -> dict:
    """`session_hallucination` from H and N (`hallucinated_tokens`), whether a person set every
    label, and the calibration given (None: `calibrate()` gives the session's own)."""
    raw = (h / n) if n else None
    if calibration is None:
        if by_person:
            return {"hallucination_rate": raw, "hallucination_rate_raw": raw,
                    "hallucination_rate_reason": "all labels set by a person: no correction needed",
                    "hallucination_precision": None, "hallucination_recall": None}
        calibration = calibrate()
    rate = hallucination_rate(h, n, calibration)
    reason = None
    if rate is None:
        reason = calibration.reason or ("empty text" if not n else "not computable")
    return {"hallucination_rate": rate, "hallucination_rate_raw": raw,
            "hallucination_rate_reason": reason,
            "hallucination_precision": calibration.precision, "hallucination_recall": calibration.recall}


@dataclass(frozen=True)
class FigureSettings:
    """The settings of a session's figures: the semantic drift's margin `m` (the facts a drift point
    needs on either side) and FActScore's length penalty `gamma`."""
    m: int = DRIFT_MARGIN
    gamma: int = GAMMA


def session_metrics(session: "Session", *, p_value: bool = True, settings: FigureSettings = FigureSettings(),
                    checks: Checks | None = None, calibration: Calibration | None = None,
                    n_permutations: int = PERMUTATIONS) -> Metrics:
    """Every figure of one session from its effective labels (core/figures.py `Metrics`).

    `checks`: CaLMScore checks already computed (`checks.calm_checks`); when None they are taken from
    `session.checks` if present, else computed. `p_value=False` skips the permutation test (cheap
    enough to run after every verdict); the p-value is then None."""
    m, gamma = settings.m, settings.gamma
    labels = labels_of(session)
    s, ns, ir = _counts(labels)
    labelled = s + ns + ir
    drift = semantic_drift(labels, m)
    pv = None
    if p_value and drift.score is not None:
        pv = drift_p_value(labels, m, n_permutations)
    if checks is None:
        checks = session_checks(session)
    elif not isinstance(checks, Checks):
        checks = Checks.from_dict(checks, "checks")
    calm = Calm(language_ok=checks.language_ok, detected_language=checks.detected_language,
                repetitive=checks.repetitive, non_empty=checks.non_empty)
    h = session_hallucination(session, calibration)
    return Metrics(
        factscore=factscore(labels),
        factscore_relevant_only=factscore_relevant_only(labels),
        factscore_gamma=factscore_gamma(labels, gamma),
        semantic_drift=drift.score,
        drift_point=drift.point,
        drift_position=(drift.point / labelled) if drift.point is not None and labelled else None,
        supported_before=drift.supported_before,
        unsupported_after=drift.unsupported_after,
        drifting=(drift.score >= DRIFT_THRESHOLD) if drift.score is not None else None,
        drift_p_value=pv,
        calm=calm,
        n_facts=len(session.facts),
        n_labelled=labelled,
        counts=Counts(S=s, NS=ns, IR=ir, pending=len(labels) - labelled),
        abstained=not session.facts,
        agreement=agreement(relabel_pairs(session)),
        text_incomplete=True if session.stop_reason == "connection_lost" else None,
        **h,
    )

