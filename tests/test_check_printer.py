"""`mfact check`'s printer: notices told once, and never in the middle of a streamed word on a terminal."""
from __future__ import annotations

import io

from mfact.core.commands.check import _Printer


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_notice_on_one_terminal_waits_for_the_streamed_text_and_is_told_once():
    out, err = _Tty(), _Tty()
    p = _Printer(out, err, stream_text=True)
    p.token("Sie war die erste Fr")
    p.notice("warning", "no page about Marie Curie in 'de'; using the English page")
    p.notice("warning", "no page about Marie Curie in 'de'; using the English page")
    assert err.getvalue() == ""                 # the word "Frau" is not cut in two on the screen
    p.token("au.")
    p.end_stream()
    assert out.getvalue().startswith("Sie war die erste Frau.\n")
    assert err.getvalue() == "mfact: warning: no page about Marie Curie in 'de'; using the English page\n"
    p.notice("warning", "later")                # after the text: at once
    assert err.getvalue().endswith("mfact: warning: later\n")


def test_a_notice_goes_out_at_once_when_the_text_is_not_on_the_same_terminal():
    out, err = io.StringIO(), _Tty()            # e.g. `mfact check ... > bio.txt`
    p = _Printer(out, err, stream_text=True)
    p.token("Marie Curie wurde")
    p.notice("warning", "web: no network")
    assert err.getvalue() == "mfact: warning: web: no network\n"
    p.notice("info", "[b]markup[/b] \x1b[31mred")      # untrusted text stays literal, escapes dropped
    assert "\x1b" not in err.getvalue() and "[b]markup[/b]" in err.getvalue()
