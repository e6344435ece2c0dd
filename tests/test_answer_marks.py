"""An answer to a question is marked at the words its evidence does not say (the wrong value, not the
fact around it), as annotators of answers mark them (core/checking/verify/answer.py)."""
from __future__ import annotations

from mfact.core.checking.verify.answer import merge, unsaid


def _marked(text, spans):
    return [text[a:b] for a, b in spans]


def test_the_wrong_date_is_marked_not_the_fact():
    text = "Er wurde am 15. Oktober 1932 geboren."
    ev = ["Liu Wenhui wurde am 10. Januar 1895 in Dayi geboren und war einer der chinesischen Warlords."]
    assert _marked(text, unsaid(text, "de", ev, "Wann wurde Liu Wenhui geboren?")) == ["15. Oktober 1932"]


def test_words_the_evidence_or_the_question_say_are_not_marked():
    text = "Ted Lange spielte den Barkeeper Isaac Washington in der Serie."
    ev = ["Ted Lange ist ein US-amerikanischer Schauspieler. Bekannt wurde er als Barkeeper Isaac Washington."]
    assert unsaid(text, "de", ev, 'Welche Rolle spielte Ted Lange in der Serie "Love Boat"?') == []
    wrong = "Ted Lange spielte den Bordarzt Dr. Simon Brice."
    assert _marked(wrong, unsaid(wrong, "de", ev, "Welche Rolle spielte Ted Lange?")) == ["Bordarzt Dr. Simon Brice"]


def test_an_inflected_word_is_said_and_a_number_only_with_its_digits():
    ev = ["Marie Curie war eine Physikerin; sie erhielt 1911 den Nobelpreis."]
    assert unsaid("Sie war Physikers.", "de", ev) == []
    text = "Sie erhielt 1912 den Nobelpreis."
    assert _marked(text, unsaid(text, "de", ev)) == ["1912"]


def test_chinese_is_read_by_two_character_pieces():
    ev = ["彼得拉·范斯塔弗伦，她出生于1965年，参加奥运会时年19岁。"]
    text = "她出生于1880年，参加奥运会时64岁。"
    marked = _marked(text, unsaid(text, "zh", ev))
    assert any("1880" in m for m in marked) and any("64" in m for m in marked), marked
    assert not any("出生" in m or "参加" in m or "奥运" in m for m in marked), marked


def test_marks_a_word_apart_are_joined_on_one_line_only():
    text = "alpha beta gamma\ndelta"
    assert merge(text, [(0, 5), (11, 16)]) == [(0, 16)]
    assert merge(text, [(11, 16), (17, 22)]) == [(11, 16), (17, 22)]



# Through the CLI (run --texts, then export --format spans and mushroom), the wrong year alone of an
# answer is marked: tests/test_bench_mushroom.py::test_export_mushroom_is_scored_by_the_task_definitions...
