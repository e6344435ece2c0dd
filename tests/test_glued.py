"""Two words run together (`core/checking/slots/glued.py`, rules r17, r18): an evidence word glued to the word
that replaced it, as mFAVA's answers keep GPT-4's edits ("a Netflix, Spotify és a YouTubeFaceBook").
The detector passed them (silver: 314 capitalised, 242 year glues tagged, 1 and 0 untagged, none
marked); the checks mark the glued word alone."""
from __future__ import annotations

import pytest

from mfact.core.checking.slots.glued import glued_words, merged

EV_HU = ("Az OTT-szolgáltatások közül a legismertebbek a Netflix, a Spotify és a YouTube. "
         "A szolgáltatás 2010-ben indult, 2009-ben jelentették be.")


def _words(fact: str, lang: str, evidence: str) -> list[str]:
    return [fact[a:b] for a, b in glued_words(fact, lang, [evidence], known=lambda w: False)]


def test_a_capitalised_evidence_word_glued_to_another_name_is_found():
    fact = "Ezek közül a legismertebbek a Netflix, Spotify és a YouTubeFaceBook."
    assert _words(fact, "hu", EV_HU) == ["YouTubeFaceBook"]
    # with apostrophes and suffixes, in Turkish
    ev = "Atatürk 1919'da Samsun'a çıktı ve İstanbul'da okudu."
    assert _words("Atatürk İstanbul'daAnkara'da okudu.", "tr", ev) == ["İstanbul'daAnkara'da"]
    # the second name's first word is short: a capital begins it, no ending of "Jersey"
    ev_fr = "Il est né à New York et a grandi dans le New Jersey, puis à Jerseyville."
    assert _words("Il a grandi dans le New JerseyNew York.", "fr", ev_fr) == ["JerseyNew"]
    # an acronym of the evidence and a capitalised word, either way round
    ev_ac = "Les microcontrôleurs AVR sont produits par Atmel au Canada et vendus aux USA. GMA Network diffuse."
    assert _words("Les AVRIntel sont vendus au CanadaUSA.", "fr", ev_ac) == ["AVRIntel", "CanadaUSA"]
    assert _words("GMANetwork diffuse des AVR.", "fr", ev_ac) == []          # the evidence has them spaced
    # the evidence has the name in another form
    ev_pl = "Kuchnia belgijska czerpie z kuchni Francji, Niemiec i Holandii."
    assert _words("Wpływy krajów takich jak Francja, Niemcy i HolandiaLuksemburg.", "pl", ev_pl) == [
        "HolandiaLuksemburg"]


def test_two_years_run_together_are_found_in_any_script():
    assert _words("A szolgáltatás 20102009-ben indult.", "hu", EV_HU) == ["20102009"]
    assert _words("Hasiera 2011ko2010ko udan izan zen.", "eu", "Hasiera 2011ko udan izan zen.") == ["2011ko2010ko"]
    assert _words("در سال ۱۹۳۹۱۹۴۰ آغاز شد.", "fa", "در سال ۱۹۳۹ آغاز شد.") == ["۱۹۳۹۱۹۴۰"]
    # between Han characters only the digits are marked
    assert _words("截至20102012年，公司有员工。", "zh", "截至2010年，公司有员工。") == ["20102012"]
    # two years with Han characters between them are a range, not a glue
    assert _words("攝氏喺1730年到1744年之間", "yue", "攝氏喺1730年出世") == []


def test_two_numbers_of_one_shape_run_together_are_found():
    ev = "Le moteur de 3,8 L développe 150 ch ; la surface est de 25,000 pieds carrés (2,300 m2) en 1967."
    fact = "Un moteur de 3,83,5 L et une surface de 25,00020,000 pieds carrés (2,3001,900 m2)."
    assert _words(fact, "fr", ev) == ["3,83,5", "25,00020,000", "2,3001,900"]
    # a number of the evidence, a year, or another number whose first part the evidence has
    assert _words("Un moteur de 3,8 L, construit en 1967 ; 150,5 ch.", "fr", ev) == []
    assert _words("Il a coûté 25,000 puis 1500 francs.", "fr", ev) == []


