"""Rules r29: a husband, wife, father or mother named in a script the evidence does not write is S when
the evidence ties that name, by sound, to that role of the subject's (core/checking/slots/relatives.py)."""
from __future__ import annotations

import pytest

from mfact.core.checking.slots.relatives import agrees, read
from mfact.core.session import Evidence
from mfact.core.training.train_cross import bundled_leads

LEADS = bundled_leads()
EN = LEADS["en"]["Marie Curie"]        # "... with her husband, Pierre Curie, ..."
FR = LEADS["fr"]["Marie Curie"]
PASSAGES = [(EN, ("en",)), (FR, ("fr",))]


@pytest.fixture(scope="module")
def verifier():
    from mfact.core.checking.verify.offline import OfflineVerifier
    return OfflineVerifier()


def _judge(verifier, cases):
    ev = [Evidence(id=f"lead{i}", source="offline-vital", lang=lang, title="Marie Curie", text=t)
          for i, (t, lang) in enumerate(((EN, "en"), (FR, "fr")))]
    return verifier.verify_batch([(fact, "Marie Curie", lang, ev) for lang, fact in cases])


TRUE = [
    ("ru", "Пьер Кюри был её мужем."),
    ("el", "Ο σύζυγός της ήταν ο Πιερ Κιουρί."),
    ("ja", "彼女の夫はピエール・キュリーであった。"),
    ("ar", "كان زوجها بيير كوري."),
    ("ko", "그녀의 남편은 피에르 퀴리였다."),
    ("zh", "她的丈夫是皮埃尔·居里。"),
    ("he", "בעלה היה פייר קירי."),
    ("hi", "उनके पति पियरे क्यूरी थे।"),
]


@pytest.mark.parametrize("lang, fact", TRUE)
def test_a_statement_of_a_relative_is_read_with_its_role_and_name(lang, fact):
    rel = read(fact, lang)
    assert rel is not None and rel.role in ("husband", "spouse") and len(rel.names) == 2
    assert agrees(rel, PASSAGES, "Marie Curie")


def test_another_name_another_role_or_the_subjects_own_name_does_not_agree():
    for lang, fact in [("ru", "Альберт Эйнштейн был её мужем."), ("ru", "Её отцом был Пьер Кюри."),
                       ("ru", "Кюри был её мужем."), ("ja", "彼女の夫はアルベルト・アインシュタインであった。")]:
        rel = read(fact, lang)
        assert rel is not None and not agrees(rel, PASSAGES, "Marie Curie"), fact


def test_a_fact_that_says_more_or_names_no_relative_is_not_read():
    assert read("Пьер Кюри был её мужем и физиком.", "ru") is None
    assert read("Мария Кюри была физиком.", "ru") is None
    assert read("居里夫人是物理学家。", "zh") is None          # "夫人" (Madame) is no husband
    assert read("Pierre Curie was her husband.", "en") is None  # kinship.py reads the languages of its tables


def test_the_verifier_finds_the_relative_in_the_evidence(verifier):
    got = _judge(verifier, TRUE)
    assert [v.label for v in got] == ["S"] * len(TRUE), [(f, v.label, v.reason) for (_l, f), v in zip(TRUE, got)]
    assert all("as the evidence states it (husband)" in v.reason or "(spouse)" in v.reason for v in got)
    wrong = _judge(
        verifier, [("ru", "Альберт Эйнштейн был её мужем."), ("ja", "彼女の夫はアルベルト・アインシュタインであった。")]
    )
    assert [v.label for v in wrong] == ["NS", "NS"]
