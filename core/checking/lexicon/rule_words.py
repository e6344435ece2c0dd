"""The word tables of the rule extractor (core/checking/extract/rules.py) and its clause refiner
(core/checking/extract/refine.py): per-language function words, as data. Only these tables know a
language; the code that uses them is the same for every language."""
from __future__ import annotations

import re

from ..text.cldr import all_month_names

COORDINATORS: dict[str, list[str]] = {
    "en": ["and", "but", "while", "whereas", "although", "though", "and later", "and then"],
    "es": ["y", "e", "pero", "mientras que", "aunque", "sino que"],
    "fr": ["et", "mais", "tandis que", "alors que", "bien que", "puis"],
    "de": ["und", "aber", "sondern", "während", "doch", "jedoch"],
    "it": ["e", "ed", "ma", "mentre", "sebbene", "però"],
    "pt": ["e", "mas", "enquanto", "embora", "porém"],
    "ru": ["и", "а", "но", "однако", "хотя"],
    "bg": ["и", "а", "но", "обаче", "въпреки че"],
    "el": ["και", "αλλά", "ενώ", "όμως"],
    "tr": ["ve", "ama", "fakat", "ancak", "ise"],
    "id": ["dan", "tetapi", "namun", "sedangkan", "serta"],
    "vi": ["và", "nhưng", "còn", "trong khi"],
    "sw": ["na", "lakini", "ila", "wakati"],
    "hi": ["और", "तथा", "लेकिन", "परंतु", "किंतु", "एवं"],
    "bn": ["এবং", "ও", "কিন্তু", "তবে"],
    "ur": ["اور", "لیکن", "مگر"],
    "fa": ["و", "اما", "ولی"],
    "ar": ["و", "لكن", "ثم", "بينما"],
    "th": ["และ", "แต่", "ส่วน"],
    "zh": ["并且", "而且", "但是", "但", "并", "而"],
    "ja": [],
    "ko": [],
    "ca": ["i", "però", "mentre que", "tot i que"],
    "ro": ["și", "dar", "iar", "însă", "deși"],
    "cs": ["a", "ale", "avšak", "zatímco"],
    "pl": ["i", "a", "ale", "lecz", "natomiast"],
    "sr": ["i", "a", "ali", "dok", "и", "а", "али", "док"],
    "fi": ["ja", "mutta", "kun taas"],
    "lt": ["ir", "bet", "tačiau"],
    "eo": ["kaj", "sed", "dum"],
    "ms": ["dan", "tetapi", "manakala"],
}

# A finite auxiliary (or a reflexive or negation before the verb) that opens a clause after a
# coordinator: "et a reçu le prix", "ed è morto a Parigi", "i va morir a París" (the words are
# stopwords, so without this they read as the start of a noun phrase: "née à Varsovie et est morte
# à Passy" became "née à est morte à Passy")
CLAUSE_OPENERS: dict[str, set[str]] = {
    "fr": {"a", "ont", "avait", "avaient", "eut", "est", "sont", "était", "étaient", "fut", "furent", "sera",
           "seront", "devint", "devient", "s'est", "s'était", "s'y", "se", "n'a", "n'est", "n'était", "ne"},
    "it": {"ha", "hanno", "aveva", "avevano", "ebbe", "è", "sono", "era", "erano", "fu", "furono", "sarà",
           "divenne", "diventò", "venne", "vennero", "viene", "si", "non"},
    "es": {"ha", "han", "había", "habían", "hubo", "fue", "fueron", "es", "son", "era", "eran", "será",
           "se", "no"},
    "pt": {"foi", "foram", "é", "são", "era", "eram", "tem", "têm", "tinha", "tinham", "será", "se", "não"},
    "ca": {"va", "van", "ha", "han", "havia", "havien", "és", "són", "era", "eren", "fou", "foren", "serà",
           "es", "s'hi"},
    "ro": {"au", "este", "sunt", "era", "erau", "fost", "s-a", "s-au"},
    "cs": {"byl", "byla", "bylo", "byli", "je", "jsou", "nebyl", "nebyla"},
    "pl": {"był", "była", "było", "byli", "jest", "są", "został", "została"},
    "sr": {"je", "su", "nije", "bio", "bila", "је", "су", "није", "био", "била"},
    "lt": {"buvo", "yra", "tapo", "nebuvo"},
    "fi": {"oli", "on", "ei"},
    "eo": {"estis", "estas"},
    "ms": {"telah", "sudah", "pernah", "kemudian", "akan"},
    "de": {"wurde", "wurden", "ist", "sind", "war", "waren", "hat", "haben", "hatte", "hatten", "wird"},
}