def test_a_year_glued_to_the_next_day_and_plain_numbers_of_as_many_digits_are_found():
    ev = "L'épisode fut diffusé le 4 août 2018. Il a joué 125 matchs ; la ville compte 12 500 habitants."
    fact = "L'épisode fut diffusé le 4 août 20185 août 2019 ; il a joué 125130 matchs."
    assert _words(fact, "fr", ev) == ["20185 août 2019", "125130"]
    assert _words("Urodził się 4 września 201412 października 2015 roku.", "pl",
                  "Urodził się 4 września 2014 roku.") == ["201412 października 2015"]
    # the evidence's number written without its separator; a year followed by no day; other numbers
    assert _words("La ville compte 12500 habitants, 201845 en tout, 12512 kilos.", "fr", ev) == []
    # between Han characters
    assert _words("一杯麵粉介乎於120100克之間。", "yue", "一杯麵粉介乎於120克之間。") == ["120100"]


def test_values_with_one_unit_run_together_in_chinese():
    ev = "沃爾瑪嘅零售收入高達559,151百萬美元，佢喺1974年成立，2015年1月擴張，市佔率31%。"
    fact = "佢喺1974年1984年成立，2015年1月2014年12月擴張，市佔率31%30%。"
    assert _words(fact, "yue", ev) == ["1974年1984年", "2015年1月2014年", "31%30%"]
    # a range has a word between; values the evidence has run together are the evidence's
    assert _words("佢喺1974年至1984年成立。", "yue", ev) == []
    assert _words("佢喺1974年1984年成立。", "yue", ev.replace("1974年", "1974年1984年")) == []


def test_a_word_and_its_counterpart_run_together_in_any_language():
    # compounding languages too: a counterpart pair (counterparts.py) is never one word
    assert _words("Er gewannverlor das Finale.", "de", "Er gewann das Finale 1998.") == ["gewannverlor"]
    assert _words("Ankara'da doğduöldü.", "tr", "Ankara'da doğdu.") == ["doğduöldü"]
    assert _words("人口增加减少了。", "zh", "人口增加了。") == ["增加减少"]
    # one-character counterparts make words of their own (东西 "a thing", 南北)
    assert _words("他买了东西，住在南北大街。", "zh", "他住在北京。") == []


def test_two_vietnamese_syllables_run_together():
    ev = "Ông có tám người con và không có nhà riêng. Thu yên lặng."
    assert _words("Ông támkhông có nhà riêng.", "vi", ev) == ["támkhông"]
    # one syllable of two evidence syllables' letters ("thu" + "yên"), a loan word
    assert _words("Thuyên yên lặng, hydroxyquinoline.", "vi", ev + " hydroxy quinoline") == []


def test_han_characters_split_a_run_of_latin_letters():
    ev = "Walmart嘅零售收入係全球最高。"
    fact = "WalmartCostco嘅零售收入係全球最高。"
    assert _words(fact, "yue", ev) == ["WalmartCostco"]


def test_two_lowercase_words_run_together_where_words_do_not_compound():
    ev = ("La cocina italiana ofrece una abundancia de sabor y no carece de nada; el fósforo blanco es "
          "ligeramente soluble.")
    assert _words("La cocina italiana ofrececarece de sabor.", "es", ev) == ["ofrececarece"]
    # the second word is no evidence word but one of the vocabulary (5+ letters, not "-mente")
    ev_it = "Il romanzo celebra la diversità culturale della Polonia."
    fact = "Un'opera che celebracritica la diversità culturale."
    assert [fact[a:b] for a, b in glued_words(fact, "it", [ev_it], known=lambda w: w == "critica")] == [
        "celebracritica"]
    assert glued_words(fact, "it", [ev_it], known=lambda w: False) == []
    assert glued_words("Es ligeramentecompletamente soluble.", "es", [ev], known=lambda w: True) == []


