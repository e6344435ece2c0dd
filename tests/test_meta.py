"""A sentence in which the model declines, apologises, asks the user for something or speaks of its own
input holds no claim (core/checking/extract/meta.py): no fact is extracted from it, by either extractor, so a
text that only declines is an abstention; and a fact's remark about its input is cut off, the claim
before it kept. A biography's own sentences never match."""
from __future__ import annotations

import json
import re

import pytest

from mfact.core.checking.extract.rules import RuleExtractor
from mfact.core.checking.extract.meta import asks, attribution_end, claim_part, declines, speaks_of_input
from mfact.core.checking.text.segment import split_sentences
from mfact.core.protocols import Sentence

REFUSALS = [
    ("en", "I'm sorry, but I cannot find any reliable information about Chaim Malinowitz."),
    ("en", "Could you provide more details or context about who he is?"),
    ("fr", "Désolé, je ne peux pas répondre sans le texte."),
    ("es", "Lo siento, pero no puedo proporcionar información sobre esa persona."),
    ("pt", "Desculpe, mas sem um trecho de referência fornecido, não posso extrair ou fornecer informações."),
    ("it", "Mi dispiace, non posso rispondere a questa domanda."),
    ("de", "Es tut mir leid, aber ich kann keine Informationen zu dieser Person geben."),
    ("id", "Maaf, tanpa ada informasi atau referensi terkait Exar Kun atau Revan dalam teks yang diberikan, "
           "saya tidak bisa memberikan jawaban."),
    ("ms", "Tanpa maklumat dari petikan, saya tidak dapat memberikan jawapan tepat tentang AIDAluna."),
    ("lt", "Atsiprašau, bet be pateikto teksto negaliu atsakyti į jūsų klausimą."),
    ("lt", "Prašau pateikti pastraipą su reikalinga informacija."),
    ("ur", "معذرت کے ساتھ، میں آپ کی درخواست کے مطابق کام نہیں کر سکتا۔"),
    ("ru", "К сожалению, я не могу ответить на этот вопрос."),
    ("tr", "Üzgünüm, bu kişi hakkında bilgi veremiyorum."),
    ("ar", "عذرا، لا أستطيع الإجابة على هذا السؤال."),
    ("zh", "抱歉，我无法回答这个问题。"),
    ("ja", "申し訳ありませんが、その人物についての情報は持っていません。"),
    ("ko", "죄송하지만 그 질문에는 답변드릴 수 없습니다."),
    ("pl", "Przepraszam, ale nie mogę odpowiedzieć na to pytanie."),
    ("vi", "Xin lỗi, tôi không thể trả lời câu hỏi này."),
    ("fr", "I'm sorry, but I don't have information about Marie Curie."),     # declining in English
    ("ca", "Per aconseguir aquesta informació, seria necessari consultar fonts específiques de Las Vegas."),
    ("ms", "Untuk identifikasi bandar utama lain di Indiana, maklumat tambahan dari sumber lain diperlukan."),
    ("id", "Untuk menjawab pertanyaan seperti ini, diperlukan informasi spesifik tentang kedua karakter."),
    # the first person plural, or no person, saying what cannot be done or what answering would need
    ("en", "Without those details, we cannot say which of the two is stronger."),
    ("fr", "Sans ces informations, on ne peut que spéculer sur qui pourrait être le plus puissant."),
    ("fr", "Pour une évaluation précise, il faudrait des détails sur leurs exploits et leurs pouvoirs."),
    ("he", "לכן, על פי המידע המוצג בקטע לעיל, אנו לא יכולים לזהות באופן ספציפי את השחקנים הטובים ביותר."),
    ("yue", "總之，根據提供嘅信息，我哋唔能夠確定第二季具體有幾多集。"),
    ("fi", "Siksi ei voida vastata kysymykseen käyttämällä ainoastaan annettua lähdetekstiä."),
    ("vi", "Để biết các tập đáng xem, chúng ta cần thông tin cụ thể về nội dung của từng tập."),
    ("pt", "No entanto, posso oferecer informações gerais baseadas em conhecimento comum."),
    ("ms", "Untuk itu, seseorang perlu merujuk kepada bahan atau sumber lain yang menyediakan senarai spesifik."),
    ("de", "Ohne weitere Angaben können wir nicht sagen, wer von beiden stärker ist."),
    ("ru", "Поэтому мы не можем точно определить, сколько серий во втором сезоне."),
    ("tr", "Bu nedenle ikinci sezonun kaç bölüm olduğunu belirleyemiyoruz."),
    ("ar", "لذلك، لا يمكننا تحديد عدد الحلقات بدقة."),
    ("zh", "因此，我们无法确定第二季有多少集。"),
    # no person: the question cannot be answered
    ("pl", "Bez dodatkowych źródeł nie jest możliwe udzielenie odpowiedzi na to pytanie."),
    ("fa", "بنابراین، بدون اطلاعات مشخصی در مورد فعالیت‌های شخصی او، نمی‌توان به طور دقیق به این پرسش پاسخ داد."),
    ("ru", "Поэтому невозможно точно ответить на этот вопрос."),
    ("de", "Ohne weitere Angaben lässt sich diese Frage nicht beantworten."),
    ("zh", "因此无法回答这个问题。"),
]

