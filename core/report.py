"""The research report: per-language (and per-model, or per rarity / region group) figures over
many sessions, as in the multilingual factuality papers' tables.

`build_report(sessions, by=None)` returns a typed `Report`, whose JSON (`render_json`, what
`mfact report --json` prints) is

    {"languages": {"en": {<figures>, "models": {"<model>": {<figures>}}}}}         (by = None)
    {"by": "rarity", "groups": {"en/very freq": {<figures>, "models": {...}}, ...}} (by = rarity|region)

Each `<figures>` is a `Figures`: fractions in [0, 1] or null, `calm` a `CalmShares`, `agreement` an
`AgreementFigures`, and every null figure has its reason under `reasons` (a `Reasons`, keyed as
the figures, in the order the reasons were given). They are JsonObjects as in core/figures.py:
readers use attributes (`fig.factscore`, `fig.reasons.semantic_drift`), and setting a name that is
no figure raises AttributeError. `Report.from_dict` reads a report's JSON back (the renderers take
either).
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Mapping

from . import metrics as M
from .figures import Checks, JsonObject
from .session import Session
from .textsafe import clean_terminal

GROUP_BY = ("rarity", "region")
# FActScore's rarity buckets, most frequent first (used to order groups)
RARITY_ORDER = ("very freq", "freq", "medium", "rare", "very rare")
UNKNOWN_GROUP = "unknown"


# --------------------------------------------------------------------------- the typed figures


def _extra() -> Any:
    return field(default_factory=dict, repr=False)


class _Strict(JsonObject):
    """A JsonObject whose names are its fields only: a mistyped name raises, on reading an
    attribute (as for any object), on setting one, and in the Mapping view's `get` (a name that
    is neither a field nor a key read from JSON)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "extra" and name not in self._spec():
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        super().__setattr__(name, value)

    def get(self, key: str, default: Any = None) -> Any:
        if key not in self._spec() and key not in self.extra:
            raise KeyError(f"{type(self).__name__} has no field {key!r}")
        return self[key] if key in self else default


@dataclass(eq=False, repr=False)
class CalmShares(_Strict):
    """CaLMScore over a group: the share of texts non-empty, in the right language, not
    repetitive, and all three (`calmscore`)."""
    non_empty: float | None = None
    language_ok: float | None = None
    not_repetitive: float | None = None
    calmscore: float | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class AgreementFigures(_Strict):
    """Human vs automatic labels over a group: facts with both, accuracy, Cohen's kappa."""
    n: int | None = None
    accuracy: float | None = None
    kappa: float | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Reasons(_Strict):
    """Why each null figure is null, one field per figure; a key is present once its reason is
    given, in that order (as the dict it replaces)."""
    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({
        "sessions", "abstentions", "abstention_rate", "facts", "facts_per_text", "factscore",
        "factscore_relevant_only", "factscore_gamma", "semantic_drift", "drift_texts", "drifting_share",
        "drifting_p_value", "drift_position", "calm", "hallucination_rate", "hallucination_precision",
        "hallucination_recall", "hallucination_rate_raw", "relabelled_facts", "agreement"})

    sessions: str | None = None
    abstentions: str | None = None
    abstention_rate: str | None = None
    facts: str | None = None
    facts_per_text: str | None = None
    factscore: str | None = None
    factscore_relevant_only: str | None = None
    factscore_gamma: str | None = None
    semantic_drift: str | None = None
    drift_texts: str | None = None
    drifting_share: str | None = None
    drifting_p_value: str | None = None
    drift_position: str | None = None
    calm: str | None = None
    hallucination_rate: str | None = None
    hallucination_precision: str | None = None
    hallucination_recall: str | None = None
    hallucination_rate_raw: str | None = None
    relabelled_facts: str | None = None
    agreement: str | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Figures(_Strict):
    """The report's figures over one group of texts (a language, a model, a --by group);
    `models`: the same per model, on a group's own figures only."""
    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"models"})

    sessions: int | None = None
    abstentions: int | None = None
    abstention_rate: float | None = None
    facts: int | None = None
    facts_per_text: float | None = None
    factscore: float | None = None
    factscore_relevant_only: float | None = None
    factscore_gamma: float | None = None
    semantic_drift: float | None = None
    drift_texts: int | None = None
    drifting_share: float | None = None
    drifting_p_value: float | None = None
    drift_position: float | None = None
    calm: CalmShares | None = None
    hallucination_rate: float | None = None
    hallucination_precision: float | None = None
    hallucination_recall: float | None = None
    hallucination_rate_raw: float | None = None
    relabelled_facts: int | None = None
    agreement: AgreementFigures | None = None
    reasons: Reasons | None = None
    models: dict[str, Figures] | None = None
    extra: dict[str, Any] = _extra()