# Languages whose clause after a coordinator must open with a verb that looks like one (a CLAUSE_OPENERS
# word, or a past-tense form of this shape, as the first word or after a CLAUSE_OPENERS word such as
# a reflexive), else the coordinator joins noun phrases: "studovala v Paříži a získala cenu" is two
# clauses, "studovala fyziku a chemii na Sorbonně" one. The shapes are the narrative past tense of
# biographies (Czech and Polish l-forms, Lithuanian -o/-ė, Finnish -i, Esperanto -is, Serbian
# l-forms followed by the clitic "je"/"su"); Romanian and Catalan narrate in compound tenses that
# open with an auxiliary ("a murit", "va morir"): CLAUSE_OPENERS alone, and for Romanian "a" before
# a participle.
VERB_SHAPES: dict[str, re.Pattern[str]] = {
    "cs": re.compile(r"\w{2,}(?:l|la|lo|li|ly)$"),
    "pl": re.compile(r"\w{2,}(?:ł|ła|ło|li|ły)$"),
    "sr": re.compile(r"\w{2,}(?:o|la|li|le|ла|ли|ле|о)$"),
    "lt": re.compile(r"\w{2,}(?:ė|avo|ėjo|ojo|ijo)$"),      # not -o alone: a genitive ("verslo")
    "fi": re.compile(r"\w{2,}i$"),
    "eo": re.compile(r"\w{2,}(?:is|as|os)$"),
    "ms": re.compile(r"(?:me|ber|di|ter)\w{3,}$"),        # meninggal, berpindah, dilahirkan, terpilih
    "ro": re.compile(r"^a\s+\w{2,}(?:at|it|ut|ât|ăt|s)$"),
    "ca": re.compile(r"(?!)"),
    # Russian l-forms, reflexive too ("родилась", "училась")
    "ru": re.compile(
        r"\w{2,}(?:л|ла|ло|ли)(?:ся|сь)?$|(?:у|по|вы|за|с|до|при|)(?:мер|гиб|рос|стиг|мог|шёл|шел|вёз|вез|нёс|нес)(?:ся)?$|"
        r"(?:у|при|пере|на|во|произо|вы|за|до|от)шёл$|(?:у|при|пере|на|во|произо|вы|за|до|от)шел$"
    ),
}
# Romance languages (no VERB_SHAPES: a clause there may open with any verb): when the word after a
# coordinator is followed by a preposition (or "de"), it opens a clause only if it looks like a verb:
# a finite past, imperfect or conditional, a gerund, a common irregular or present form; else it is
# a list item with its place or complement ("estudió física y química en París" is one clause,
# "estudió física y murió en París" two). A word ending in -a or -e may be a present tense ("y
# propose des plats", "y forma parte de"): it joins the list only when it ends like the word before
# the coordinator ("física y química", "conocida y apreciada"). Nouns that end like verbs are left out
# of the shapes (es/pt "-ía"/"-ia": "filosofía"; "vivía" is listed).
FINITE_AFTER = {
    "es": {"de", "del"},
    "pt": {"de", "do", "da", "dos", "das"},
    "it": {"di", "del", "della", "dei", "delle"},
    "fr": {"de", "du"},
}        # "y obra de Marie Curie": these follow the word too
FINITE_SHAPES: dict[str, re.Pattern[str]] = {
    "es": re.compile(r"\w{2,}(?:ó|aron|ieron|aba|aban|ían|ando|iendo|yendo)$|(?:fue|fueron|tuvo|tuvieron|hizo|"
                     r"hicieron|dijo|estuvo|pudo|puso|vino|dio|vivía|tenía|residía|escribía|pertenecía)$"),
    "pt": re.compile(r"\w{2,}(?:ou|eu|iu|aram|eram|iram|ava|avam|iam|ria|riam|ando|endo|indo)$|(?:foi|foram|"
                     r"teve|tiveram|fez|fizeram|disse|esteve|veio|deu|vivia|tinha|residia|escrevia|pertencia)$"),
    "it": re.compile(r"\w{2,}(?:ò|ì|ette|ettero|arono|erono|irono|ava|avano|eva|evano|ivano|ebbe|ebbero|"
                     r"rebbe|rebbero|ando|endo)$|(?:fu|furono|nacque|visse|fece|disse|vinse|scrisse|rimase|"
                     r"prese|mise)$"),
    "fr": re.compile(r"\w{2,}(?:èrent|irent|urent|ait|aient|ant)$|(?:naquit|mourut|reçut|vécut|devint|obtint|"
                     r"écrivit|fit|vit|fut|prit|épousa|fonda|travailla|enseigna|quitta|publia)$"),
}
# A finite verb at the end of a clause, in the verb-final languages whose coordinator also joins
# noun phrases: Turkish "Varşova'da doğdu ve Paris'te öldü" is two clauses, each ending in its verb
# (the past "-dı", the reported past "-mış", the present "-(I)yor", the copula "-dır", with person
# endings), not a list of two places sharing "öldü". The stem before the ending has 3+ letters
# ("ordu", the army, is no verb), and a few verbs with a shorter one are listed, with the passive
# aorist ("kullanılır", "anılır") and common aorists ("eder", "olur"): a clause that ends in none of
# these is no clause of its own (clauses._clause_pair).
FINAL_VERB_SHAPES: dict[str, re.Pattern[str]] = {
    "tr": re.compile(
        r"\w{3,}(?:[dt][ıiuü](?:m|n|k|nız|niz|nuz|nüz|lar|ler|r|rlar|rler)?|m[ıiuü]ş(?:t[ıiuü]r)?(?:lar|ler)?|"
        r"[ıiuü]?yor(?:du|lar|dı)?)$|\w{2,}(?:[ıiuü]l|[aeıioöuü]n)[ıiuü]r(?:lar|ler)?$|"
        r"(?:öldü|oldu|aldı|dedi|yedi|etti|erdi|öldüler|oldular|aldılar|ettiler|eder|ederler|olur|"
        r"olurlar|verir|söyler|gelir|gider|kalır|alır|yapar|bulunur)$"
    ),
}
# A copula after a name's apostrophe ("... 262Lr'dir", "... Ankara'ydı"), or after a capitalised title
# in the possessive ("... Avusturya Cumhurbaşkanıdır", "... Başbakanıydı"): the clause ends there too
FINAL_COPULA_AFTER_NAME = {"tr": re.compile(r"['’]y?[dt][ıiuü]r?(?:lar|ler)?$|"
                                            r"^[A-ZÇĞİÖŞÜ]\w{3,}[ıiuü](?:[dt][ıiuü]r|yd[ıiuü]|ym[ıiuü]ş)(?:lar|ler)?$")}
