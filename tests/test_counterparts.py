"""A fact that copies an evidence sentence but for one word swapped for its counterpart (king/queen,
before/after, born/died ...) is NS, with that word marked: the detector, reading the whole sentence,
passes many such single-word swaps in long sentences (corruption dev set, relation errors)."""
from __future__ import annotations

from mfact.core.checking.slots.counterparts import award_status_swap, counterparts, swapped_counterpart, swapped_name
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
    # a short fact, a language without a table, a pair not in the table, no evidence
    assert swapped_counterpart("one queen, one queen", "en", [CHESS]) is None
    assert swapped_counterpart(same.replace("king", "queen"), "xx", [CHESS]) is None
    assert swapped_counterpart("居里夫人在战前出生于华沙。", "zh", ["居里夫人在战后出生于华沙。"]) is None
    assert swapped_counterpart(same, "en", []) is None


def test_a_swap_in_a_language_without_spaces_or_a_new_table():
    # rules r15: Chinese, Cantonese and Japanese compare the characters around the word (simplified
    # against traditional too), Chinese comparisons their adjective; Russian, Ukrainian, Arabic, Hebrew
    # have tables. Before, none of these was found.
    diablo = ["同時，專家級人物的儲物箱空間較普通角色的要小很多。"]
    for fact in ("专家级角色的储物箱空间比普通角色更大", "专家级角色的储物箱空间比普通角色要大很多"):
        a, b, said = swapped_counterpart(fact, "zh", diablo)
        assert (fact[a:b], said) == ("大", "小")
    assert swapped_counterpart("专家级角色的储物箱空间比普通角色更小", "zh", diablo) is None
    cases = [
        ("zh", "居里1934年在巴黎出生", "居里1934年在巴黎逝世。", "出生", "逝世"),
        ("ja", "キュリーは1934年にパリで誕生した。", "キュリーは1934年にパリで死去した。", "誕生", "死去"),
        (
            "ru",
            "Менделеев родился в 1907 году в Санкт-Петербурге.",
            "Менделеев умер в 1907 году в Санкт-Петербурге.",
            "родился",
            "умер",
        ),
        (
            "ru",
            "Байкал — крупнейший пресноводный водоём на юге России.",
            "Байкал — крупнейший пресноводный водоём на севере России.",
            "юге",
            "севере",
        ),
        (
            "ar",
            "ولد ماري كوري في باريس عام 1934 بعد مرض طويل.",
            "توفي ماري كوري في باريس عام 1934 بعد مرض طويل.",
            "ولد",
            "توفي",
        ),
    ]
    for lang, fact, ev, word, said in cases:
        a, b, got = swapped_counterpart(fact, lang, [ev])
        assert (fact[a:b], got) == (word, said), lang
    # a fact that copies one part of a long sentence (their ratio is low: 0.62)
    ev = ("بحيرة بايكال هي بحيرة تقع في جنوب سيبيريا في روسيا، بين إقليم إركوتسك في الشمال الغربي وجمهورية "
          "بورياتيا في الجنوب الشرقي.")
    fact = "بحيرة بايكال هي بحيرة تقع في شمال سيبيريا في روسيا"
    a, b, said = swapped_counterpart(fact, "ar", [ev])
    assert (fact[a:b], said) == ("شمال", "جنوب")
    # other characters around the word: no near copy
    assert swapped_counterpart("居里1867年在华沙出生", "zh", ["居里1934年在巴黎逝世。"]) is None


def test_the_default_verifier_calls_the_swap_not_supported_and_marks_the_word():
    from mfact.core.checking.verify.offline import OfflineVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Chess", text=CHESS)]
    v = OfflineVerifier()
    wrong = ("The players, referred to as White and Black, each control sixteen pieces: one queen, one queen, "
             "two rooks, two bishops, two knights, and eight pawns.")
    right = wrong.replace("one queen, one queen", "one king, one queen")
    out = v.verify_batch([(wrong, "Chess", "en", ev), (right, "Chess", "en", ev)])
    assert out[0].label == "NS" and [wrong[a:b] for a, b in out[0].marks] == ["queen"], out[0].reason
    assert '"queen" where the evidence says "king"' in out[0].reason
    assert out[1].label == "S", out[1].reason


