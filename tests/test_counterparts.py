"""A fact that copies an evidence sentence but for one word swapped for its counterpart (king/queen,
before/after, born/died ...) is NS, with that word marked: the detector, reading the whole sentence,
passes many such single-word swaps in long sentences (corruption dev set, relation errors)."""
from __future__ import annotations

from mfact.core.checking.counterparts import counterparts, swapped_counterpart, swapped_number
from mfact.core.session import Evidence

CHESS = ("Chess is a board game for two players. The players, referred to as White and Black, each control "
         "sixteen pieces: one king, one queen, two rooks, two bishops, two knights, and eight pawns. The "
         "object of the game is to checkmate the opponent's king.")


def test_a_near_copy_with_one_word_swapped_for_its_counterpart():
    fact = ("The players, referred to as White and Black, each control sixteen pieces: one queen, one queen, "
            "two rooks, two bishops, two knights, and eight pawns.")
    a, b, said = swapped_counterpart(fact, "en", [CHESS])
    assert (fact[a:b], said) == ("queen", "king")
    assert counterparts("es")["antes"] == "después" and counterparts("es")["después"] == "antes"


def test_no_swap_where_the_fact_is_no_near_copy_or_the_words_agree():
    same = ("The players, referred to as White and Black, each control sixteen pieces: one king, one queen, "
            "two rooks, two bishops, two knights, and eight pawns.")
    assert swapped_counterpart(same, "en", [CHESS]) is None
    # a rewording that says the same with the counterpart is no near copy of the sentence
    ev = ["Marie Curie moved to Paris in 1891, after she had studied in Warsaw for six years."]
    assert swapped_counterpart("She had studied in Warsaw for six years before Marie Curie moved to Paris.",
                               "en", ev) is None
    # a short fact, a language without a table, a language without spaces
    assert swapped_counterpart("one queen, one queen", "en", [CHESS]) is None
    assert swapped_counterpart(same.replace("king", "queen"), "xx", [CHESS]) is None
    assert swapped_counterpart("居里夫人在战前出生于华沙。", "zh", ["居里夫人在战后出生于华沙。"]) is None
    assert swapped_counterpart(same, "en", []) is None


def test_the_default_verifier_calls_the_swap_not_supported_and_marks_the_word():
    from mfact.core.checking.verify_default import DefaultVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Chess", text=CHESS)]
    v = DefaultVerifier()
    wrong = ("The players, referred to as White and Black, each control sixteen pieces: one queen, one queen, "
             "two rooks, two bishops, two knights, and eight pawns.")
    right = wrong.replace("one queen, one queen", "one king, one queen")
    out = v.verify_batch([(wrong, "Chess", "en", ev), (right, "Chess", "en", ev)])
    assert out[0].label == "NS" and [wrong[a:b] for a, b in out[0].marks] == ["queen"], out[0].reason
    assert '"queen" where the evidence says "king"' in out[0].reason
    assert out[1].label == "S", out[1].reason


CURIE = ("Maria Salomea Skłodowska Curie, better known as Marie Curie was a Polish and naturalised-French "
         "physicist and chemist. She shared the 1903 Nobel Prize in Physics with her husband, Pierre Curie. "
         "She won the 1911 Nobel Prize in Chemistry.")


def test_a_number_between_the_same_words_as_another_number_of_the_evidence():
    """A year that no evidence text has, between the words that hold another year in the evidence, is
    the wrong year, also in a sentence that fuses two of the evidence's ("r10")."""
    fact = ("Marie Curie, a physicist and chemist of Polish birth who was later naturalised French, shared "
            "the 1905 Nobel Prize in Physics with her husband Pierre Curie.")
    a, b, said = swapped_number(fact, "en", [CURIE], [CURIE])
    assert (fact[a:b], said) == ("1905", "1903")
    # the evidence's own years, in either frame, are no swap; nor is a year the evidence has elsewhere
    assert swapped_number(fact.replace("1905", "1903"), "en", [CURIE], [CURIE]) is None
    assert swapped_number(fact.replace("1905", "1911"), "en", [CURIE], [CURIE]) is None
    # other words around it: nothing to compare with; and no frames in a language without spaces
    assert swapped_number("She was elected in 1905 to the Academy of Sciences.", "en", [CURIE], [CURIE]) is None
    assert swapped_number("居里夫人于 1905 年获得 诺贝尔 物理学奖 。", "zh", ["居里夫人于 1903 年获得 诺贝尔 物理学奖 。"], []) is None


def test_the_default_verifier_calls_the_wrong_year_not_supported():
    from mfact.core.checking.verify_default import DefaultVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Marie Curie", text=CURIE)]
    wrong = ("Marie Curie, a physicist and chemist of Polish birth who was later naturalised French, shared "
             "the 1905 Nobel Prize in Physics with her husband Pierre Curie.")   # the detector passes it
    out = DefaultVerifier().verify_batch([(wrong, "Marie Curie", "en", ev),
                                          (wrong.replace("1905", "1903"), "Marie Curie", "en", ev)])
    assert out[0].label == "NS" and [wrong[a:b] for a, b in out[0].marks] == ["1905"], out[0].reason
    assert out[1].label == "S", out[1].reason
