"""Turning untrusted text and labels into Rich `Text` objects, literally and safely.

Model output and Wikipedia passages are never parsed as markup: every string enters through
`safe()` (control characters, terminal escapes and bidi overrides become spaces, so offsets into
the text stay valid) and is appended to a `Text` with a style object, never formatted into markup.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from rich.style import Style
from rich.text import Text

from mfact.core.highlight import match_terms, term_pattern  # noqa: F401 - match_terms: re-exported
from mfact.core.textsafe import mask_controls


GLYPHS = {"S": "✓", "NS": "✗", "IR": "○", None: "…"}
LABEL_NAMES = {"S": "supported", "NS": "not supported", "IR": "irrelevant", None: "pending"}


def safe(s: object) -> str:
    """The string with every control/bidi-control character replaced by a space (same length)."""
    return mask_controls(s)


def one_line(s: object, limit: int | None = None) -> str:
    t = " ".join(safe(s).split())
    if limit is not None and len(t) > limit:
        t = t[: max(0, limit - 1)] + "…"
    return t


@dataclass(frozen=True)
class Colours:
    """The colours of a Palette: one per label (pending: no label yet), the drift marker's, and the
    backgrounds of the selected fact and of a matched term."""
    supported: str = "#4caf50"
    not_supported: str = "#e05252"
    irrelevant: str = "#8a8a8a"
    pending: str = "#9e9e9e"
    drift: str = "#d4a017"
    select_bg: str = "#3a3f58"
    highlight_bg: str = "#5c4b00"


class Palette:
    """Label colours taken from the active Textual theme (success / error / secondary)."""

    def __init__(self, colours: Colours = Colours()):
        c = colours
        self.colors = {"S": c.supported, "NS": c.not_supported, "IR": c.irrelevant, None: c.pending}
        self.drift = c.drift
        self.select_bg = c.select_bg
        self.highlight_bg = c.highlight_bg
        self.key = (tuple(self.colors.values()), c.drift, c.select_bg, c.highlight_bg)
        self._styles: dict = {}           # made once: rebuilding a text of 45 facts made ~180 styles

    @classmethod
    def from_theme(cls, theme) -> "Palette":
        if theme is None:
            return cls()
        v = getattr(theme, "variables", {}) or {}
        return cls(Colours(supported=v.get("label-supported") or theme.success or "#4caf50",
                           not_supported=v.get("label-not-supported") or theme.error or "#e05252",
                           irrelevant=v.get("label-irrelevant") or "#8a8a8a",
                           pending=v.get("label-pending") or "#9e9e9e",
                           drift=v.get("drift-marker") or theme.warning or "#d4a017",
                           select_bg=v.get("fact-selected") or "#3a3f58",
                           highlight_bg=v.get("match-highlight") or "#5c4b00"))

    def label_style(self, label: str | None) -> Style:
        st = self._styles.get(label)
        if st is None:
            st = self._styles[label] = (Style(color=self.colors[None], italic=True) if label is None
                                        else Style(color=self.colors[label]))
        return st

    def fact_styles(self, label: str | None, fact_id: str) -> tuple[Style, Style]:
        """The style of a fact's span and of its glyph (the label's colour, and the fact's id for
        clicks), made once per label and fact."""
        key = (label, fact_id)
        got = self._styles.get(key)
        if got is None:
            if len(self._styles) > 200_000:      # a long-lived app over many big sessions
                self._styles.clear()
            base = self.label_style(label)
            meta = Style(meta={"fact": fact_id})
            got = self._styles[key] = (base + Style(underline=label is None) + meta, base + meta)
        return got


def label_text(label: str | None, palette: Palette, confidence: float | None = None,
               long: bool = False) -> Text:
    """`✓ S 0.91` in the label's colour (the glyph carries the meaning without colour)."""
    t = Text()
    name = LABEL_NAMES[label] if long else (label or "…")
    t.append(f"{GLYPHS.get(label, '?')} {name}", style=palette.label_style(label))
    if confidence is not None and label is not None:
        t.append(f" {confidence:.2f}", style=Style(dim=True))
    return t


def fact_text(full: str, facts: Sequence, palette: Palette, selected: str | None = None,
              drift_point: int | None = None, show_drift: bool = True) -> Text:
    """The checked text with each fact's span coloured by its effective label, a glyph after each
    span, the selected fact emphasised and the drift point drawn as a marker before fact k. The
    hallucination spans (the union of the NS facts' spans, as `mfact export --format spans`
    writes them) are also bold and underlined, so they read without colour."""
    return select_fact(fact_text_base(full, facts, palette, drift_point, show_drift), selected, palette)


class Coloured(NamedTuple):
    """The coloured text without a selection, and where each fact's span ended up in it (after the
    glyphs and the drift marker put in before it)."""
    text: Text
    where: dict[str, tuple[int, int]]


def select_fact(made: Coloured, selected: str | None, palette: Palette) -> Text:
    """A copy of the coloured text with the selected fact's span emphasised."""
    text = made.text.copy()
    a, b = made.where.get(selected, (0, 0)) if selected is not None else (0, 0)
    if b > a:
        text.stylize(Style(bgcolor=palette.select_bg, bold=True), a, b)
    return text