EGERTON = ("Egerton, Rocketman'deki rolüyle Altın Küre Ödülü'nü kazandı. Ayrıca film müziğindeki çalışmasıyla "
           "Grammy Ödülü'ne aday gösterildi.")


def test_a_prize_won_where_the_evidence_has_it_nominated_and_the_reverse():
    # the detector passed "kazandı" (won) against "aday gösterildi" (nominated): S 0.97
    fact = "Egerton ayrıca film müziğindeki çalışmasıyla Grammy Ödülü'nü kazandı"
    a, b, said = award_status_swap(fact, "tr", [EGERTON])
    assert (fact[a:b], said) == ("kazandı", "aday")
    fact = "Egerton was nominated for the Golden Globe Award for his role in Rocketman."
    a, b, said = award_status_swap(fact, "en", ["Egerton won the Golden Globe Award for his role in Rocketman."])
    assert (fact[a:b], said) == ("nominated", "won")
    fact = "Менделеев получил Нобелевскую премию по химии."
    assert award_status_swap(fact, "ru", ["Менделеев трижды номинировался на Нобелевскую премию по химии."])[2] \
        == "номинировался"


def test_no_award_swap_where_the_evidence_says_the_same_or_both_or_of_another_prize():
    assert award_status_swap("Egerton Rocketman'deki rolüyle Altın Küre Ödülü'nü kazandı", "tr", [EGERTON]) is None
    both = ["He won the Golden Globe Award for Rocketman and was nominated for a BAFTA Award."]
    assert award_status_swap("He won the Golden Globe Award for Rocketman.", "en", both) is None
    other = ["He was nominated for the Academy Award for Best Actor."]
    assert award_status_swap("He won the Golden Globe Award for Rocketman in 2020.", "en", other) is None
    # a fact saying both, or neither; a language without a table
    assert award_status_swap("He was nominated for and won the Golden Globe Award.", "en", both) is None
    assert award_status_swap("He starred in Rocketman as Elton John.", "en", both) is None
    assert award_status_swap("Egerton ayrıca Grammy Ödülü'nü kazandı", "xx", [EGERTON]) is None


def test_the_default_verifier_marks_the_award_status():
    from mfact.core.checking.verify.offline import OfflineVerifier
    ev = [Evidence(id="e1", source="given", lang="tr", title="Taron Egerton", text=EGERTON)]
    fact = "Egerton ayrıca film müziğindeki çalışmasıyla Grammy Ödülü'nü kazandı"
    out = OfflineVerifier().verify_batch([(fact, "Taron Egerton", "tr", ev)])
    assert out[0].label == "NS" and [fact[a:b] for a, b in out[0].marks] == ["kazandı"], out[0].reason
    assert "(won or nominated)" in out[0].reason


def test_the_default_verifier_calls_a_chinese_comparison_turned_around_not_supported():
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.protocols import FactContext
    text = ("為了滿足玩家對遊戲難度的追求，玩家在創造職業角色時，可以選擇專家級職業；專家級職業人物若在遊戲過程中死亡，"
            "該角色將無法再次進行遊戲。 同時，專家級人物的儲物箱空間較普通角色的要小很多。")
    ev = [Evidence(id="e1", source="given", lang="zh", title="暗黑破壞神II", text=text)]
    wrong = "此外，专家级角色的储物箱空间比普通角色更大"
    # read in its sentence, as a checked text reads it: the comparison turned around is what is marked
    out = OfflineVerifier().verify_batch([(wrong, "暗黑破壞神II", "zh", ev)], [FactContext(wrong, 0, len(wrong))])
    assert out[0].label == "NS" and [wrong[a:b] for a, b in out[0].marks] == ["大"], out[0].reason
    assert '"大" where the evidence says "小"' in out[0].reason
    # a claim given alone (verify-pairs) is the claim combiner's: NS as well (p 0.49 with the combiner
    # refitted with the tied pair reader, so the turned-around rule, which overrules an S, is not asked)
    alone = OfflineVerifier().verify_batch([(wrong, "暗黑破壞神II", "zh", ev)])
    assert alone[0].label == "NS", alone[0].reason


