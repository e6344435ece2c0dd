"""Rendering helpers: untrusted text stays literal and offsets stay valid; glyphs carry every
label; the colour-blind theme avoids red against green."""
from __future__ import annotations

import colorsys

from mfact.core.session import Evidence, Fact, HumanLabel, Verdict
from mfact.themes import THEME_NAMES, THEMES
from mfact.tui.render import GLYPHS, FactTextMemo, Palette, fact_text, match_terms, safe
from mfact.tui.widgets.evidence_view import evidence_text


def test_safe_replaces_controls_and_bidi_overrides_keeping_length():
    raw = "a\x1b[31mred\x1b[0m\x07 \u202eevil\u202c\tb\nc\x9b"
    out = safe(raw)
    assert len(out) == len(raw)
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out and "\x9b" not in out
    assert "\n" in out and out.startswith("a [31mred")


def _facts(text, labels):
    out, pos = [], 0
    for i, (sent, lab) in enumerate(zip(text.split(". "), labels)):
        start = text.index(sent, pos)
        out.append(Fact(id=f"f{i}", text=sent, sentence=i, span=(start, start + len(sent)),
                        auto=Verdict(lab) if lab else None))
        pos = start + len(sent)
    return out


def test_fact_text_glyphs_marker_and_literal_markup():
    text = "[b]A[/b] was born. B died. C won. D lost"
    facts = _facts(text, ["S", "NS", "IR", None])
    t = fact_text(text, facts, Palette(), selected="f1", drift_point=2)
    plain = t.plain
    assert plain.startswith("[b]A[/b] was born" + GLYPHS["S"])
    assert "B died" + GLYPHS["NS"] in plain
    assert plain.index("▼drift") < plain.index("C won") and plain.index("▼drift") > plain.index("B died")
    assert plain.endswith("D lost" + GLYPHS[None])
    hidden = fact_text(text, facts, Palette(), drift_point=2, show_drift=False)
    assert "▼drift" not in hidden.plain
    # spans carry their fact id for clicks
    metas = {s.style.meta.get("fact") for s in t.spans if hasattr(s.style, "meta") and s.style.meta}
    assert {"f0", "f1", "f2", "f3"} <= metas


def _cells(t):
    """(character, background colour, bold, colour) of each rendered character."""
    from rich.console import Console
    console = Console(width=200, color_system="truecolor")
    out = []
    for seg in t.render(console):
        st = seg.style
        for ch in seg.text:
            out.append((ch, st.bgcolor.name if st and st.bgcolor else None, bool(st and st.bold),
                        st.color.name if st and st.color else None))
    return out


def test_the_selection_covers_exactly_its_fact_after_the_glyphs_and_the_marker():
    text = "A was born. B died. C won. D lost"
    facts = _facts(text, ["S", "NS", "IR", None])
    pal = Palette()
    for sel, want in (("f0", "A was born"), ("f2", "C won"), ("f3", "D lost")):
        cells = _cells(fact_text(text, facts, pal, selected=sel, drift_point=2))
        shaded = "".join(ch for ch, bg, _b, _c in cells if bg is not None)
        assert shaded == want, sel


def test_the_memo_renders_as_fact_text_and_follows_labels_and_marks():
    text = "A was born. B died. C won. D lost"
    facts = _facts(text, ["S", "NS", "IR", None])
    pal, memo = Palette(), FactTextMemo()
    for sel in ("f0", "f1", None, "f3", "f1"):
        assert _cells(memo(text, facts, pal, sel, 2)) == _cells(fact_text(text, facts, pal, sel, 2))
    facts[0].human = HumanLabel("NS")          # a relabel: the memo must not show the old colour
    assert _cells(memo(text, facts, pal, "f1", 2)) == _cells(fact_text(text, facts, pal, "f1", 2))
    facts[1].auto = Verdict("NS", marks=[(2, 6)])        # marks: only "died" bold-underlined
    got = _cells(memo(text, facts, pal, None, 2))
    assert got == _cells(fact_text(text, facts, pal, None, 2))
    # bold: f0's whole span (NS without marks), only the marked word of f1, the drift marker
    assert "".join(ch for ch, _bg, b, _c in got if b) == "A was born" + "died" + "▼drift "