# Adjectives by their endings, where adjectives before a noun inflect with it: "была польским и
# французским физиком" is two facts about a physicist ("польским физиком", "французским физиком"),
# not "была польским". German: any lowercase word with an adjective ending, before a capitalised noun.
ADJECTIVE_SHAPES: dict[str, re.Pattern[str]] = {
    "ru": re.compile(r"\w{2,}(?:ский|ская|ское|ские|ским|ской|ских|скими|ского|скую|"
                     r"ный|ная|ное|ные|ным|ной|ных|ными|ного|ную|ый|ий|ая|ое|ые|ым|им|ых|их|ого|его|ую)"),
    "de": re.compile(r"\w{2,}(?:ische|ischer|isches|ischen|ischem|e|er|es|en|em)"),
}
# Arabic writes "and" as a prefix ("ودرست": "and she studied"). Verbs of a life in the past (masculine;
# the feminine adds "ت") after which the prefix opens a clause, and nouns in "ت" it does not.
AR_PAST_VERBS = frozenset("""كان أصبح صار حصل درس عمل توفي ولد تزوج انتقل أسس كتب نشر فاز شارك عاد بدأ قام ترك
تخرج التحق عين أنشأ ألف قاد حكم نال دخل سافر هاجر عاش أقام درّس ساهم أخرج مثل لعب غنى أطلق اكتشف اخترع
أعلن أصدر ظهر توج انضم قدم ربح خسر مات قتل اغتيل سجن""".split())
AR_T_NOUNS = frozenset("بنت أخت بيت وقت صوت موت زيت سبت تخت".split())
# Languages that write a proper name's case ending after an apostrophe ("Paris'te", "Sorbonne'da"):
# such a name opening a clause is no subject of its own.
SUFFIXED_NAMES = {"tr"}


def case_suffixed(word: str, lang: str) -> bool:
    """A name with a case ending after an apostrophe, in SUFFIXED_NAMES ("Sorbonne'da"): not a subject."""
    return lang in SUFFIXED_NAMES and re.search(r"\w['’]\w", word) is not None


SHAPE_NEEDS_CLITIC = {"sr": {"je", "su", "se", "је", "су", "се"}}    # "umrla je", "studirao je"
# a reflexive or a negation before the verb, in the VERB_SHAPES languages: the verb after it decides
# ("a nie jednostek" is "and not of individuals", "a nie mogła" a clause; Catalan "i no lineal" a
# phrase, "i no va tornar" a clause)
VERB_PARTICLES = {"pl": {"się", "nie"}, "cs": {"se", "si", "ne"}, "sr": {"se", "ne", "се", "не"},
                  "ro": {"se", "nu"}, "lt": {"ne"}, "fi": set(), "eo": {"ne"}, "ca": {"no"},
                  "ms": {"tidak"}}

RELATIVES: dict[str, list[str]] = {
    "en": ["who", "which", "where", "whose", "when"],
    "es": ["que", "quien", "quienes", "donde", "cuando", "el cual", "la cual"],
    "fr": ["qui", "où", "dont", "lequel", "laquelle"],
    "de": ["der", "die", "das", "wo", "welcher", "welche", "welches"],
    "it": ["che", "dove", "il quale", "la quale", "cui"],
    "pt": ["que", "onde", "o qual", "a qual", "cujo", "cuja"],
    "ru": ["который", "которая", "которое", "которые", "где", "когда"],
    "bg": ["който", "която", "което", "които", "където"],
    "el": ["ο οποίος", "η οποία", "που", "όπου"],
    "tr": [], "id": ["yang", "di mana"], "vi": ["người", "nơi"], "sw": ["ambaye", "ambao"],
    "hi": ["जो", "जहाँ", "जिसने"], "bn": ["যিনি", "যেখানে"], "ur": ["جو", "جہاں"], "fa": ["که"],
    "ar": ["الذي", "التي", "حيث"], "th": ["ซึ่ง", "ที่"], "zh": [], "ja": [], "ko": [],
}

ARTICLES = {"a", "an", "the", "un", "una", "el", "la", "los", "las", "le", "les", "une", "der",
            "die", "das", "ein", "eine", "il", "lo", "gli", "i", "uno", "o", "os", "as", "um",
            "uma", "des", "du", "de", "del", "of", "his", "her", "their", "its", "su", "sus", "son",
            "sa", "ses", "sein", "seine", "ihr", "ihre", "suo", "sua", "seu"}

PRONOUNS = {"he", "she", "they", "it", "él", "ella", "ellos", "ellas", "il", "elle", "ils", "elles",
            "er", "sie", "es", "lui", "lei", "loro", "ele", "ela", "eles", "elas", "он", "она", "они",
            "той", "тя", "те", "αυτός", "αυτή", "o", "onlar", "dia", "ia", "mereka", "ông", "bà",
            "anh", "cô", "họ", "yeye", "wao", "वह", "वे", "उन्होंने", "उसने", "তিনি", "সে", "তারা",
            "وہ", "انہوں", "او", "آنها", "هو", "هي", "هم", "เขา", "เธอ", "他", "她", "他们", "彼",
            "彼女", "그는", "그녀는", "그"}

