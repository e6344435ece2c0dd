"""Rule-based multilingual atomic-fact extractor: the offline default.

It works on one sentence at a time and never writes a word that is not in the sentence:

1. An introductory phrase ("In 1963, ...") stays with the main clause; the sentence's subject is the
   entity's name, a pronoun, or the leading capitalised words after it.
2. Relative clauses and appositives set off by commas (", who was born in Warsaw,", ", a Polish
   physicist,") become facts of their own about the word they follow (the subject).
3. The rest splits at semicolons and at coordinators that join two clauses ("and won", "y ganó",
   "et a reçu", "और"), per-language lists; a clause without a subject of its own gets the sentence's
   subject carried over ("He studied physics and won ..." -> "He won ...").
4. Each clause is refined into finer facts (see the second half of this module): trailing relative
   clauses and participial phrases, "including"/"such as" lists, coordinated noun phrases, a date
   next to a place, one prepositional phrase per fact, a nationality before a noun.
5. Every fact keeps its sentence index and a tight span: the words it adds (a carried subject or
   shared head is not part of the span, so spans of one sentence do not overlap).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..protocols import ExtractedFact, Sentence, Stage
from .segment import CLOSERS, TERMINATORS
from .slots import all_month_names
from .textutil import STOPWORDS, content_tokens, is_cjk_char, words_with_offsets

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
}

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

# English words that start a verb phrase after "and" (besides -ed forms and auxiliaries)
EN_VERBS = {"was", "is", "were", "are", "became", "becomes", "has", "had", "have", "won", "wins",
            "wrote", "writes", "made", "makes", "went", "goes", "took", "takes", "gave", "gives",
            "began", "begins", "left", "leaves", "led", "leads", "ran", "runs", "built", "held",
            "holds", "taught", "teaches", "became", "found", "grew", "spent", "served", "serves",
            "continued", "continues", "later", "then", "also", "still", "eventually", "subsequently",
            "will", "would", "can", "could", "did", "does", "remained", "remains", "died", "dies",
            "sang", "sings", "played", "plays", "met", "meets", "moved", "moves", "studied",
            "studies", "received", "receives", "worked", "works", "married", "marries", "born", "known",
            "best"}

PARTICIPLES: dict[str, list[str]] = {
    "en": ["born", "best known for", "known for", "formed in", "founded in", "based in", "located in",
           "released in", "founded by", "directed by", "written by", "produced by"], "es": ["nacido", "nacida", "conocido por", "conocida por"],
    "fr": ["né", "née", "connu pour", "connue pour"], "it": ["nato", "nata", "noto per", "nota per"],
    "pt": ["nascido", "nascida", "conhecido por", "conhecida por"], "de": ["geboren"],
}
AUXILIARIES = {"was", "is", "were", "are", "been", "be", "being", "also", "fue", "es", "era", "ha", "sido",
               "est", "était", "été", "a", "è", "era", "stato", "stata", "foi", "é", "wurde", "ist", "war",
               "well", "widely", "not", "first", "later"}

INTRO_MAX_WORDS = 10
PRO_DROP = {"es", "it", "pt"}     # a sentence may start with its verb ("Nació en Varsovia")
INTRO_WORDS = {"however", "overall", "later", "after", "despite", "throughout", "today", "additionally",
               "furthermore", "moreover", "also", "currently", "besides", "unfortunately", "sadly"}
MIN_CLAUSE_WORDS = 3


@dataclass
class _Piece:
    start: int      # offsets relative to the sentence text
    end: int
    subject: str | None = None   # carried subject text, not part of the span


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) to drop surrounding spaces, commas, terminators and closers."""
    strip = " \t\n,;:，；、،؛" + TERMINATORS + CLOSERS + "-–—"
    while start < end and text[start] in strip:
        start += 1
    while end > start and text[end - 1] in strip:
        end -= 1
    # keep a closing quote/bracket whose opener is inside the piece
    return start, end


def _n_words(text: str) -> int:
    ws = words_with_offsets(text)
    if any(is_cjk_char(w[0]) for w, _s, _e in ws):
        return max(1, len(ws) // 2)
    return len(ws)


def _phrase_regex(words: list[str]) -> re.Pattern | None:
    if not words:
        return None
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w])(?:" + "|".join(alts) + r")(?![\w])", re.IGNORECASE)


