"""The report's charts, drawn by matplotlib as SVG to put inline in a page (`mfact report --html`).

    chart_data(sessions)            the figures the charts need, per language / group (ChartData)
    factscore_chart(data)           FActScore by language, with 95 % bootstrap intervals
    hallucination_chart(data, rep)  the corrected hallucination rate by language (raw beside it)
    groups_chart(data, by)          FActScore by rarity or region, per language
    drift_chart(data)               FActScore against the position in the text (the drift curve)

Each returns the `<svg>` element alone (no XML prolog), its text drawn as paths (no font is
fetched), ids unique per chart, no date in it (the same data gives the same bytes). Names from
the data (groups) are cleaned to one line and never read as mathtext. Colours: Okabe-Ito
(themes/palette.json).
"""
from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from . import metrics as M
from .htmlkit import palette
from .session import Session
from .textsafe import clean_terminal

BINS = 10                         # position bins of the drift curve
MAX_NAME = 28


@dataclass
class Series:
    """Per-text FActScores of a group, their mean and its bootstrap interval."""
    scores: list[float] = field(default_factory=list)

    @cached_property
    def mean(self) -> float | None:
        return M.mean(self.scores)

    @cached_property
    def ci(self) -> tuple[float, float] | None:
        return M.bootstrap_ci(self.scores)


@dataclass
class ChartData:
    languages: dict[str, Series] = field(default_factory=dict)
    groups: dict[str, dict[str, dict[str, Series]]] = field(default_factory=dict)   # by -> group -> lang
    # language -> per bin [supported, labelled] facts
    positions: dict[str, list[list[int]]] = field(default_factory=dict)


def _name(v: object) -> str:
    s = clean_terminal(v, one_line=True).strip()
    return s if len(s) <= MAX_NAME else s[:MAX_NAME - 1] + "…"


def chart_data(sessions: Iterable[Session]) -> ChartData:
    data = ChartData()
    for s in sessions:
        labels = M.labels_of(s)
        score = M.factscore(labels) if s.facts else None
        if score is not None:
            data.languages.setdefault(s.language, Series()).scores.append(score)
            for by in ("rarity", "region"):
                v = s.entity.attributes.get(by)
                if v not in (None, ""):
                    group = data.groups.setdefault(by, {}).setdefault(_name(v), {})
                    group.setdefault(s.language, Series()).scores.append(score)
        known = [lab for lab in labels if lab is not None]
        if known:
            bins = data.positions.setdefault(s.language, [[0, 0] for _ in range(BINS)])
            for j, lab in enumerate(known):
                b = min(BINS - 1, int(BINS * (j + 0.5) / len(known)))
                bins[b][0] += lab == "S"
                bins[b][1] += 1
    data.languages = dict(sorted(data.languages.items()))
    return data


def _colours() -> list[str]:
    o = palette()["okabe_ito"]
    return [o[k] for k in ("blue", "vermillion", "bluish_green", "orange", "reddish_purple", "sky_blue",
                           "yellow", "black")]


_ID = re.compile(r'\b(id)="([^"]+)"')
_REF = re.compile(r'(href="|url\()#([^")]+)')


def _svg(fig, name: str, title: str) -> str:
    """The figure as an inline `<svg>` that scales to its container."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    # every id prefixed by the chart's name (matplotlib numbers them per figure: figure_1, the
    # glyphs' DejaVuSans-31...), so that charts on one page neither clash nor cross-reference
    svg = _ID.sub(lambda m: f'{m.group(1)}="{name}-{m.group(2)}"', svg)
    svg = _REF.sub(lambda m: f"{m.group(1)}#{name}-{m.group(2)}", svg)
    from .htmlkit import esc
    return svg.replace("<svg", f'<svg role="img" aria-label="{esc(title)}" class="chart" id="chart-{name}"', 1)


def _figure(name: str, size=(7.2, 3.2)):
    """A Figure and its axes, drawn in `name`'s own rc context (the caller keeps it open)."""
    import matplotlib
    from matplotlib.figure import Figure

    ctx = matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": f"mfact-{name}",
                                 "text.parse_math": False, "font.size": 9, "axes.spines.top": False,
                                 "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3,
                                 "axes.axisbelow": True})
    ctx.__enter__()
    fig = Figure(figsize=size, dpi=100)
    return ctx, fig, fig.subplots()


def _draw(name: str, title: str, size, paint) -> str:
    """Run `paint(fig, ax)` on a new figure and give its SVG (warnings of missing glyphs muted)."""
    ctx, fig, ax = _figure(name, size)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            paint(fig, ax)
            return _svg(fig, name, title)
    finally:
        ctx.__exit__(None, None, None)


def _percent_axis(ax, label: str) -> None:
    ax.set_ylim(0, 100)
    ax.set_ylabel(label)