# Words of PRONOUNS that are pronouns in some languages only: elsewhere an article, a verb or a
# preposition ("Il film" in Italian, "O filme" in Portuguese, "Es un actor" in Spanish, "a o" in Czech)
PRONOUN_LANGS = {"o": {"tr"}, "il": {"fr"}, "es": {"de"}, "er": {"de"}, "sie": {"de"}, "lei": {"it"},
                 "lui": {"it", "fr"}, "ia": {"id", "ms"}, "dia": {"id", "ms"}}
# subject pronouns of the languages added for mFAVA (rules v19), per language: "on", "el", "ei" or "li"
# are a preposition, an article or a negation elsewhere
LANG_PRONOUNS: dict[str, set[str]] = {
    "ca": {"ell", "ella", "ells", "elles"}, "ro": {"el", "ea", "ei", "ele"}, "cs": {"on", "ona", "oni", "ony"},
    "pl": {"on", "ona", "oni", "one"}, "sr": {"он", "она", "они", "on", "ona", "oni"}, "fi": {"hän", "he"},
    "lt": {"jis", "ji", "jie", "jos"}, "eo": {"li", "ŝi", "ili"}, "ms": {"beliau", "dia", "ia", "mereka"},
    "hu": {"ő", "ők"}, "eu": {"hura", "bera"}, "he": {"הוא", "היא", "הם", "הן"}, "yue": {"佢", "佢哋"},
    "sd": {"هو", "هوء", "اهو", "اها"},
}


def any_pronoun(word: str, lang: str) -> bool:
    """Whether `word` is a subject pronoun of any language of PRONOUNS, or of `lang`'s own
    (LANG_PRONOUNS: "on", "el", "li" are pronouns in their languages only)."""
    low = word.lower()
    return low in PRONOUNS or word in PRONOUNS or low in LANG_PRONOUNS.get(lang, ())


def is_pronoun_in(word: str, lang: str) -> bool:
    """Whether `word` is a subject pronoun in `lang` (PRONOUNS, less the PRONOUN_LANGS words of other
    languages)."""
    low = word.lower()
    if low in LANG_PRONOUNS.get(lang, ()):
        return True
    if low not in PRONOUNS and word not in PRONOUNS:
        return False
    only = PRONOUN_LANGS.get(low)
    return only is None or lang in only


# English words that start a verb phrase after "and" (besides -ed forms and auxiliaries)
EN_VERBS = {"was", "is", "were", "are", "became", "becomes", "has", "had", "have", "won", "wins",
            "wrote", "writes", "made", "makes", "went", "goes", "took", "takes", "gave", "gives",
            "began", "begins", "left", "leaves", "led", "leads", "ran", "runs", "built", "held",
            "holds", "taught", "teaches", "found", "grew", "spent", "served", "serves",
            "continued", "continues", "later", "then", "also", "still", "eventually", "subsequently",
            "will", "would", "can", "could", "did", "does", "remained", "remains", "died", "dies",
            "sang", "sings", "played", "plays", "met", "meets", "moved", "moves", "studied",
            "studies", "received", "receives", "worked", "works", "married", "marries", "born", "known",
            "best"}

PARTICIPLES: dict[str, list[str]] = {
    "en": ["born", "best known for", "known for", "formed in", "founded in", "based in", "located in",
           "released in", "founded by", "directed by", "written by", "produced by"],
    "es": ["nacido", "nacida", "conocido por", "conocida por"],
    "fr": ["né", "née", "connu pour", "connue pour"], "it": ["nato", "nata", "noto per", "nota per"],
    "pt": ["nascido", "nascida", "conhecido por", "conhecida por"], "de": ["geboren"],
}
AUXILIARIES = {"was", "is", "were", "are", "been", "be", "being", "also", "fue", "es", "era", "ha", "sido",
               "est", "était", "été", "a", "è", "stato", "stata", "foi", "é", "wurde", "ist", "war",
               "well", "widely", "not", "first", "later"}

INTRO_MAX_WORDS = 10
PRO_DROP = {
    "es",
    "it",
    "pt",
    "ca",
    "ro",
    "cs",
    "pl",
    "sr",
    "lt",
    "ru",
    "uk",
    "bg",
    "el",
}  # a sentence may start with its verb ("Nació en Varsovia")
INTRO_WORDS = {"however", "overall", "later", "after", "despite", "throughout", "today", "additionally",
               "furthermore", "moreover", "also", "currently", "besides", "unfortunately", "sadly"}
# Participles and adjectives that open a sentence before its subject: "Born in Warsaw, she ...",
# "Née à Varsovie, elle ...", "Nacida en Varsovia, Marie Curie ...". The phrase up to the comma is a
# fact about the subject that follows ("she, Born in Warsaw"), not the subject itself ("Born won two
# Nobel Prizes" before).
INTRO_PARTICIPLES = {
    "born", "raised", "known", "educated", "trained", "married", "widowed", "remembered", "celebrated",
    "renowned", "regarded", "considered", "described", "nicknamed", "dubbed",
    "né", "née", "nés", "nées", "issu", "issue", "issus", "issues", "connu", "connue", "élevé", "élevée",
    "formé", "formée", "surnommé", "surnommée", "considéré", "considérée", "originaire",
    "nacido", "nacida", "conocido", "conocida", "criado", "criada", "educado", "educada", "considerado",
    "considerada", "apodado", "apodada", "originario", "originaria",
    "nato", "nata", "noto", "nota", "cresciuto", "cresciuta", "considerato", "considerata",
    "soprannominato", "soprannominata",
    "nascido", "nascida", "conhecido", "conhecida", "apelidado", "apelidada",
    "geboren", "bekannt", "aufgewachsen",
    "nascut", "nascuda", "conegut", "coneguda",
    "născut", "născută", "cunoscut", "cunoscută",
    "urodzony", "urodzona", "znany", "znana",
    "narozený", "narozená", "známý", "známá",
}
MIN_CLAUSE_WORDS = 3

