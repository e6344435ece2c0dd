"""The rule-based extractor: clauses, subject carry-over, spans, no invented words."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfact.core.checking import build_extractor, split_sentences
from mfact.core.checking.extract_rules import RuleExtractor
from mfact.core.checking.textutil import locate_span, words_with_offsets
from mfact.core.config import Config


def extract(text: str, lang: str = "en", entity: str = "Marie Curie"):
    x = RuleExtractor()
    out = []
    for s in split_sentences(text, lang):
        for f in x.extract(s, text, lang, entity):
            out.append((s, f))
    return out


def test_coordinated_clauses_carry_the_subject():
    t = "Marie Curie, a Polish physicist, won the Nobel Prize in 1903 and later moved to Paris; she died in 1934."
    facts = [f.text for _s, f in extract(t)]
    assert facts == ["Marie Curie won the Nobel Prize in 1903", "Marie Curie, a Polish physicist",
                     "Marie Curie moved to Paris", "she died in 1934"]


def test_lists_give_one_fact_per_item():
    t = "He has worked with Willie Nelson, Tim McGraw, and Taylor Swift."
    facts = extract(t, entity="X")
    assert [f.text for _s, f in facts] == ["He has worked with Willie Nelson", "He has worked with Tim McGraw",
                                           "He has worked with Taylor Swift"]
    assert [t[f.span[0]:f.span[1]] for _s, f in facts] == [
        "He has worked with Willie Nelson", "He has worked with Willie Nelson, Tim McGraw",
        "He has worked with Willie Nelson, Tim McGraw, and Taylor Swift"]
    t = 'His credits include "King of New York," "The Abyss," and "The Game."'
    assert [f.text for _s, f in extract(t, entity="X")] == [
        'His credits include "King of New York"', 'His credits include "The Abyss"', 'His credits include "The Game"']
    # a plain "and" between common nouns is neither a list nor two clauses
    t = "He appeared in films and television shows."
    assert [f.text for _s, f in extract(t, entity="X")] == ["He appeared in films and television shows"]


@pytest.mark.parametrize("lang,entity,text,expected", [
    ("es", "Marie Curie", "Marie Curie fue una física polaca y ganó el Premio Nobel en 1903.",
     ["Marie Curie fue una física polaca", "Marie Curie ganó el Premio Nobel en 1903"]),
    ("zh", "居里夫人", "居里夫人出生于华沙，她在巴黎学习物理，并获得了诺贝尔奖。",
     ["居里夫人出生于华沙", "她在巴黎学习物理", "居里夫人并获得了诺贝尔奖"]),
    ("hi", "मैरी क्यूरी", "मैरी क्यूरी का जन्म वारसॉ में हुआ था और उन्होंने नोबेल पुरस्कार जीता।",
     ["मैरी क्यूरी का जन्म वारसॉ में हुआ था", "उन्होंने नोबेल पुरस्कार जीता"]),
])
def test_other_languages(lang, entity, text, expected):
    assert [f.text for _s, f in extract(text, lang, entity)] == expected


def test_spans_lie_inside_their_sentence_and_cover_the_clause():
    t = "Intro text here. Marie Curie studied physics in Paris and won two Nobel Prizes."
    for s, f in extract(t):
        a, b = f.span
        assert s.start <= a < b <= s.end
        # every word of the span is in the fact
        assert set(t[a:b].split()) <= set(f.text.split())


def test_sentences_without_words_give_no_facts():
    assert extract("— … !!!") == []


_words = st.sampled_from(["Marie", "Curie", "was", "born", "in", "Warsaw", "and", "won", "the", "prize",
                          ",", ";", "she", "who", "a", "physicist", "1867", "later", "moved", "."])


@settings(max_examples=200, deadline=None)
@given(st.lists(_words, min_size=1, max_size=30))
def test_never_invents_words_and_spans_stay_in_the_sentence(parts):
    text = " ".join(parts)
    sentence_words = {w for w, _s, _e in words_with_offsets(text)}
    for s, f in extract(text):
        assert {w for w, _a, _b in words_with_offsets(f.text)} <= sentence_words
        assert s.start <= f.span[0] <= f.span[1] <= s.end


def test_locate_span_finds_the_smallest_window():
    sent = "Lanny Flaherty is an American actor born on December 18, 1949, in Pensacola, Florida."
    a, b = locate_span("Lanny Flaherty was born on December 18, 1949.", 10, sent)
    assert sent[a - 10:b - 10] == "Lanny Flaherty is an American actor born on December 18, 1949"
    a, b = locate_span("Flaherty was born in Pensacola.", 0, sent)
    assert sent[a:b] == "Flaherty is an American actor born on December 18, 1949, in Pensacola"
    # nothing in common: the whole sentence
    assert locate_span("Completely unrelated words here.", 5, sent) == (5, 5 + len(sent))


def test_build_extractor_choices():
    assert build_extractor(Config(extractor="rules")).name == "rules"
    assert build_extractor(Config(extractor="auto")).name == "rules"
    from mfact.core.protocols import MfactError
    with pytest.raises(MfactError):
        build_extractor(Config(extractor="magic"))
    with pytest.raises(MfactError):
        build_extractor(Config(extractor="llm"))


def test_participles_split_but_not_after_an_auxiliary():
    t = "Lanny Flaherty is an American actor born on December 18, 1949, in Pensacola, Florida."
    assert [f.text for _s, f in extract(t, entity="Lanny Flaherty")] == [
        "Lanny Flaherty is an American actor", "Lanny Flaherty born on December 18, 1949, in Pensacola, Florida"]
    t = "Marie Curie was born in Warsaw in 1867."
    assert [f.text for _s, f in extract(t)] == ["Marie Curie was born in Warsaw in 1867"]
    t = "Marie Curie est une physicienne née à Varsovie en 1867."
    assert [f.text for _s, f in extract(t, "fr")] == ["Marie Curie est une physicienne", "Marie Curie née à Varsovie en 1867"]
