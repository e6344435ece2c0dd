"""CaLMScore checks: language, repetition (o200k_base offline), non-empty."""
from __future__ import annotations

from mfact.core import checks
from mfact.core.checks import calm_checks, is_repetitive, repeated_run, tokenize

EN = ("Marie Curie was a Polish and naturalised-French physicist and chemist who conducted "
      "pioneering research on radioactivity. She was the first woman to win a Nobel Prize.")
ES = ("Marie Curie fue una física y química polaca nacionalizada francesa. Fue pionera en el campo "
      "de la radiactividad y la primera persona en recibir dos premios Nobel.")


def test_o200k_loads_offline_and_tokenizes():
    toks = tokenize("Hello world")
    assert toks == [13225, 2375]          # o200k_base ids (cl100k would give 9906, 1917)
    assert tokenize("") == []


def test_right_and_wrong_language():
    ok = calm_checks(ES, "es")
    assert ok["language_ok"] and ok["detected_language"] == "es" and ok["passed"]
    wrong = calm_checks(EN, "es")
    assert wrong["detected_language"] == "en" and not wrong["language_ok"] and not wrong["passed"]


def test_empty_text():
    for text in ("", "   \n"):
        c = calm_checks(text, "en")
        assert c == {"non_empty": False, "detected_language": None, "language_prob": 0.0,
                     "language_ok": False, "repetitive": False, "passed": False}


def test_repetition_threshold_exact():
    run = list(range(1000, 1020))           # 20 distinct tokens
    assert repeated_run(run * 4 + [1, 2]) == tuple(run)
    assert repeated_run(run * 3 + [1, 2]) is None           # only three times
    assert repeated_run(run[:19] * 6) is not None            # 19-token cycle: 20-grams still recur
    short = list(range(19))
    assert repeated_run((short + [99, 98]) * 3) is None
    assert repeated_run([5] * 23) == (5,) * 20                # overlapping occurrences count
    assert repeated_run([5] * 22) is None


def test_repetitive_text():
    sentence = "He was born in Warsaw and studied physics at the University of Paris in France."
    assert is_repetitive(" ".join([sentence] * 5))   # ~18 tokens: a 20-token run spans two copies
    assert not is_repetitive(" ".join([sentence] * 3))
    c = calm_checks(" ".join([sentence] * 5), "en")
    assert c["repetitive"] and c["language_ok"] and not c["passed"]


def test_calm_checks_does_not_reload_the_encoding():
    tokenize("x")
    enc = checks._encoding
    calm_checks(EN, "en")
    assert checks._encoding is enc