# Languages whose finite verb comes second, before the subject after an opening phrase.
V2_LANGS = {"de", "nl"}
# A German clause after a coordinator has a finite verb or a subject pronoun in its first words ("und
# 1997/98 erhielt er ...", "und starb 1955"); without one the words share the verb before it ("seit
# 2005 ist er Mitglied der A und seit 1996 Mitglied der B"): weak pasts by their ending, the common
# strong and irregular forms listed.
DE_CLAUSE_PRONOUNS = {"er", "sie", "es", "ich", "wir", "ihr", "man"}
DE_FINITE = frozenset("""ist sind war waren wurde wurden wird werden hat haben hatte hatten kann konnte konnten
muss musste soll sollte will wollte gilt galt liegt lag lebt lebte starb erhielt erhielten ging gingen kam
kamen schrieb gewann gewannen verließ zog zogen blieb blieben fand begann begannen nahm nahmen gab gaben
hielt trat traten verlor sang wuchs stand sah las floh half bekam verbrachte entwarf bewies heiratete
gehört gehörte befindet befand spielt spielte arbeitet lehrt stammt stammte folgte erschien erschienen
wechselte""".split())
DE_WEAK_PAST = re.compile(r"\w{3,}(?:te|ten|tete|teten)$")
DE_NOT_VERBS = re.compile(r"\w*(?:ste|sten|erste|ersten|zweite|zweiten|dritte|dritten|vierte|vierten|letzte|letzten|"
                          r"hälfte|mitte|geschichte|seite|seiten|rechte|rechten)$")

VERB_FINAL = {"hi", "ur", "bn", "ja", "ko", "tr", "fa"}

PREPOSITIONS: dict[str, set[str]] = {
    "en": {"in", "on", "at", "for", "with", "to", "from", "as", "by", "into", "during", "since", "until",
           "throughout", "under", "after", "before", "about", "between", "among", "across", "against"},
    "es": {"en", "a", "con", "para", "por", "desde", "hasta", "como", "sobre", "entre", "durante", "tras"},
    "fr": {"à", "au", "aux", "en", "dans", "avec", "pour", "par", "depuis", "comme", "sur", "entre",
           "pendant", "chez"},
    "de": {"in", "im", "am", "an", "auf", "mit", "für", "von", "vom", "zu", "zum", "zur", "bei", "beim",
           "als", "seit", "nach", "aus", "über", "unter"},
    "it": {"in", "a", "al", "alla", "nel", "nella", "con", "per", "da", "dal", "dalla", "come", "su",
           "tra", "fra", "durante"},
    "pt": {"em", "no", "na", "a", "ao", "com", "para", "por", "desde", "como", "sobre", "entre", "durante"},
    "ru": {"в", "во", "на", "с", "со", "для", "по", "к", "из", "от", "до", "как", "при", "после"},
    "bg": {"в", "във", "на", "с", "със", "за", "по", "към", "от", "до", "като", "при", "след"},
    "el": {"σε", "στο", "στη", "στην", "στον", "με", "για", "από", "ως", "μετά", "κατά"},
    "id": {"di", "pada", "dengan", "untuk", "dari", "ke", "sebagai", "sejak", "dalam"},
    "vi": {"ở", "tại", "vào", "trong", "với", "cho", "từ", "như"},
    "sw": {"katika", "kwa", "huko", "mjini", "tangu", "kama"},
    "ar": {"في", "على", "من", "إلى", "مع", "عن", "منذ"},
    "fa": {"در", "به", "از", "با", "برای", "تا"},
    "th": {"ใน", "ที่", "กับ", "จาก", "เมื่อ", "สำหรับ"},
}
# adpositions that introduce a place (prepositions) or end one (postpositions)
PLACE_PREPS: dict[str, set[str]] = {
    "en": {"in", "at"}, "es": {"en"}, "fr": {"à", "en", "au"}, "de": {"in", "im"}, "it": {"a", "in", "nel"},
    "pt": {"em", "no", "na"}, "ru": {"в", "во"}, "bg": {"в", "във"}, "el": {"στο", "στη", "στην", "σε"},
    "id": {"di"}, "vi": {"ở", "tại"}, "sw": {"huko", "mjini", "katika"}, "ar": {"في"}, "fa": {"در"},
    "th": {"ที่", "ใน"}, "zh": {"于", "在"},
    # the languages added for mFAVA (rules v19)
    "ca": {"a", "en", "al"}, "ro": {"la", "în"}, "cs": {"v", "ve"}, "pl": {"w", "we"}, "sr": {"у", "u"},
    "eo": {"en"}, "ms": {"di"}, "la": {"in"}, "yue": {"喺", "響", "响"},
}
# languages that mark a place in the name's own ending (a locative case), after a capital: "Varsovassa",
# "Varsóban", "Varsovian", "Varšuvoje", "Varsoviae"
PLACE_ENDINGS: dict[str, re.Pattern[str]] = {
    "fi": re.compile(r"\w{2,}(?:ssa|ssä|lla|llä)"),
    "hu": re.compile(r"\w{2,}(?:ban|ben|on|en|ön)"),
    "eu": re.compile(r"\w{2,}(?<!re)(?<!ki)n"),    # not a genitive "-ren" or a comitative "-ekin"
    "lt": re.compile(r"\w{2,}(?:oje|ėje|uje|yje)"),
    "la": re.compile(r"\w{2,}(?:ae|i)"),
}
# Hebrew writes "in" as a prefix: a word of the place after a date ("בוורשה"), not one of these
HE_IN_WORDS = frozenset("בשנת בגיל במהלך בערך בין בעקבות בזמן בסוף בתחילת באמצע בשל".split())
PLACE_POSTS: dict[str, set[str]] = {"hi": {"में"}, "ur": {"میں"}, "bn": set(), "ko": set(), "ja": set(), "tr": set()}
# words between a preposition and a year that still belong to the date: connecting words, the
# month names of every offered language from CLDR (Babel), and spellings CLDR does not list
DATE_LINKS = set("""
of de del le el la il am den der the om em ngày tháng năm tarehe mwaka года году год г সালের সালে তারিখে
""".split())
MONTH_SPELLINGS = {"setiembre", "sept", "फरवरी", "सितम्बर", "नवम्बर", "दिसम्बर", "मई", "मे", "مه"}
DATE_WORDS = DATE_LINKS | set(all_month_names()) | MONTH_SPELLINGS
DATE_AFTER = DATE_WORDS - {"of", "de", "del", "le", "el", "la", "il", "am", "den", "der", "the", "om", "em", "ngày",
                            "tarehe", "mwaka"}
