"""The research report as one self-contained web page (`mfact report --html -o report.html`).

The per-language table (the columns of `mfact report --markdown`, with the 95 % bootstrap interval
of FActScore beside it); the charts, drawn by matplotlib as inline SVG (core/charts.py): FActScore
by language with intervals, the corrected hallucination rate by language, FActScore by rarity and
by region, and FActScore against the position in the text; then the tables per rarity and per
region when the sessions carry those attributes. Nothing is fetched; no script.
"""
from __future__ import annotations

from datetime import datetime, timezone

from . import charts as C
from .htmlkit import esc, page
from .report import COLUMNS, NOTE, Reasons, Report, _cells, _rows, build_report
from .session import Session

REPORT_CSS = """
body{max-width:84rem}
figure{margin:1rem 0;border:1px solid var(--line);border-radius:4px;padding:.5rem}
figure svg.chart{display:block;max-width:100%;height:auto;margin:0 auto}
td,th{white-space:nowrap}td:first-child{white-space:normal;max-width:14rem}
figcaption{color:var(--muted);font-size:.88rem;margin-top:.3rem}
.wide{overflow-x:auto}td.ci{color:var(--muted);white-space:nowrap}
"""


def report_page(sessions: list[Session], languages: list[str] | None = None, p_value: bool = True) -> str:
    """The whole report page over `sessions` (only `languages`, when given)."""
    sessions = [s for s in sessions if not languages or s.language in languages]
    report = build_report(sessions, languages=languages, p_value=p_value)
    data = C.chart_data(sessions)
    parts = [_intro(sessions, report), "<h2>Per language</h2>", _table(report, data.languages),
             f'<p class="note">{esc(NOTE)}</p>', "<h2>Charts</h2>", *_charts(report, data)]
    for by in ("rarity", "region"):
        if by in data.groups:
            grouped = build_report(sessions, by=by, languages=languages, p_value=p_value)
            parts += [f"<h2>By {by}</h2>", _table(grouped, _group_series(data, by))]
    return page("mfact report", "\n".join(parts), css=REPORT_CSS)


def _intro(sessions: list[Session], report: Report) -> str:
    from . import __version__

    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    langs = ", ".join(esc(x) for x in report.languages or {}) or "none"
    return (f"<h1>mfact report</h1><p class=\"muted\">{len(sessions):,} sessions · languages: {langs} · "
            f"written {esc(when)} by mfact {esc(__version__)}</p>")


def _group_series(data: C.ChartData, by: str) -> dict[str, C.Series]:
    """The series of each `lang/group` row of a --by report."""
    return {f"{lang}/{g}": sr for g, per in data.groups.get(by, {}).items() for lang, sr in per.items()}


def _ci_cell(series: C.Series | None) -> str:
    ci = series.ci if series is not None else None
    return "—" if ci is None else f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}"


def _table(report: Report, series: dict[str, C.Series]) -> str:
    """The report's rows as an HTML table (every cell escaped), FActScore's interval after FS."""
    fs = COLUMNS.index("FS")
    heads = list(COLUMNS[:fs + 1]) + ["FS 95% CI"] + list(COLUMNS[fs + 1:])
    head = "".join(f"<th>{esc(h)}</th>" for h in heads)
    rows = []
    for group, model, fig in _rows(report):
        cells = _cells(group, model, fig)
        whole = any(fig is f for f in report.sections.values())     # a language's (group's) own row
        ci = _ci_cell(series.get(group)) if whole else "—"
        tds = [f"<td>{esc(c)}</td>" for c in cells[:fs + 1]] + [f'<td class="ci">{esc(ci)}</td>'] \
            + [f"<td>{esc(c)}</td>" for c in cells[fs + 1:]]
        rows.append("<tr>" + "".join(tds) + "</tr>")
    if not rows:
        return '<p class="note">No sessions. Import some (mfact import FILE) or run mfact check.</p>'
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def _charts(report: Report, data: C.ChartData) -> list[str]:
    if not data.languages and not data.positions:
        return ['<p class="note">No labelled facts yet: nothing to chart.</p>']
    out = [_figure(C.factscore_chart(data),
                   "FActScore (S / all facts, IR counted as not supported), mean over the non-abstaining "
                   "texts of each language; the whiskers are 95 % percentile bootstrap intervals "
                   "(1,000 resamples of the texts, seeded).")]
    rates = {lang: (f.hallucination_rate, f.hallucination_rate_raw, (f.reasons or Reasons()).hallucination_rate or "")
             for lang, f in (report.languages or {}).items()}
    missing = {lang: why for lang, (v, _, why) in rates.items() if v is None}
    note = "" if not missing else " Not corrected: " + "; ".join(f"{k}: {v}" for k, v in missing.items()) + "."
    out.append(_figure(C.hallucination_chart(data, rates),
                       "Share of the text's tokens inside the hallucination spans: raw, and corrected by "
                       "the verifier's precision and recall measured on relabelled facts." + note))
    by = next((b for b in ("rarity", "region") if b in data.groups), None)
    if by:
        out.append(_figure(C.groups_chart(data, by), f"FActScore by {by} of the person, per language, "
                                                      "with 95 % bootstrap intervals."))
        if by == "rarity" and "region" in data.groups:
            out.append(_figure(C.groups_chart(data, "region"), "FActScore by region, per language."))
    else:
        out.append('<p class="note">No session carries a rarity or region (entity lists take them as '
                   "<code>rarity=rare</code> fields): no chart by group.</p>")
    out.append(_figure(C.drift_chart(data), "Share of supported facts in each tenth of the texts (facts "
                                            "in text order, labelled ones only): a falling curve is "
                                            "semantic drift."))
    return out
