"""Counts in the slot checks (core/checking/slots/counts.py): a number word before the noun it counts,
against the evidence's count of the same noun ("три дочери" against "две дочери")."""
from __future__ import annotations

import glob
import json

import pytest

from mfact.core.checking.slots.counts import counts, duration_words
from mfact.core.checking.slots.check import check_slots

pytestmark = pytest.mark.timeout(240)


def _found(text: str, lang: str) -> list[tuple[int, str, tuple[str, ...]]]:
    return [(c.n, text[c.start:c.end], c.nouns) for c in counts(text, lang)]


@pytest.mark.parametrize("lang, text, want", [
    ("ru", "У них родились две дочери: Елена и Галина.", [(2, "две", ("дочери",))]),
    ("de", "Zu seinen Werken gehören drei große Romane: Buddenbrooks", [(3, "drei", ("große", "romane"))]),
    ("tr", "2021 yılında iki çocuğu oldu.", [(2, "iki", ("çocuğu", "oldu"))]),
    # Vietnamese tones tell words apart: "tấm" (a sheet) is not "tám" (eight)
    ("vi", "Với một tấm bằng, bạn có tám tấm ảnh", [(8, "tám", ("tấm", "ảnh"))]),
    ("ar", "وله ثلاث بنات وأربعة أبناء", [(3, "ثلاث", ("بنات",)), (4, "وأربعة", ("ابناء",))]),   # "and four"
    ("zh", "他育有三个女儿和两子。", [(3, "三", ("女儿",)), (2, "两", ("子",))]),
    ("en", "She had two of his six children.", [(6, "six", ("children",))]),     # "two of": no noun
    ("en", "Three years later she had 12 goals and one son.", []),   # a duration, digits, "one"
    ("zh", "第三个孩子出生于三月，两年后", []),                         # an ordinal, a month, a duration
    ("ja", "三人の娘", []),                                             # not read in Japanese
])
def test_counts_are_numbers_before_their_nouns(lang, text, want):
    assert _found(text, lang) == want


def test_duration_words_come_from_cldr():
    assert {"years", "year", "months", "days"} <= duration_words("en")
    assert {"лет", "года", "месяцев"} <= duration_words("ru")
    assert "yıl" in duration_words("tr") and "per" not in duration_words("en")
    assert not duration_words("xx")


def _conflicts(fact: str, evidence: str, lang: str) -> list[str]:
    return [c.reason() for c in check_slots(fact, lang, [(evidence, lang)], "X").conflicts]


@pytest.mark.parametrize("lang, fact, evidence, want", [
    ("ru", "Он был женат на Валентине Горячевой, у них было три дочери.",
     "В 1957 году женился на Валентине Горячевой. У них родились две дочери: Елена (1959) и Галина (1961).",
     ['"три" vs "две"']),
    ("de", "Mit seiner Frau Katia hatte er vier Kinder.",
     "Er war mit Katia Mann verheiratet, mit der er sechs Kinder hatte, darunter Erika.", ['"vier" vs "sechs"']),
    ("de", "Zu seinen bekanntesten Werken gehören zwei Romane.",
     "Zu seinen bekanntesten Werken gehören drei Romane: Buddenbrooks, Der Zauberberg und Doktor Faustus.",
     ['"zwei" vs "drei"']),
    ("tr", "Çiftin üç çocuğu oldu.", "1950 yılında Ayşe ile evlendi ve çiftin iki çocuğu oldu.", ['"üç" vs "iki"']),
    ("ar", "أنجب منها خمسة أبناء.", "تزوج من ليلى عام 1950 وأنجب منها أربعة أبناء وبنتين.", ['"خمسة" vs "أربعة"']),
    ("zh", "他与妻子育有三个女儿。", "他与妻子育有两个女儿和一个儿子。", ['"三" vs "两"']),
    # Chinese ordinals and ages, traditional against simplified (rules r16)
    ("zh", "2008年，她以27岁成为第六十二届戛纳电影节最年轻的评审委员。",
     "2008年5月，她以27歲之齡，成為第六十一屆坎城影展最年輕的評審委員。", ['"第六十二" vs "第六十一"']),
    ("zh", "1984年，四岁的她随家人移居美国。", "1984年，當時三歲的波曼和家人一起搬到美國。", ['"四" vs "三"']),
    ("zh", "她获得第84届奥斯卡最佳女主角奖。", "她榮獲第83屆奧斯卡最佳女主角獎。", ['"第84" vs "第83"']),
    ("zh", "车站成为了象征，直至第二次世界大战爆发。", "车站曾于第一次世界大战时被迫中断。", []),   # a war's name
    ("zh", "他参加了三届奥运会。", "他参加了第三届奥运会。", []),          # three editions, not the third
    # the fact's number is among the evidence's counts of the noun: no conflict
    ("en", "He wrote two novels.", "He wrote two novels and five plays. Later he wrote three novels.", []),
    # another noun, another language, a duration: no conflict
    ("en", "They had three sons.", "They had three daughters.", []),
    ("en", "He served for three years.", "He served in the army for two years.", []),
    # the same noun counted in a sentence about something else (the children of another mother)
    ("lt", "Su ja susilaukė šešių vaikų.", "Su sugulove pradėti kiti septyni vaikai tapo valdovais.", []),
])
def test_a_count_the_evidence_gives_otherwise_is_a_conflict(lang, fact, evidence, want):
    assert _conflicts(fact, evidence, lang) == want


