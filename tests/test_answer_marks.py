"""An answer to a question is marked at the words its evidence does not say (the wrong value, not the
fact around it), as annotators of answers mark them (core/checking/verify/answer.py)."""
from __future__ import annotations

from mfact.core.checking.verify.answer import (edits_within, local_evidence, merge, unsaid, whole_names,
                                              without_asked)


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



def test_a_devanagari_word_is_marked_whole_not_cut_at_its_vowel_signs():
    ev = ["मीर अंतरिक्ष स्टेशन का प्रक्षेपण सोवियत संघ ने 1986 में किया था।"]
    text = "मीर अंतरिक्ष स्टेशन का प्रक्षेपण चीन ने किया है।"
    assert _marked(text, unsaid(text, "hi", ev, "मीर अंतरिक्ष स्टेशन का प्रक्षेपण किस देश ने किया है ?")) == ["चीन"]


def test_digits_of_any_script_are_read_as_digits():
    ev = ["जॉनी कैश की मृत्यु 12 सितंबर 2003 को हुई थी।"]
    assert unsaid("मृत्यु २००३ में हुई।", "hi", ev) == []
    assert _marked("मृत्यु १९७५ में हुई।", unsaid("मृत्यु १९७५ में हुई।", "hi", ev)) == ["१९७५"]


def test_a_misspelling_is_said_and_a_different_name_is_not():
    ev = ["Gianrico Carofiglio è stato senatore. Il Salzburg Red Bull Arena ospita le partite."]
    assert unsaid("Carofilio era senatore.", "it", ev) == []
    assert unsaid("Il Salzberg ospita le partite.", "it", ev) == []
    assert _marked("Lo stadio di Parma.", unsaid("Lo stadio di Parma.", "it", ["Lo stadio di Paris."])) == ["Parma"]
    assert edits_within("salzberg", "salzburg", 1) and not edits_within("parma", "paris", 1)


def test_the_parts_of_a_hyphenated_word_of_the_question_are_said():
    text = "The white winged chough was first described by John Latham in 1801."
    ev = ["The white-winged chough was described by the English ornithologist John Latham in 1801."]
    assert unsaid(text, "en", ev, "Who first described the white-winged chough?") == []


def test_a_sentence_is_read_against_the_window_that_speaks_of_it():
    page = ("Jean Dupont est un peintre français. Il est né à Lyon en 1901. Il étudie aux Beaux-Arts. "
            + " ".join(f"Il expose en {1920 + i} une toile." for i in range(30))
            + " En 1950 il voyage à Paris pour une exposition. Il meurt en 1970.")
    sentence = "Jean Dupont est né à Paris en 1901."
    windows = local_evidence(sentence, "Où est né Jean Dupont ?", [page], "fr")
    assert len(windows) == 1 and "Lyon" in windows[0], windows
    assert _marked(sentence, unsaid(sentence, "fr", windows, "Où est né Jean Dupont ?")) == ["Paris"]
    assert unsaid(sentence, "fr", [page], "Où est né Jean Dupont ?") == []   # the whole page says it somewhere



# Through the CLI (run --texts, then export --format spans and mushroom), the wrong year alone of an
# answer is marked: tests/test_bench_mushroom.py::test_export_mushroom_is_scored_by_the_task_definitions...


def test_the_words_the_question_says_are_cut_out_of_a_mark():
    text = "The previous name of Gillette Stadium was Foxboro Stadium."
    question = "What was the previous name of the Gillette Stadium?"
    cut = without_asked(text, [(0, len(text) - 1)], "en", question)
    assert _marked(text, cut) == ["Foxboro"]      # "Stadium" is the question's word too
    assert without_asked(text, [(0, 8)], "en", question) == []   # "The previous": nothing of its own
    assert without_asked(text, [(0, 8)], "en", "") == [(0, 8)]   # no question: the marks as they are


def test_arabic_spellings_and_clitics_are_one_word():
    question = "من كانت زوجة جوني كاش الثانية؟"
    text = 'زوجة "جوني الكاش" الثانية كانت "بيلي هيل".'
    ev = ["جون كاش مغني أمريكي. تزوج من فيفيان ليبرتو ثم من جون كارتر."]
    assert _marked(text, unsaid(text, "ar", ev, question)) == ["بيلي هيل"]
    asked = "ما هو الاسم الرمزي النهائي للنظام الأساسي الخاص بويندوز؟"
    said = "الاسم الرمزى النهائى للنظم الأساسية الخاصه ويندوس"      # alif maqsura, ta marbuta, a clitic dropped
    assert unsaid(said, "ar", [], asked) == []