def test_evidence_is_literal_and_highlights_fact_words():
    f = Fact(id="f", text="She was born in Warsaw in 1867", sentence=0, span=(0, 5),
             auto=Verdict("S", 0.8, evidence=["e1"], reason="[red]reason[/red]"),
             human=HumanLabel("NS"))
    ev = Evidence(id="e1", source="wikipedia", lang="pl", title="Maria [i]Skłodowska[/i]",
                  text="Urodziła się w Warsaw \x1b[2J w 1867 roku.", url="https://pl.wikipedia.org/x",
                  section="Życie", score=0.7)
    t = evidence_text(f, [ev], Palette(), {"e1"})
    assert "Maria [i]Skłodowska[/i]" in t.plain and "[red]reason[/red]" in t.plain
    assert "\x1b" not in t.plain and "used by verifier" in t.plain and "Życie" in t.plain
    assert "not supported" in t.plain and "(human)" in t.plain
    start = t.plain.index("Warsaw", t.plain.index("Urodziła"))
    assert any(s.start <= start < s.end for s in t.spans if "bold" in str(s.style))
    assert set(match_terms("She was born in Warsaw in 1867")) >= {"warsaw", "1867", "born"}
    assert "বাংলা" in match_terms("সে বাংলা লেখে")


def test_the_evidence_memo_gives_what_evidence_text_gives_and_follows_the_fact():
    from mfact.tui.widgets.evidence_view import EvidenceMemo

    f = Fact(id="f", text="She was born in Warsaw in 1867", sentence=0, span=(0, 5),
             auto=Verdict("S", 0.8, evidence=["e1"], reason="close"))
    ev = Evidence(id="e1", source="wikipedia", lang="pl", title="Maria", text="Urodziła się w Warsaw w 1867 roku.",
                  url="", section="", score=0.7)
    other = Evidence(id="e2", source="wikipedia", lang="pl", title="Piotr", text="Inny tekst.", url="",
                     section="", score=0.5)
    pal, memo = Palette(), EvidenceMemo(size=2)
    first = memo(f, [ev], pal, {"e1"})
    assert first is memo(f, [ev], pal, {"e1"})                      # kept: not built again
    assert first.plain == evidence_text(f, [ev], pal, {"e1"}).plain
    f.human = HumanLabel("NS")                                       # a relabel shows at once
    relabelled = memo(f, [ev], pal, {"e1"})
    assert relabelled is not first and "(human)" in relabelled.plain and "not supported" in relabelled.plain
    assert memo(f, [ev, other], pal, {"e1"}).plain.count("Piotr") == 1     # new passages
    assert "used by verifier" not in memo(f, [ev], pal, set()).plain       # other passages used
    f.human = None
    assert memo(f, [ev], pal, {"e1"}) is not first                  # dropped: the memo keeps 2
    assert memo(f, [ev], pal, {"e1"}).plain == first.plain


def _hue(hex_color: str) -> float:
    r, g, b = (int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360


def test_three_themes_and_colour_blind_palette_avoids_red_green():
    assert set(THEME_NAMES) == {"mfact-dark", "mfact-light", "mfact-cb"}
    cb = next(t for t in THEMES if t.name == "mfact-cb")
    pal = Palette.from_theme(cb)
    s_hue, ns_hue = _hue(pal.colors["S"]), _hue(pal.colors["NS"])
    assert 180 <= s_hue <= 250            # blue
    assert 20 <= ns_hue <= 50             # orange
    for t in THEMES:
        p = Palette.from_theme(t)
        assert len({p.colors[k] for k in ("S", "NS", "IR")}) == 3
    assert len(set(GLYPHS.values())) == 4


def test_match_terms_in_scripts_without_spaces():
    assert "出生" in match_terms("她出生于伦敦。")
    assert "london," not in match_terms("born in London, England") and "london" in match_terms(
        "born in London, England"
    )


def test_mfact_tui_asks_textual_for_120_frames_a_second_unless_the_user_chose():
    """A key's frame waits for the next frame slot; mfact-tui halves that wait (mfact.tui), and a
    user's own TEXTUAL_FPS wins. Checked in a fresh interpreter, as mfact-tui starts."""
    import os
    import subprocess
    import sys

    code = ("import mfact.tui.app, textual.constants as c, textual.screen as s; "
            "print(c.MAX_FPS, round(1 / s.UPDATE_PERIOD))")
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_FPS"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["120", "120"]
    out = subprocess.run([sys.executable, "-c", code], env={**env, "TEXTUAL_FPS": "30"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["30", "30"]
