"""mfact themes: the stylesheet (`mfact.tcss`) and three Textual themes.

- `mfact-dark` (default) and `mfact-light`: green for supported, red for not supported;
- `mfact-cb`: colour-blind safe (Okabe-Ito): blue for supported, orange/vermillion for not
  supported, never red against green.
Labels always carry a glyph as well (✓ ✗ ○ …), so no meaning rests on colour alone.
"""
from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).with_name("mfact.tcss")

THEMES: tuple[Theme, ...] = (
    Theme(
        name="mfact-dark", dark=True,
        primary="#5b8def", secondary="#8a8fa3", accent="#c792ea", warning="#e0b341",
        error="#e05252", success="#4caf50", foreground="#e0e0e0", background="#16181d",
        surface="#1e2128", panel="#262a33",
        variables={"label-supported": "#5cc76a", "label-not-supported": "#ff6b6b",
                   "label-irrelevant": "#8c8c99", "label-pending": "#a0a0a0",
                   "drift-marker": "#e0b341", "fact-selected": "#34405e",
                   "match-highlight": "#5c4b00"},
    ),
    Theme(
        name="mfact-light", dark=False,
        primary="#2656c9", secondary="#5f6470", accent="#8e44ad", warning="#b07d00",
        error="#c62828", success="#2e7d32", foreground="#1d1f24", background="#fafafa",
        surface="#ffffff", panel="#eceef2",
        variables={"label-supported": "#2e7d32", "label-not-supported": "#c62828",
                   "label-irrelevant": "#6b6b78", "label-pending": "#70707a",
                   "drift-marker": "#9a6a00", "fact-selected": "#d6e2ff",
                   "match-highlight": "#ffe58a"},
    ),
    Theme(
        name="mfact-cb", dark=True,
        primary="#56b4e9", secondary="#999999", accent="#cc79a7", warning="#f0e442",
        error="#e69f00", success="#0072b2", foreground="#e8e8e8", background="#111318",
        surface="#1a1d24", panel="#23262e",
        variables={"label-supported": "#56b4e9", "label-not-supported": "#e69f00",
                   "label-irrelevant": "#b0b0b0", "label-pending": "#8a8a8a",
                   "drift-marker": "#f0e442", "fact-selected": "#3b3f52",
                   "match-highlight": "#4a4200"},
    ),
)

THEME_NAMES = tuple(t.name for t in THEMES)