DATE_PREPS: dict[str, set[str]] = {
    "en": {"on", "in", "since", "from", "during"}, "es": {"el", "en", "desde"}, "fr": {"le", "en", "depuis"},
    "de": {"am", "im", "seit"}, "it": {"il", "nel", "dal"}, "pt": {"em", "no", "desde"},
    "ru": {"в", "с"}, "bg": {"на", "през", "в", "от"}, "el": {"στις", "το", "στο", "τον"},
    "id": {"pada", "tahun"}, "vi": {"vào", "ngày"}, "sw": {"tarehe", "mwaka", "mnamo"},
    "ar": {"في", "عام"}, "fa": {"در"}, "th": {"เมื่อ", "ใน", "วันที่"},
    # one character a word there: "她于1867年出生于华沙" -> "她于1867年出生", "她出生于华沙"
    "zh": {"于", "於", "在"}, "yue": {"喺", "於", "響", "响"},
    "ca": {"el", "en", "des"}, "ro": {"pe", "în", "din"}, "cs": {"v", "ve", "roku", "roce", "od"},
    "pl": {"w", "we", "roku", "od", "dnia"}, "sr": {"у", "u", "од", "od"}, "eo": {"la", "en", "ekde"},
    "ms": {"pada", "sejak"}, "la": {"die", "anno", "ab"}, "he": {"בשנת", "ב", "מאז"},
}
# words of a date beside the year that neither CLDR's month names nor the tables above hold: Basque
# "7an", "azaroaren", Hungarian "7-én", Esperanto "7-an", Lithuanian "m." and "d." ("1867 m. lapkričio
# 7 d."), Serbian months in the genitive, Hebrew "ב-7" and "בנובמבר"
DATE_SHAPES: dict[str, re.Pattern[str]] = {
    "eu": re.compile(r"\d{1,2}(?:a|e)?n|\w+(?:aren|ren)"),
    "hu": re.compile(r"\d{1,2}-?j?(?:[aáeé]n|[aáeé]|i)"),
    "eo": re.compile(r"\d{1,2}-?an"),
    "lt": re.compile(r"[md]"),
    "ms": re.compile(r"tahun"),                    # "pada tahun 1865"
    "cs": re.compile(r"roku|roce"),
    "pl": re.compile(r"roku|r"),
    "yue": re.compile(r"[號号]"),                   # "1866年4月6號"
    "sr": re.compile(
        r"godine|године|(?:јануар|фебруар|март|април|мај|јун|јул|август|септемб|октоб|новемб|децемб)(?:а|ра)|"
        r"(?:januar|februar|mart|april|maj|jun|jul|avgust|septemb|oktob|novemb|decemb)(?:a|ra)"
    ),
    "he": re.compile(r"ב-?\d{1,2}|ב?(?:ינואר|פברואר|מרץ|מרס|אפריל|מאי|יוני|יולי|אוגוסט|ספטמבר|אוקטובר|נובמבר|דצמבר)"),
}
DATE_POSTS: dict[str, set[str]] = {"hi": {"को", "में"}, "ur": {"کو", "میں"}, "bn": {"সালে", "তারিখে"},
                                   "ja": {"に"}, "ko": set(), "tr": set(), "sd": {"تي", "۾"}}