@dataclass(eq=False, repr=False)
class Report(_Strict):
    """Figures per language (`languages`), or per language/group with `by` (`groups`)."""
    _OPTIONAL: ClassVar[frozenset[str]] = frozenset({"languages", "by", "groups"})

    languages: dict[str, Figures] | None = None
    by: str | None = None
    groups: dict[str, Figures] | None = None
    extra: dict[str, Any] = _extra()

    @property
    def sections(self) -> dict[str, Figures]:
        """The figures per language, or per group with `by`, in display order."""
        return self.groups or self.languages or {}

    @classmethod
    def of(cls, report: "Report | Mapping[str, Any]") -> "Report":
        """This report, or one read from a report's JSON data."""
        return report if isinstance(report, Report) else cls.from_dict(report, "report")


# --------------------------------------------------------------------------- computing them


@dataclass
class _Text:
    """What the report needs from one session (computed once per session)."""
    language: str
    model: str
    group: str
    abstained: bool
    n_facts: int
    factscore: float | None
    relevant_only: float | None
    gamma: float | None
    sd: float | None
    drift_point: int | None
    n_labelled: int
    p_value: float | None
    calm: Checks
    h_det: float
    n_tokens: int
    all_human: bool
    has_auto: bool
    pairs: list = field(default_factory=list)
    token_pairs: list = field(default_factory=list)


def _summarise(s: Session, by: str | None, p_value: bool, n_permutations: int) -> _Text:
    labels = M.labels_of(s)
    drift = M.semantic_drift(labels)
    pv = None
    if p_value and drift.score is not None and drift.score >= M.DRIFT_THRESHOLD:
        pv = M.drift_p_value(labels, n_permutations=n_permutations)
    if s.checks.has_calm:
        checks = s.checks
    else:
        from .checks import calm_checks
        checks = calm_checks(s.text, s.language)
    h, n = M.hallucinated_tokens(s.text, M.span_items(s.text, s.facts))
    group = ""
    if by:
        v = s.entity.attributes.get(by)
        group = str(v) if v not in (None, "") else UNKNOWN_GROUP
    return _Text(
        language=s.language, model=s.generator.model or s.generator.backend or "unknown", group=group,
        abstained=not s.facts, n_facts=len(s.facts), factscore=M.factscore(labels),
        relevant_only=M.factscore_relevant_only(labels), gamma=M.factscore_gamma(labels),
        sd=drift.score, drift_point=drift.point, n_labelled=sum(1 for x in labels if x is not None),
        p_value=pv, calm=checks, h_det=h, n_tokens=n, all_human=M.all_human(s),
        has_auto=any(f.auto is not None for f in s.facts), pairs=M.relabel_pairs(s),
        token_pairs=M.relabel_token_pairs(s))


def _share(flags: list[bool]) -> float | None:
    return sum(1 for f in flags if f) / len(flags) if flags else None


def figures(texts: list[_Text], calibration: M.Calibration | None = None) -> Figures:
    """The report's figures over a group of texts (see the module docstring)."""
    scored = [t for t in texts if not t.abstained]
    with_sd = [t for t in scored if t.sd is not None]
    drifting = [t for t in with_sd if t.sd is not None and t.sd >= M.DRIFT_THRESHOLD]
    reasons = Reasons()
    out = Figures(
        sessions=len(texts),
        abstentions=len(texts) - len(scored),
        abstention_rate=(len(texts) - len(scored)) / len(texts) if texts else None,
        facts=sum(t.n_facts for t in texts),
        facts_per_text=(sum(t.n_facts for t in scored) / len(scored)) if scored else None,
        factscore=M.mean(t.factscore for t in scored),
        factscore_relevant_only=M.mean(t.relevant_only for t in scored),
        factscore_gamma=M.mean(t.gamma for t in scored),
        semantic_drift=M.mean(t.sd for t in with_sd),
        drift_texts=len(with_sd),
        drifting_share=(len(drifting) / len(with_sd)) if with_sd else None,
        drifting_p_value=M.mean(t.p_value for t in drifting),
        drift_position=M.mean((t.drift_point / t.n_labelled) for t in drifting
                              if t.n_labelled and t.drift_point is not None),
        reasons=reasons)
    _factscore_and_drift_reasons(out, reasons, texts, scored, with_sd, drifting)
    out.calm = _calm_shares(texts, reasons)
    _hallucination_rate(out, reasons, texts, calibration)
    ag = M.agreement([p for t in texts for p in t.pairs])
    out.agreement = AgreementFigures(n=ag.n, accuracy=ag.accuracy, kappa=ag.kappa)
    if ag.reason:
        reasons.agreement = ag.reason
    if out.hallucination_rate_raw is None:
        reasons.hallucination_rate_raw = "no text to count tokens in"
    for name in out:                        # every null figure says why
        if out[name] is None and name not in reasons:
            setattr(reasons, name, "not computable for this group")
    return out