def fact_text_base(full: str, facts: Sequence, palette: Palette, drift_point: int | None = None,
                   show_drift: bool = True) -> Coloured:
    """`fact_text` without a selection (see `select_fact`)."""
    body = safe(full)
    n = len(body)
    text = Text(body)
    inserts: dict[int, list[Text]] = {}
    spans: dict[str, tuple[int, int]] = {}
    from mfact.core.metrics import ns_spans, span_items
    for a, b, _lab in ns_spans(body, span_items(body, facts)):
        text.stylize(Style(bold=True, underline=True), a, b)
    for f in facts:
        a, b = max(0, min(f.span[0], n)), max(0, min(f.span[1], n))
        label = f.label
        span_style, glyph_style = palette.fact_styles(label, f.id)
        if b > a:
            text.stylize(span_style, a, b)
        spans[f.id] = (a, b)
        g = Text(GLYPHS.get(label, "?"), style=glyph_style)
        inserts.setdefault(b, []).append(g)
    if show_drift and drift_point is not None and 0 < drift_point < len(facts):
        pos = max(0, min(facts[drift_point].span[0], n))
        marker = Text("▼drift ", style=Style(color=palette.drift, bold=True, reverse=True))
        inserts.setdefault(pos, []).append(marker)
    if not inserts:
        return Coloured(text, spans)
    cuts = sorted(inserts)
    out = Text()
    pieces = text.divide([c for c in cuts if 0 < c < n]) if n else [Text()]
    starts = [0] + [c for c in cuts if 0 < c < n]
    for start, piece in zip(starts, pieces):
        for t in inserts.get(start, ()):
            out.append_text(t)
        out.append_text(piece)
    if n > 0:
        for t in inserts.get(n, ()):
            out.append_text(t)
    # an insert at c goes before the character at c: a span's start moves by the inserts at cuts <= its
    # start, its end by those at cuts < its end; before[i]: the characters put in at cuts[:i]
    before = [0]
    for c in cuts:
        before.append(before[-1] + sum(len(t) for t in inserts[c]))
    return Coloured(out, {fid: (a + before[bisect.bisect_right(cuts, a)], b + before[bisect.bisect_left(cuts, b)])
                          for fid, (a, b) in spans.items()})


class FactTextMemo:
    """`fact_text` for a pane whose selection moves more often than its text changes: the coloured
    text is made again only when the text, a fact (its span, label, marks), the drift marker or the
    palette changed; a new selection restyles a copy (a key that only moves the selection rebuilt
    the whole text, ~2 ms for a biography of 45 facts)."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._made: Coloured | None = None

    def __call__(self, full: str, facts: Sequence, palette: Palette, selected: str | None = None,
                 drift_point: int | None = None, show_drift: bool = True) -> Text:
        key = (full, [_fact_key(f) for f in facts], palette.key, drift_point, show_drift)
        if self._made is None or key != self._key:
            self._made = fact_text_base(full, facts, palette, drift_point, show_drift)
            self._key = key
        return select_fact(self._made, selected, palette)


def _fact_key(f) -> tuple:
    auto = f.auto
    return (f.id, f.span, f.label, f.text,
            None if auto is None else (auto.label, tuple(auto.marks or ())))


class SpanIndex:
    """The facts of a finished session ordered by where their span starts, to find those in a
    window of a long text by binary search: the text pane of a 20,000-fact session looked at
    every fact on each key (13 ms). Build one per facts list (`fits`: still the same list)."""

    def __init__(self, facts: Sequence):
        self.facts = facts
        self.n = len(facts)
        self.order = sorted(range(len(facts)), key=lambda i: facts[i].span[0])
        self.starts = [facts[i].span[0] for i in self.order]
        self.longest = max((f.span[1] - f.span[0] for f in facts), default=0)

    def fits(self, facts: Sequence) -> bool:
        return facts is self.facts and len(facts) == self.n

    def overlapping(self, start: int, end: int) -> list[int]:
        """Places (in the list, ascending) of the facts whose span overlaps [start, end)."""
        lo = bisect.bisect_left(self.starts, start - self.longest)
        hi = bisect.bisect_left(self.starts, end)
        facts, order = self.facts, self.order
        return sorted(i for i in (order[j] for j in range(lo, hi)) if facts[i].span[1] > start)


def facts_in_window(facts: Sequence, start: int, end: int, index: SpanIndex | None = None) -> list[int]:
    """Places of the facts whose span overlaps [start, end) of the text, in list order; through
    `index` when it fits the list (spans must not have moved since it was built)."""
    if index is not None and index.fits(facts):
        return index.overlapping(start, end)
    return [i for i, f in enumerate(facts) if f.span[1] > start and f.span[0] < end]


def highlight_terms(text: Text, terms: Iterable[str], style: Style) -> Text:
    pattern = term_pattern(terms)
    if pattern is None:
        return text
    plain = text.plain
    for m in pattern.finditer(plain):
        text.stylize(style, m.start(), m.end())
    return text


def fmt_pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def fmt_num(x: float | None, nd: int = 2) -> str:
    return "—" if x is None else f"{x:.{nd}f}"
