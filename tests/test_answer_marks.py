"""An answer to a question is marked at the words its evidence does not say (the wrong value, not the
fact around it), as annotators of answers mark them (core/checking/verify/answer.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mfact.core.checking.verify.answer import merge, unsaid

ROOT = Path(__file__).resolve().parents[1]


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


def test_run_texts_marks_the_wrong_value_of_an_answer(tmp_path):
    """Through the CLI, a not-supported fact of an answer is marked at its wrong words."""
    line = {"id": "a1", "lang": "en", "question": "When was Marie Curie born?",
            "text": "Marie Curie was born on 7 November 1869 in Warsaw.",
            "evidence": [{"title": "Marie Curie",
                          "text": "Marie Curie (born 7 November 1867 in Warsaw, died 1934) was a Polish physicist."}]}
    (tmp_path / "t.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    env = {**os.environ, "MFACT_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    run = [sys.executable, "-m", "mfact.core.cli"]
    out = subprocess.run(run + ["run", "--texts", str(tmp_path / "t.jsonl"), "--offline"],
                         capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    out = subprocess.run(run + ["export", "--all", "--format", "spans", "-o", str(tmp_path / "s.jsonl")],
                         capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    got = json.loads((tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()[0])
    marked = [got["text"][s[0]:s[1]] for s in got["spans"]]
    assert marked == ["1869"], marked
