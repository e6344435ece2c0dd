"""A fact that says nothing but values the slot checks agreed (a name, a relation word, a date) is
supported by them, in every script."""
from __future__ import annotations

import functools
import re
from ..lexicon import rule_words as rw
from ..slots.crossnames import han_name_spans, names_entity, same_name_word, sounds_like
from ..slots.check import SlotReport
from ..slots.values import relation_words
from ..slots.places import relations_in
from ..slots.read import text_values
from ..text.textutil import (NEGATIONS, SPACELESS, STOPWORDS, fold_accents, han_simplified, is_cjk_char,
                       words_with_offsets)
from .marks import _REL_WORDS


def _relation_vocab() -> set[str]:
    global _REL_WORDS
    if _REL_WORDS is None:
        _REL_WORDS = {w for rel in relation_words().values() for ws in rel.values() for w in ws}
    return _REL_WORDS


_AUX = set("""was is were be been has had have did does got get wurde ist war wird hat hatte est été était
a fut es fue era ha sido è stato stata foi é era был была было были oldu idi
हुआ हुई हुए हुईं ہوا ہوئی ہوئے ہوئیں تھیں شد""".split())


def _stem_len(word: str) -> int:
    """The letters a relation word needs to match the start of a longer word: 4, or 2 in a script whose
    letters are syllables (Hangul "태어났" in "태어났다")."""
    return 2 if _SYLLABIC.search(word) else 4


_SYLLABIC = re.compile(r"[\uac00-\ud7af]")

# "year" after a year ("умер в 1907 году", "1938 yılında öldü", "starb im Jahr 1955", "توفي عام 1907")
_YEAR_WORDS = set("""year году года год г jahr jahre año anno ano année an yılında yılı roku rok évben vuonna
metais năm tahun taon سنة عام سال""".split())


def _only_slots(fact: str, lang: str, entity: str, rep: SlotReport) -> bool:
    """The fact says nothing but the entity, relation words, function words and the values that
    agreed ("Marie Curie was born in 1867.")."""
    if _negated(fact):
        return False        # rules r24: "Marie Curie was not born in Warsaw" agrees on Warsaw and says the opposite
    vals = text_values(fact, lang, entity).values
    prize = {"won"} if any(w.startswith("Nobel") for _a, _b, w in rep.stated) else set()
    if relations_in(fact, lang) - {v.rel for v in vals} - prize:
        return False        # rules r25: a relation with no value of its own ("born in Warsaw and died there");
                            # r29: a stated Nobel Prize is what "won" was won
    spans = [(v.start, v.end) for v in vals] + [(a, b) for a, b, _w in rep.stated]
    rel = _relation_vocab()
    if lang in SPACELESS:
        if rep.stated:       # rules r27: "マリ・キュリーは物理学者であった", "居里夫人是一位物理学家"
            spans += [m.span() for m in _SPACELESS_STATEMENT.finditer(fact)]
        return _only_slots_spaceless(fact, entity, spans)
    ent = {w.lower() for w, _a, _b in words_with_offsets(entity)}
    ent |= {w.lower() for w in entity.split()}         # a Korean name's words, not its syllables ("마리 퀴리")
    function = _function_words(lang) | (_statement_words(lang) if rep.stated else frozenset())
    low = fact.lower()       # a relation of several words ("sinh tại", "انتقال کر گئے") said as one
    spans += [(m.start(), m.end()) for r in _multiword_relations() if r in low for m in re.finditer(re.escape(r), low)]
    if _SPACED_SYLLABLES.search(fact):
        return all(_piece_says_nothing(p, ent, function, rel) for p in _pieces(fact, spans))
    for w, a, b in words_with_offsets(fact):
        lw = w.lower()
        if any(a < e and s < b for s, e in spans):
            continue
        if lw in ent or lw in STOPWORDS or lw in _AUX or re.fullmatch(r"\d+", lw):
            continue
        if lw in function or any(_names_entity(part, ent) or part in ent for part in lw.split("-")):
            continue
        if sounds_like(w, entity):
            continue        # rules r24: "Kiuri" for "Curie" (lt), by its consonants
        if lw in rel or any(len(r) >= _stem_len(r) and lw.startswith(r) for r in rel):
            continue
        if lw in {"am", "on", "le", "el", "à", "en", "in", "im", "a", "de", "del", "the", "of", "geboren",
                  "gestorben", "est", "née", "né"} or lw in _YEAR_WORDS:
            continue
        return False
    return True