BIOGRAPHY = [
    ("en", "Sorry Seems to Be the Hardest Word is a song by Elton John."),
    ("en", "Her best-known single, I Can't Hold Back, reached number 13."),
    ("en", 'After the injury he said: "I cannot play for six weeks."'),
    ("en", "As an AI researcher, she founded the laboratory in 1987."),
    ("de", "Leider starb er 1934 in Passy."),
    ("fr", "Il était désolé de quitter Paris en 1891."),
    ("es", "La disciplina conocida como inteligencia artificial nació en 1956."),
    ("ro", "Soldații nu pot fi mutați fără ordinul generalului."),
    ("zh", "由于缺少资料，他的早年生活不详。"),
    ("pl", "Wydał album bez tekstu w 1990 roku."),
    ("en", "We Can't Be Friends is a song by Ariana Grande."),
    ("fr", "Il faudrait attendre 1905 pour que la loi soit votée."),
    ("hu", "Az eredeti szöveg nem maradt fenn, csak egy 1520-as másolata."),
    ("vi", "Đoạn trích này được in lại nhiều lần từ năm 1930."),
    ("tr", "Eser hiçbir zaman yayımlanmamıştır."),
    ("de", "Der Text des Liedes stammt von Bertolt Brecht."),
]


def facts_of(sentence: str, lang: str) -> list[str]:
    """The rule extractor's facts of one sentence standing alone."""
    return [f.text for f in RuleExtractor().extract(Sentence(0, 0, len(sentence), sentence), sentence, lang, "X")]


@pytest.mark.parametrize("lang,sentence", REFUSALS)
def test_a_refusal_declines_and_gives_no_fact(lang, sentence):
    assert declines(sentence, lang) and facts_of(sentence, lang) == []


@pytest.mark.parametrize("lang,sentence", BIOGRAPHY)
def test_a_biography_sentence_is_checked(lang, sentence):
    assert not declines(sentence, lang) and not speaks_of_input(sentence, lang)
    assert facts_of(sentence, lang)


def test_a_remark_about_the_input_is_cut_off_and_the_claim_before_it_kept():
    text = "Marie Curie was born in 1867, but the provided text does not mention where she studied."
    facts = RuleExtractor().extract(Sentence(0, 10, 10 + len(text), text), "x" * 10 + text, "en", "Marie Curie")
    assert [f.text for f in facts] == ["Marie Curie was born in 1867"]
    assert facts[0].span == (10, 10 + len("Marie Curie was born in 1867"))
    yue = (
        "印第安納州三個主要城市包括首府及最大城市印第安納波利斯，"
        "而其他大城市則基於文章中未提及，所以無法確定另外兩個主要城市。"
    )
    assert claim_part(yue, "yue") == "印第安納州三個主要城市包括首府及最大城市印第安納波利斯"
    # the remark opens the fact, or leaves one word before it: no fact
    assert claim_part("Sans un passage de référence fourni, il est impossible de le dire", "fr") is None
    assert claim_part("Unfortunately, there is no information available on his biography", "en") is None
    assert claim_part("Marie Curie was born in Warsaw", "en") == "Marie Curie was born in Warsaw"


