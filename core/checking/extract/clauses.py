"""Clause splitting for the rule extractor: the span helpers and the split of a clause at
semicolons, coordinators and participles, with the subject carried onto clauses without one."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..lexicon.rule_words import (
    AR_PAST_VERBS,
    AR_T_NOUNS,
    ARTICLES,
    AUXILIARIES,
    CLAUSE_OPENERS,
    COORDINATORS,
    DE_CLAUSE_PRONOUNS,
    DE_FINITE,
    DE_NOT_VERBS,
    DE_WEAK_PAST,
    EN_VERBS,
    FINITE_AFTER,
    FINAL_COPULA_AFTER_NAME,
    FINAL_VERB_SHAPES,
    FINITE_SHAPES,
    HAN_KANA,
    MIN_CLAUSE_WORDS,
    NON_GERUNDS,
    PARTICIPLES,
    PREPOSITIONS,
    PRONOUNS,
    QUOTES,
    SHAPE_NEEDS_CLITIC,
    VERB_PARTICLES,
    VERB_SHAPES,
    case_suffixed,
    is_pronoun_in,
)
from ..text.segment import CLOSERS, TERMINATORS
from ..text.textutil import STOPWORDS, is_cjk_char, words_with_offsets

Word = tuple[str, int, int]
Span = tuple[int, int]
_STRIP = " \t\n,;:，；、،؛" + TERMINATORS + CLOSERS + "-–—"


@dataclass
class Piece:
    start: int      # offsets relative to the sentence text
    end: int
    subject: str | None = None   # carried subject text, not part of the span


class Draft:
    """A fact under construction: segments of the sentence printed in order, a carried subject
    (printed first), and the span of the words it adds."""
    __slots__ = ("segs", "prefix", "span")

    def __init__(self, segs: list[Span], prefix: str | None, span: Span) -> None:
        self.segs = [s for s in segs if s[1] > s[0]]
        self.prefix = prefix
        self.span = span

    def render(self, text: str) -> str:
        parts = [self.prefix] if self.prefix else []
        for s, e in self.segs:
            s, e = trim(text, s, e)
            seg = re.sub(r"\s+", " ", re.sub("[" + QUOTES + "()]", "", text[s:e])).strip(" ,")
            if seg:
                parts.append(seg)
        out = ""
        for part in parts:
            if out and not (HAN_KANA.match(out[-1]) and HAN_KANA.match(part[0])):
                out += " "
            out += part
        return out


def trim(text: str, start: int, end: int) -> Span:
    """Shrink [start, end) to drop surrounding spaces, commas, terminators and closers."""
    while start < end and text[start] in _STRIP:
        start += 1
    while end > start and text[end - 1] in _STRIP:
        end -= 1
    return start, end


def n_words(text: str) -> int:
    ws = words_with_offsets(text)
    if any(is_cjk_char(w[0]) for w, _s, _e in ws):
        return max(1, len(ws) // 2)
    return len(ws)


def phrase_regex(words: list[str]) -> re.Pattern[str] | None:
    if not words:
        return None
    alts = sorted((re.escape(w) for w in words), key=len, reverse=True)
    return re.compile(r"(?<![\w])(?:" + "|".join(alts) + r")(?![\w])", re.IGNORECASE)


def words_in(text: str, a: int, b: int) -> list[Word]:
    """The words of text[a:b] with offsets into text."""
    return [(w, s + a, e + a) for w, s, e in words_with_offsets(text[a:b])]


def inside_quotes(text: str, pos: int) -> bool:
    """Whether pos lies inside a quoted title ("The King and I")."""
    before = text[:pos]
    straight = before.count('"') % 2 == 1
    curly = before.count("“") > before.count("”")
    guillemets = before.count("«") > before.count("»")
    return straight or curly or guillemets


def is_pronoun(word: str) -> bool:
    return word.lower() in PRONOUNS or word in PRONOUNS


def coordinate(text: str, start: int, end: int, lang: str, subject: str | None) -> list[Piece]:
    """Split [start, end) into clauses; clauses after the first get `subject` carried over
    unless they name a subject of their own."""
    cuts = sorted(_cuts(text, start, end, lang))
    pieces: list[Piece] = []
    cur = start
    for cs, ce in cuts:
        if cs < cur:
            continue
        right_end = _next_cut(cuts, ce, end, cs)
        if not _clause_pair(text[cur:cs], text[ce:right_end], lang, text[cs:ce]):
            continue
        pieces.append(Piece(cur, cs, subject if pieces else None))
        cur = ce
    pieces.append(Piece(cur, end, subject if pieces else None))
    # the first piece has its own subject; later ones get it carried unless they name one
    out: list[Piece] = []
    for idx, p in enumerate(pieces):
        if idx > 0 and _has_own_subject(text[p.start:p.end], lang):
            p = Piece(p.start, p.end, None)
        out.append(p)
    return out


def _cuts(text: str, start: int, end: int, lang: str) -> list[Span]:
    """Candidate (cut start, clause start) pairs: semicolons, coordinators, participles, and the
    commas that join clauses in some scripts."""
    cuts: list[Span] = []
    for m in re.finditer(r"[;；؛]", text[start:end]):
        cuts.append((start + m.start(), start + m.end()))
    coord = phrase_regex(COORDINATORS.get(lang, []))
    if coord is not None:
        for m in coord.finditer(text, start, end):
            cs, ce = m.start(), m.end()
            if lang not in ("zh", "th") and not (cs == 0 or text[cs - 1] in " ,，、،"):
                continue
            if lang == "tr" and m.group(0).lower() == "ise":
                cs = ce = _topic_start(text, start, cs)     # "..., kışlar ise ...": before the topic
                if cs <= start:
                    continue
                if text[cs - 1] == ",":
                    cs -= 1
            cuts.append((cs, ce))
    part = phrase_regex(PARTICIPLES.get(lang, []))
    if part is not None:
        # "an American actor born on ..." -> "... actor" + "<subject> born on ..." (not after
        # an auxiliary: "was born" stays whole)
        for m in part.finditer(text, start, end):
            if m.group(0)[:1].isupper():
                continue
            if m.start() > 0 and text[m.start() - 1] in "-‐‑":
                continue       # "a German-born physicist", "a Paris-based firm": one word with the one before
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
    if lang == "ar":
        # "and" is a prefix there: "ولدت في وارسو ودرست الفيزياء" -> the clause opens at the verb
        for m in re.finditer(r"(?<!\S)و(\w+)", text[start:end]):
            if _arabic_past_verb(m.group(1)):
                cuts.append((start + m.start(), start + m.start() + 1))
    return cuts


def _arabic_past_verb(word: str) -> bool:
    """A word after the prefix "و" that reads as a verb in the past: a common one (AR_PAST_VERBS), or
    its feminine in "-ت" ("درست", "حصلت"); not a noun with the article, a plural in "-ات", or a
    noun in "-ت" (AR_T_NOUNS)."""
    if word in AR_PAST_VERBS or (word.endswith("ت") and word[:-1] in AR_PAST_VERBS):
        return True
    return (len(word) >= 4 and word.endswith("ت") and not word.startswith("ال") and not word.endswith("ات")
            and word not in AR_T_NOUNS)


def _topic_start(text: str, start: int, ise: int) -> int:
    """Where the topic that Turkish "ise" follows begins ("yazlar sıcak, kışlar ise ılık": "kışlar"):
    after the last comma within the three words before it, else at the word before it."""
    ws = words_in(text, start, ise)[-3:]
    if not ws:
        return start
    comma = text.rfind(",", ws[0][1] - 2 if ws[0][1] - 2 > start else start, ise)
    if comma >= 0:
        return comma + 1
    return ws[-1][1]


# Chinese and Cantonese clauses that name their own subject: a demonstrative with what it points at
# ("这场运动", "该市", "嗰個城市"; not the adverbs "此外", "这时", "此后"), or a personal pronoun in the
# first characters ("此外她还创立了研究所")
_HAN_DEMONSTRATIVE = re.compile(r"(?:这|這|那|该|該|此|呢|嗰)(?![外时時后後前样樣里裡么麼])\w")
_HAN_PRONOUN = re.compile(r"^\w{0,3}?(?:她|他|它|佢|其)")


def _han_own_subject(clause: str) -> bool:
    return bool(_HAN_DEMONSTRATIVE.match(clause) or _HAN_PRONOUN.match(clause))


# a Chinese or Japanese sentence that opens with a date and a comma: the date goes with the clause
# ("1955年12月1日，她在公车上拒绝让座", not the fact "1955年12月1日")
_HAN_DATE_ONLY = re.compile(r"(?:[于於在]\s*)?(?:公元\s*)?\d{1,4}\s*年(?:\s*\d{1,2}\s*月)?(?:\s*\d{1,2}\s*[日号號])?"
                            r"(?:[初底末中])?(?:[时時])?")
COMMA_CLAUSE_LANGS = {"ru", "uk", "be"}     # ", и" joins clauses ("..., и у них было 13 детей")
_TR_PLACE_CASE = re.compile(r"n?[dt][ae]n?$")     # locative or ablative: "kuzeyinde", "Paris'ten"


def _topic_clause(right: str) -> bool:
    """A Turkish clause opening with a topic and "ise" ("kışlar ise ılık ve yağışlıdır")."""
    ws = [w.lower() for w, _s, _e in words_with_offsets(right)[:4]]
    return "ise" in ws[1:] and len(ws) >= 3


def _next_cut(cuts: list[Span], after: int, end: int, current: int = -1) -> int:
    for cs, _ce in cuts:
        if cs >= after and cs > current:
            return cs
    return end


def _clause_pair(left: str, right: str, lang: str, sep: str) -> bool:
    """Whether a cut between `left` and `right` separates two clauses."""
    if lang in ("zh", "ja") and _HAN_DATE_ONLY.fullmatch(left.strip(" ，,、")):
        return False
    if sep.strip() in (";", "；", "؛"):
        return n_words(left) >= 2 and n_words(right) >= 2
    if lang in COMMA_CLAUSE_LANGS and sep.strip().lower() in ("и", "а", "но") and left.rstrip().endswith(",") \
            and n_words(left) >= 2 and n_words(right) >= 2:
        return True        # Russian puts a comma before "и" between clauses, never inside a list
    if lang == "tr" and n_words(left) >= 2 and _topic_clause(right):
        return True        # "yazlar sıcak ve nemli, kışlar ise ılık ve yağışlıdır": two topics, two clauses
    if lang in FINAL_VERB_SHAPES and n_words(left) >= 2 and n_words(right) >= 2 \
            and _ends_in_verb(left, lang) and _ends_in_verb(right, lang):
        return True        # "Fransa'da yaşadı ve orada öldü": each side ends in its own verb
    if lang in FINAL_VERB_SHAPES and not _ends_in_verb(left, lang):
        # the verb comes last: a left side without one is a noun phrase or a subordinate clause
        # ("yasama, yürütme ve yargı arasındaki ...", "... yapılacağını ve ... değişeceğini belirtti")
        return False
    if n_words(left) < MIN_CLAUSE_WORDS or n_words(right) < MIN_CLAUSE_WORDS - 1:
        return False
    rw = words_with_offsets(right)
    if not rw:
        return False
    first = rw[0][0]
    low = first.lower()
    if lang == "de" and (first[:1].isdigit() or low in PREPOSITIONS["de"]):
        # "und 1997/98 erhielt er ...": a date, then the verb; "und seit 1996 Mitglied der ...": no verb,
        # the words share the one before
        return _german_clause([w for w, _s, _e in rw[1:4]])
    if is_pronoun_in(first, lang):
        return True
    if lang == "en":
        if low.endswith("ly") and len(rw) > 1:
            nxt = rw[1][0].lower()
            return nxt in EN_VERBS or nxt.endswith("ed") or nxt.endswith("s")
        return low in EN_VERBS or (low.endswith("ed") and len(low) > 3) or (
            low.endswith("ing") and low not in NON_GERUNDS and len(low) > 5)
    if lang in ("zh", "ja", "th"):
        rest = right.strip(" ，,、。")
        date = _HAN_DATE_ONLY.match(rest) if lang != "th" else None
        if date and len(rest) - date.end() >= 2:
            return True    # "她于1913年出生，1932年结婚": a date and what happened then
        return n_words(right) >= 3
    if low.replace("\u2019", "'") in CLAUSE_OPENERS.get(lang, ()) and len(rw) >= 2:
        return True        # "et a reçu ...", "ed è morto ...": a verb phrase, not a noun phrase
    if lang in VERB_SHAPES:
        return first[:1].islower() and _opens_with_verb([w for w, _s, _e in rw[:3]], lang)
    if low in ARTICLES or low in STOPWORDS and low not in PRONOUNS:
        return False
    if first[:1].isupper() or first[:1].isdigit():
        # "X and Y" lists of names or numbers
        return False
    if lang in FINITE_SHAPES and _list_item(left, rw, lang):
        return False       # "física y química en París": a list item with its place, not a clause
    return n_words(right) >= MIN_CLAUSE_WORDS


def _german_clause(first: list[str]) -> bool:
    """Whether words after a German coordinator open a clause of their own: a finite verb or a
    subject pronoun among the first of them (rule_words.DE_FINITE)."""
    for w in first:
        low = w.lower()
        if low in DE_CLAUSE_PRONOUNS or low in DE_FINITE:
            return True
        if w[:1].islower() and DE_WEAK_PAST.match(low) and not DE_NOT_VERBS.match(low):
            return True
    return False


def _ends_in_verb(clause: str, lang: str) -> bool:
    ws = words_with_offsets(clause)
    if not ws:
        return False
    last = ws[-1][0]
    after_name = FINAL_COPULA_AFTER_NAME.get(lang)
    if after_name is not None and after_name.search(last):
        return True
    return last[:1].islower() and FINAL_VERB_SHAPES[lang].fullmatch(last.lower()) is not None


def _list_item(left: str, rw: list[Word], lang: str) -> bool:
    """Whether the words after a Romance coordinator (`rw`, a lowercase first word followed by a
    preposition) continue a list rather than open a clause (FINITE_SHAPES)."""
    first, nxt = rw[0][0].lower(), rw[1][0].lower() if len(rw) > 1 else ""
    if not (nxt in PREPOSITIONS.get(lang, ()) or nxt in FINITE_AFTER[lang]) or FINITE_SHAPES[lang].match(first):
        return False
    if first[-1:] not in ("a", "e"):
        return True
    lw = words_with_offsets(left)
    before = lw[-1][0].lower() if lw else ""
    return len(before) > 3 and before[-2:] == first[-2:]      # "física y química", not "y propose des"


def _has_own_subject(clause: str, lang: str) -> bool:
    ws = words_with_offsets(clause)
    if not ws:
        return False
    first = ws[0][0]
    if lang in ("zh", "yue"):
        return _han_own_subject(clause.lstrip(" ，,"))
    if lang in COMMA_CLAUSE_LANGS and any(w.lower() in ("он", "она", "оно", "они") for w, _s, _e in ws[:3]):
        return True        # "и там он написал роман"
    if lang == "tr" and _topic_clause(clause):
        # "annesi ise piyanistti": the topic is the subject; "kuzeyinde ise ...": a place, not one
        topic = [w for w, _s, _e in ws[:4]]
        topic = topic[:[w.lower() for w in topic].index("ise")]
        return not _TR_PLACE_CASE.search(topic[-1].lower())
    if case_suffixed(first, lang):
        return False       # Turkish "Sorbonne'da ...": a name with a case ending is not the subject
    return is_pronoun_in(first, lang) or (first[:1].isupper() and first.lower() not in STOPWORDS and len(ws) > 2)


def _opens_with_verb(words: list[str], lang: str) -> bool:
    """Whether a clause in a VERB_SHAPES language opens with a verb of the language's shape (after a
    reflexive or negation, VERB_PARTICLES), followed by its clitic where the language needs one."""
    shape, clitics = VERB_SHAPES[lang], SHAPE_NEEDS_CLITIC.get(lang)
    low = [w.lower() for w in words]
    if len(low) >= 2 and shape.match(f"{low[0]} {low[1]}"):
        return True        # Romanian "a murit"
    k = 1 if len(low) > 1 and low[0] in VERB_PARTICLES.get(lang, ()) else 0
    if k and low[k] in CLAUSE_OPENERS.get(lang, ()):
        return True        # "i es va casar", "i no va tornar"
    if not shape.match(low[k]):
        return False
    return clitics is None or (k + 1 < len(low) and low[k + 1] in clitics)