def test_an_older_or_younger_sibling_swapped():
    # rules r16: German comparatives of age and size, and Chinese elder and younger siblings (before:
    # "Sein jüngerer Bruder Heinrich Mann ..." against the article's "älterer" was S 0.61); Cantonese
    # table words in traditional characters were never found (the text is read simplified)
    cases = [("de", "Sein jüngerer Bruder Heinrich Mann war ebenfalls Schriftsteller.",
              "Sein älterer Bruder Heinrich Mann war ebenfalls Schriftsteller.", "jüngerer", "älterer"),
             ("zh", "他的弟弟李明也是一位作家。", "他的哥哥李明也是一位作家。", "弟弟", "哥哥"),
             ("yue", "佢嘅家姐李明都係作家。", "佢嘅細妹李明都係作家。", "家姐", "细妹"),    # read simplified
             ("yue", "呢個係全國最細嘅湖。", "呢個係全國最大嘅湖。", "最細", "最大")]     # the table's traditional word
    for lang, fact, ev, word, said in cases:
        a, b, got = swapped_counterpart(fact, lang, [ev])
        assert (fact[a:b], got) == (word, said), lang
    assert swapped_counterpart("Sein älterer Bruder Heinrich Mann war ebenfalls Schriftsteller.", "de",
                               ["Sein älterer Bruder Heinrich Mann war ebenfalls Schriftsteller."]) is None


def test_an_ordinal_swapped_for_another():
    # rules r16: ordinal words, first to tenth, in 20 languages and Chinese 第N (before: none was
    # read; "his second studio album" against "his third" passed as a near copy)
    from mfact.core.checking.slots.counterparts import ordinal_rank
    assert [
        ordinal_rank(w, lang)
        for w, lang in [
            ("zweiten", "de"),
            ("третья", "ru"),
            ("والثاني", "ar"),
            ("ikincisi", "tr"),
            ("primera", "es"),
            ("השני", "he"),
        ]
    ] == [2, 3, 2, 2, 1, 2]
    # a bare beginning that is a cardinal is no ordinal: German "acht", Russian "девять", Italian "non"
    assert [
        ordinal_rank(w, lang) for w, lang in [("acht", "de"), ("девять", "ru"), ("non", "it"), ("years", "en")]
    ] == [None] * 4
    cases = [("de", "Es war sein zweites Studioalbum und wurde 1999 veröffentlicht.",
              "Es war sein drittes Studioalbum und wurde 1999 veröffentlicht.", "zweites", "drittes"),
             ("ru", "Это был его второй студийный альбом, выпущенный в 1999 году.",
              "Это был его третий студийный альбом, выпущенный в 1999 году.", "второй", "третий"),
             ("tr", "Albüm, grubun ikinci stüdyo albümüdür ve 1999 yılında yayımlandı.",
              "Albüm, grubun üçüncü stüdyo albümüdür ve 1999 yılında yayımlandı.", "ikinci", "üçüncü"),
             ("ar", "هذا هو الألبوم الثاني للفرقة وصدر عام 1999.", "هذا هو الألبوم الثالث للفرقة وصدر عام 1999.",
              "الثاني", "الثالث"),
             ("zh", "这是乐队的第二张录音室专辑。", "这是乐队的第三张录音室专辑。", "第二", "第三")]
    for lang, fact, ev, word, said in cases:
        a, b, got = swapped_counterpart(fact, lang, [ev])
        assert (fact[a:b], got) == (word, said), lang
        assert swapped_counterpart(ev, lang, [ev]) is None, lang          # the same ordinal: no swap