REMARKS = [
    ("pt", "No entanto, a passagem fornecida não especifica o número exato de votos eleitorais."),
    ("it", "Il passaggio fornito non elenca specifici ricercatori nel campo dei semiconduttori."),
    ("cs", "Rozdíly mezi bulharským a řeckým jogurtem nejsou přímo zmíněny v referenčním textu."),
    ("ms", "Malangnya, teks rujukan tidak menyebut dua bandar besar lain secara spesifik."),
    ("vi", "Dựa trên đoạn văn tham khảo được cung cấp, không thể tổng hợp sự giống và khác biệt giữa chúng."),
    ("ro", "Aceste informații nu oferă detalii despre locul său de naștere direct în pasajul dat."),
    ("pl", "Tekst nie zawiera informacji o inspektorze generalnym policji w Tanzanii w 2015 roku."),
    ("zh", "提供的文章中并没有提及他的出生日期。"),
    ("sr", "Iz referentnog odlomka ne može se precizno utvrditi koliko epizoda ima druga sezona serije."),
    ("sr", "Reference o specifičnim filmovima ili nagradama nisu data u priloženom odlomku."),
    ("hu", "Mivel a szöveg nem ad specifikus információt Tennessee államról, a pontos szám nem ismert."),
    ("eo", "La referenca alineo ne enhavas specifajn informojn pri kiuj hoteloj prezentas la spektaklojn."),
    ("eu", "Beraz, zehazki zenbat denbora behar den jakiteko informazio zuzenik ez dago pasartean."),
    ("fa", "بنابراین، رقم دقیق تعداد افراد چاق در انگلستان مستقیم در متن ذکر نشده است."),
    ("vi", "Dựa trên đoạn thông tin được đưa ra, không có chi tiết cụ thể nào nói về vị trí của bộ phận này."),
    ("de", "Im angegebenen Text wird nicht erwähnt, wann er geboren wurde."),
    ("ru", "В тексте не упоминается, где он учился."),
    ("ru", "В исходном тексте нет информации о его месте рождения."),
    ("ru", "Текст не содержит информации о её учёбе."),
    ("de", "Der Text enthält keine Informationen über ihre Schulzeit."),
    ("tr", "Sağlanan metinde onun doğum yeri belirtilmemiştir."),
    ("ar", "النص لا يحتوي على معلومات حول دراستها."),
    ("zh", "文本中没有提到她在哪里学习。"),
    ("zh", "参考文本没有提供关于她学习的信息。"),
]


@pytest.mark.parametrize("lang,sentence", REMARKS)
def test_a_remark_that_the_input_lacks_something_gives_no_fact(lang, sentence):
    """The input named as such ("the provided passage") with a negation in its clause or the next."""
    assert speaks_of_input(sentence, lang) and claim_part(sentence, lang) is None
    assert facts_of(sentence, lang) == []


def test_an_opening_that_only_names_the_source_is_not_part_of_the_fact():
    for lang, sentence, claim in [
        (
            "es",
            "Según el fragmento proporcionado, la pizza Margherita representa a Italia.",
            "la pizza Margherita representa a Italia",
        ),
        (
            "id",
            "Jadi, berdasarkan informasi yang diberikan dalam teks, manusia adalah mamalia.",
            "manusia adalah mamalia",
        ),
        ("en", "According to the provided passage, Marie Curie was born in Warsaw.", "Marie Curie was born in Warsaw"),
        ("tr", "Verilen metne göre, Marie Curie Varşova'da doğdu.", "Marie Curie Varşova'da doğdu"),
            # where the opening takes no comma (the language's `source` phrase)
        ("tr", "Verilen metne göre Marie Curie Varşova'da doğdu.", "Marie Curie Varşova'da doğdu"),
        ("de", "Laut dem bereitgestellten Text war Marie Curie eine Physikerin.", "war Marie Curie eine Physikerin"),
    ]:
        facts = RuleExtractor().extract(Sentence(0, 0, len(sentence), sentence), sentence, lang, "X")
        assert [sentence[a:b] for a, b in (f.span for f in facts)] == [claim], facts
    # an opening that names no source stays where the extractor puts it
    assert facts_of("However, Curie was born in Warsaw.", "en")
    assert facts_of("Laut dem Text der Urkunde war er ein Kaufmann.", "de") == [
        "Laut dem Text der Urkunde war er ein Kaufmann"
    ]


def test_a_claim_attributed_to_the_input_is_still_a_claim():
    for lang, sentence in [("es", "Según el fragmento proporcionado, la pizza Margherita representa a Italia."),
                           ("en", "According to the provided passage, Marie Curie was born in Warsaw."),
                           ("it", "Nel passaggio alla Serie A la squadra non vinse nessuna partita.")]:
        assert not speaks_of_input(sentence, lang)
        assert claim_part(sentence, lang) == sentence