class RuleExtractor(Stage):
    """Clause splitting with subject carry-over. `name` and `version` go into session configs."""

    name = "rules"
    version = "2"

    def extract(self, sentence: Sentence, full_text: str, lang: str, entity: str) -> list[ExtractedFact]:
        text = sentence.text
        base = sentence.start
        if not any(ch.isalpha() for ch in text) or not content_tokens(text):
            return []
        lang = (lang or "en").split("-")[0].lower()
        s0, e0 = _trim(text, 0, len(text))
        if e0 <= s0:
            return []
        subj_span = self._subject(text, s0, e0, lang, entity)
        subject = text[subj_span[0]:subj_span[1]] if subj_span else None
        pieces = self._split(text, s0, e0, lang, subject, subj_span)
        facts: list[ExtractedFact] = []
        seen: set[str] = set()
        for p in pieces:
            a, b = _trim(text, p.start, p.end)
            if b <= a or not content_tokens(text[a:b]):
                continue
            intro = None
            if subj_span is not None and a < subj_span[0] <= b:
                if re.search(r"\d", text[a:subj_span[0]]):
                    intro = _trim(text, a, subj_span[0])   # "In 1999, he ...": the date goes last
                a = subj_span[0]     # an introductory phrase without a date: not part of the facts
            own_subject = p.subject
            if own_subject is None and subj_span is not None and a <= subj_span[0] < b:
                own_subject = subject
            for i, (fact_text, (x0, x1)) in enumerate(self._refine(text, a, b, p.subject, own_subject, subj_span, lang)):
                if intro is not None and i == 0:
                    fact_text = f"{fact_text} {text[intro[0]:intro[1]]}"
                    x0 = intro[0]
                key = fact_text.lower()
                if key in seen or not content_tokens(fact_text):
                    continue
                seen.add(key)
                facts.append(ExtractedFact(text=fact_text, span=(base + x0, base + x1)))
        if not facts:
            facts.append(ExtractedFact(text=text[s0:e0], span=(base + s0, base + e0)))
        return facts

    # ----------------------------------------------------------------- subject

    def _subject(self, text: str, s0: int, e0: int, lang: str, entity: str) -> tuple[int, int] | None:
        words = words_with_offsets(text[:e0])
        words = [w for w in words if w[1] >= s0]
        if not words:
            return None
        # skip an introductory phrase that ends in a comma within the first few words
        start_idx = 0
        w0 = words[0][0].lower()
        for idx, (_w, _s, e) in enumerate(words[:INTRO_MAX_WORDS + 1]):
            rest = text[e:e + 2]
            if not (w0 in PREPOSITIONS.get(lang, ()) or w0 in INTRO_WORDS or w0[:1].isdigit()
                    or (w0 in STOPWORDS and w0 not in PRONOUNS and w0 not in ARTICLES and idx < 6)):
                break
            if rest.startswith(",") or rest.startswith("，") or rest.startswith("،"):
                if idx + 1 < len(words) and idx < INTRO_MAX_WORDS:
                    start_idx = idx + 1
                break
        words = words[start_idx:]
        if not words:
            return None
        ent_tokens = {t.lower() for t, _s, _e in words_with_offsets(entity or "")}
        first, fs, fe = words[0]
        if first.lower() in ent_tokens:
            end = fe
            for w, _s, e in words[1:]:
                if w.lower() in ent_tokens:
                    end = e
                else:
                    break
            return fs, end
        if first.lower() in PRONOUNS or first in PRONOUNS:
            return fs, fe
        if first[:1].isupper() and first.lower() not in STOPWORDS:
            end = fe
            for w, _s, e in words[1:7]:
                if w[:1].isupper() or (w.lower() in {"de", "van", "von", "da", "del", "di", "der", "le",
                                                     "la", "bin", "ibn"}):
                    end = e
                else:
                    break
            if end == fe and lang in PRO_DROP and len(words) > 1 and words[1][0][:1].islower():
                return None     # "Está situada ...": a verb, the subject is dropped
            return fs, end
        # a caseless script: the entity's name anywhere at the start of the sentence
        if entity and text[s0:].startswith(entity):
            return s0, s0 + len(entity)
        return None

    # ----------------------------------------------------------------- splitting

    def _split(self, text: str, s0: int, e0: int, lang: str, subject: str | None,
               subj_span: tuple[int, int] | None) -> list[_Piece]:
        # 1. comma-bounded insertions (relative clauses, appositives) right after the subject
        main: list[tuple[int, int]] = [(s0, e0)]
        extra: list[_Piece] = []
        if subj_span is not None:
            after = subj_span[1]
            m = re.match(r"\s*[,،，]\s*", text[after:e0])
            if m:
                ins_start = after + m.end()
                rel = _phrase_regex(RELATIVES.get(lang, []))
                low_first = text[ins_start:ins_start + 20].split(" ", 1)[0].lower()
                is_rel = bool(rel and rel.match(text, ins_start))
                is_app = low_first in ARTICLES
                close = re.search(r"[,،，]", text[ins_start:e0])
                if (is_rel or is_app) and close:
                    ins_end = ins_start + close.start()
                    rest_start = ins_end + 1
                    if _n_words(text[rest_start:e0]) >= 2 and _n_words(text[ins_start:ins_end]) >= 2:
                        if is_rel:
                            rm = rel.match(text, ins_start)
                            extra.append(_Piece(rm.end(), ins_end, subject))
                        else:
                            extra.append(_Piece(ins_start, ins_end, subject + ","))
                        main = [(subj_span[0] if subj_span[0] < s0 else s0, subj_span[1]), (rest_start, e0)]
        # 2. semicolons and coordinators in the main clause
        pieces: list[_Piece] = []
        if len(main) == 2:
            # the subject is carried onto the rest of the main clause
            head, rest = main
            sub_pieces = self._coordinate(text, rest[0], rest[1], lang, subject)
            first = sub_pieces[0]
            pieces.append(_Piece(first.start, first.end, text[head[0]:head[1]]))
            pieces.extend(sub_pieces[1:])
        else:
            pieces.extend(self._coordinate(text, main[0][0], main[0][1], lang, subject))
        # relative-clause facts go right after the main clause they belong to
        return pieces[:1] + extra + pieces[1:]

    def _coordinate(self, text: str, start: int, end: int, lang: str, subject: str | None) -> list[_Piece]:
        cuts: list[tuple[int, int]] = []   # (cut start, clause start) pairs
        for m in re.finditer(r"[;；؛]", text[start:end]):
            cuts.append((start + m.start(), start + m.end()))
        coord = _phrase_regex(COORDINATORS.get(lang, []))
        if coord is not None:
            for m in coord.finditer(text, start, end):
                cs, ce = m.start(), m.end()
                if lang not in ("zh", "th") and not (cs == 0 or text[cs - 1] in " ,，、،"):
                    continue
                cuts.append((cs, ce))
        part = _phrase_regex(PARTICIPLES.get(lang, []))
        if part is not None:
            # "an American actor born on ..." -> "... actor" + "<subject> born on ..." (not after
            # an auxiliary: "was born" stays whole)
            for m in part.finditer(text, start, end):
                if m.group(0)[:1].isupper():
                    continue
                before = text[start:m.start()].rstrip(" ,")
                prev = before.split()[-1].lower() if before.split() else ""
                if prev and prev not in AUXILIARIES and m.start() > start:
                    cuts.append((m.start(), m.start()))
        if lang in ("zh", "ja"):
            for m in re.finditer(r"[，,]", text[start:end]):
                cuts.append((start + m.start(), start + m.end()))
        if lang in ("ar", "fa", "ur"):
            for m in re.finditer(r"\s[،,]|[،]", text[start:end]):
                cuts.append((start + m.start(), start + m.end()))
        cuts.sort()
        pieces: list[_Piece] = []
        cur = start
        for cs, ce in cuts:
            if cs < cur:
                continue
            left = text[cur:cs]
            right_end = self._next_cut(cuts, ce, end, cs)
            right = text[ce:right_end]
            if not self._clause_pair(left, right, lang, text[cs:ce]):
                continue
            pieces.append(_Piece(cur, cs, subject if pieces else None))
            cur = ce
        pieces.append(_Piece(cur, end, subject if pieces else None))
        # the first piece has its own subject; later ones get it carried unless they name one
        out: list[_Piece] = []
        for idx, p in enumerate(pieces):
            if idx > 0 and self._has_own_subject(text[p.start:p.end], lang):
                p = _Piece(p.start, p.end, None)
            out.append(p)
        return out

    @staticmethod
    def _next_cut(cuts: list[tuple[int, int]], after: int, end: int, current: int = -1) -> int:
        for cs, _ce in cuts:
            if cs >= after and cs > current:
                return cs
        return end

    def _clause_pair(self, left: str, right: str, lang: str, sep: str) -> bool:
        if sep.strip() in (";", "；", "؛"):
            return _n_words(left) >= 2 and _n_words(right) >= 2
        if _n_words(left) < MIN_CLAUSE_WORDS or _n_words(right) < MIN_CLAUSE_WORDS - 1:
            return False
        rw = words_with_offsets(right)
        if not rw:
            return False
        first = rw[0][0]
        low = first.lower()
        if low in PRONOUNS:
            return True
        if lang == "en":
            if low.endswith("ly") and len(rw) > 1:
                nxt = rw[1][0].lower()
                return nxt in EN_VERBS or nxt.endswith("ed") or nxt.endswith("s")
            return low in EN_VERBS or (low.endswith("ed") and len(low) > 3) or (
                low.endswith("ing") and low not in NON_GERUNDS and len(low) > 5)
        if lang in ("zh", "ja", "th"):
            return _n_words(right) >= 3
        if low in ARTICLES or low in STOPWORDS and low not in PRONOUNS:
            return False
        if first[:1].isupper() or first[:1].isdigit():
            # "X and Y" lists of names or numbers
            return False
        return _n_words(right) >= MIN_CLAUSE_WORDS

    @staticmethod
    def _has_own_subject(clause: str, lang: str) -> bool:
        ws = words_with_offsets(clause)
        if not ws:
            return False
        first = ws[0][0]
        return first.lower() in PRONOUNS or first in PRONOUNS or (
            first[:1].isupper() and first.lower() not in STOPWORDS and len(ws) > 2)