def test_the_second_word_may_be_another_form_of_a_vocabulary_or_evidence_word():
    # the replacing word of an edit is seldom in the evidence: "eliminó" reads as "elimin" + "ó"
    ev = "En 1990 el gobierno introdujo la reforma que la oposición quería eliminar."
    fact = "En 1990 el gobierno introdujoeliminó la reforma."
    assert [fact[a:b] for a, b in glued_words(fact, "es", [ev], known=lambda w: w == "elimin")] == [
        "introdujoeliminó"]
    # all but the last two letters begin an evidence word ("przegrał" for "przegrana")
    ev_pl = "Drużyna wygrała mecz, ale przegrana w finale bolała."
    assert _words("Drużyna wygrałaprzegrała mecz.", "pl", ev_pl) == ["wygrałaprzegrała"]
    # a short second part is not read so: "institution" + "nelles" ("nelle" is an Italian word)
    ev_fr = "Une institution de l'Union. Les réformes sont nombreuses."
    assert glued_words("Les réformes institutionnelles.", "fr", [ev_fr], known=lambda w: w == "nelle") == []


def test_two_arabic_words_of_three_letters_run_together_are_found():
    ev = "ولد في مصر عام 1911 في القاهرة. زار تونس والمغرب. كان عبد الله كاتبا. بيت كبير، هما أخوان."
    assert _words("ولد في مصرتونس عام 1911.", "ar", ev) == ["مصرتونس"]
    assert _words("ولد في القاهرةتونس.", "ar", ev) == ["القاهرةتونس"]
    # an article with a preposition, a name written as one word, a dual suffix: Arabic words
    assert _words("سافر بالقاهرة وكان عبدالله في بيتهما.", "ar", ev + " القاهرة") == []
    # a name the evidence writes in two words
    assert _words("زار نيويورك عام 1950.", "ar", "زار نيو يورك عام 1950 وكان يورك جميلا.") == []
    # other languages in Arabic script compound words ("سیاستدان"): the 5-letter parts hold there
    assert _words("ولد في مصرتونس.", "ur", ev) == []


@pytest.mark.parametrize("fact,lang,evidence", [
    # German and Finnish write compounds as one word
    ("Er war ein bekannter Fußballspieler.", "de", "Er spielte Fußball. Jeder Spieler trainierte."),
    ("Hän oli tunnettu jalkapallopelaaja.", "fi", "Hän pelasi jalkapallo ja pelaaja oli hyvä."),
    # a word of the vocabulary, in the evidence's other form, or a name the evidence has
    ("Dia lebih suka daripada yang lain.", "id", "Dia datang dari kota pada hari itu."),
    ("Это было международной организацией.", "ru", "Член международного союза, между тем народной."),
    ("Die CaixaBank wuchs.", "de", "Die CaixaBank ist eine Bank. Caixa heißt Kasse."),
    # a combining form that is a word too (held-out XNLI, Russian)
    ("Это не помешало радиосвязи.", "ru", "Работало радио, и связи не было."),
    ("В послевоенное время он жил в Москве.", "ru", "После войны он жил в Москве. Военное время."),
    ("Logró sobrevivir al invierno.", "es", "Sobre la mesa. Vivir es difícil."),
    # another form of a word of the vocabulary ("terrestre" + "s"), read whole
    ("Les tortues terrestres vivent sur terre.", "fr", "La tortue vit sur la terre. Le stres tue."),
    # an adjective and its adverb ending
    ("Fue ampliamente conocido.", "es", "Una obra amplia que muchos conocen: mente y cuerpo."),
    # no evidence: nothing to compare
    ("YouTubeFaceBook", "hu", ""),
])
def test_no_glue_where_words_are_written_so(fact, lang, evidence):
    known = {"daripada", "terrestre", "stres"}
    assert glued_words(fact, lang, [evidence] if evidence else [], known=lambda w: w in known) == []


def test_the_vocabulary_of_the_embedded_encoder_knows_whole_words():
    from mfact.core.checking.slots.glued import known_word
    assert known_word("daripada") and known_word("plateforme")
    assert not known_word("ofrececarece")


def test_merged_joins_overlapping_marks():
    assert merged([(0, 4), (10, 12)], [(3, 6), (20, 25)]) == [(0, 6), (10, 12), (20, 25)]