def test_the_llm_extractor_asks_nothing_of_a_refusal():
    from mfact.core.checking.extract.llm import LLMExtractor
    from test_checking_llm import ScriptedGenerator

    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "- Marie Curie was born in 1867.\n- The provided text does not mention her school.\n"

    ex = LLMExtractor(ScriptedGenerator(answer))
    refusal = "I'm sorry, but I cannot answer without the text."
    assert ex.extract(Sentence(0, 0, len(refusal), refusal), refusal, "en", "Marie Curie") == [] and not asked
    claim = "Marie Curie was born in 1867; the provided text does not mention her school."
    facts = ex.extract(Sentence(0, 0, len(claim), claim), claim, "en", "Marie Curie")
    assert [f.text for f in facts] == ["Marie Curie was born in 1867."] and len(asked) == 1


def test_chatgpt_refusals_of_factscore_are_abstentions_and_its_answers_are_untouched(shared_dir):
    """FActScore's ChatGPT biographies: of the 26 answers it counts as abstentions, those that
    decline leave no fact; no sentence of the 157 labelled answers is dropped."""
    rows = [json.loads(line) for line in (shared_dir / "data" / "factscore" / "ChatGPT.jsonl").open(encoding="utf-8")]
    ex = RuleExtractor()

    def facts(out: str, topic: str) -> list[str]:
        return [f.text for s in split_sentences(out, "en")
                for f in ex.extract(Sentence(0, s.start, s.end, s.text), out, "en", topic)]

    abstained = [r for r in rows if not r.get("annotations")]
    labelled = [r for r in rows if r.get("annotations")]
    assert len(abstained) == 26 and len(labelled) == 157
    left = [r["topic"] for r in abstained if facts(r["output"], r["topic"])]
    assert len(left) <= 4, left             # hedges ("It is possible that the name is misspelled") stay
    dropped = [s.text for r in labelled for s in split_sentences(r["output"], "en")
               if declines(s.text, "en") or speaks_of_input(s.text, "en")]
    assert dropped == []


def test_no_sentence_of_the_bundled_wikipedia_leads_matches():
    """Precision: over every sentence of the bundled en/es/fr Wikipedia leads (77,862; English phrases
    are read in every language too) no phrase declines, remarks on the input or opens as a source."""
    from mfact.core.training.train_cross import bundled_leads

    n = 0
    questions = []
    for lang, pages in bundled_leads().items():
        for text in pages.values():
            for s in split_sentences(text, lang):
                n += 1
                if asks(s.text):
                    questions.append(s.text)
                    continue
                assert not declines(s.text, lang), (lang, s.text)
                assert not speaks_of_input(s.text, lang), (lang, s.text)
                assert attribution_end(s.text, lang) == 0, (lang, s.text)
    assert n > 50_000
    # the leads' questions: the Turing machine's open questions (es), two rhetorical ones (fr), and
    # one title ("son roman Quo vadis ?", lowercase before the mark): no title in capitals, no date
    assert len(questions) == 7, questions
    assert sum(q.lstrip().startswith("¿") or "¿" in q for q in questions) == 4
    assert not any(re.search(r"\d\s*\?$", q) for q in questions)


@pytest.mark.parametrize("sentence,lang", [
    ("Kodėl amerikiečių automobiliai yra daug didesni nei europietiški?", "lt"),
    ("آٹے کا ایک کپ کتنے گرام کا ہوتا ہے؟", "ur"),
    ("聖盧西亞嘅首都係乜嘢？", "yue"),
    ("¿Dónde nació Marie Curie?", "es"),
    ("Wann wurde Marie Curie geboren?“", "de"),
])
def test_a_question_holds_no_claim(sentence, lang):
    """A model that repeats the user's question (silver: 64 of 68 questions in its answers hold no
    tagged word) claims nothing: no fact is checked."""
    assert asks(sentence) and declines(sentence, lang)
    assert RuleExtractor().extract(Sentence(0, 0, len(sentence), sentence), sentence, lang, "Marie Curie") == []


