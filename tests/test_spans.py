"""Hallucination spans: the union of the NS facts' spans, exported with `mfact export --format
spans`, shown in the TUI's text, and what the hallucination rate counts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rich.style import Style

from mfact.core import metrics as M
from mfact.core.checking import split_sentences
from mfact.core.checking.extract.rules import RuleExtractor
from mfact.core.session import Entity, Fact, HumanLabel, Session, Verdict

MFACT = Path(sys.executable).with_name("mfact")
TEXT = ("Lanny Flaherty is an American actor born on December 18, 1949, in Pensacola, Florida. "
        "He has appeared in films, television shows, and theater productions.")


def mfact(home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), COLUMNS="160", NO_COLOR="1")
    p = subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    return p


def checked_session(labels: dict[str, str]) -> Session:
    """The rules' facts of TEXT, labelled by fact text (default S); the date fact is also relabelled
    by a person."""
    x = RuleExtractor()
    facts = []
    for s in split_sentences(TEXT, "en"):
        for ef in x.extract(s, TEXT, "en", "Lanny Flaherty"):
            facts.append(Fact(id=f"f{len(facts)}", text=ef.text, sentence=s.index, span=ef.span,
                              auto=Verdict(label=labels.get(ef.text, "S"), confidence=0.8, verifier="v")))
    return Session(id="s-spans", language="en", entity=Entity("Lanny Flaherty"), text=TEXT, facts=facts)


def assert_valid_spans(doc: dict, session: Session) -> None:
    text = doc["text"]
    spans = doc["spans"]
    assert spans == sorted(spans)
    for (a, b, lab, p), nxt in zip(spans, spans[1:] + [None]):
        assert 0 <= a < b <= len(text) and lab == "NS" and 0.0 < p <= 1.0
        if nxt is not None:
            assert b < nxt[0]                      # not overlapping, not touching
    ns = [f.span for f in session.facts if f.label == "NS"]
    other = [f.span for f in session.facts if f.label != "NS"]
    for a, b, *_ in spans:
        for i in range(a, b):                       # every character lies in some NS fact's span
            assert any(x <= i < y for x, y in ns)
    for x, y in ns:                                  # every NS fact's words are marked
        for w in text[x:y].split():
            i = text.index(w, x)
            assert any(a <= i < b for a, b, *_ in spans), w
    assert other  # the S facts exist and are (mostly) outside the spans


def test_ns_facts_mark_only_their_own_words():
    s = checked_session({"Lanny Flaherty born in Pensacola, Florida": "NS",
                         "He has appeared in theater productions": "NS"})
    spans = M.session_ns_spans(s)
    assert [TEXT[a:b] for a, b, _ in spans] == ["in Pensacola, Florida", "theater productions"]
    h, n = M.hallucinated_tokens(s.text, [(f.span, f.label) for f in s.facts])
    assert h == 6 and n == len(M.text_tokens(TEXT))


def test_a_reworded_facts_marks_are_found_word_by_word():
    """The extractor joins pieces of a sentence into one fact; a mark across the join is not one
    piece of the text, so its words are found one by one near the fact's span, and the words
    between them that the fact left out stay unmarked. Where they cannot be found, the fact's span
    counts."""
    text = 'Der Vorsetzende von Dina Madanis in "Der Strafverfolgung" ist Billy Russo.'
    fact_text = "Der Vorsetzende in Der Strafverfolgung ist Billy Russo"
    span = (text.index("in "), text.index("."))
    mark = (fact_text.index("Vorsetzende"), fact_text.index(" ist"))

    def session(marks):
        f = Fact(id="f0", text=fact_text, sentence=0, span=span,
                 auto=Verdict(label="NS", confidence=0.8, verifier="v", marks=marks))
        return Session(id="s-reworded", language="de", entity=Entity("Dinah Madani"), text=text, facts=[f])

    assert [text[a:b] for a, b, _ in M.session_ns_spans(session([mark]))] == [
        "Vorsetzende", 'in "Der Strafverfolgung']
    # a single marked word outside the fact's span is found where it stands as a word, nearest the span
    one = (fact_text.index("Vorsetzende"), fact_text.index(" in"))
    assert [text[a:b] for a, b, _ in M.session_ns_spans(session([one]))] == ["Vorsetzende"]
    gone = Fact(id="f0", text="Der Chef in Der Strafverfolgung ist Billy Russo", sentence=0, span=span,
                auto=Verdict(label="NS", confidence=0.8, verifier="v", marks=[(4, 8)]))
    s = Session(id="s-gone", language="de", entity=Entity("Dinah Madani"), text=text, facts=[gone])
    assert [text[a:b] for a, b, _ in M.session_ns_spans(s)] == [text[span[0]:span[1]]]


def test_export_spans_through_the_cli(tmp_path):
    home = tmp_path / "home"
    s = checked_session({"Lanny Flaherty born on December 18, 1949": "NS",
                         "Lanny Flaherty born in Pensacola, Florida": "NS",
                         "He has appeared in television shows": "NS"})
    s.fact("f0").human = HumanLabel(label="NS")      # a person says "is an American" is wrong too
    src = tmp_path / "s.json"
    src.write_text(json.dumps(s.to_dict()), encoding="utf-8")
    mfact(home, "import", str(src))
    out = tmp_path / "spans.jsonl"
    p = mfact(home, "export", "--all", "--format", "spans", "-o", str(out))
    assert "(spans)" in p.stdout
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert set(doc) == {"id", "text", "spans"} and doc["id"] == "s-spans" and doc["text"] == TEXT
    assert_valid_spans(doc, s)
    # the human label counts; the date and the place are two spans, "actor" (S) is not marked
    assert [TEXT[a:b] for a, b, *_ in doc["spans"]] == [
        "Lanny Flaherty is an American", "born on December 18, 1949", "in Pensacola, Florida",
        "television shows"]
    # stdout gives the same line
    one = json.loads(mfact(home, "export", "s-spans", "--format", "spans", "-o", "-").stdout)
    assert one == doc


def test_tui_text_marks_the_same_spans():
    from mfact.tui.render import Palette, fact_text

    s = checked_session({"Lanny Flaherty born in Pensacola, Florida": "NS"})
    rendered = fact_text(s.text, s.facts, Palette())
    plain = rendered.plain
    marked = [plain[sp.start:sp.end] for sp in rendered.spans
              if isinstance(sp.style, Style) and sp.style.bold and sp.style.underline]
    assert marked == ["in Pensacola, Florida"]


def test_given_offsets_find_each_cleaned_word_in_the_text_as_given():
    from mfact.core.checking.text.clean import clean_text, given_offsets, given_span
    raw = ("\n\n## Heading\n  Ein **fettes** Wort, [ein Link](https://x.example/a) und AT&amp;T.<eos>Dann"
           " foo<b>bar</b> baz\t\tqux\r\n- Punkt 1925.<|im_end|>  \n")
    clean = clean_text(raw)
    offsets = given_offsets(raw, clean)
    assert len(offsets) == len(clean) + 1 and offsets == sorted(offsets)
    spans = {w: given_span(offsets, clean.index(w), clean.index(w) + len(w))
             for w in ("fettes", "ein Link", "Dann", "baz", "qux", "Punkt 1925.")}
    assert {w: raw[a:b] for w, (a, b) in spans.items()} == {w: w for w in spans}
    a, b = given_span(offsets, clean.index("AT&T"), clean.index("AT&T") + 4)
    assert raw[a:b] == "AT&amp;T"
    a, b = given_span(offsets, clean.index("foobar"), clean.index("foobar") + 6)
    assert raw[a:b] == "foo<b>bar"
    assert given_offsets("", "") == [0]