def _factscore_and_drift_reasons(out: Figures, reasons: Reasons, texts: list[_Text], scored: list[_Text],
                                 with_sd: list[_Text], drifting: list[_Text]) -> None:
    if not scored:
        reasons.facts_per_text = reasons.factscore = reasons.factscore_relevant_only = \
            reasons.factscore_gamma = "no scored text (all abstained)" if texts else "no sessions"
    elif out.factscore is None:
        reasons.factscore = reasons.factscore_gamma = "no labelled fact yet"
    if out.factscore_relevant_only is None and reasons.factscore_relevant_only is None:
        reasons.factscore_relevant_only = "every labelled fact is IR"
    if not with_sd:
        reasons.semantic_drift = reasons.drifting_share = \
            f"no text with at least {2 * M.DRIFT_MARGIN} labelled facts"
    if not drifting:
        reasons.drifting_p_value = reasons.drift_position = \
            "no drifting text (SD >= 0.75)" if with_sd else reasons.semantic_drift
    elif out.drifting_p_value is None:
        reasons.drifting_p_value = "permutation test skipped (--no-p-value)"


def _calm_shares(texts: list[_Text], reasons: Reasons) -> CalmShares:
    """CaLMScore: share of answers non-empty, in the right language, not repetitive."""
    if not texts:
        reasons.calm = "no sessions"
        return CalmShares()
    ne = [bool(t.calm.non_empty) for t in texts]
    lo = [bool(t.calm.language_ok) for t in texts]
    nr = [not t.calm.repetitive for t in texts]
    return CalmShares(non_empty=_share(ne), language_ok=_share(lo), not_repetitive=_share(nr),
                      calmscore=_share([a and b and c for a, b, c in zip(ne, lo, nr)]))


def _hallucination_rate(out: Figures, reasons: Reasons, texts: list[_Text],
                        calibration: M.Calibration | None) -> None:
    """The hallucination-rate estimate (Islam et al. 2025; docs/foundation.md), corrected by the
    relabels."""
    h = sum(t.h_det for t in texts)
    n = sum(t.n_tokens for t in texts)
    labelled_texts = [t for t in texts if t.n_labelled]
    if calibration is None:
        calibration = M.ns_calibration([p for t in texts for p in t.token_pairs])
    if labelled_texts and all(t.all_human for t in labelled_texts):
        out.hallucination_rate = M.hallucination_rate(h, n, None)
        out.hallucination_precision = out.hallucination_recall = None
        reasons.hallucination_precision = reasons.hallucination_recall = \
            "all labels set by a person: taken as truth, no correction"
    else:
        out.hallucination_rate = M.hallucination_rate(h, n, calibration) if labelled_texts else None
        out.hallucination_precision = calibration.precision
        out.hallucination_recall = calibration.recall
        if out.hallucination_rate is None:
            reasons.hallucination_rate = (calibration.reason or "not computable") if labelled_texts \
                else "no labelled fact"
        if calibration.precision is None or calibration.recall is None:
            reasons.hallucination_precision = reasons.hallucination_recall = \
                calibration.reason or "not computable"
    out.hallucination_rate_raw = (h / n) if n else None
    out.relabelled_facts = calibration.n


def _group_order(by: str | None, key: str) -> tuple:
    lang, _, group = key.partition("/")
    if by == "rarity" and group in RARITY_ORDER:
        return (lang, 0, RARITY_ORDER.index(group), group)
    return (lang, 1 if group != UNKNOWN_GROUP else 2, 0, group)