def factscore_chart(data: ChartData) -> str:
    langs = list(data.languages)

    def paint(fig, ax):
        means = [100 * (data.languages[g].mean or 0) for g in langs]
        lo, hi = [], []
        for g, m in zip(langs, means):
            ci = data.languages[g].ci
            lo.append(m - 100 * ci[0] if ci else 0)
            hi.append(100 * ci[1] - m if ci else 0)
        x = range(len(langs))
        ax.bar(x, means, color=_colours()[0], yerr=[lo, hi], capsize=4, ecolor="#333333")
        for i, m in enumerate(means):
            ax.annotate(f"{m:.1f}", (i, m + hi[i]), textcoords="offset points", xytext=(0, 2),
                        ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(x), [f"{g}\nn={len(data.languages[g].scores)}" for g in langs])
        _percent_axis(ax, "FActScore (%)")
        ax.set_xlabel("language (n: texts)")
        ax.set_title("FActScore by language (mean over texts, 95 % bootstrap interval)")
    return _draw("factscore", "FActScore by language with 95% bootstrap intervals",
                 (max(6.0, 0.7 * len(langs) + 2), 3.2), paint)


def hallucination_chart(data: ChartData, rates: dict[str, tuple[float | None, float | None, str]]) -> str:
    """`rates`: language -> (corrected rate, raw rate, why the corrected one is missing)."""
    langs = list(rates)

    def paint(fig, ax):
        import numpy as np

        x = np.arange(len(langs))
        corrected = [rates[g][0] for g in langs]
        raw = [rates[g][1] for g in langs]
        c = _colours()
        ax.bar(x - 0.2, [100 * (v or 0) for v in raw], 0.4, color=c[3], label="raw (verifier's spans)")
        ax.bar(x + 0.2, [100 * (v or 0) for v in corrected], 0.4, color=c[1], label="corrected")
        for i, v in enumerate(corrected):
            if v is None:
                ax.annotate("n/a", (x[i] + 0.2, 0), textcoords="offset points", xytext=(0, 2),
                            ha="center", va="bottom", fontsize=7)
        ax.set_xticks(list(x), langs)
        _percent_axis(ax, "hallucinated tokens (%)")
        ax.set_xlabel("language")
        ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1, 1))
        ax.set_title("Hallucination rate by language (n/a: too few relabels to correct)")
    return _draw("hallucination", "Hallucination rate by language, corrected and raw",
                 (max(6.0, 0.8 * len(langs) + 2), 3.2), paint)


def groups_chart(data: ChartData, by: str) -> str:
    """FActScore per group of `by` (rarity or region), one bar per language, with intervals."""
    from .report import RARITY_ORDER

    groups = data.groups.get(by, {})
    names = sorted(groups, key=lambda g: (RARITY_ORDER.index(g) if g in RARITY_ORDER else len(RARITY_ORDER), g))
    langs = sorted({lang for g in groups.values() for lang in g})

    def paint(fig, ax):
        import numpy as np

        x = np.arange(len(names))
        width = 0.8 / max(1, len(langs))
        for j, lang in enumerate(langs):
            series = [groups[g].get(lang) for g in names]
            means = [100 * (sr.mean or 0) if sr else 0 for sr in series]
            err = [_err(sr) for sr in series]
            ax.bar(x + (j - (len(langs) - 1) / 2) * width, means, width, label=lang,
                   color=_colours()[j % 8], yerr=np.array(err).T, capsize=3, ecolor="#333333")
        ax.set_xticks(list(x), names)
        _percent_axis(ax, "FActScore (%)")
        ax.set_xlabel(by)
        if len(langs) > 1:
            ax.legend(title="language", fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1, 1))
        ax.set_title(f"FActScore by {by} (95 % bootstrap interval)")
    return _draw(f"by-{by}", f"FActScore by {by}", (max(6.0, 1.1 * len(names) + 2), 3.2), paint)


def _err(series: Series | None) -> tuple[float, float]:
    if series is None or series.ci is None or series.mean is None:
        return (0.0, 0.0)
    lo, hi = series.ci
    return (100 * (series.mean - lo), 100 * (hi - series.mean))


def drift_chart(data: ChartData) -> str:
    """The share of supported facts in each tenth of the texts, per language: where it falls,
    the texts drift."""
    langs = sorted(data.positions)

    def paint(fig, ax):
        xs = [100 * (b + 0.5) / BINS for b in range(BINS)]
        for j, lang in enumerate(langs):
            bins = data.positions[lang]
            ys = [100 * s / n if n else float("nan") for s, n in bins]
            ax.plot(xs, ys, marker="o", markersize=3, color=_colours()[j % 8], label=lang)
        ax.set_xlim(0, 100)
        _percent_axis(ax, "supported facts (%)")
        ax.set_xlabel("position in the text (% of its labelled facts)")
        if langs:
            ax.legend(title="language", fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1, 1))
        ax.set_title("FActScore against the position in the text (the drift curve)")
    return _draw("drift", "FActScore against the position in the text", (7.2, 3.2), paint)