# ------------------------------------------------------------------------------------------------
# Finer facts: each clause is refined into the smallest facts the sentence states, still only with
# the sentence's own words.
#
# - trailing relative clauses and participial phrases (", which began in ...", " who was born ...",
#   ", appearing in ...") become facts about their antecedent or the clause's subject;
# - "including A, B and C" / "such as A and B": the clause up to the list is one fact, and each item
#   is one fact with the clause's verb ("He appeared in A", "He appeared in B");
# - coordinated noun phrases ("an actor and singer", "films, television shows, and theater
#   productions") give one fact per item, with the words before and (in verb-final languages)
#   after the list shared;
# - a date and a place side by side ("born on 7 November 1867 in Warsaw") give a date fact and a
#   place fact; a list of years ("in 2010 and 2011") one fact per year;
# - a nationality before a noun ("is an American actor") gives "is an American" and "is an actor".
# Spans: the words a fact adds. The first fact of a split keeps the shared words before it, the
# others only their own item, so spans of one sentence never overlap.

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
}
PLACE_POSTS: dict[str, set[str]] = {"hi": {"में"}, "ur": {"میں"}, "bn": set(), "ko": set(), "ja": set(), "tr": set()}
# words between a preposition and a year that still belong to the date: connecting words, the
# month names of every offered language from CLDR (Babel), and spellings CLDR does not list
_DATE_LINKS = set("""
of de del le el la il am den der the om em ngày tháng năm tarehe mwaka года году год г সালের সালে তারিখে
""".split())
_MONTH_SPELLINGS = {"setiembre", "sept", "फरवरी", "सितम्बर", "नवम्बर", "दिसम्बर", "मई", "मे", "مه"}
DATE_WORDS = _DATE_LINKS | set(all_month_names()) | _MONTH_SPELLINGS
_DATE_AFTER = DATE_WORDS - {"of", "de", "del", "le", "el", "la", "il", "am", "den", "der", "the", "om", "em", "ngày",
                            "tarehe", "mwaka"}
