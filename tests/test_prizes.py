"""Rules r29: a Nobel Prize said in any language and script is compared with the prizes the evidence
says, their years included (core/checking/slots/prizes.py, stated.py)."""
from __future__ import annotations

import pytest

from mfact.core.checking.slots.prizes import mentions, said_in
from mfact.core.session import Evidence
from mfact.core.training.train_cross import bundled_leads

LEADS = bundled_leads()
EN = LEADS["en"]["Marie Curie"]        # "... the 1903 Nobel Prize in Physics ... the 1911 Nobel Prize in Chemistry ..."
FR = LEADS["fr"]["Marie Curie"]        # "... la première femme à avoir reçu le prix Nobel ..." (no field)


@pytest.fixture(scope="module")
def verifier():
    from mfact.core.checking.verify.offline import OfflineVerifier
    return OfflineVerifier()


def _judge(verifier, cases: list[tuple[str, str]], evidence=((EN, "en"), (FR, "fr"))):
    ev = [Evidence(id=f"lead{i}", source="offline-vital", lang=lang, title="Marie Curie", text=t)
          for i, (t, lang) in enumerate(evidence)]
    return verifier.verify_batch([(fact, "Marie Curie", lang, ev) for lang, fact in cases])


@pytest.mark.parametrize("lang, text, phrase, field, word", [
    ("en", "She won the 1911 Nobel Prize in Chemistry.", "Nobel Prize in Chemistry", "chemistry", "Chemistry"),
    ("es", "Recibió el Premio Nobel de Química en 1911.", "Premio Nobel de Química", "chemistry", "Química"),
    ("de", "Sie erhielt 1911 den Nobelpreis für Chemie.", "Nobelpreis für Chemie", "chemistry", "Chemie"),
    ("ru", "Получила Нобелевскую премию по химии в 1911 году.", "Нобелевскую премию по химии", "chemistry", "химии"),
    ("pl", "Pokojowa Nagroda Nobla w 1990.", "Pokojowa Nagroda Nobla", "peace", "Pokojowa"),
    ("el", "τιμήθηκε με το Νόμπελ Χημείας το 1911", "Νόμπελ Χημείας", "chemistry", "Χημείας"),
    ("ar", "حصلت على جائزة نوبل في الأدب عام 1911.", "جائزة نوبل في الأدب", "literature", "الأدب"),
    ("hi", "को 1911 में रसायन विज्ञान का नोबेल पुरस्कार मिला।", "रसायन विज्ञान का नोबेल पुरस्कार", "chemistry", "रसायन"),
    ("tr", "1911'de Nobel Kimya Ödülü'nü kazandı.", "Nobel Kimya Ödülü'nü", "chemistry", "Kimya"),
    ("he", "היא זכתה בפרס נובל לכימיה ב-1911.", "בפרס נובל לכימיה", "chemistry", "לכימיה"),
    ("vi", "Bà nhận giải Nobel Vật lý năm 1903.", "giải Nobel Vật lý", "physics", "Vật lý"),
    ("ja", "マリ・キュリーは1911年にノーベル化学賞を受賞した。", "ノーベル化学賞", "chemistry", "化学"),
    ("ja", "マリ・キュリーはノーベル賞を受賞した。", "ノーベル賞", None, "ノーベル"),
    ("ko", "마리 퀴리는 1911년 노벨 화학상을 받았다.", "노벨 화학상", "chemistry", "화학"),
    ("zh", "居里夫人于1911年获得诺贝尔化学奖。", "诺贝尔化学奖", "chemistry", "化学"),
    ("th", "ได้รับรางวัลโนเบลสาขาเคมี", "รางวัลโนเบลสาขาเคมี", "chemistry", "เคมี"),
    ("fr", "la première femme à avoir reçu le prix Nobel", "prix Nobel", None, "Nobel"),
])
def test_a_nobel_prize_is_found_with_its_field_in_each_language(lang, text, phrase, field, word):
    (m,) = mentions(text, lang)
    assert (text[m.start:m.end], m.field, text[m.word[0]:m.word[1]]) == (phrase, field, word)


def test_a_man_named_nobel_is_no_prize():
    assert mentions("Alfred Nobel founded the prizes.", "en") == []
    assert mentions("アルフレッド・ノーベルは賞を創設した。", "ja") == []
    assert mentions("Marie Curie was a physicist.", "en") == []