def test_a_name_swapped_in_a_near_copy():
    # rules r16: a near copy of an evidence sentence with one name replaced by a name the evidence
    # nowhere has ("SM Entertainment" for "JYP Entertainment" was S 0.65); no false alarm on 69,350
    # held-out article sentences against the rest of their article but 10 (template sentences)
    from mfact.core.checking.slots.counterparts import swapped_name
    ev = ["Çıkışını JYP Entertainment tarafından oluşturulan Miss A grubu ile yaptı."]
    fact = "Çıkışını SM Entertainment tarafından oluşturulan Miss A grubu ile yaptı."
    a, b, said = swapped_name(fact, "tr", ev)
    assert (fact[a:b], said) == ("SM", "JYP")
    # the same name inflected, a name the evidence has elsewhere, a first word, a paraphrase: no swap
    assert swapped_name("Suzy, Gwangju'nun Buk semtinde dünyaya geldi ve orada büyüdü.", "tr",
                        ["Suzy, Gwangju'da Buk semtinde dünyaya geldi ve orada büyüdü."]) is None
    assert (
        swapped_name("Çıkışını Miss A Entertainment tarafından oluşturulan Miss A grubu ile yaptı.", "tr", ev) is None
    )
    assert swapped_name("Marie Curie won the Nobel Prize in Physics in 1903 with Pierre.", "en",
                        ["Irène Curie won the Nobel Prize in Physics in 1903 with Pierre."]) is None
    assert swapped_name("SM Entertainment formed the group Miss A.", "en", ev) is None
    # a name of several words for another, or the part of it the evidence lacks
    ev = ["Nach einer Vorlesung von Louis de Broglie wandte er sich der Quantenmechanik in der Chemie zu."]
    for fact, want in [("Nach einer Vorlesung von Max Planck wandte er sich der Quantenmechanik in der Chemie zu.",
                        ("Max Planck", "Louis de Broglie")),
                       ("Nach einer Vorlesung von Louis Pasteur wandte er sich der Quantenmechanik in der Chemie zu.",
                        ("Pasteur", "de Broglie"))]:
        a, b, said = swapped_name(fact, "de", ev)
        assert (fact[a:b], said) == want
    # German nouns are capitalised: one after a determiner may be a rewording, not another name
    de = ["Die Gemeinde liegt am Ufer der Mosel im Landkreis Trier-Saarburg."]
    assert swapped_name("Die Ortschaft liegt am Ufer der Mosel im Landkreis Trier-Saarburg.", "de", de) is None
    de = ["Die Gemeinde liegt an der Mosel bei Trier im Landkreis Trier-Saarburg."]
    fact = "Die Gemeinde liegt an der Mosel bei Koblenz im Landkreis Trier-Saarburg."
    a, b, said = swapped_name(fact, "de", de)
    assert (fact[a:b], said) == ("Koblenz", "Trier")


def test_the_default_verifier_marks_a_swapped_name(tmp_path):
    from mfact.core.checking.verify.offline import _swapped
    ev = ["Thomas Mann emigrierte 1933 in die Schweiz und lebte später in Princeton und Pacific Palisades."]
    fact = "Thomas Mann emigrierte 1933 in die Schweiz und lebte später in Boston und Pacific Palisades."
    (a, b), why = _swapped(fact, "de", ev)
    assert fact[a:b] == "Boston" and '"Princeton"' in why


EINSTEIN_DE = ("Albert Einstein wurde am 14. März 1879 in Ulm geboren. 1880 zog die Familie nach München. 1894 zog "
               "die Familie nach Italien, Albert ging 1895 in die Schweiz, wo er in Aarau die Schule besuchte. 1896 "
               "begann er sein Studium am Polytechnikum in Zürich. 1933 emigrierte er in die USA, wo er in "
               "Princeton lebte. Er starb am 18. April 1955 in Princeton.")


def test_a_country_after_a_german_article_and_a_name_swapped_at_the_facts_end():
    # rules r19: "in die Türkei" is a name (CLDR's German country names), not a noun; a fact that
    # copies the start of a sentence ends where the sentence goes on ("..., wo er in Aarau ...")
    from mfact.core.checking.slots.counterparts import swapped_name
    ev = [EINSTEIN_DE]
    for fact in (
        "Albert ging 1895 in die Türkei, wo er in Aarau die Schule besuchte.",
        "Albert ging 1895 in die Türkei.",
    ):
        a, b, said = swapped_name(fact, "de", ev)
        assert (fact[a:b], said) == ("Türkei", "Schweiz"), fact
    fact = "In 1933 he emigrated to the United Kingdom."
    a, b, said = swapped_name(fact, "en", ["In 1933 he emigrated to the United States, where he lived in Princeton."])
    assert (fact[a:b], said) == ("Kingdom", "States")
    # the same country, a noun after an article, a name the evidence has: no swap
    assert swapped_name("Albert ging 1895 in die Schweiz.", "de", ev) is None
    assert swapped_name("Albert ging 1895 in die Ortschaft.", "de", ev) is None
    assert swapped_name("Albert ging 1895 in die Schule, wo er in Aarau die Schule besuchte.", "de", ev) is None
    assert swapped_name("1894 zog die Familie nach München.", "de", ev) is None