INCLUDING: dict[str, list[str]] = {
    "en": ["including", "such as", "among them", "notably", "like"],
    "es": ["incluyendo", "incluidos", "incluidas", "entre ellos", "entre ellas", "como"],
    "fr": ["notamment", "dont", "y compris", "comme"], "de": ["darunter", "einschließlich", "wie"],
    "it": ["tra cui", "inclusi", "incluse", "come"], "pt": ["incluindo", "entre eles", "como"],
    "ru": ["включая", "в том числе", "такие как", "таких как"], "bg": ["включително", "като"],
    "el": ["όπως", "συμπεριλαμβανομένων"], "id": ["termasuk", "seperti"], "vi": ["bao gồm", "như"],
    "sw": ["ikiwemo", "ikiwa ni pamoja na", "kama"], "tr": ["dahil"], "ar": ["بما في ذلك", "مثل"],
    "fa": ["از جمله", "مانند"], "hi": ["सहित", "जैसे"], "ur": ["سمیت", "جیسے"], "bn": ["সহ", "যেমন"],
    "th": ["รวมถึง", "เช่น"], "zh": ["包括", "例如"], "ja": ["など"], "ko": ["등"],
}
# the list conjunctions ("and", "or") per language
LIST_CONJ: dict[str, list[str]] = {
    "en": ["and", "or", "as well as"], "es": ["y", "e", "o"], "fr": ["et", "ou"], "de": ["und", "oder"],
    "it": ["e", "ed", "o"], "pt": ["e", "ou"], "ru": ["и", "или"], "bg": ["и", "или"], "el": ["και", "ή"],
    "tr": ["ve", "veya"], "id": ["dan", "atau", "serta"], "vi": ["và", "hoặc"], "sw": ["na", "au"],
    "hi": ["और", "तथा", "एवं"], "bn": ["এবং", "ও"], "ur": ["اور"], "fa": ["و"], "ar": ["و"],
    "th": ["และ"], "zh": ["和", "与", "及"], "ja": ["と"], "ko": ["와", "과"],
    "ca": ["i", "o"], "ro": ["și", "sau"], "cs": ["a", "nebo"], "pl": ["i", "oraz", "lub", "albo"],
    "sr": ["i", "ili", "и", "или"], "fi": ["ja", "tai", "sekä"], "lt": ["ir", "arba"], "eo": ["kaj", "aŭ"],
    "ms": ["dan", "atau", "serta"], "hu": ["és", "vagy", "valamint"], "eu": ["eta", "edo"],
    "la": ["et", "atque", "ac", "aut"], "sd": ["۽"],
}
# Hebrew joins a list's last item with the prefix "ו" ("פיזיקאית וכימאית"), not a word
PREFIX_CONJ = {"he": "ו"}
# copulas of one language, before the list they head ("byla fyzička a chemička"): kept per language, as
# "on", "je" or "a" are other words elsewhere
LANG_COPULAS: dict[str, set[str]] = {
    "ca": {"és", "era", "fou", "ser", "estat"}, "ro": {"este", "era", "fost", "fi"},
    "cs": {"je", "byl", "byla", "bylo", "byli", "jsou", "stal", "stala"},
    "pl": {"jest", "był", "była", "było", "byli", "są", "został", "została"},
    "sr": {"је", "je", "био", "bio", "била", "bila", "су", "su"}, "fi": {"oli", "on", "olivat", "ovat"},
    "lt": {"buvo", "yra", "tapo"}, "eo": {"estis", "estas", "iĝis"},
    "ms": {"ialah", "adalah", "merupakan", "menjadi"}, "he": {"היה", "הייתה", "היו", "הוא", "היא", "הינו", "הינה"},
}
# an auxiliary right before the verb of a list's head ("va estudiar física i química", "a studiat fizica și
# chimia"): the first item starts two words after it
LIST_AUX: dict[str, set[str]] = {"ca": {"va", "van", "vaig", "vas", "vam", "vau", "ha", "han", "havia", "havien"},
                                 "ro": {"a", "au", "am", "ai", "ați"}}