def test_a_repeated_question_gives_no_fact_through_run_texts(tmp_path):
    """As the held-out answers are checked (`mfact run --texts`): the question the answer repeats
    gives no fact, and the answer after it is checked (S: the evidence says so)."""
    from test_counts import run_texts

    article = "Marie Curie nació en Varsovia en 1867. Estudió física en París."
    text = "¿Dónde nació Marie Curie y qué estudió? Marie Curie nació en Varsovia en 1867."
    facts = run_texts(tmp_path, "es", "Marie Curie", article, text)
    assert not any("Dónde" in f["text"] or "qué estudió" in f["text"] for f in facts)
    born = [f for f in facts if "Varsovia" in f["text"]]
    assert born and all(f["auto"]["label"] == "S" for f in born)


@pytest.mark.parametrize("sentence", [
    "His films Where Is the Friend's House?",         # a title that the splitter cut at its mark
    "Le sultan Iskandar Muda (1583?",                 # an uncertain date
    "Kanō Masanobu (狩野 正信, 1434?",
    "Theodor W. Adorno [ˈteːodoːɐ̯], ?",
    "Marie Curie was born in Warsaw.",
])
def test_no_question_where_the_mark_is_no_question(sentence):
    assert not asks(sentence)


def test_every_language_has_phrases_and_they_compile():
    from mfact.core.checking.text.textutil import data_json
    from mfact.core.languages import LANGUAGES

    table = data_json("meta_phrases.json")
    for lang in LANGUAGES:
        entry = table[lang.code]
        assert entry.get("sorry") and (entry.get("cannot") or entry.get("without")), lang.code
        for patterns in entry.values():
            for p in patterns:
                re.compile(p, re.IGNORECASE)


def test_a_text_that_only_declines_is_an_abstention_in_the_report(tmp_path):
    """Through the console script: `mfact run --texts` over a refusal in Indonesian and a biography
    checks the biography only, and `mfact report` counts the refusal as an abstention."""
    from test_cli_foundation import run

    home = tmp_path / "home"
    lead = ("Marie Curie was a Polish and naturalised-French physicist and chemist. She was born in Warsaw "
            "in 1867 and won the Nobel Prize in Physics in 1903.")
    texts = tmp_path / "t.jsonl"
    texts.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in [
        {"id": "refusal", "lang": "id", "entity": "Marie Curie", "evidence": [lead],
         "text": "Maaf, tanpa teks yang diberikan saya tidak dapat menjawab pertanyaan tentang Marie Curie. "
                 "Mohon berikan teks referensi."},
        {"id": "bio", "lang": "en", "entity": "Marie Curie", "evidence": [lead],
         "text": "Marie Curie was born in Warsaw in 1867. She won the Nobel Prize in Physics in 1903."},
    ]) + "\n", encoding="utf-8")
    run(home, "run", "--texts", str(texts), "--offline", "--no-progress")
    rep = json.loads(run(home, "report", "--json").stdout)
    assert rep["languages"]["id"]["abstentions"] == 1 and rep["languages"]["id"]["facts"] == 0
    assert rep["languages"]["en"]["abstentions"] == 0 and rep["languages"]["en"]["facts"] >= 2


# --------------------------------------------------------------------------- section headings

NEWTON = ("Isaac Newton was an English mathematician. He was born in 1643.\n\nIsaac Newton's work\n\n"
          "Newton's theory of gravity was the first to explain the motion of the planets.\n\nKey dates\n\n"
          "1642: Newton publishes his first paper\n1643: Newton publishes his second paper")


def _line_heading(line: str, lang: str, before: str = "Una frase.\n\n", after: str = "\n\nOtra frase.") -> bool:
    from mfact.core.checking.extract.meta import heading

    text = before + line + after
    return heading(line, len(before), text, lang)


@pytest.mark.parametrize("lang,line", [
    ("es", "Carrera artística[editar]"), ("fr", "Biographie[modifier | modifier le code]"),
    ("de", "Leben und Werk[Bearbeiten | Quelltext bearbeiten]"), ("en", "Early life[edit]"),
    ("en", "Key dates"), ("en", "Isaac Newton's work"), ("de", "Leben"), ("es", "Vida personal"),
    ("fr", "Enfance et formation"), ("ru", "Ранние годы"), ("tr", "Erken yaşamı"), ("ar", "الحياة المبكرة"),
    ("zh", "生平"), ("ja", "経歴"),
])
def test_a_section_heading_is_no_claim(lang, line):
    assert _line_heading(line, lang)