def test_a_glued_word_is_marked_alone_through_run_texts(tmp_path):
    """As the held-out answers are checked (`mfact run --texts`, the article as evidence): the fact
    with the glued verb is NS marked at it (before, S 0.94: the detector read "ofrece" and
    "carece", both the evidence's), the copied sentence stays S."""
    from test_counts import run_texts
    article = ("La cocina italiana es conocida y apreciada en todo el mundo. Ofrece una abundancia de sabor y "
               "es una de las cocinas más populares y replicadas globalmente, aunque no carece de variantes "
               "regionales. La pizza y la pasta nacieron en el sur del país.")
    text = ("La cocina italiana, conocida y apreciada en todo el mundo, ofrececarece de una abundancia de "
            "sabor. La pizza y la pasta nacieron en el sur del país.")
    facts = run_texts(tmp_path, "es", "cocina italiana", article, text)
    glued = [f for f in facts if "ofrececarece" in f["text"]]
    assert glued and all(f["auto"]["label"] == "NS" for f in glued)
    for f in glued:
        assert [f["text"][a:b] for a, b in f["auto"]["marks"]] == ["ofrececarece"]
        assert "run together" in f["auto"]["reason"]
    rest = [f for f in facts if "pizza" in f["text"]]
    assert rest and all(f["auto"]["label"] == "S" for f in rest)


def test_the_bench_counts_alarms_and_glues_it_makes(tmp_path, capsys):
    """`bench/glued_words.py` on two small articles: no alarm on their own sentences, every year and
    capitalised glue it makes caught, and the last line its figure."""
    import pickle
    import sys
    from pathlib import Path

    from mfact.core.training.examples import Article

    bench = Path(__file__).resolve().parent.parent / "bench"
    sys.path.insert(0, str(bench))
    import glued_words as gw

    arts = [Article("es", "Marie Curie", ["Marie Curie nació en Varsovia en 1867.",
                                          "Estudió en París con Pierre Curie desde 1891.",
                                          "Varsovia era entonces parte del Imperio ruso."]),
            Article("es", "Lyon", ["Lyon es una ciudad de Francia.", "Lyon tiene un gran puerto fluvial desde 1900."])]
    path = tmp_path / "articles.pkl"
    path.write_bytes(pickle.dumps((arts, {})))
    xnli = tmp_path / "xnli"
    xnli.mkdir()
    (xnli / "dev-ar.tsv").write_text("ولد في مصر عام 1911.\tزار تونس.\tneutral\n"
                                     "ولد في مصرتونس.\tولد في مصر.\tentailment\n", encoding="utf-8")
    assert gw.main(["--articles", str(path), "--all-articles", "--xnli", str(xnli)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1] == "glued_false_alarm_per_10k: 0.0"
    row = next(line for line in out if line.startswith("es "))
    assert " 5      0 " in row and "3/3 (100%)" in row
    # XNLI: the one glue among four sentences is an alarm, and named
    assert out[-2] == "xnli_false_alarm_per_10k: 2500.0"
    assert next(line for line in out if line.startswith("ar ")).split() == ["ar", "4", "1", "مصرتونس"]


def test_a_fact_beside_a_glued_word_in_its_sentence_is_read_without_the_detector():
    """The detector reads the whole sentence and flags the words around an odd one; a fact of that
    sentence without the glued word is judged without the detector's words (`_beside_glue`)."""
    from mfact.core.checking.verify.offline import _beside_glue
    from mfact.core.protocols import FactContext

    ev = ["Pertumbuhan ekonomi di Amerika mendorong produksi mobil yang lebih besar dan lebih mewah."]
    sentence = "Pertumbuhan ekonomi di AmerikaEropa mendorong produksi mobil yang lebih besar dan lebih mewah."
    other = "produksi mobil yang lebih besar dan lebih mewah"
    at = sentence.index(other)
    assert _beside_glue(other, FactContext(sentence, at, at + len(other)), "id", ev, None)
    glued = "Pertumbuhan ekonomi di AmerikaEropa"
    assert not _beside_glue(glued, FactContext(sentence, 0, len(glued)), "id", ev, None)
    clean = sentence.replace("AmerikaEropa", "Amerika")
    assert not _beside_glue(
        other, FactContext(clean, clean.index(other), clean.index(other) + len(other)), "id", ev, None
    )
    assert not _beside_glue(other, None, "id", ev, None)
