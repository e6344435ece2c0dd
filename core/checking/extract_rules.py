"""Rule-based multilingual atomic-fact extractor: the offline default.

It works on one sentence at a time and never writes a word that is not in the sentence:

1. An introductory phrase ("In 1963, ...") stays with the main clause; the sentence's subject is the
   entity's name, a pronoun, or the leading capitalised words after it.
2. Relative clauses and appositives set off by commas (", who was born in Warsaw,", ", a Polish
   physicist,") become facts of their own about the word they follow (the subject).
3. The rest splits at semicolons and at coordinators that join two clauses ("and won", "y ganó",
   "et a reçu", "और"), per-language lists; a clause without a subject of its own gets the sentence's
   subject carried over ("He studied physics and won ..." -> "He won ...").
4. Every fact keeps its sentence index and a span: the clause's own words (a carried subject is not
   part of the span, so spans of one sentence do not overlap).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..protocols import ExtractedFact, Sentence, Stage
from .segment import CLOSERS, TERMINATORS
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
    "en": ["born", "best known for", "known for"], "es": ["nacido", "nacida", "conocido por", "conocida por"],
    "fr": ["né", "née", "connu pour", "connue pour"], "it": ["nato", "nata", "noto per", "nota per"],
    "pt": ["nascido", "nascida", "conhecido por", "conhecida por"], "de": ["geboren"],
}
AUXILIARIES = {"was", "is", "were", "are", "been", "be", "being", "also", "fue", "es", "era", "ha", "sido",
               "est", "était", "été", "a", "è", "era", "stato", "stata", "foi", "é", "wurde", "ist", "war",
               "well", "widely", "not", "first", "later"}

INTRO_MAX_WORDS = 6
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


def _close_quote(item: str) -> str:
    """A title cut before its closing mark ('"King of New York' from '"King of New York,"') gets the
    mark back (the sentence has it after the comma)."""
    pairs = {'"': '"', "“": "”", "«": "»"}
    if item[:1] in pairs and not item.endswith(pairs[item[0]]) and item.count(item[0]) == 1:
        return item + pairs[item[0]]
    return item


def _phrase_regex(words: list[str]) -> re.Pattern | None:
    if not words:
        return None
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w])(?:" + "|".join(alts) + r")(?![\w])", re.IGNORECASE)


class RuleExtractor(Stage):
    """Clause splitting with subject carry-over. `name` and `version` go into session configs."""

    name = "rules"
    version = "1"

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
            if b <= a:
                continue
            own = text[a:b]
            if not content_tokens(own):
                continue
            listed = self._list_items(text, a, b, lang)
            if listed is not None:
                (hs, he), items = listed
                parts = [(f"{text[hs:he]} {_close_quote(text[i0:i1])}", (hs, i1)) for i0, i1 in items
                         if content_tokens(text[i0:i1])]
            else:
                parts = [(own, (a, b))]
            for own_text, (x0, x1) in parts:
                if p.subject and is_cjk_char(p.subject[-1:] or " ") and is_cjk_char(own_text[:1]):
                    fact_text = p.subject + own_text
                else:
                    fact_text = f"{p.subject} {own_text}" if p.subject else own_text
                key = fact_text.lower()
                if key in seen:
                    continue
                seen.add(key)
                facts.append(ExtractedFact(text=fact_text, span=(base + x0, base + x1)))
        if not facts:
            facts.append(ExtractedFact(text=text[s0:e0], span=(base + s0, base + e0)))
        return facts

    # ----------------------------------------------------------------- lists

    def _list_items(self, text: str, a: int, b: int, lang: str):
        """A list of names or titles ending the clause ("worked with A, B, and C"): the head
        ("worked with") and the items' spans, or None. Items are short and start with a capital, a
        digit or a quotation mark; two items only when joined by the coordinator."""
        conj = [w for w in COORDINATORS.get(lang, [])[:1] + (["or"] if lang == "en" else [])]
        if not conj:
            return None
        seg = text[a:b]
        alt = "|".join(re.escape(c) for c in conj)
        sep = re.compile(r",[\"”]?\s+(?:(?:" + alt + r")\s+)?|[\"”]?\s+(?:" + alt + r")\s+")
        cuts = [(m.start(), m.end()) for m in sep.finditer(seg)]
        if not cuts:
            return None
        # walk back from the end: items between separators
        items: list[tuple[int, int]] = []
        end = len(seg)
        used_conj = False
        for cs, ce in reversed(cuts):
            item = seg[ce:end]
            if not self._item_like(item):
                break
            items.append((ce, end))
            if re.search(r"(?:^|\s)(?:" + alt + r")\s*$", seg[cs:ce]):
                used_conj = True
            end = cs
        if not items or not used_conj:
            return None
        # the first item is the tail of the head segment: a quoted title or capitalised words
        head_seg = seg[:end]
        m = re.search(r"[\"“«][^\"“”«»]{1,80}[\"”»]?\s*$", head_seg)
        if m is None:
            m = re.search(r"(?:(?<=\s)|^)(?:[A-Z0-9ÀÁÂÉÈÍÓÚÜÑÇ][\w'’.-]*\s*){1,5}$", head_seg)
        if m is None or m.start() == 0:
            return None
        first = (m.start(), len(head_seg.rstrip()))
        items.append(first)
        items.reverse()
        if len(items) < 3 and not all(seg[i0:i1][:1].isupper() or seg[i0:i1][:1] in "\"“«" for i0, i1 in items):
            return None
        head_end = len(seg[:m.start()].rstrip())
        if _n_words(seg[:head_end]) < 2:
            return None
        spans = []
        for i0, i1 in items:
            x0, x1 = _trim(text, a + i0, a + i1)
            # keep quotation marks around titles
            if x0 > a and text[x0 - 1] in "\"“«":
                x0 -= 1
            if x1 < b and text[x1] in "\"”»":
                x1 += 1
            spans.append((x0, x1))
        return (a, a + head_end), spans

    @staticmethod
    def _item_like(item: str) -> bool:
        t = item.strip().strip(",")
        if not t or _n_words(t) > 6:
            return False
        return t[:1].isupper() or t[:1].isdigit() or t[:1] in "\"“«"

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
            if not (w0 in STOPWORDS or w0[:1].isdigit()):
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
            return low in EN_VERBS or (low.endswith("ed") and len(low) > 3)
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
