"""Chinese in two scripts: Chinese Wikipedia writes an article in traditional or simplified
characters and often mixes them, and answers are mostly simplified. The detector and its windows
read both sides simplified, one character for one, so offsets and marks stay the text's own."""
from __future__ import annotations

import pytest

from mfact.core.checking.verify import sentence_scores
from mfact.core.checking.text.textutil import han_simplified
from mfact.core.checking.verify.offline import OfflineVerifier
from mfact.core.session import Evidence

LEAD = ("羅莎·路易絲·麥考利·帕克斯（英語：Rosa Louise McCauley Parks，1913年2月4日—2005年10月24日），"
        "美國黑人民權行動主義者。 1955年，她在公車上拒絕讓座給白人而遭逮捕，引發聯合抵制蒙哥馬利公車運動。 "
        "美國國會後來稱她為「現代民權運動之母」。")
SUPPORTED = "美国国会后来称她为现代民权运动之母。"


def test_han_simplified_is_one_character_for_one():
    assert han_simplified("羅莎·路易絲·麥考利·帕克斯") == "罗莎·路易丝·麦考利·帕克斯"
    assert len(han_simplified(LEAD)) == len(LEAD)
    assert han_simplified(SUPPORTED) == SUPPORTED            # simplified text stays as it is
    assert han_simplified("Marie Curie, 1867") == "Marie Curie, 1867"


@pytest.fixture(scope="module")
def verifier():
    return OfflineVerifier()


def test_a_simplified_claim_reads_a_traditional_article(verifier, monkeypatch):
    ev = [Evidence(id="e1", source="test", lang="zh", title="羅莎·帕克斯", text=LEAD)]
    out = verifier.verify(SUPPORTED, "羅莎·帕克斯", "zh", ev)
    assert out.label == "S", out.reason
    assert verifier.verify("罗莎·帕克斯是美国的一名歌手。", "羅莎·帕克斯", "zh", ev).label == "NS"
    # read as written, the traditional characters are other tokens and the claim is flagged whole
    monkeypatch.setattr(sentence_scores, "han_simplified", lambda text: text)
    fresh = OfflineVerifier()
    assert fresh.verify(SUPPORTED, "羅莎·帕克斯", "zh", ev).label == "NS"


def test_a_chinese_fact_of_only_an_agreed_birth_year_is_supported(verifier):
    # "她于1981年出生": the year agrees with the article's birth slot, and the rest is a pronoun, "于" and
    # "出生"; before, each character was a word of its own, none of them "only a slot", and the detector
    # flagged "她于" and "年" (NS)
    lead = "娜塔莉·波特曼是一名以色列裔美國演員。1981年，波曼出生於耶路撒冷。她的父親是以色列醫師。"
    ev = [Evidence(id="e1", source="given", lang="zh", title="娜塔莉·波特曼", text=lead)]
    facts = ["她于1981年出生", "她于1982年出生", "她于1981年出生于耶路撒冷"]
    got = verifier.verify_batch([(f, "娜塔莉·波特曼", "zh", ev) for f in facts])
    assert [v.label for v in got] == ["S", "NS", "S"], [v.reason for v in got]
    assert got[0].reason.startswith("slot agreement")
