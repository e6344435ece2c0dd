"""Rules r27: a fact that states of the subject only the occupations and nationalities the evidence's
statements give it is S by agreement, in any language and script (core/checking/slots/stated.py)."""
from __future__ import annotations

import pytest

from mfact.core.checking.slots.stated import concept_words, stated
from mfact.core.session import Evidence
from mfact.core.training.train_cross import bundled_leads

LEADS = bundled_leads()
EN = LEADS["en"]["Marie Curie"]        # "... was a Polish and naturalised-French physicist and chemist ..."
FR = LEADS["fr"]["Marie Curie"]        # "... est une physicienne et chimiste polonaise ..."
PASSAGES = [(EN, ("en",)), (FR, ("fr",))]


@pytest.fixture(scope="module")
def verifier():
    from mfact.core.checking.verify.offline import OfflineVerifier
    return OfflineVerifier()


def _judge(verifier, cases: list[tuple[str, str]], evidence=(EN, FR)):
    ev = [Evidence(id=f"lead{i}", source="offline-vital", lang=lang, title="Marie Curie", text=t)
          for i, (t, lang) in enumerate(zip(evidence, ("en", "fr")))]
    return verifier.verify_batch([(fact, "Marie Curie", lang, ev) for lang, fact in cases])


TRUE = [("el", "Η Μαρί Κιουρί ήταν φυσικός και χημικός."), ("ja", "マリ・キュリーは物理学者であり化学者であった。"),
        ("ko", "마리 퀴리는 물리학자이자 화학자였다."), ("ar", "كانت ماري كوري فيزيائية وكيميائية."),
        ("he", "מארי קירי הייתה פיזיקאית וכימאית."), ("hi", "मैरी क्यूरी एक भौतिक विज्ञानी और रसायनज्ञ थीं।"),
        ("th", "มารี กูรี เป็นนักฟิสิกส์และนักเคมี"), ("tr", "Marie Curie bir fizikçi ve kimyagerdi."),
        ("uk", "Марія Кюрі була фізиком і хіміком."), ("sr", "Марија Кири је била пољска физичарка."),
        ("zh", "居里夫人是一位物理学家和化学家。"), ("el", "Η Μαρί Κιουρί ήταν Πολωνή."),
        ("ar", "كانت ماري كوري عالمة بولندية."), ("ja", "マリ・キュリーはポーランドの物理学者である。"),
        ("ko", "마리 퀴리는 폴란드의 물리학자이다.")]
FALSE = [
    ("el", "Η Μαρί Κιουρί ήταν ζωγράφος."),
    ("ja", "マリ・キュリーは画家であった。"),
    ("ko", "마리 퀴리는 화가였다."),
    ("he", "מארי קירי הייתה ציירת."),
    ("hi", "मैरी क्यूरी एक चित्रकार थीं।"),
    ("th", "มารี กูรี เป็นจิตรกร"),
    ("uk", "Марія Кюрі була художницею."),
    ("el", "Η Μαρί Κιουρί ήταν Ιταλίδα."),
    ("ar", "كانت ماري كوري عالمة إيطالية."),
    ("ja", "マリ・キュリーはイタリアの物理学者である。"),
    ("ko", "마리 퀴리는 이탈리아의 물리학자이다."),
    ("sr", "Марија Кири је била италијанска физичарка."),
]


def test_occupation_and_nationality_said_in_another_script_agree_with_the_evidences_statements(verifier):
    """Before r27 11 of these 15 true statements were NS against the English and French leads."""
    got = _judge(verifier, TRUE)
    assert [(lang, v.label) for (lang, _f), v in zip(TRUE, got)] == [(lang, "S") for lang, _f in TRUE]
    assert all(v.reason.startswith("slot agreement:") and "as the evidence states it" in v.reason for v in got)
    assert '"φυσικός" as the evidence states it (phys)' in got[0].reason


def test_another_occupation_or_country_is_not_supported(verifier):
    got = _judge(verifier, FALSE)
    assert [(lang, v.label) for (lang, _f), v in zip(FALSE, got)] == [(lang, "NS") for lang, _f in FALSE]
    assert not any("as the evidence states it" in v.reason for v in got)


def test_the_words_found_and_what_they_name():
    found = concept_words("Η Μαρί Κιουρί ήταν Πολωνή φυσικός και χημικός.", "el")
    assert [(w, kind, val) for w, kind, val in
            ((f"{'Η Μαρί Κιουρί ήταν Πολωνή φυσικός και χημικός.'[a:b]}", k, v) for a, b, k, v in found)] == [
        ("Πολωνή", "nationality", "PL"), ("φυσικός", "occupation", "phys"), ("χημικός", "occupation", "chem")]
    ko = "마리 퀴리는 폴란드의 물리학자이자 화학자였다."
    assert [ko[a:b] for a, b, _k, _v in concept_words(ko, "ko")] == ["폴란드", "물리학자", "화학자"]
    he = "מארי קירי הייתה פיזיקאית וכימאית."              # "and" written onto the word
    assert [he[a:b] for a, b, _k, _v in concept_words(he, "he")] == ["פיזיקאית", "וכימאית"]