def test_a_name_taken_from_another_sentence_of_the_evidence_is_a_swap():
    # rules r20: a near copy whose name the evidence has only in sentences about other things ("1880
    # zog die Familie nach München") was S 0.92-0.95; a short fact that copies the start of a sentence
    # and ends on another place, after another preposition ("nach Kanada" for "in die USA"), too
    from mfact.core.checking.slots.counterparts import swapped_name
    ev = [EINSTEIN_DE]
    for fact, want in [("Albert ging 1895 nach München.", ("München", "Schweiz")),
                       ("1933 emigrierte er nach Italien.", ("Italien", "USA")),
                       ("1933 emigrierte er nach Kanada, wo er in Princeton lebte.", ("Kanada", "USA")),
                       ("1933 emigrierte er in die USA, wo er in Ulm lebte.", ("Ulm", "Princeton")),
                       ("1880 zog die Familie nach Ulm.", ("Ulm", "München"))]:
        got = swapped_name(fact, "de", ev)
        assert got is not None and (fact[got[0]:got[1]], got[2]) == want, fact
    # German puts the verb second: "1895 ging er in die" has the words of "Albert ging 1895 in die"
    got = swapped_name("1895 ging er in die Türkei.", "de", ev)
    assert got is not None and got[2] == "Schweiz"
    for fact in ("1895 ging er in die Schweiz.", "Die Familie zog 1894 nach Italien.", "1880 zog er nach Augsburg."):
        assert swapped_name(fact, "de", ev) is None, fact
    # the evidence's name stops at its comma ("nach Italien, Albert ging ...")
    got = swapped_name("1894 zog die Familie nach Spanien.", "de", ev)
    assert got is not None and got[2] == "Italien"
    # the name where the evidence says it: in a sentence holding the fact's words, or with the
    # evidence's own name ("in die Schweiz, wo er in Aarau ..."); not a copy up to its end
    for fact in ("Albert ging 1895 nach Aarau.", "1894 zog die Familie nach München.", "1933 ging er nach Princeton.",
                 "Albert ging 1895 in die Schweiz."):
        assert swapped_name(fact, "de", ev) is None, fact
    # a country the evidence has, for its city, is no swap: it may be where the city lies
    en = ["Marie Curie was born in Warsaw, in what was then the Kingdom of Poland. In 1891 she moved to Paris, "
          "where she studied. She died in 1934 at Passy, in Haute-Savoie, France."]
    assert swapped_name("In 1891 she moved to France.", "en", en) is None
    got = swapped_name("In 1891 she moved to Warsaw.", "en", en)
    assert got is not None and got[2] == "Paris"


def test_the_default_verifier_calls_the_other_sentences_prize_not_supported():
    # rules r20: "Physics" is in the evidence, but in the 1903 prize's sentence; the fact copies the
    # 1911 one. The embedder reads "Physics" and "Chemistry" as one name, which let it pass (S 0.96):
    # a name the evidence has itself is no other spelling of the evidence's
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.session import Evidence
    ev = [Evidence("en", "given", "en", "Marie Curie",
                   "In 1891 she moved to Paris. She shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri "
                   "Becquerel. She won the 1911 Nobel Prize in Chemistry. She died in 1934 at Passy.")]
    facts = ["She won the 1911 Nobel Prize in Physics.", "She won the 1911 Nobel Prize in Chemistry.",
             "She shared the 1903 Nobel Prize in Physics with Henri Becquerel."]
    verifier = OfflineVerifier()
    got = verifier.verify_batch([(f, "Marie Curie", "en", ev) for f in facts])
    assert [v.label for v in got] == ["NS", "S", "S"], [v.reason for v in got]
    assert [facts[0][a:b] for a, b in got[0].marks] == ["Physics"] and '"Chemistry"' in got[0].reason
    # the same when the fact's name is in the evidence but not in the windows read for the fact: the
    # embedder reads "Bogotá" and "Buenos Aires" as one place
    es = [Evidence("es", "given", "es", "Gabriel García Márquez",
                   "Gabriel García Márquez nació el 6 de marzo de 1927 en Aracataca, Colombia. En 1947 se matriculó en "
                   "la Universidad Nacional en Bogotá. En 1955 viajó a Europa como corresponsal. En 1967 publicó Cien "
                   "años de soledad en Buenos Aires. Recibió el Premio Nobel de Literatura en 1982.")]
    got = verifier.verify_batch(
        [
            (f, "Gabriel García Márquez", "es", es)
            for f in ("En 1967 publicó Cien años de soledad en Bogotá.", "En 1967 publicó Cien años de soledad.")
        ]
    )
    assert [v.label for v in got] == ["NS", "S"], [v.reason for v in got]