@pytest.mark.parametrize("lang,line", [
    ("en", "Einstein was German"),                    # a copula: it says something
    ("es", "Nació en Coyoacán"),                      # a finite verb by its ending
    ("de", "Er starb in Princeton"),
    ("ru", "Родился в Ульме"),
    ("pl", "Urodził się w Ulm"),
    ("en", "1642: Newton publishes his first paper"),   # a timeline's line: a date, a verb
    ("en", "Nobel Prize in Physics (1903)"),         # a list item with a year
    ("en", "His most famous works include:"),        # leads into a list
    ("en", "Marie Curie won the Nobel Prize in Physics and in Chemistry"),   # too long for a heading
    ("zh", "他出生于1879年"),
    ("en", "Marie Curie was a Polish physicist."),   # a sentence
    ("en", "Ein Satz [1]"),                          # a citation mark is no edit link
])
def test_a_short_line_that_says_something_is_still_a_claim(lang, line):
    assert not _line_heading(line, lang)


def test_a_heading_needs_a_line_of_its_own_and_a_blank_line_before_it():
    assert not _line_heading("Key dates", "en", before="One sentence.\n")          # no blank line: a list item
    assert not _line_heading("Key dates", "en", before="One sentence. ")           # inside a paragraph
    assert not _line_heading("Key dates", "en", after=" and more words.")          # the line goes on
    assert not _line_heading("Key dates", "en", before="")                         # the text's first line
    assert _line_heading("Key dates", "en", after="")                              # the text's last line
    assert _line_heading("Carrera artística[editar]", "es", before="")            # an edit link: anywhere
    assert _line_heading("Carrera artística[editar]", "es", before="Una frase.\n")


def test_a_heading_reads_the_same_streamed_as_whole():
    """Only the text before the line decides, so the line committed mid-stream (the text so far ends
    with its line break) is a heading just as in the finished text."""
    from mfact.core.checking.extract.meta import heading

    for s in split_sentences(NEWTON, "en"):
        streamed = NEWTON[:s.end] + "\n"
        assert heading(s.text, s.start, streamed, "en") == heading(s.text, s.start, NEWTON, "en"), s.text


def test_the_rule_extractor_gives_no_fact_of_a_heading():
    ex = RuleExtractor()
    facts = [f.text for s in split_sentences(NEWTON, "en") for f in ex.extract(s, NEWTON, "en", "Isaac Newton")]
    assert not any(f in ("Key dates", "Isaac Newton's work") or f.startswith("Key dates") for f in facts), facts
    assert any("1643" in f for f in facts) and any("theory of gravity" in f for f in facts)
    assert any(f.startswith("1642") for f in facts)                # the timeline's lines stay claims
    one_line = "Marie Curie was a physicist"                        # a one-line claim with no full stop
    assert ex.extract(Sentence(0, 0, len(one_line), one_line), one_line, "en", "Marie Curie")


def test_the_llm_extractor_asks_nothing_of_a_heading():
    from mfact.core.checking.extract.llm import LLMExtractor
    from test_checking_llm import ScriptedGenerator

    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "- Frida Kahlo was a painter.\n"

    text = "Frida Kahlo fue una pintora mexicana.\n\nCarrera artística[editar]\n\nPintó autorretratos."
    line = "Carrera artística[editar]"
    start = text.index(line)
    assert LLMExtractor(ScriptedGenerator(answer)).extract(Sentence(1, start, start + len(line), line), text,
                                                           "es", "Frida Kahlo") == [] and not asked


def test_headings_give_no_fact_through_run_texts(tmp_path):
    """As a base model's Wikipedia-like biography is checked (`mfact run --texts`): the section
    headings give no fact (they were NS, "Biografía[editar" and "Vida personal" counted as
    hallucinations), and the sentences under them are checked."""
    from test_counts import run_texts

    article = "Frida Kahlo fue una pintora mexicana. Nació en Coyoacán en 1907."
    text = ("Frida Kahlo fue una pintora mexicana.\n\nBiografía[editar]\n\nFrida Kahlo nació en Coyoacán en 1907."
            "\n\nVida personal\n\nFrida Kahlo nació en Coyoacán.")
    facts = run_texts(tmp_path, "es", "Frida Kahlo", article, text)
    assert facts and not any("Biografía" in f["text"] or "Vida personal" in f["text"] for f in facts)
    assert any("Coyoacán" in f["text"] and f["auto"]["label"] == "S" for f in facts)