def test_a_count_against_evidence_in_another_language_is_left_to_the_detector():
    rep = check_slots("У них было три дочери.", "ru", [("They had two daughters, Yelena and Galina.", "en")], "X")
    assert not rep.conflicts


def run_texts(tmp_path, lang: str, entity: str, article: str, text: str) -> list[dict]:
    """The facts of `text` as `mfact run --texts` checks it against `article` (the console script)."""
    from test_cli_foundation import run

    texts = tmp_path / "t.jsonl"
    texts.write_text(json.dumps({"id": "a", "lang": lang, "entity": entity, "evidence": [article], "text": text},
                                ensure_ascii=False) + "\n", encoding="utf-8")
    run(tmp_path / "home", "run", "--texts", str(texts), "--offline", "--no-progress", "--out", str(tmp_path / "out"))
    return json.loads(open(glob.glob(str(tmp_path / "out" / "txt-*.json"))[0], encoding="utf-8").read())["facts"]


def test_the_wrong_count_is_marked_through_run_texts(tmp_path):
    """As the held-out answers are checked (`mfact run --texts`, the article as evidence): the wrong
    number alone is marked ("три"; before, the fact was S 0.88), and the right count stays S."""
    article = ("Юрий Алексеевич Гагарин (9 марта 1934 — 27 марта 1968) — лётчик-космонавт СССР. "
               "В 1957 году женился на Валентине Ивановне Горячевой. У них родились две дочери: "
               "Елена (1959) и Галина (1961).")
    facts = run_texts(tmp_path, "ru", "Юрий Гагарин", article,
                      "Гагарин женился на Валентине Горячевой. У них было три дочери.")
    by_text = {f["text"]: f["auto"] for f in facts}
    wrong = next(v for t, v in by_text.items() if "три" in t)
    fact = next(t for t in by_text if "три" in t)
    assert wrong["label"] == "NS" and [fact[a:b] for a, b in wrong["marks"]] == ["три"]
    assert "slot conflict" in wrong["reason"]


def _scored(fact: str, p: float = 0.9) -> list[tuple[int, int, float]]:
    """Every word of `fact` with detector score `p` (a sentence the detector flags whole)."""
    from mfact.core.checking.text.textutil import words_with_offsets
    return [(a, b, p) for _w, a, b in words_with_offsets(fact)]


def test_a_fact_flagged_whole_is_narrowed_to_the_words_its_near_copy_lacks():
    # rules r16: the detector flags short near copies whole; the held-out answers are marked at the
    # wrong words, so a whole-fact mark costs precision (silver, with the counterparts of r16: 63.5 -> 63.6)
    from mfact.core.checking.verify.offline import ns_marks
    ev = ["Thomas Mann emigrierte 1933 in die Schweiz und lebte später in Princeton."]
    fact = "Thomas Mann emigrierte 1933 in die Niederlande."
    got = ns_marks(fact, "Thomas Mann", "de", _scored(fact), 0.5, ev)
    assert [fact[a:b] for a, b in got] == ["Niederlande"]
    # no near copy (an invented sentence): the detector's marks stay
    fact = "Er gewann 1950 einen Oscar für das beste Drehbuch."
    assert ns_marks(fact, "Thomas Mann", "de", _scored(fact), 0.5, ev) == [(0, len(fact) - 1)]
    # the detector's own narrower marks are kept
    fact = "Thomas Mann emigrierte 1933 in die Niederlande."
    words = [(a, b, 0.9 if fact[a:b] == "Niederlande" else 0.1) for a, b, _p in _scored(fact)]
    assert [fact[a:b] for a, b in ns_marks(fact, "Thomas Mann", "de", words, 0.5, ev)] == ["Niederlande"]
    # Korean is read in syllables: not narrowed (silver ko -0.7 when it was)
    fact = "토마스 만은 1933년 네덜란드로 망명했다."
    ko_ev = ["토마스 만은 1933년 스위스로 망명했다."]
    assert ns_marks(fact, "토마스 만", "ko", _scored(fact), 0.5, ko_ev) == [(0, len(fact) - 1)]


def test_a_count_in_words_the_evidence_gives_in_digits_is_not_flagged(tmp_path):
    """rules r16: "тринадцать станций" against "13 станций" was NS 0.65 with the number marked (the
    detector reads the word against the digits); the count agrees, so its word is cleared."""
    from mfact.core.checking.slots.counts import count_agreements
    ev = [("Длина первой очереди составляла 11,2 км, на ней находились 13 станций.", ("ru",))]
    fact = "На первой очереди находились тринадцать станций."
    assert [fact[a:b] for a, b in count_agreements(fact, "ru", ev, [0])] == ["тринадцать"]
    assert count_agreements("На первой очереди находились двенадцать станций.", "ru", ev, [0]) == []
    assert count_agreements("Die Linie hat dreizehn Stationen.", "de", [("Die Linie hat 13 Stationen.", ("de",))], [0])
    assert not count_agreements("Die Linie hat dreizehn Stationen.", "de", [("Die Linie hat 13.5 km.", ("de",))], [0])
    assert count_agreements("Die Linie hat dreizehn Stationen.", "de", [("13 Stationen hat die Linie.", ("de",))], [0])
    article = ("Московский метрополитен открыт 15 мая 1935 года. Первая линия была построена от станции "
               "«Сокольники» до станции «Парк культуры». Длина первой очереди составляла 11,2 км, на ней "
               "находились 13 станций.")
    facts = run_texts(
        tmp_path, "ru", "Московский метрополитен", article, "На первой очереди находились тринадцать станций."
    )
    assert [f["auto"]["label"] for f in facts] == ["S"]