# prepositions that open no list item in the languages of LIST_STOPPERS ("Deo je ..., kao i malajskih
# tradicija"); kept apart from PREPOSITIONS, which also reads a sentence's opening phrase
LIST_PREPOSITIONS: dict[str, set[str]] = {
    "ca": {"a", "al", "en", "amb", "per", "des", "com", "sobre", "entre"},
    "ro": {"la", "în", "din", "cu", "pentru", "pe", "ca"},
    "cs": {"v", "ve", "na", "s", "se", "pro", "z", "ze", "do", "od", "jako", "po"},
    "pl": {"w", "we", "na", "z", "ze", "dla", "do", "od", "jako", "po"},
    "sr": {"у", "u", "на", "na", "са", "sa", "за", "za", "из", "iz", "као", "kao", "по", "po"},
    "eo": {"en", "al", "kun", "por", "de", "el", "kiel", "sur"},
    "ms": {"di", "pada", "dengan", "untuk", "dari", "ke", "sebagai"},
    "la": {"in", "ad", "cum", "ex", "ab", "de", "per", "pro", "post", "inter"},
    "lt": {"į", "iš", "su", "po", "per", "kaip"},
}
# a postposition that ends the clause goes with every item ("Pierre Curien ja Henri Becquerelin kanssa")
FINAL_POSTPOSITIONS: dict[str, set[str]] = {
    "fi": {"kanssa", "jälkeen", "aikana", "vuoksi", "ansiosta", "luona", "kautta", "takia", "mukaan", "lähellä"},
}
# In the languages added for mFAVA (rules v19) a list is read only where nothing in it opens a clause:
# a relative pronoun or conjunction anywhere after its head (", joka operoi ... ja palvelee"), a negation,
# copula or auxiliary after its conjunction ("dan adalah seratus kali", "i no lineal"), or a verb's
# particle after the word after it ("a dokážou si vybavit"). English and the languages before keep their
# own rules.
LIST_STOPPERS: dict[str, set[str]] = {
    "fi": {"joka", "jotka", "jossa", "jonka", "joita", "jolla", "mikä", "mitä", "kun", "että", "ei", "eikä"},
    "cs": {"který", "která", "které", "kteří", "jenž", "jež", "kde", "když", "že", "ne", "nebyl", "nebyla"},
    "pl": {"który", "która", "które", "którzy", "gdzie", "gdy", "że", "nie"},
    "sr": {"који", "која", "које", "koji", "koja", "koje", "где", "gde", "када", "kada", "да", "da", "не", "ne"},
    "ro": {"care", "unde", "când", "că", "nu"},
    "ca": {"que", "qui", "on", "quan", "no"},
    "eo": {"kiu", "kiuj", "kiun", "kie", "kiam", "ke", "ne"},
    "lt": {"kuris", "kuri", "kurie", "kurios", "kur", "kai", "kad", "ne"},
    "ms": {"yang", "apabila", "bahawa", "tidak", "bukan"},
    "hu": {"aki", "amely", "ami", "ahol", "amikor", "hogy", "nem"},
    "he": {"אשר", "כאשר", "לא"},
    "la": {"qui", "quae", "quod", "ubi", "cum", "ut", "non"},
    "eu": {"ez"},
    "sd": {"جيڪو", "جنهن", "نه"},
    "yue": set(),
}
# copulas that end their clause ("fizikus és kémikus volt", "fisikaria eta kimikaria izan zen", "physica et
# chemica fuit"): a list before them is read as in the verb-final languages, and in these languages, whose
# clauses end in their verb or run in a free order, only such a list is split
FINAL_COPULAS: dict[str, set[str]] = {
    "hu": {"volt", "lett", "van"}, "eu": {"zen", "da", "ziren", "dira", "izan"},
    "la": {"fuit", "est", "erat", "fuerunt", "sunt"}, "sd": {"هئي", "هو", "آهي", "هئا", "هيو"},
}
COPULAS = {"is", "was", "are", "were", "es", "fue", "era", "est", "était", "fut", "ist", "war", "è", "fu",
           "é", "foi", "became", "becomes", "remains", "remained", "ήταν", "είναι", "была", "был",
           "было", "были", "является", "являлся", "являлась", "е", "беше", "бил", "била", "adalah",
           "merupakan", "là", "alikuwa", "ni", "ilikuwa", "كان", "كانت", "هو", "هي"}
# English participles that open a phrase about the subject after a noun ("a band formed in 1969")
EN_PARTICIPLE_HEADS = {"born", "formed", "founded", "based", "located", "known", "released", "published",
                       "directed", "produced", "written", "established", "named", "raised", "educated"}
GERUND = {"en": re.compile(r"^[a-z]+ing$"), "es": re.compile(r"^\w+(?:ando|iendo|yendo)$"),
          "it": re.compile(r"^\w+(?:ando|endo)$"), "pt": re.compile(r"^\w+(?:ando|endo|indo)$"),
          "fr": re.compile(r"^\w+ant$")}
NON_GERUNDS = {"including", "during", "according", "following", "regarding", "concerning", "nothing",
               "something", "anything", "everything", "being", "morning", "evening", "king", "thing",
               "wedding", "building", "painting", "writing", "acting", "singing", "recording",
               "training", "ring", "spring", "string", "nearing"}
DETERMINERS = ARTICLES | {"several", "numerous", "various", "many", "some", "two", "three", "four", "five",
                          "multiple", "other", "these", "those", "this", "that", "our", "my", "your", "over",
                          "varios", "varias", "numerosos", "numerosas", "plusieurs", "nombreux", "mehrere",
                          "zahlreiche", "vari", "varie", "numerosi", "vários", "várias", "diversos", "um", "uma"}
HAN_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
QUOTES = "\"“”«»„"
MAX_ITEM_WORDS = 6
MAX_REFINE_CHARS = 600

# coordinated noun phrases in scripts without spaces: (marker before the list, conjunction, ending)
CJK_LIST = {"zh": (r"(?:是|为|担任|身为)", r"(?:和|与|及|、)", r""),
            "ja": (r"(?:は)", r"(?:と|、)", r"(?:であった|である|だった|でした|です)?"),
            "ko": (r"(?:는|은)\s*", r"(?:와|과)\s*", r"(?:였다|이다|였으며|이었다|입니다)?"),
            "th": (r"(?:เป็น)", r"(?:และ)", r""),
            "yue": (r"(?:係|系|是|為|为)", r"(?:同(?!埋)|與|与|、)", r"")}
# the longest item of such a list, in characters (Cantonese "同" is also "with": "計劃同格魯吉亞開戰")
CJK_ITEM_CHARS = {"yue": 5}
# a year, with an era or a CJK year sign
YEAR = re.compile(r"(?<!\d)\d{3,4}(?!\d)(?:\s?(?:AD|BC|BCE|CE))?(?:年|년)?")
# prepositions that open a phrase of their own ("received his Ph.D. in physics from Harvard in 2001")
PP_SPLIT = {"en": {"in", "from", "at", "on", "during", "since", "until", "as", "with", "by"},
            "es": {"en", "desde", "como", "con", "por"}, "fr": {"à", "en", "depuis", "comme", "avec", "par"},
            "de": {"in", "im", "am", "seit", "als", "mit", "von"}, "it": {"in", "a", "nel", "dal", "come", "con"},
            "pt": {"em", "no", "na", "desde", "como", "com"}}