def test_verify_pairs_calls_a_country_swapped_after_a_german_article_not_supported(tmp_path, capsys):
    # "Albert ging 1895 in die Türkei." against the sentence "... Albert ging 1895 in die Schweiz, wo
    # ...": S 0.52 before r19 (a noun after an article was never a name, and the fact ends where the
    # sentence goes on)
    import json

    from mfact.core.cli import main as cli_main
    ev = "1894 zog die Familie nach Italien, Albert ging 1895 in die Schweiz, wo er in Aarau die Schule besuchte."
    claims = [("Albert ging 1895 in die Türkei.", "NS"), ("Albert ging 1895 in die Niederlande.", "NS"),
              ("Albert ging 1895 in die Schweiz.", "S")]
    f = tmp_path / "pairs.jsonl"
    f.write_text("".join(json.dumps({"id": i, "lang": "de", "claim": c, "evidence": ev}) + "\n"
                         for i, (c, _w) in enumerate(claims)), encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--json"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [o["label"] for o in out] == [w for _c, w in claims]


def test_a_name_the_verifier_reads_as_the_evidences_own_is_no_swap():
    from mfact.core.checking.verify.offline import OfflineVerifier, _swapped
    ev = ["In 1933 he emigrated to the United States, where he lived in Princeton."]
    fact = "In 1933 he emigrated to the US."
    assert _swapped(fact, "en", ev) is not None               # by the words alone, "US" stands for "United States"
    v = OfflineVerifier()
    assert _swapped(fact, "en", ev, v.same_name) is None      # the embedder reads them as one name
    (a, b), _why = _swapped("In 1933 he emigrated to the United Kingdom.", "en", ev, v.same_name)
    assert (a, b) == (35, 42)


def test_a_word_with_two_counterparts_is_read_both_ways():
    """rules r21: "younger" stands against "older" and "elder" (a word's first pair wins in the table,
    so "younger" against "elder" was only found from the evidence's side), and "lose" against "win"."""
    ev = ["In 1891, aged 24, she followed her elder sister Bronisława to study in Paris, where she earned her "
          "higher degrees.",
          "She was the first woman to win a Nobel Prize and the first person to win a Nobel Prize twice."]
    fact = "She followed her younger sister Bronisława to study in Paris."
    a, b, said = swapped_counterpart(fact, "en", ev)
    assert (fact[a:b], said) == ("younger", "elder")
    fact = "She was the first person to lose a Nobel Prize twice."
    a, b, said = swapped_counterpart(fact, "en", ev)
    assert (fact[a:b], said) == ("lose", "win")
    assert swapped_counterpart("She followed her elder sister Bronisława to study in Paris.", "en", ev) is None


def test_a_short_fact_with_one_name_swapped_is_a_near_copy():
    """rules r21: Turkish drops the subject, so "1921'de Paris'e gitti" is a whole fact; three words were
    too few to be a near copy (five needed), and the detector passed it (S 0.55)."""
    ev = ["1921'de Moskova'ya gitti ve Doğu Emekçileri Komünist Üniversitesi'nde eğitim gördü."]
    fact = "1921'de Paris'e gitti."
    a, b, said = swapped_name(fact, "tr", ev)
    assert fact[a:b] == "Paris'e" and said.startswith("Moskova")
    assert swapped_name("1921'de Moskova'ya gitti.", "tr", ev) is None
    # two words differ: no near copy of a short fact
    assert swapped_name("1925'te Paris'e taşındı.", "tr", ev) is None


def test_a_denied_won_is_no_won():
    # rules r29: "never won" in the evidence does not make it say the prize was won, and a fact that denies
    # winning claims no win
    ev = ["He was nominated for the Nobel Prize in Literature several times but never won."]
    fact = "Graham Greene won the Nobel Prize in Literature."
    a, b, said = award_status_swap(fact, "en", ev)
    assert (fact[a:b], said) == ("won", "nominated")
    assert award_status_swap("Graham Greene never won the Nobel Prize in Literature.", "en", ev) is None
