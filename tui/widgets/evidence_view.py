"""The evidence for the selected fact: ranked passages with source, language, title, section, URL
and the fact's words highlighted."""
from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

from rich.style import Style
from rich.text import Text

from .text_view import TextView
from ..render import Palette, highlight_terms, label_text, match_terms, one_line, safe


def evidence_text(fact, passages, palette: Palette, used: set[str] | None = None,
                  pending: bool = False) -> Text:
    t = Text()
    if fact is None:
        t.append("No fact selected. Move with j/k or click a fact.", style="dim")
        return t
    t.append_text(_fact_head(fact, palette))
    if not passages:
        t.append("\n")
        t.append("Retrieving evidence…" if pending else "No evidence for this fact.", style="dim")
        return t
    terms = match_terms(fact.text)
    hl = Style(bgcolor=palette.highlight_bg, bold=True)
    # the evidence words that conflict with the fact's wrong words (slot checks): reversed in the
    # not-supported colour, so they read without colour too
    conflict = Style(color=palette.colors.get("NS"), reverse=True, bold=True, underline=True)
    conflicts: dict[str, list[tuple[int, int]]] = {}
    if fact.auto is not None and fact.label == "NS":
        for eid, a, b in fact.auto.evidence_marks:
            conflicts.setdefault(eid, []).append((a, b))
    for rank, ev in enumerate(passages, 1):
        t.append("\n")
        t.append_text(_passage_head(rank, ev, used))
        t.append("\n")
        plain, where = _shown(ev.text)
        body = Text(plain)
        highlight_terms(body, terms, hl)
        for a, b in conflicts.get(ev.id, ()):
            if 0 <= a < b <= len(where):
                body.stylize(conflict, where[a], where[b - 1] + 1)
        t.append_text(body)
        t.append("\n")
    return t


def _fact_head(fact, palette: Palette) -> Text:
    """The fact, its label, the wrong words and the verifier's reason."""
    t = Text()
    t.append("Fact: ", style="bold")
    t.append(one_line(fact.text))
    t.append("\n")
    t.append_text(label_text(fact.label, palette,
                             fact.auto.confidence if fact.auto and not fact.human else None,
                             long=True))
    if fact.human is not None:
        t.append("  (human)", style="dim")
    if fact.auto is not None and fact.auto.marks and fact.label == "NS":
        t.append("\n")
        t.append("Wrong words: ", style="dim")
        for i, (a, b) in enumerate(fact.auto.marks):
            if i:
                t.append(", ")
            t.append(one_line(fact.text[a:b], 80), style=Style(bold=True, underline=True))
    if fact.auto is not None and fact.auto.reason:
        t.append("\n")
        t.append("Reason: ", style="dim")
        t.append(one_line(fact.auto.reason, 400), style="italic")
    t.append("\n")
    return t


def _passage_head(rank: int, ev, used: set[str] | None) -> Text:
    t = Text()
    t.append(f"{rank}. ", style="bold")
    t.append(one_line(ev.title or "(untitled)", 120), style="bold")
    if ev.section:
        t.append(" › ")
        t.append(one_line(ev.section, 80))
    t.append("\n")
    meta = Text(style="dim")
    meta.append(f"{one_line(ev.source, 30)} · {one_line(ev.lang, 8) or '?'} · score {ev.score:.2f}")
    if used and ev.id in used:
        meta.append(" · used by verifier")
    t.append_text(meta)
    if ev.url:
        t.append("\n")
        t.append(one_line(ev.url, 200), style=Style(dim=True, underline=True))
    return t


@lru_cache(maxsize=1024)
def _shown(text: str) -> tuple[str, list[int]]:
    """A passage's text as the pane shows it (made safe, whitespace collapsed) and where each
    character of the made-safe text went: the same passages come back on every move of the
    selection, and this per-character loop was the larger part of building the pane."""
    return _collapse(safe(text))


def _collapse(text: str) -> tuple[str, list[int]]:
    """`text` with runs of whitespace as one space and no space at the ends (as the pane shows
    it), and where each character of `text` went in it."""
    out: list[str] = []
    where: list[int] = []
    space = False
    for ch in text:
        if ch.isspace():
            space = bool(out)
            where.append(len(out))
            continue
        if space:
            out.append(" ")
            space = False
        where.append(len(out))
        out.append(ch)
    return "".join(out), where


RECALL = 16      # the evidence of the last 16 facts shown stays wrapped (j, k, j... re-wrap nothing)


class EvidenceMemo:
    """`evidence_text`, kept for the last `RECALL` facts shown: moving back and forth over facts
    (j, k, j) rebuilt the same pane every time. A fact's entry is made again when anything the pane
    shows of it changes (its label, confidence, marks, reason), or its passages, the passages the
    verifier used, or the palette."""

    def __init__(self, size: int = RECALL):
        self.size = size
        self._made: OrderedDict[tuple, tuple[Text, list]] = OrderedDict()

    def __call__(self, fact, passages, palette: Palette, used: set[str] | None = None,
                 pending: bool = False) -> Text:
        key = (_shown_fact(fact), tuple(id(p) for p in passages), frozenset(used or ()), pending, palette.key)
        got = self._made.get(key)
        if got is not None:
            self._made.move_to_end(key)
            return got[0]
        text = evidence_text(fact, passages, palette, used, pending)
        self._made[key] = (text, list(passages))     # holding the passages keeps their ids theirs
        while len(self._made) > self.size:
            self._made.popitem(last=False)
        return text


def _shown_fact(fact) -> tuple | None:
    """What the pane shows of a fact."""
    if fact is None:
        return None
    a = fact.auto
    auto = None if a is None else (a.label, a.confidence, tuple(a.marks or ()), a.reason,
                                   tuple(a.evidence_marks or ()))
    return (fact.id, fact.text, fact.label, fact.human is not None, auto)


class EvidenceView(TextView):
    """The evidence pane (focusable, scrollable)."""

    def show(self, text: Text, layout: bool = True) -> None:
        self.set_text(text, home=layout, recall=RECALL)