def test_the_evidences_prizes_carry_the_years_of_their_sentence():
    got = [(EN[m.start:m.end], m.field, sorted(ys)) for m, ys in said_in(EN, ("en",))]
    assert got == [("Nobel Prize in Physics", "physics", ["1903"]), ("Nobel Prize in Chemistry", "chemistry", ["1911"])]
    assert [(m.field, sorted(ys)) for m, ys in said_in(FR, ("fr",))] == [(None, [])]


def test_a_prize_the_evidence_says_a_nomination_for_is_not_won():
    ev = "He was nominated for the Nobel Prize in Literature several times. He won the Hawthornden Prize."
    assert said_in(ev, ("en",)) == []
    assert [m.field for m, _y in said_in("Er wurde für den Nobelpreis für Literatur nominiert. 1929 erhielt er den "
                                         "Nobelpreis für Literatur.", ("de",))] == ["literature"]


TRUE = [
    ("ja", "マリ・キュリーは1911年にノーベル化学賞を受賞した。"),
    ("ko", "마리 퀴리는 1911년 노벨 화학상을 받았다."),
    ("el", "Η Μαρί Κιουρί τιμήθηκε με το Νόμπελ Χημείας το 1911."),
    ("zh", "居里夫人于1911年获得诺贝尔化学奖。"),
    ("tr", "Marie Curie 1911'de Nobel Kimya Ödülü'nü kazandı."),
    ("ja", "マリ・キュリーはノーベル賞を受賞した。"),
    ("ko", "마리 퀴리는 1903년 노벨 물리학상을 받았다."),
]
WRONG = [("ar", "حصلت ماري كوري على جائزة نوبل في الأدب عام 1911.", "الأدب", "Chemistry"),
         ("ja", "マリ・キュリーはノーベル文学賞を受賞した。", "文学", "Physics"),
         ("ko", "마리 퀴리는 1911년 노벨 물리학상을 받았다.", "물리학", "Chemistry")]


def test_a_prize_said_in_another_script_agrees_with_the_evidences(verifier):
    got = _judge(verifier, TRUE)
    assert [v.label for v in got] == ["S"] * len(TRUE), [(f, v.label, v.reason) for (_l, f), v in zip(TRUE, got)]
    assert all("as the evidence states it (Nobel" in v.reason for v in got)


def test_another_field_or_the_other_prizes_year_is_a_conflict_with_its_word_marked(verifier):
    got = _judge(verifier, [(lang, fact) for lang, fact, _w, _e in WRONG])
    for (_lang, fact, word, says), v in zip(WRONG, got):
        assert v.label == "NS" and v.reason.startswith("slot conflict"), (fact, v.label, v.reason)
        assert [fact[a:b] for a, b in v.marks] == [word] and says in v.reason


def test_evidence_without_a_prize_of_that_field_decides_nothing_alone(verifier):
    # the French lead says "prix Nobel" with no field: the Chemistry prize is neither confirmed nor contradicted
    from mfact.core.checking.slots.check import check_slots
    fact = "マリ・キュリーはノーベル化学賞を受賞した。"
    rep = check_slots(fact, "ja", [(FR, "fr")], "Marie Curie")
    assert not rep.stated and rep.unstated is None and rep.concepts
    rep = check_slots(fact, "ja", [(EN, "en")], "Marie Curie")
    assert [fact[a:b] for a, b, _w in rep.stated] == ["ノーベル化学賞"]


def test_a_prize_won_where_the_evidence_says_only_a_nomination_is_a_conflict(verifier):
    ev = [Evidence(id="g", source="given", lang="en", title="Graham Greene", text="Graham Greene was an English "
                   "novelist. He was nominated for the Nobel Prize in Literature several times but never won.")]
    cases = [("en", "Graham Greene won the Nobel Prize in Literature.", "Literature"),
             ("ja", "グレアム・グリーンはノーベル文学賞を受賞した。", "文学")]
    got = verifier.verify_batch([(fact, "Graham Greene", lang, ev) for lang, fact, _w in cases])
    for (_lang, fact, word), v in zip(cases, got):     # the model said S 0.95 and 0.59
        assert v.label == "NS" and '"nominated" (prize)' in v.reason, (fact, v.reason)
        assert [fact[a:b] for a, b in v.marks] == [word]