def test_a_name_is_no_country_and_an_unconfirmed_word_spoils_the_agreement():
    hi = "मैरी क्यूरी एक भौतिक विज्ञानी थीं।"       # "क्यूरी" starts like a country's name in the CLDR table
    assert [hi[a:b] for a, b, _w in stated(hi, "hi", PASSAGES, "Marie Curie", [0, 1])] == ["भौतिक विज्ञानी"]
    assert stated("Η Μαρί Κιουρί ήταν φυσικός και ζωγράφος.", "el", PASSAGES, "Marie Curie", [0, 1]) is None
    assert stated("Η Μαρί Κιουρί γεννήθηκε στη Βαρσοβία.", "el", PASSAGES, "Marie Curie", [0, 1]) == []
    # CLDR's ~330 languages name countries with short and lower-case words too: Vietnamese "tại" (at) is none
    assert concept_words("Marie Curie sinh tại Warszawa.", "vi") == []
    assert [w for *_s, w in concept_words("Marie Curie là nhà khoa học người Ba Lan.", "vi")] == []


def test_only_what_the_evidence_states_of_the_subject_counts():
    passing = [("Marie Curie worked with many physicists and chemists in Paris.", ("en",))]
    assert stated("Η Μαρί Κιουρί ήταν φυσικός.", "el", passing, "Marie Curie", [0]) is None
    husband = [("Her husband, Pierre Curie, was a French physicist.", ("en",))]
    assert stated("Η Μαρί Κιουρί ήταν φυσικός.", "el", husband, "Marie Curie", [0]) is None


def test_a_statement_with_more_than_agreed_words_is_the_models(verifier):
    from mfact.core.checking.verify.agreed import _negated
    assert _negated("마리 퀴리는 물리학자가 아니었다.") and _negated("Marie Curie fizikçi değildi.")
    cases = [("el", "Ο σύζυγός της ήταν φυσικός."),                # her husband, not the subject
             ("el", "Η Μαρί Κιουρί δεν ήταν φυσικός."),            # says no
             ("ko", "마리 퀴리는 유명한 물리학자이자 피아니스트였다."),   # a pianist as well
             ("ko", "마리 퀴리는 물리학자가 아니었다."), ("tr", "Marie Curie fizikçi değildi.")]
    for (_lang, fact), v in zip(cases, _judge(verifier, cases)):
        assert "as the evidence states it" not in v.reason, (fact, v.reason)


def test_a_wrong_occupation_said_with_nothing_else_is_a_conflict_in_any_language(verifier):
    """The other side of the same reading: before, "Marie Curie bir ressamdı." was S 0.80 and the
    Arabic painter S 0.51 (the detector's; no statement parser for those languages)."""
    cases = [
        ("tr", "Marie Curie bir ressamdı."),
        ("ar", "كانت ماري كوري رسامة."),
        ("ja", "マリ・キュリーは画家であった。"),
        ("el", "Η Μαρί Κιουρί ήταν Ιταλίδα."),
    ]
    got = _judge(verifier, cases)
    assert [v.label for v in got] == ["NS"] * 4
    tr = got[0]
    assert [cases[0][1][a:b] for a, b in tr.marks] == ["ressamdı"]
    assert tr.reason.startswith('slot conflict: "ressamdı" vs "physicist" (occupation)'), tr.reason
    assert tr.evidence_marks and EN[tr.evidence_marks[0][1]:tr.evidence_marks[0][2]] == "physicist"
    assert got[3].reason.startswith('slot conflict: "Ιταλίδα" vs "Polish" (nationality)'), got[3].reason
    # "also" says nothing of its own: "She was also a painter" / "... also a chemist"
    also = _judge(
        verifier, [("el", "Ήταν επίσης ζωγράφος."), ("el", "Ήταν επίσης χημικός."), ("uk", "Вона також була хіміком.")]
    )
    assert [v.label for v in also] == ["NS", "S", "S"], [v.reason for v in also]
    assert also[0].reason.startswith('slot conflict: "ζωγράφος"')


def test_no_conflict_where_the_evidence_names_that_kind_of_work_or_the_fact_says_more(verifier):
    teacher = ("Marie Curie was a Polish physicist and chemist. She was also a painter of small watercolours "
               "in her youth, and taught at the Sorbonne.")
    got = _judge(verifier, [("tr", "Marie Curie bir ressamdı.")], evidence=(teacher, FR))
    assert "slot conflict" not in got[0].reason          # the evidence names painting, if not in a statement
    more = _judge(verifier, [("el", "Ο σύζυγός της ήταν ζωγράφος.")])        # her husband: not the subject
    assert "slot conflict" not in more[0].reason
    assert (
        stated("Marie Curie bir ressamdı.", "tr", [("Marie Curie lived in Paris.", ("en",))], "Marie Curie", [0])
        is None
    )