# rules r27: what a statement of occupation or nationality says besides its concept words: copulas,
# articles, "one", "and", and Korean and Thai copulas and particles left once the words are taken out
_STATEMENT_WORDS = {
    "el": "ήταν είναι ένας ένα μια μία ο η το και επίσης αυτή αυτός με",
    "uk": "був була було є і й та також вона він",
    "bg": "е беше бил била и също тя той",
    "sr": "је био била било и такође она он",
    "he": "היה הייתה היתה הוא היא גם",
    "ar": "كان كانت هو هي و أيضا أيضاً",
    "hi": "एक थीं थी था थे है हैं और की का के भी वह वे",
    "tr": "bir ve idi ayrıca da de o",
    "ru": "и также она он",
    "th": "เป็น และ ชาว คน หนึ่ง ด้วย เธอ เขา",
    "ko": "이다 였다 이었다 이자 이며 였으며 및 는 은 의 그녀는 그는 또한",
}
_SPACELESS_STATEMENT = re.compile(
    r"であった|である|だった|であり|でした|です|および|及び|一位|一名|一个|一個|著名|[とのは、，]"
)


@functools.lru_cache(maxsize=64)
def _statement_words(lang: str) -> frozenset[str]:
    from ..slots.nationality import ARTICLES, COPULAS
    return frozenset(_STATEMENT_WORDS.get(lang, "").split()) | COPULAS | ARTICLES


# Korean and Thai space their phrases, not their syllables (which words_with_offsets takes one by one)
_SPACED_SYLLABLES = re.compile(r"[\uac00-\ud7af\u0e00-\u0e7f]")
_PHRASE = re.compile(r"[^\s.,;:!?()\[\]\"'“”«»。]+")
# Korean particles that add nothing to a birth or death ("은/는" topic, "에서" in; not "까지", until), the
# endings of a past tense after a relation's stem ("태어났다", "사망했다"), and "she"/"he" as the subject ("그녀는")
_KO_EMPTY = frozenset(
    (
        "은 는 이 가 을 를 에 에서 의 으로 로 와 과 께서 다 으며 고 습니다 "
        "했다 하였다 했으며 했고 그녀는 그는 그녀가 그가"
    ).split()
)


def _pieces(fact: str, spans: list[tuple[int, int]]) -> list[str]:
    """The phrases of a Korean or Thai fact, each without the values and relations inside it
    ("1867년에" -> "에", "เกิดที่วอร์ซอ" -> "เกิดที่")."""
    out = []
    for m in _PHRASE.finditer(fact):
        a, b = m.span()
        pos = a
        for s, e in sorted((max(s, a), min(e, b)) for s, e in spans if s < b and a < e):
            if s > pos:
                out.append(fact[pos:s])
            pos = max(pos, e)
        if pos < b:
            out.append(fact[pos:b])
    return out


def _piece_says_nothing(piece: str, ent: set[str], function: frozenset[str], rel: set[str]) -> bool:
    """A phrase of a Korean or Thai fact that is the entity's name, a function word, or a relation word
    with a particle or a tense ending after it ("태어났다", "เกิดที่")."""
    p = piece.lower()
    empty = function | _KO_EMPTY | _YEAR_WORDS
    if p in empty or p in STOPWORDS or p in _AUX or p.isdigit() or _names_entity(p, ent):
        return True
    return any(len(r) >= 2 and p.startswith(r) and (p[len(r):] in empty or not p[len(r):]) for r in rel)


# Korean "안" and "못" negate as words before a verb, and are syllables of many other words ("안나", Anna)
_KO_NOT = ("안", "못")
_SPACELESS_NEGATIONS = re.compile("|".join(sorted((n for n in NEGATIONS if any(map(is_cjk_char, n))
                                                   and n not in _KO_NOT), key=len, reverse=True))
                                  + "|ない|なかっ|ませ|않|아니")


def _negated(fact: str) -> bool:
    """Whether a fact says no: a negation word ("not", "nie", "لم"), or in Chinese, Japanese, Korean and Thai
    a negation anywhere in its characters ("不", "生まれなかった", "ไม่ได้")."""
    if any((w.lower() in NEGATIONS and w not in _KO_NOT) or w.lower() in _MORE_NEGATIONS
           for w, _a, _b in words_with_offsets(fact)):
        return True
    if re.search(r"(?<![\uac00-\ud7af])[안못]\s", fact):
        return True          # Korean "안 태어났다", "못 받았다"
    return _SPACELESS_NEGATIONS.search(fact) is not None


# negations the shared list lacks: Polish, Czech, Romanian, Hebrew, Persian, Indonesian ...
_MORE_NEGATIONS = frozenset("""nie ne nu nem ei eikä ez nicio לא אין نه نمی نبود tidak bukan belum değil değildi
değildir""".split())


@functools.lru_cache(maxsize=1)
def _multiword_relations() -> tuple[str, ...]:
    return tuple(r for r in _relation_vocab() if " " in r)