def build_report(sessions: Iterable[Session], by: str | None = None, languages: list[str] | None = None,
                 p_value: bool = True, n_permutations: int = M.PERMUTATIONS) -> Report:
    if by is not None and by not in GROUP_BY:
        from .errors import MfactError
        raise MfactError(f"cannot group by {by!r}", "one of: " + ", ".join(GROUP_BY))
    texts = [_summarise(s, by, p_value, n_permutations) for s in sessions
             if not languages or s.language in languages]
    by_lang: dict[str, list[_Text]] = {}
    for t in texts:
        by_lang.setdefault(t.language, []).append(t)
    calib = {lang: M.ns_calibration([p for t in ts for p in t.token_pairs]) for lang, ts in by_lang.items()}
    def with_models(ts: list[_Text], lang: str) -> Figures:
        fig = figures(ts, calib[lang])
        models: dict[str, list[_Text]] = {}
        for t in ts:
            models.setdefault(t.model, []).append(t)
        fig.models = {m: figures(mt, calib[lang]) for m, mt in sorted(models.items())}
        return fig

    if by is None:
        return Report(languages={lang: with_models(by_lang[lang], lang) for lang in sorted(by_lang)})
    groups: dict[str, list[_Text]] = {}
    for t in texts:
        groups.setdefault(f"{t.language}/{t.group}", []).append(t)
    ordered = sorted(groups, key=lambda k: _group_order(by, k))
    return Report(by=by, groups={k: with_models(groups[k], k.split("/", 1)[0]) for k in ordered})


# --------------------------------------------------------------------------- rendering

def _label(s: str) -> str:
    """A model or group name (untrusted) as one line without control characters."""
    return clean_terminal(s, one_line=True)


def _rows(report: Report) -> list[tuple[str, str, Figures]]:
    """(group label, model label, figures) rows in display order."""
    rows = [(_label(g), _label(m), f) for g, m, f in _raw_rows(report)]
    return rows


def _raw_rows(report: Report) -> list[tuple[str, str, Figures]]:
    rows: list[tuple[str, str, Figures]] = []
    for lang, fig in report.sections.items():
        rows.append((lang, "all", fig))
        models = fig.models or {}
        if len(models) > 1:
            for m, mf in models.items():
                rows.append((lang, m, mf))
        elif len(models) == 1:
            rows[-1] = (lang, next(iter(models)), fig)
    return rows


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}"


def _num(v: float | None, digits: int = 2) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


COLUMNS = ("group", "model", "n", "abst", "f/text", "FS", "FS rel", "FS γ",
           "SD", "drift (p)", "pos", "CaLM", "HR (P/R)", "agree (κ)")


def _cells(group: str, model: str, f: Figures) -> list[str]:
    drifting = _pct(f.drifting_share)
    if f.drifting_p_value is not None:
        drifting += f" ({f.drifting_p_value:.3f})"
    hr = _pct(f.hallucination_rate)
    if f.hallucination_precision is not None and f.hallucination_recall is not None:
        hr += f" ({f.hallucination_precision:.2f}/{f.hallucination_recall:.2f})"
    ag = f.agreement or AgreementFigures()
    agree = _pct(ag.accuracy) + (f" ({ag.kappa:.2f})" if ag.kappa is not None else "")
    return [group, model, str(f.sessions), str(f.abstentions), _num(f.facts_per_text, 1),
            _pct(f.factscore), _pct(f.factscore_relevant_only), _pct(f.factscore_gamma),
            _num(f.semantic_drift, 3), drifting, _pct(f.drift_position),
            _pct((f.calm or CalmShares()).calmscore), hr, agree]


NOTE = ("Percent figures (×100). n: sessions; abst: abstentions; f/text: facts per text. "
        "FS: FActScore S/(S+NS+IR) per text, mean over non-abstaining texts; FS rel: S/(S+NS); "
        "FS γ: with the length penalty (γ=10). SD: mean semantic drift (m=3); drift: share of texts "
        "with SD ≥ 0.75, p: their mean permutation p-value; pos: their mean drift position in the "
        "text. CaLM: CaLMScore (non-empty, right language, not repetitive; each share beside it). "
        "HR: hallucination-rate "
        "estimate; P/R: the verifier's NS precision/recall on the relab(elled) facts. agree: human vs "
        "automatic accuracy, κ: Cohen's kappa. —: not computable (see --json for the reason).")


TABLE_FACTS = ("n", "abst", "f/text", "FS", "FS rel", "FS γ", "SD", "drift", "p", "pos")
TABLE_CHECKS = ("CaLM", "non-empty", "lang", "no rep", "HR", "P", "R", "relab", "agree", "κ")