DATE_PREPS: dict[str, set[str]] = {
    "en": {"on", "in", "since", "from", "during"}, "es": {"el", "en", "desde"}, "fr": {"le", "en", "depuis"},
    "de": {"am", "im", "seit"}, "it": {"il", "nel", "dal"}, "pt": {"em", "no", "desde"},
    "ru": {"в", "с"}, "bg": {"на", "през", "в", "от"}, "el": {"στις", "το", "στο", "τον"},
    "id": {"pada", "tahun"}, "vi": {"vào", "ngày"}, "sw": {"tarehe", "mwaka", "mnamo"},
    "ar": {"في", "عام"}, "fa": {"در"}, "th": {"เมื่อ", "ใน", "วันที่"},
}
DATE_POSTS: dict[str, set[str]] = {"hi": {"को", "में"}, "ur": {"کو", "میں"}, "bn": {"সালে", "তারিখে"},
                                   "ja": {"に"}, "ko": set(), "tr": set()}
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
}
COPULAS = {"is", "was", "are", "were", "es", "fue", "era", "est", "était", "fut", "ist", "war", "è", "fu",
           "é", "foi", "era", "became", "becomes", "remains", "remained", "ήταν", "είναι", "была", "был",
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
_HAN_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
QUOTES = "\"“”«»„"
MAX_ITEM_WORDS = 6
MAX_REFINE_CHARS = 600


def _inside_quotes(text: str, pos: int) -> bool:
    """Whether pos lies inside a quoted title ("The King and I")."""
    before = text[:pos]
    straight = before.count('"') % 2 == 1
    curly = before.count("“") > before.count("”")
    guillemets = before.count("«") > before.count("»")
    return straight or curly or guillemets


def _words(text: str, a: int, b: int) -> list[tuple[str, int, int]]:
    return [(w, s + a, e + a) for w, s, e in words_with_offsets(text[a:b])]


class _Fact:
    """A fact under construction: segments of the sentence printed in order, a carried subject
    (printed first), and the span of the words it adds."""
    __slots__ = ("segs", "prefix", "span")

    def __init__(self, segs, prefix, span):
        self.segs = [s for s in segs if s[1] > s[0]]
        self.prefix = prefix
        self.span = span

    def render(self, text: str) -> str:
        parts = [self.prefix] if self.prefix else []
        for s, e in self.segs:
            s, e = _trim(text, s, e)
            seg = re.sub(r"\s+", " ", re.sub("[" + QUOTES + "()]", "", text[s:e])).strip(" ,")
            if seg:
                parts.append(seg)
        out = ""
        for part in parts:
            if out and not (_HAN_KANA.match(out[-1]) and _HAN_KANA.match(part[0])):
                out += " "
            out += part
        return out


def _refine_mixin():
    """Methods of RuleExtractor that refine a clause into finer facts (kept together here)."""

    def _refine(self, text, a, b, carried, subj_text, subj_span, lang):
        facts = self._refine_region(text, a, b, carried, subj_text, subj_span, lang, depth=0)
        out = []
        for f in facts:
            rendered = f.render(text)
            if rendered:
                s, e = _trim(text, *f.span)
                out.append((rendered, (s, e) if e > s else f.span))
        return out

    def _refine_region(self, text, a, b, carried, subj_text, subj_span, lang, depth):
        a, b = _trim(text, a, b)
        if b <= a:
            return []
        if b - a > MAX_REFINE_CHARS:       # a run-on without punctuation: no finer facts (speed)
            return [_Fact([(a, b)], carried, (a, b))]
        if depth < 3:
            tail = self._trailing_clause(text, a, b, subj_text, carried, lang)
            if tail is not None:
                cut, t0, t_prefix = tail
                head = self._refine_region(text, a, cut, carried, subj_text, subj_span, lang, depth + 1)
                rest = []
                for i, p in enumerate(self._coordinate(text, t0, b, lang, t_prefix)):
                    if i == 0:
                        p = _Piece(p.start, p.end, t_prefix)
                    rest += self._refine_region(text, p.start, p.end, p.subject, subj_text, subj_span, lang,
                                                depth + 1)
                return head + rest
        verb_start = self._verb_start(text, a, b, carried, subj_span, lang)
        inc = self._including(text, a, b, verb_start, carried, lang)
        if inc is not None:
            return inc
        lst = self._np_list(text, a, b, verb_start, carried, lang)
        if lst is not None:
            return lst
        dp = self._date_place(text, a, b, verb_start, carried, lang)
        if dp is not None:
            return dp
        pps = self._pp_split(text, a, b, verb_start, carried, lang)
        if pps is not None:
            return pps
        dem = self._demonym(text, a, b, carried, lang)
        if dem is not None:
            return dem
        return [_Fact([(a, b)], carried, (a, b))]

    # -- where the verb starts: after the subject inside the region, or at once with a carried one
    def _verb_start(self, text, a, b, carried, subj_span, lang):
        if carried:
            return a
        if subj_span is not None and a <= subj_span[0] < subj_span[1] <= b:
            return subj_span[1]
        ws = _words(text, a, b)
        if ws and (ws[0][0].lower() in PRONOUNS or ws[0][0] in PRONOUNS):
            return ws[0][2]
        return a

    # -- trailing relative clause / participial phrase
    def _trailing_clause(self, text, a, b, subj_text, carried, lang):
        seg = text[a:b]
        rel = RELATIVES.get(lang, [])
        about = carried or subj_text
        # ", which ...", ", who ...", ", where ...": the first one after a few words
        if rel:
            alts = "|".join(sorted((re.escape(r) for r in rel), key=len, reverse=True))
            for m in re.finditer(r"[,،，]\s*(" + alts + r")\s", seg, re.IGNORECASE):
                cut = a + m.start()
                word = m.group(1).lower()
                if _n_words(text[a:cut]) < 3 or _n_words(text[a + m.end():b]) < 2:
                    continue
                after_rel = _words(text, a + m.end(), b)
                if lang == "en" and word in ("where", "when"):
                    first = after_rel[0][0]
                    if first.lower() in PRONOUNS or first[:1].isupper():
                        return cut, a + m.end(), None
                    return cut, a + m.end(), about
                if word in ("who", "quien", "quienes", "qui", "который", "которая", "които", "който",
                            "която", "ambaye", "जो", "যিনি", "جو", "الذي", "التي"):
                    return cut, a + m.end(), about
                np = self._antecedent(text, a, cut, lang)
                return cut, a + m.end(), np or about
            if lang == "en" and about:
                # "an American actor who was born ..." (no comma): about the subject
                m = re.search(r"\s(who)\s", seg)
                if m and _n_words(seg[:m.start()]) >= 3 and _n_words(seg[m.end():]) >= 2:
                    return a + m.start(), a + m.end(), about
        # ", a software company that ...": about the name right before the comma
        for m in re.finditer(r"[,،，]\s+(?=(?:a|an|the|un|una|une|ein|eine|uno|um|uma)\s)", seg):
            cut = a + m.start()
            nw = _words(text, a, cut)
            if len(nw) < 3 or _n_words(text[a + m.end():b]) < 2:
                continue
            run = []
            for w, ws0, _we in reversed(nw):
                if w[:1].isupper():
                    run.append(ws0)
                else:
                    break
            if run and len(run) < len(nw):
                return cut, a + m.end(), text[run[-1]:cut].strip()
        # ", appearing in ...", ", born in ...", ", leaving ...": about the subject
        gerund = GERUND.get(lang)
        for m in re.finditer(r"[,،，]\s+", seg):
            cut = a + m.start()
            nxt = _words(text, a + m.end(), b)
            if not nxt or _n_words(text[a:cut]) < 3 or len(nxt) < 2:
                continue
            w = nxt[0][0]
            lw = w.lower()
            if lw in NON_GERUNDS:
                continue
            is_part = (gerund is not None and gerund.match(lw)) or \
                lw in {p.split()[0] for p in PARTICIPLES.get(lang, [])} or \
                (lang == "en" and lw in EN_PARTICIPLE_HEADS)
            if lang == "fr" and lw == "en" and len(nxt) > 1 and gerund and gerund.match(nxt[1][0].lower()):
                is_part = True
            if is_part and about:
                return cut, a + m.end(), about
        return None

    def _antecedent(self, text, a, cut, lang):
        """The noun phrase right before a ', which': from its last determiner, without a trailing
        prepositional phrase of time ("the Fischer Research Laboratory in 1936")."""
        ws = _words(text, a, cut)
        if not ws:
            return None
        start = None
        for idx in range(len(ws) - 1, max(-1, len(ws) - 8), -1):
            lw = ws[idx][0].lower()
            if lw in ARTICLES or lw in {"his", "her", "their", "its"}:
                start = idx
                break
        if start is None:
            return None
        end = len(ws)
        preps = PREPOSITIONS.get(lang, set())
        for idx in range(start + 1, len(ws)):
            if ws[idx][0].lower() in preps and ws[idx][0].lower() != "of":
                end = idx
                break
        if end <= start:
            return None
        return text[ws[start][1]:ws[end - 1][2]]

    # -- "including A, B and C", "such as A and B"
    def _including(self, text, a, b, verb_start, carried, lang):
        kws = INCLUDING.get(lang, [])
        if not kws:
            return None
        alts = "|".join(sorted((re.escape(k) for k in kws), key=len, reverse=True))
        m = re.compile(r"(?<!\w)(?:" + alts + r")(?!\w)", re.IGNORECASE).search(text, verb_start, b)
        if m is None or _n_words(text[verb_start:m.start()]) < 2:
            return None
        k0, k1 = m.start(), m.end()
        if lang == "en" and m.group(0).lower() == "like" and text[k0 - 2:k0].strip() != ",":
            return None
        if _n_words(text[k1:b]) < 1:
            return None
        items = self._split_items(text, k1, b, lang) or [(k1, b)]
        head_end = self._object_start(text, verb_start, k0, lang)
        if m.group(0).lower() in ("such as", "like", "como", "comme", "wie", "come", "как", "като", "όπως",
                                  "seperti", "như", "kama", "مثل", "مانند", "जैसे", "جیسے", "যেমন", "เช่น"):
            hw = _words(text, verb_start, k0)
            preps = PREPOSITIONS.get(lang, set()) - {"of"}
            for idx in range(len(hw) - 1, max(0, len(hw) - 5), -1):
                if hw[idx][0].lower() in preps:
                    head_end = hw[idx][2]
                    break
        out = self._refine_region(text, a, k0, carried, None, None, lang, 3) or [_Fact([(a, k0)], carried, (a, k0))]
        for i0, i1 in items:
            first_item_word = _words(text, i0, i1)[:1]
            h1 = head_end
            if first_item_word and first_item_word[0][0].lower() in PREPOSITIONS.get(lang, set()):
                hw = _words(text, a, head_end)
                if hw and hw[-1][0].lower() in PREPOSITIONS.get(lang, set()):
                    h1 = hw[-1][1]
            if lang in VERB_FINAL:
                out.append(_Fact([(i0, i1), (a, k0)], carried, (i0, i1)))
            else:
                out.append(_Fact([(a, h1), (i0, i1)], carried, (i0, i1)))
        return out

    def _object_start(self, text, v0, end, lang):
        """Where the object of the verb starts: after its first preposition, or at its first
        determiner, whichever comes first; the end when neither."""
        preps = PREPOSITIONS.get(lang, set()) - {"of", "over"}
        ws = _words(text, v0, end)
        for idx, (w, s, e) in enumerate(ws):
            lw = w.lower()
            if idx == 0:
                continue
            if lw in preps:
                return e
            if lw in DETERMINERS or w[:1].isdigit():
                return s
        return ws[1][1] if len(ws) > 1 else end

    def _split_items(self, text, i0, b, lang):
        """Items of a list "A, B, and C" filling [i0, b); None unless it is one."""
        conj = LIST_CONJ.get(lang, [])
        if not conj:
            return None
        alts = "|".join(sorted((re.escape(c) for c in conj), key=len, reverse=True))
        sep = re.compile(r"\s*[,，、،]\s*(?:(?:" + alts + r")\s+)?|\s+(?:" + alts + r")\s+", re.IGNORECASE)
        cuts = [(m.start(), m.end()) for m in sep.finditer(text, i0, b)]
        # a comma inside a date ("May 4, 1990") or in "Hello, Dolly!" is no separator: keep
        # separators whose right side starts with a word, and drop a comma before a year
        cuts = [(s, e) for s, e in cuts if not re.match(r"\d{3,4}(?!\d)", text[e:e + 5])]
        spans = []
        cur = i0
        for s, e in cuts:
            spans.append((cur, s))
            cur = e
        spans.append((cur, b))
        spans = [(s, e) for s, e in (_trim(text, s, e) for s, e in spans) if e > s]
        if len(spans) < 2 or any(_n_words(text[s:e]) > MAX_ITEM_WORDS for s, e in spans[:-1]):
            return None
        return spans

    # -- coordinated noun phrases
    CJK_LIST = {"zh": (r"(?:是|为|担任|身为)", r"(?:和|与|及|、)", r""),
                "ja": (r"(?:は)", r"(?:と|、)", r"(?:であった|である|だった|でした|です)?"),
                "ko": (r"(?:는|은)\s*", r"(?:와|과)\s*", r"(?:였다|이다|였으며|이었다|입니다)?"),
                "th": (r"(?:เป็น)", r"(?:และ)", r"")}

    def _cjk_list(self, text, a, b, carried, lang):
        marker, conj, ending = self.CJK_LIST[lang]
        m = re.search(marker + r"(?P<x>[^，,、。\s]{1,12}?)" + conj + r"(?P<y>[^，,、。]{1,12}?)" + ending + r"$",
                      text[a:b])
        if m is None:
            return None
        x0, x1 = a + m.start("x"), a + m.end("x")
        y0, y1 = a + m.start("y"), a + m.end("y")
        tail = (y1, b)
        return [_Fact([(a, x0), (x0, x1), tail], carried, (a, x1)),
                _Fact([(a, x0), (y0, y1), tail], carried, (y0, b))]

    def _np_list(self, text, a, b, verb_start, carried, lang):
        if lang in self.CJK_LIST:
            return self._cjk_list(text, a, b, carried, lang)
        conj = LIST_CONJ.get(lang, [])
        if not conj or verb_start >= b:
            return None
        alts = "|".join(sorted((re.escape(c) for c in conj), key=len, reverse=True))
        cj = list(re.finditer(r"(?<![\w])(?:" + alts + r")(?![\w])", text[verb_start:b], re.IGNORECASE))
        if not cj:
            return None
        m = cj[0]
        c0, c1 = verb_start + m.start(), verb_start + m.end()
        if lang not in ("zh", "ja", "th") and not (text[c0 - 1:c0].isspace() and text[c1:c1 + 1].isspace()):
            return None
        # the words after the conjunction: the last item
        after = _words(text, c1, b)
        if not after:
            return None
        lw = after[0][0].lower()
        if lw in PRONOUNS or (lang == "en" and (lw in EN_VERBS or lw.endswith("ly") or lw.endswith("ing")
                                                 or (lw.endswith("ed") and lw not in {"red"}))):
            return None
        # items before the conjunction, separated by commas
        before_seps = [mm for mm in re.finditer(r"\s*[,，、،]\s*(?!\d{3,4}(?!\d))", text[verb_start:c0])]
        boundary = self._item_boundary(text, verb_start, c0, lang,
                                       verb_start + before_seps[0].start() if before_seps else c0)
        if boundary is None:
            return None
        items = []
        cur = boundary
        for mm in before_seps:
            s = verb_start + mm.start()
            if s < boundary:
                continue
            items.append((cur, s))
            cur = verb_start + mm.end()
        items.append((cur, c0))
        # the last item: to the end, or (verb-final languages) up to the final verb
        if lang in VERB_FINAL and len(after) == 1:
            items.append((c1, b))
            tail = (b, b)
        elif lang in VERB_FINAL:
            last_end = after[min(len(after) - 2, 3)][2]
            items.append((c1, last_end))
            tail = (last_end, b)
        else:
            last_end = b
            # stop the last item at a comma, or at a preposition after its first words
            mm = re.search(r"[,，、،;]", text[c1:b])
            if mm:
                last_end = c1 + mm.start()
            items.append((c1, last_end))
            tail = (last_end, b)
        items = [(s, e) for s, e in (_trim(text, s, e) for s, e in items) if e > s]
        if len(items) < 2 or _inside_quotes(text, c0):
            return None
        if any(_n_words(text[s:e]) > MAX_ITEM_WORDS for s, e in items[:-1]):
            return None
        if _n_words(text[items[-1][0]:items[-1][1]]) > MAX_ITEM_WORDS + 2:
            return None
        # numbers with numbers, words with words ("in 2010 and 2011"; not "1903 and won")
        out = []
        for idx, (s, e) in enumerate(items):
            if lang in VERB_FINAL:
                segs = [(a, boundary), (s, e), tail]
                span = (a if idx == 0 else s, e)
            else:
                segs = [(a, boundary), (s, e)] + ([tail] if idx == len(items) - 1 else [])
                span = (a if idx == 0 else s, e if idx < len(items) - 1 else b)
            out.append(_Fact(segs, carried, span))
        # the first item's fact may split further into a date and a place
        if tail[1] > tail[0] and lang not in VERB_FINAL and content_tokens(text[tail[0]:tail[1]]):
            pass
        return out

    def _item_boundary(self, text, v0, c0, lang, first_sep):
        """Where the first list item starts: after the last preposition or verb before the first
        separator, or at a determiner; None when the list has no head (it is the subject)."""
        preps = PREPOSITIONS.get(lang, set())
        ws = _words(text, v0, first_sep)
        if not ws:
            return None
        q = re.search(r"[\"“«„][^\"“”«»„]*[\"”»]?\s*$", text[v0:first_sep])
        if q is not None and q.start() > 0:
            return v0 + q.start()      # a quoted title is the first item
        for idx in range(len(ws) - 1, -1, -1):
            w, s, e = ws[idx]
            lw = w.lower()
            if lw in preps and lw != "of":
                return e if idx < len(ws) - 1 else None
            if lw in ARTICLES or lw in {"his", "her", "their", "its", "several", "numerous", "various", "many"}:
                if idx == 0 and v0 == ws[0][1] and not self._after_verb(text, v0):
                    return None
                if idx > 0 and ws[idx - 1][0].lower() in preps | ARTICLES:
                    continue
                return s
            if lw in COPULAS or lw in EN_VERBS or (lang == "en" and lw.endswith("ed") and len(lw) > 3):
                return e if idx < len(ws) - 1 else None
            if lw in PRONOUNS:
                return e if idx < len(ws) - 1 else None
            if _n_words(text[s:first_sep]) > MAX_ITEM_WORDS:
                return None
        if lang in VERB_FINAL and v0 > 0:
            return ws[0][1]
        if v0 < first_sep and self._after_verb(text, v0):
            return ws[1][1] if len(ws) > 1 else None
        return None

    @staticmethod
    def _after_verb(text, v0):
        return v0 > 0 and text[:v0].strip() != ""

    # -- a date next to a place
    _YEAR = re.compile(r"(?<!\d)\d{3,4}(?!\d)(?:\s?(?:AD|BC|BCE|CE))?(?:年|년)?")

    def _date_place(self, text, a, b, v0, carried, lang):
        ws = _words(text, v0, b)
        if len(ws) < 3:
            return None
        for m in self._YEAR.finditer(text, v0, b):
            d0, d1 = self._date_phrase(text, ws, m.start(), m.end(), lang)
            if d0 is None:
                continue
            p = self._place_phrase(text, ws, d0, d1, b, lang)
            if p is None:
                continue
            p0, p1 = p
            first, second = ((d0, d1), (p0, p1)) if d0 < p0 else ((p0, p1), (d0, d1))
            # fact 1: everything but the second phrase; fact 2: everything but the first
            f1 = _Fact([(a, second[0]), (second[1], b)], carried, (a, first[1]))
            f2 = _Fact([(a, first[0]), (first[1], b)], carried, (second[0], b))
            return [f1, f2]
        return None

    def _date_phrase(self, text, ws, y0, y1, lang):
        idx = next((i for i, (_w, s, _e) in enumerate(ws) if s >= y0), None)
        if idx is None:
            return None, None
        end_idx = idx
        while end_idx + 1 < len(ws) and ws[end_idx + 1][2] <= y1:
            end_idx += 1
        start = ws[idx][1]
        end = max(y1, ws[end_idx][2])
        preps = DATE_PREPS.get(lang, set())
        cjk = lang in ("zh", "ja", "ko")
        found = False
        j = idx - 1
        while j >= 0 and idx - j <= 6:
            w = ws[j][0].lower()
            if w in preps:
                start = ws[j][1]
                found = True
                break
            if w.isdigit() or w in DATE_WORDS or w.rstrip(".") in DATE_WORDS or (cjk and w in "年月日"):
                start = ws[j][1]
                j -= 1
                continue
            break
        posts = DATE_POSTS.get(lang, set())
        k = end_idx + 1
        while k < len(ws) and (ws[k][0].isdigit() or ws[k][0] in "年月日년월일" or ws[k][0].lower() in _DATE_AFTER
                               or ws[k][0].rstrip("일월") .isdigit()):
            end = ws[k][2]
            k += 1
        if k < len(ws) and ws[k][0] in posts:
            end = ws[k][2]
            found = True
        if not found and lang not in ("zh", "ja", "ko", "tr", "hi", "ur", "bn", "ru", "bg", "th", "el"):
            return None, None
        return start, end

    def _place_phrase(self, text, ws, d0, d1, b, lang):
        """A place phrase right before or after the date: a place preposition and a name (cased
        scripts: capitalised words, with ", Region" parts)."""
        preps = PLACE_PREPS.get(lang, set())
        posts = PLACE_POSTS.get(lang, set())
        cased = any(w[:1].isupper() for w, _s, _e in ws)
        after = [w for w in ws if w[1] >= d1]
        before = [w for w in ws if w[2] <= d0]
        gap = lambda s, e: re.fullmatch(r"[\s,，、.]*", text[s:e]) is not None
        # after the date
        if after and gap(d1, after[0][1]) and after[0][0].lower() in preps and len(after) > 1:
            names = self._name_run(text, after[1:], cased, lang)
            if names is not None:
                return after[0][1], names
        if lang in ("zh",):
            m = re.search(r"[于在]", text[d1:b])
            if m:
                end = re.search(r"[，,。；]|$", text[d1 + m.end():b])
                return d1 + m.start(), d1 + m.end() + end.start()
        if lang in ("ja",) and after:
            m = re.match(r"\s*([\u30a0-\u30ff\u4e00-\u9fff]+)で", text[d1:b])
            if m:
                return d1 + m.start(1), d1 + m.end()
        if lang == "ko":
            m = re.match(r"\s*(\S+에서)", text[d1:b])
            if m:
                return d1 + m.start(1), d1 + m.end(1)
        if lang == "th":
            m = re.match(r"\s*((?:ที่|ใน)\S+)", text[d1:b])
            if m:
                return d1 + m.start(1), d1 + m.end(1)
        if lang == "tr" and after and re.search(r"['’](?:da|de|ta|te)$", after[0][0]):
            return after[0][1], after[0][2]
        if lang == "bn" and after and re.search(r"(?:তে|য়|ে)$", after[0][0]) and not after[0][0][0].isdigit():
            return after[0][1], after[0][2]
        if posts:
            for i, w in enumerate(after[:4]):
                if w[0] in posts and i > 0:
                    return after[0][1], w[2]
        # before the date
        if before and gap(before[-1][2], d0):
            for i in range(len(before) - 1, max(-1, len(before) - 6), -1):
                if before[i][0].lower() in preps and i < len(before) - 1:
                    run = before[i + 1:]
                    if not cased or all(w[0][:1].isupper() for w in run):
                        return before[i][1], before[-1][2]
                    break
        return None

    def _name_run(self, text, ws, cased, lang):
        """End of a place name starting at ws[0]: capitalised words, also across ', ' (Pensacola,
        Florida); caseless scripts: up to the next comma or preposition."""
        if cased and not ws[0][0][:1].isupper():
            return None
        end = ws[0][2]
        preps = PREPOSITIONS.get(lang, set())
        for w, s, e in ws[1:]:
            between = text[end:s]
            if cased:
                if w[:1].isupper() and re.fullmatch(r"\s*,?\s*", between):
                    end = e
                    continue
                if w.lower() in {"de", "del", "di", "da", "upon", "on"} and between.strip() == "":
                    continue
                break
            if "," in between or w.lower() in preps:
                break
            end = e
        return end

    # -- "received his Ph.D. in physics from Harvard in 2001": one fact per prepositional phrase
    PP_SPLIT = {"en": {"in", "from", "at", "on", "during", "since", "until", "as", "with", "by"},
                "es": {"en", "desde", "como", "con", "por"}, "fr": {"à", "en", "depuis", "comme", "avec", "par"},
                "de": {"in", "im", "am", "seit", "als", "mit", "von"}, "it": {"in", "a", "nel", "dal", "come", "con"},
                "pt": {"em", "no", "na", "desde", "como", "com"}}

    def _pp_split(self, text, a, b, v0, carried, lang):
        preps = self.PP_SPLIT.get(lang)
        if not preps:
            return None
        ws = _words(text, v0, b)
        starts = [i for i, (w, _s, _e) in enumerate(ws) if w in preps and i > 0]
        if len(starts) < 2 or starts[0] < 2 if not carried else len(starts) < 2 or starts[0] < 1:
            return None
        bounds = [ws[i][1] for i in starts] + [b]
        pps = [(bounds[i], bounds[i + 1]) for i in range(len(starts))]
        if any(_n_words(text[p0:p1]) < 2 or _n_words(text[p0:p1]) > 8 for p0, p1 in pps):
            return None
        # the phrases must hold a name or a number (not "in silent films in the 1910s" adverbs)
        if not all(re.search(r"\d", text[p0:p1]) or any(w[:1].isupper() for w, _s, _e in _words(text, p0, p1)[1:])
                   or _words(text, p0, p1)[0][0] == "as" for p0, p1 in pps):
            return None
        head = (a, bounds[0])
        out = []
        for idx, (p0, p1) in enumerate(pps):
            out.append(_Fact([head, (p0, p1)], carried, (a if idx == 0 else p0, p1)))
        return out

    # -- "is an American actor" -> "is an American" + "is an actor"
    def _demonym(self, text, a, b, carried, lang):
        if lang != "en":
            return None
        m = re.search(r"\b(is|was|are|were|became)\s+(an?|the)\s+((?:[A-Z][\w-]+)(?:-[A-Z][\w-]+)?)\s+(?=[a-z])",
                      text[a:b])
        if m is None:
            return None
        name_end = a + m.end(3)
        rest0 = a + m.end()
        if _n_words(text[rest0:b]) < 1:
            return None
        art = (a + m.start(2), a + m.end(2))
        return [_Fact([(a, name_end)], carried, (a, name_end)),
                _Fact([(a, art[1]), (rest0, b)], carried, (rest0, b))]

    return {k: v for k, v in locals().items() if not k.startswith("__")}


for _name, _fn in _refine_mixin().items():
    setattr(RuleExtractor, _name, _fn)