@functools.lru_cache(maxsize=64)
def _function_words(lang: str) -> frozenset[str]:
    """The words of `lang` that say nothing of their own in a fact about a birth or death: the rule
    extractor's prepositions, copulas, clause openers, verb particles and pronouns of that language
    ("urodziła się w", "s-a născut la", "alizaliwa huko", "је рођена у")."""
    tables = (rw.PREPOSITIONS, rw.PLACE_PREPS, rw.DATE_PREPS, rw.LANG_COPULAS, rw.CLAUSE_OPENERS,
              rw.VERB_PARTICLES, rw.LANG_PRONOUNS, rw.LIST_PREPOSITIONS)
    return frozenset(w for t in tables for w in t.get(lang, ())) | frozenset(rw.COPULAS)


def _names_entity(word: str, ent: set[str]) -> bool:
    """Whether a word of the fact is the entity's name in another spelling: its first four letters are a
    name word's, but for one letter after the first, compared in Latin letters (Cyrillic and Greek through
    the initials' map): "Maria" for "Marie", "Марија" for "Marie", "Кири" for "Curie"."""
    if any(same_name_word(word, e) for e in ent):
        return True         # rules r24: in another script, by sound ("마리", "퀴리는" for "Marie Curie")
    w = fold_accents(word).translate(_INITIAL_MAP)
    if len(w) < 4:
        return False
    for e in ent:
        f = fold_accents(e).translate(_INITIAL_MAP)
        if len(f) >= 4 and w[0] == f[0] and sum(x != y for x, y in zip(w[1:4], f[1:4])) <= 1:
            return True
    return False


# characters that say nothing in a Chinese or Japanese fact about a birth or death: pronouns, "in/at",
# "was", "year/month/day", "then", "and"; Japanese past endings ("生まれた", "生まれました"; a negation
# keeps its "な" or "ん")
_HAN_EMPTY = re.compile(r"[她他其于於在是为為曾的了年月日并並及和与與之はにでがをのたましす]")


_KANA_RUN = re.compile(r"[\u30a1-\u30ff]+(?:・[\u30a1-\u30ff]+)*")


@functools.lru_cache(maxsize=1)
def _relation_vocab_simplified() -> frozenset[str]:
    """The relation words in simplified Chinese characters, read once."""
    return frozenset(han_simplified(w) for w in _relation_vocab())


def _only_slots_spaceless(fact: str, entity: str, spans: list[tuple[int, int]]) -> bool:
    """`_only_slots` where words are not spaced ("她于1981年出生"): what is left once the values, the
    entity's name (in either script), the relation words and _HAN_EMPTY's characters are taken out is
    punctuation only."""
    text = han_simplified(fact)
    taken = list(spans)
    for w in {*_relation_vocab_simplified(), han_simplified(entity)}:
        taken += [(m.start(), m.end()) for m in re.finditer(re.escape(w), text)] if w else []
    # rules r24: the name in katakana ("マリ・キュリー" for "Marie Curie"), every part of it the entity's,
    # or in Chinese characters ("居里夫人", "玛丽·居里")
    taken += [m.span() for m in _KANA_RUN.finditer(text)
              if all(names_entity(p, entity) for p in m.group().split("・") if p.strip("ー"))]
    taken += han_name_spans(text, entity)
    chars = list(text)
    for a, b in taken:       # every occurrence blanked at once: "出生" and "生于" overlap in "出生于"
        chars[a:b] = " " * (b - a)
    return not re.search(r"\w", _HAN_EMPTY.sub(" ", "".join(chars)))


# a name's first letter in Latin (Cyrillic and Greek transliterated), with the letters that change
# between languages' spellings of one name made one: Warsaw/Varsovie/Варшава, Köln/Cologne, Kyiv/Киев
_INITIAL_MAP = str.maketrans({"w": "v", "k": "c", "q": "c", "y": "i", "j": "i", "ı": "i",
                              "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "z",
                              "з": "z", "и": "i", "й": "i", "к": "c", "л": "l", "м": "m", "н": "n", "о": "o",
                              "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "c",
                              "ч": "c", "ш": "s", "щ": "s", "э": "e", "ю": "i", "я": "i", "і": "i", "ї": "i",
                              "α": "a", "β": "v", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "i", "θ": "t",
                              "ι": "i", "κ": "c", "λ": "l", "μ": "m", "ν": "n", "ξ": "x", "ο": "o", "π": "p",
                              "ρ": "r", "σ": "s", "τ": "t", "υ": "i", "φ": "f", "χ": "h", "ψ": "p", "ω": "o"})


def _initial(name: str) -> str:
    """The first letter class of a name in a Latin, Cyrillic or Greek script; "" in others (Arabic,
    Chinese ...), where only the embedder can say."""
    letters = [c for c in fold_accents(name) if c.isalpha()]
    if not letters:
        return ""
    c = letters[0].translate(_INITIAL_MAP)
    return c if "a" <= c <= "z" else ""
