"""`mfact check` headless: events printed as they happen, --json, saving, bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mfact.core import cli
from mfact.core import pipeline as pipeline_mod
from mfact.core.fake import FakeEmbedder, FakeExtractor, FakeGenerator, FakeRetriever, FakeVerifier
from mfact.core.session import Session

pytestmark = pytest.mark.timeout(120)

BIO = ("Marie Curie was born in Warsaw in 1867. She won the Nobel Prize in Physics in 1903. "
       "She later became the first president of Brazil.\n")


@pytest.fixture
def fake_build(monkeypatch):
    """`build_pipeline` wired to the fake stages (the network edge of this test: no model)."""
    built = {}

    def build(cfg, on_progress=None, *, generator=None, need_generator=True):
        gen = FakeGenerator(BIO, delay=0.0)
        p = pipeline_mod.CheckPipeline(pipeline_mod.Stages(gen, FakeExtractor(), FakeRetriever(), FakeVerifier(),
                                                           embedder=FakeEmbedder()), cfg)
        built["cfg"] = cfg
        built["need_generator"] = need_generator
        built["pipeline"] = p
        return p

    monkeypatch.setattr(pipeline_mod, "build_pipeline", build)
    return built


@pytest.fixture
def bio_file(tmp_path):
    f = tmp_path / "bio.txt"
    f.write_text(BIO, encoding="utf-8")
    return f


def test_check_text_file_json_ends_with_the_session_and_saves_it(fake_build, bio_file, capsys):
    rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(bio_file),
                   "--json", "--k", "3"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    doc = json.loads(out)
    s = Session.from_dict(doc)
    assert s.text == BIO.strip() and s.language == "en" and s.entity.name == "Marie Curie"
    assert len(s.facts) == 3 and all(f.auto for f in s.facts)
    for f in s.facts:
        assert s.text[f.span[0]:f.span[1]] == f.text and f.auto.evidence
    assert [f.label for f in s.facts] == ["S", "S", "NS"]
    assert s.metrics["factscore"] == pytest.approx(2 / 3)
    assert s.config["k"] == 3 and fake_build["cfg"].k == 3
    assert fake_build["need_generator"] is False          # a given text needs no model
    assert fake_build["pipeline"].generator.calls == []
    from mfact.core.store import Store
    st = Store()
    try:
        again = st.get_session(s.id)
    finally:
        st.close()
    assert [f.label for f in again.facts] == ["S", "S", "NS"]


def test_check_prints_text_then_verdict_lines_and_summary(fake_build, capsys):
    rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie", "--max-tokens", "100"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    text_part, rest = out.split("\n\n", 1)
    assert text_part.strip() == BIO.strip()
    lines = rest.splitlines()
    verdicts = [ln for ln in lines if ln[:3] in ("S  ", "NS ", "IR ")]
    assert len(verdicts) == 3
    assert any(ln.startswith("NS 0.90  She later became the first president of Brazil.") for ln in verdicts)
    assert any(ln.startswith("FActScore: 66.7") for ln in lines)
    assert any("saved" in ln for ln in lines)
    assert fake_build["need_generator"] is True and fake_build["cfg"].max_tokens == 100


def test_no_save_leaves_the_store_empty(fake_build, bio_file, capsys):
    rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(bio_file),
                   "--no-save"])
    assert rc == 0
    from mfact.core.store import Store
    st = Store()
    try:
        assert st.list_sessions() == []
    finally:
        st.close()


def test_untrusted_text_is_printed_without_terminal_escapes(monkeypatch, tmp_path, capsys):
    nasty = "Marie Curie was born in \x1b[31mWarsaw\x1b]0;pwned\x07 in 1867. [bold]She[/bold] died.\n"
    f = tmp_path / "nasty.txt"
    f.write_text(nasty, encoding="utf-8")

    def build(cfg, on_progress=None, **kw):
        return pipeline_mod.CheckPipeline(pipeline_mod.Stages(None, FakeExtractor(), FakeRetriever(), FakeVerifier()),
                                          cfg)

    monkeypatch.setattr(pipeline_mod, "build_pipeline", build)
    rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie", "--text-file", str(f), "--no-save"])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "[bold]She[/bold]" in out        # printed literally, not interpreted


@pytest.mark.parametrize("args,needle", [
    (["--lang", "xx", "--entity", "A"], "unknown language"),
    (["--lang", "en", "--entity", " "], "--entity is empty"),
    (["--lang", "en", "--entity", "A", "--text-file", "/nonexistent/bio.txt"], "no such file"),
    (["--lang", "en", "--entity", "A", "--k", "0"], "option 'k' in --k"),
])
def test_bad_input_gives_one_line(fake_build, capsys, args, needle):
    rc = cli.main(["check", *args])
    out, err = capsys.readouterr()
    assert rc == 1
    lines = [ln for ln in err.splitlines() if ln.startswith("mfact: error:")]
    assert len(lines) == 1 and needle in lines[0]


def test_non_utf8_and_empty_files(fake_build, tmp_path, capsys):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Curie naquit à Varsovie.".encode("latin-1"))
    assert cli.main(["check", "--lang", "fr", "--entity", "Marie Curie", "--text-file", str(bad)]) == 1
    assert "not UTF-8" in capsys.readouterr().err
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    assert cli.main(["check", "--lang", "fr", "--entity", "Marie Curie", "--text-file", str(empty)]) == 1
    assert "is empty" in capsys.readouterr().err


def test_stage_error_exits_1_and_keeps_the_partial_session(monkeypatch, capsys):
    def build(cfg, on_progress=None, **kw):
        return pipeline_mod.CheckPipeline(pipeline_mod.Stages(FakeGenerator(BIO), FakeExtractor(),
                                                              FakeRetriever(fail=True), FakeVerifier()), cfg)

    monkeypatch.setattr(pipeline_mod, "build_pipeline", build)
    rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie"])
    err = capsys.readouterr().err
    assert rc == 1
    line = [ln for ln in err.splitlines() if ln.startswith("mfact: error:")][0]
    assert "failed on purpose" in line and "partial session" in line
    from mfact.core.store import Store
    st = Store()
    try:
        [summary] = st.list_sessions()
        assert st.get_session(summary.id).stop_reason == "error"
    finally:
        st.close()


def test_check_is_registered_in_the_cli():
    r = subprocess.run([sys.executable, "-m", "mfact.core.cli", "check", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "--text-file" in r.stdout and "--json" in r.stdout


def test_ctrl_c_stops_generation_saves_the_partial_session_and_exits_130(monkeypatch, capsys):
    import _thread
    import signal
    import threading

    long_text = " ".join(f"Marie Curie wrote paper number {w} in Paris." for w in
                         ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"] * 5)

    timers: list[threading.Timer] = []

    class Interrupting(FakeGenerator):
        """Ctrl-C when the stream reaches its 40th token (five sentences in), from the generating
        thread itself: counted from the stream, not from a clock (on a loaded machine a timer thread
        can be starved until the stream has ended, and then nothing is interrupted)."""

        def stream(self, prompt, params, stop=None):
            for n, chunk in enumerate(super().stream(prompt, params, stop)):
                if n == 40:
                    _thread.interrupt_main()
                yield chunk

    def build(cfg, on_progress=None, **kw):
        return pipeline_mod.CheckPipeline(pipeline_mod.Stages(Interrupting(long_text, delay=0.02), FakeExtractor(),
                                                              FakeRetriever(), FakeVerifier()), cfg)

    monkeypatch.setattr(pipeline_mod, "build_pipeline", build)
    # Ctrl-C as a fresh process has it (KeyboardInterrupt), whatever handler an earlier test left
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        rc = cli.main(["check", "--lang", "en", "--entity", "Marie Curie", "--no-stop-on-repeat"])
    finally:
        signal.signal(signal.SIGINT, old)
        for t in timers:
            t.cancel()
    out, err = capsys.readouterr()
    assert rc == 130, err
    assert "stopping" in err
    from mfact.core.store import Store
    st = Store()
    try:
        [summary] = st.list_sessions()
        s = st.get_session(summary.id)
    finally:
        st.close()
    assert s.stop_reason == "user" and 0 < s.tokens < len(long_text.split())
    assert s.facts and all(f.auto for f in s.facts[:1])
