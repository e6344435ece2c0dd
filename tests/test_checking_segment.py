"""Sentence splitting, streaming completeness and cleaning of model output."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mfact.core.checking import clean_text, complete_prefix, drop_unfinished, split_sentences
from mfact.core.languages import language_codes


def texts(t: str, lang: str = "en") -> list[str]:
    return [s.text for s in split_sentences(t, lang)]


def test_abbreviations_initials_decimals_dates_do_not_split():
    t = ("Dr. Smith met J. R. R. Tolkien at St. Mary's in 1950. He was born on 1.10.1867 and "
         "weighed 3.5 kg! Really? Mr. Brown agreed.")
    assert texts(t) == ["Dr. Smith met J. R. R. Tolkien at St. Mary's in 1950.",
                        "He was born on 1.10.1867 and weighed 3.5 kg!", "Really?", "Mr. Brown agreed."]


def test_quotes_keep_their_sentences_together():
    t = 'She said "I am done. Truly." and left. "Yes." Then he went home.'
    assert texts(t) == ['She said "I am done. Truly." and left.', '"Yes."', "Then he went home."]


def test_german_ordinal_dates_and_abbreviations():
    t = "Er wurde am 7. November 1867 in Warschau geboren. Sie studierte z. B. Physik. Danach ging sie."
    assert texts(t, "de") == ["Er wurde am 7. November 1867 in Warschau geboren.",
                              "Sie studierte z. B. Physik.", "Danach ging sie."]


@pytest.mark.parametrize(
    "lang,text,expected",
    [
        (
            "zh",
            "居里夫人出生于华沙。她获得了诺贝尔奖！真的吗？是的",
            ["居里夫人出生于华沙。", "她获得了诺贝尔奖！", "真的吗？", "是的"],
        ),
        (
            "ja",
            "彼女はワルシャワで生まれた。ノーベル賞を受賞した。",
            ["彼女はワルシャワで生まれた。", "ノーベル賞を受賞した。"],
        ),
        (
            "ar",
            "ولدت ماري كوري في وارسو. هل فازت بجائزة نوبل؟ نعم",
            ["ولدت ماري كوري في وارسو.", "هل فازت بجائزة نوبل؟", "نعم"],
        ),
        ("ur", "وہ وارسا میں پیدا ہوئیں۔ انہوں نے انعام جیتا۔", ["وہ وارسا میں پیدا ہوئیں۔", "انہوں نے انعام جیتا۔"]),
        (
            "hi",
            "मैरी क्यूरी का जन्म वारसॉ में हुआ था। उन्होंने पुरस्कार जीता॥ अंत",
            ["मैरी क्यूरी का जन्म वारसॉ में हुआ था।", "उन्होंने पुरस्कार जीता॥", "अंत"],
        ),
        ("bn", "তিনি ওয়ারশতে জন্মগ্রহণ করেন। তিনি পুরস্কার পান।", ["তিনি ওয়ারশতে জন্মগ্রহণ করেন।", "তিনি পুরস্কার পান।"]),
        ("en", "Wait… what happened? Nothing!", ["Wait… what happened?", "Nothing!"]),
        ("en", "A heading line\nThe body. Another one.", ["A heading line", "The body.", "Another one."]),
    ],
)
def test_terminators_of_every_script(lang, text, expected):
    assert texts(text, lang) == expected


def test_a_lone_opening_quote_after_a_terminator():
    assert texts('He left. « rien » Then.', "fr") == ["He left.", "« rien » Then."]
    assert texts('Done. ( ) Next.') == ["Done.", "( ) Next."]


def test_offsets_are_exact():
    t = "  First one.   Second one!\n\nThird"
    for s in split_sentences(t):
        assert t[s.start:s.end] == s.text
    assert [s.index for s in split_sentences(t)] == [0, 1, 2]


@pytest.mark.parametrize("text,expected", [
    ("He was born in 1867.", 0),                 # could still be 1867.5
    ("He was born in 1867. ", 20),
    ("He was born in 1867. He", 20),
    ("He met Dr. ", 0),                          # an abbreviation does not end a sentence
    ("Il est né.\n", 10),
    ("Line without stop\nNext", 17),
    ("", 0),
])
def test_complete_prefix_streaming(text, expected):
    assert complete_prefix(text, "en") == expected


def test_complete_prefix_cjk_needs_what_follows():
    assert complete_prefix("他出生了。", "zh") == 0
    assert complete_prefix("他出生了。她", "zh") == 5


def test_complete_prefix_grows_monotonically_while_streaming():
    t = "Marie Curie was born in 1867 in Warsaw. She won the Nobel Prize in 1903! Dr. Smith said so."
    last = 0
    for n in range(len(t) + 1):
        p = complete_prefix(t[:n], "en")
        assert p >= last and p <= n
        last = p
    assert last == t.index(" Dr.")   # the final sentence is not complete until whitespace follows
    assert complete_prefix(t, "en", final=True) == len(t)


_alphabet = st.sampled_from(list("ab CD.!?…。！？؟۔।॥\n\"'«»“”„‘’()「」3,;:-ก") + ["Dr.", "J. ", "3.5", "1.10.1867",
                                                                           "« ", "( ", ". \"", "ไทย "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_alphabet, max_size=60).map("".join), st.sampled_from(language_codes()))
def test_spans_cover_text_in_order_without_overlap(text, lang):
    sents = split_sentences(text, lang)
    pos = 0
    for i, s in enumerate(sents):
        assert s.index == i
        assert pos <= s.start < s.end <= len(text)
        assert text[s.start:s.end] == s.text
        assert text[pos:s.start].strip() == ""      # only whitespace between sentences
        assert not s.text[0].isspace() and not s.text[-1].isspace()
        pos = s.end
    assert text[pos:].strip() == ""


@settings(max_examples=200, deadline=None)
@given(st.lists(_alphabet, max_size=40).map("".join), st.sampled_from(["en", "zh", "ar", "hi", "de"]))
def test_complete_prefix_ends_at_a_sentence_end(text, lang):
    p = complete_prefix(text, lang)
    assert 0 <= p <= len(text)
    assert p == 0 or p in {s.end for s in split_sentences(text, lang)}


def test_clean_text_drops_model_markup():
    raw = ("<start_of_image><b>Marie Curie</b> was a <i>physicist</i>.<eos> <|im_end|>\n"
           "## Early life\n* She was born in **Warsaw**.\n\x1b[31mred\x1b[0m text &amp; more</s>")
    out = clean_text(raw)
    assert out == "Marie Curie was a physicist.\n\nShe was born in Warsaw.\nred text & more"
    assert "\x1b" not in out and "<" not in out


def test_clean_text_keeps_plain_text_and_comparisons():
    assert clean_text("He scored 3 < 5 points. Fine.") == "He scored 3 < 5 points. Fine."
    assert clean_text("") == ""
    assert clean_text("file_name_here and 5 * 3 * 2 and C++") == "file_name_here and 5 * 3 * 2 and C++"
    assert clean_text("*She* was __very__ `famous`.") == "She was very famous."


def test_drop_unfinished():
    assert drop_unfinished("She was born in Warsaw. She studied in", "en") == "She was born in Warsaw."
    assert drop_unfinished("She was born in Warsaw. She studied.", "en") == "She was born in Warsaw. She studied."
    assert drop_unfinished("居里夫人出生于华沙。她在巴黎", "zh") == "居里夫人出生于华沙。"
    assert drop_unfinished("no end at all", "en") == ""


def test_thai_sentences_end_at_a_space_after_a_long_enough_run():
    # a short first phrase ("มารี กูรี", the name) does not end a sentence
    assert texts("มารี กูรี เกิดที่วอร์ซอ", "th") == ["มารี กูรี เกิดที่วอร์ซอ"]
    t = "มารี กูรีเป็นนักฟิสิกส์และนักเคมีชาวโปแลนด์ เธอได้รับรางวัลโนเบลสองครั้ง"
    assert texts(t, "th") == ["มารี กูรีเป็นนักฟิสิกส์และนักเคมีชาวโปแลนด์", "เธอได้รับรางวัลโนเบลสองครั้ง"]
    assert complete_prefix(t[:-3], "th") == len("มารี กูรีเป็นนักฟิสิกส์และนักเคมีชาวโปแลนด์")