def test_a_hedge_is_not_marked_and_does_not_join_a_value_to_its_verb():
    text = "Die Kapazität beträgt rund 50.000 Zuschauer."
    ev = ["Das Stadion hat 65.878 Plätze."]
    assert _marked(text, unsaid(text, "de", ev, "Wie viele Zuschauer hat das Stadion?")) == ["Kapazität beträgt",
                                                                                            "50.000"]
    text = "The population is around 1.5 million people."
    assert _marked(text, unsaid(text, "en", ["Galicia has 2.7 million people."], "What is the population?")) == [
        "1.5"]


def test_a_verdicts_marks_on_the_questions_words_move_to_the_facts_own():
    """The verifier found the fact NS and marked a word the question says: the mark moves to the
    words of the fact the question does not say, not to nothing."""
    from mfact.core.pipeline.question import AnsweringVerifier, Question
    from mfact.core.session import Evidence, Verdict

    fact = "I fondatori di Lugdunum sono stati i Romani"

    class Marking:
        name, version, uses_context, notices = "marking", "1", False, ()

        def verify(self, fact, entity, lang, passages):
            return Verdict("NS", 0.9, "marking/1", [], "the evidence says otherwise", marks=[(29, 34)])

        def verify_batch(self, items):
            return [self.verify(*item) for item in items]

    ev = [Evidence(id="e1", source="given", lang="it", title="Lugdunum",
                   text="Lugdunum fu fondata dai Romani nel 43 a.C.; i fondatori furono Lucio Munazio Planco.")]
    question = "Secondo la leggenda chi sono stati i fondatori di Lugdunum?"
    got = AnsweringVerifier(Marking(), None, None, Question(question, fact)).verify_many([(fact, "Lugdunum", "it", ev)])
    assert [fact[a:b] for a, b in got[0][0].marks] == ["Romani"]


def test_a_value_is_marked_without_the_words_that_frame_it():
    """A mark that holds a value (digits, a month's name, a number's word from CLDR) and at most two
    other words is cut to the value: annotators mark "10,4", not "beträgt 10,4"; a longer mark is a
    claim of its own and stays whole."""
    ev = ["Delley-Portalban ist eine politische Gemeinde im Kanton Freiburg. Der Anteil der Bevölkerung beträgt 2 %."]
    text = "Der albanischsprachige Anteil der Bevölkerung in Portalban beläuft sich auf 10,4 %."
    assert _marked(text, unsaid(text, "de", ev, "Wie hoch ist der albanischsprachige Anteil?")) == ["10,4"]
    text = "Er wurde am 15. Oktober 1932 geboren."
    assert _marked(text, unsaid(text, "de", ["Er wurde am 10. Januar 1895 geboren."])) == ["15. Oktober 1932"]
    text = "Die Stadt zählte 1,5 Millionen Einwohner."
    assert _marked(text, unsaid(text, "de", ["Die Stadt zählte 700.000 Einwohner."])) == ["1,5 Millionen"]
    text = "He died in 1808 fighting bravely for the Russian cavalry near Hörnefors."
    assert _marked(text, unsaid(text, "en", ["He was an officer."])) == [
        "died in 1808 fighting bravely for the Russian cavalry near Hörnefors"]


def test_a_wrong_name_is_marked_whole():
    """A mark inside a name is carried to the whole name, the words the question says included;
    the capitalised first word of the text is not taken for a name."""
    q = "Wie heißt die Frau von Bruce Sterling?"
    text = "Die Frau des Science-Fiction-Autors ist Elizabeth Sterling."
    ev = ["Bruce Sterling ist ein US-amerikanischer Science-Fiction-Autor. Er ist mit Nancy Baxter verheiratet."]
    asked = without_asked(text, unsaid(text, "de", ev, q), "de", q)
    assert _marked(text, asked) == ["Elizabeth"]
    assert _marked(text, whole_names(text, asked, "de")) == ["Elizabeth Sterling"]
    film = "His first film was The Long Tomorrow in 1955."
    assert _marked(film, whole_names(film, [(23, 36)], "en")) == ["The Long Tomorrow"]
    start = "Lugdunum Romans founded it."
    assert _marked(start, whole_names(start, [(9, 15)], "en")) == ["Romans"]
    assert whole_names("他是李四。", [(2, 4)], "zh") == [(2, 4)]