def _fact_cells(f: Figures) -> list[str]:
    return [str(f.sessions), str(f.abstentions), _num(f.facts_per_text, 1),
            _pct(f.factscore), _pct(f.factscore_relevant_only), _pct(f.factscore_gamma),
            _num(f.semantic_drift, 3), _pct(f.drifting_share), _num(f.drifting_p_value, 3),
            _pct(f.drift_position)]


def _check_cells(f: Figures) -> list[str]:
    c, ag = f.calm or CalmShares(), f.agreement or AgreementFigures()
    return [_pct(c.calmscore), _pct(c.non_empty), _pct(c.language_ok), _pct(c.not_repetitive),
            _pct(f.hallucination_rate), _num(f.hallucination_precision),
            _num(f.hallucination_recall), str(f.relabelled_facts), _pct(ag.accuracy),
            _num(ag.kappa)]


def render_table(report: Report | Mapping[str, Any], console=None) -> None:
    """Two rich terminal tables (factuality and drift; checks, HR and agreement), narrow enough for
    a 100-column terminal. Every cell is a literal Text (no markup from data)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = console or Console()
    report = Report.of(report)
    rows = _rows(report)
    if not rows:
        console.print(Text("No sessions in the store. Import some (mfact import FILE) or run mfact check."))
        return
    show_model = any(model != "all" for _, model, _ in rows)
    suffix = f" by {report.by}" if report.by else ""
    for title, heads, cells in (("FActScore and semantic drift" + suffix, TABLE_FACTS, _fact_cells),
                                ("CaLMScore, hallucination rate, agreement" + suffix, TABLE_CHECKS,
                                 _check_cells)):
        table = Table(title=Text(title), box=box.SIMPLE_HEAD, padding=(0, 0), pad_edge=False,
                      title_justify="left", show_edge=False)
        table.add_column(Text("group"), no_wrap=True)
        if show_model:
            widest = max(len(model) for _, model, _ in rows)
            table.add_column(Text("model"), overflow="fold", min_width=min(widest, 24), max_width=32)
        for h in heads:
            table.add_column(Text(h), justify="right", no_wrap=True)
        for group, model, fig in rows:
            first = [group, model] if show_model else [group]
            table.add_row(*[Text(c) for c in first + cells(fig)])
        console.print(table)
    console.print(Text(NOTE, style="dim"))


def render_markdown(report: Report | Mapping[str, Any]) -> str:
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join(["---"] * 2 + ["---:"] * (len(COLUMNS) - 2)) + "|"]
    for group, model, fig in _rows(Report.of(report)):
        lines.append("| " + " | ".join(esc(c) for c in _cells(group, model, fig)) + " |")
    return "\n".join(lines) + "\n\n" + NOTE + "\n"


CSV_FIELDS = ("group", "model", "sessions", "abstentions", "facts", "facts_per_text", "factscore",
              "factscore_relevant_only", "factscore_gamma", "semantic_drift", "drift_texts",
              "drifting_share", "drifting_p_value", "drift_position", "calm_non_empty",
              "calm_language_ok", "calm_not_repetitive", "calmscore", "hallucination_rate",
              "hallucination_precision", "hallucination_recall", "relabelled_facts",
              "agreement_n", "agreement_accuracy", "agreement_kappa")


def _csv_row(group: str, model: str, f: Figures) -> tuple:
    """One row's values, in the order of CSV_FIELDS."""
    c, ag = f.calm or CalmShares(), f.agreement or AgreementFigures()
    return (group, model, f.sessions, f.abstentions, f.facts, f.facts_per_text, f.factscore,
            f.factscore_relevant_only, f.factscore_gamma, f.semantic_drift, f.drift_texts,
            f.drifting_share, f.drifting_p_value, f.drift_position, c.non_empty, c.language_ok,
            c.not_repetitive, c.calmscore, f.hallucination_rate, f.hallucination_precision,
            f.hallucination_recall, f.relabelled_facts, ag.n, ag.accuracy, ag.kappa)


def render_csv(report: Report | Mapping[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for group, model, f in _rows(Report.of(report)):
        w.writerow(["" if v is None else _csv_value(v) for v in _csv_row(group, model, f)])
    return buf.getvalue()


def _csv_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.6g}"
    s = str(v)
    return ("'" + s) if s[:1] in ("=", "+", "-", "@") and not _is_number(s) else s


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def render_json(report: Report | Mapping[str, Any]) -> str:
    return json.dumps(Report.of(report).to_dict(), ensure_ascii=False, indent=2)
