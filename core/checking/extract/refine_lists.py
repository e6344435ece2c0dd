"""Lists in a clause: coordinated noun phrases ("an actor and singer", "films, television shows,
and theater productions") give one fact per item, and the items of an "including" list."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .clauses import Draft, Span, inside_quotes, n_words, trim, words_in
from ..lexicon.rule_words import (
    ADJECTIVE_SHAPES,
    ARTICLES,
    CLAUSE_OPENERS,
    CJK_ITEM_CHARS,
    CJK_LIST,
    COPULAS,
    EN_VERBS,
    FINAL_COPULAS,
    FINAL_POSTPOSITIONS,
    LANG_COPULAS,
    LIST_AUX,
    LIST_CONJ,
    LIST_PREPOSITIONS,
    LIST_STOPPERS,
    MAX_ITEM_WORDS,
    PREFIX_CONJ,
    PREPOSITIONS,
    VERB_FINAL,
    VERB_PARTICLES,
    VERB_SHAPES,
    any_pronoun,
)

# the languages whose VERB_SHAPES no noun after a copula takes (Finnish "kemisti" and Lithuanian "chemikė"
# end like their past tenses)
_SHAPED_VERBS = {"cs", "pl", "sr", "eo", "ms", "ro"}
_SHORT_ITEM_WORDS = 3
_HEAD_WORDS = {"his", "her", "their", "its", "several", "numerous", "various", "many"}


def _conj_alternatives(lang: str) -> str | None:
    conj = LIST_CONJ.get(lang, [])
    if not conj:
        return None
    return "|".join(sorted((re.escape(c) for c in conj), key=len, reverse=True))


def split_items(text: str, i0: int, b: int, lang: str) -> list[Span] | None:
    """Items of a list "A, B, and C" filling [i0, b); None unless it is one."""
    alts = _conj_alternatives(lang)
    if alts is None:
        return None
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
    spans = [(s, e) for s, e in (trim(text, s, e) for s, e in spans) if e > s]
    if len(spans) < 2 or any(n_words(text[s:e]) > MAX_ITEM_WORDS for s, e in spans[:-1]):
        return None
    return spans


def _cjk_list(text: str, a: int, b: int, carried: str | None, lang: str) -> list[Draft] | None:
    marker, conj, ending = CJK_LIST[lang]
    n = CJK_ITEM_CHARS.get(lang, 12)
    m = re.search(marker + r"(?P<x>[^，,、。\s]{1,%d}?)" % n + conj + r"(?P<y>[^，,、。]{1,%d}?)" % n + ending + r"$",
                  text[a:b])
    if m is None:
        return None
    x0, x1 = a + m.start("x"), a + m.end("x")
    y0, y1 = a + m.start("y"), a + m.end("y")
    tail = (y1, b)
    return [Draft([(a, x0), (x0, x1), tail], carried, (a, x1)),
            Draft([(a, x0), (y0, y1), tail], carried, (y0, b))]


def np_list(text: str, a: int, b: int, verb_start: int, carried: str | None, lang: str) -> list[Draft] | None:
    """One fact per item of a coordinated noun phrase after the verb; None when there is none."""
    if lang in CJK_LIST:
        return _cjk_list(text, a, b, carried, lang)
    found = _conjunction(text, verb_start, b, lang)
    if found is None:
        return None
    c0, c1 = found
    # the words after the conjunction: the last item
    after = words_in(text, c1, b)
    if not after:
        return None
    lw = after[0][0].lower()
    if any_pronoun(lw, lang):
        return None
    if lang == "en" and (lw in EN_VERBS or lw.endswith(("ly", "ing")) or (lw.endswith("ed") and lw != "red")):
        return None
    # items before the conjunction, separated by commas
    before_seps = list(re.finditer(r"\s*[,，、،]\s*(?!\d{3,4}(?!\d))", text[verb_start:c0]))
    copula = _final_word(text, c1, b, FINAL_COPULAS.get(lang))
    if copula is None and lang in FINAL_COPULAS:
        return None
    final = lang in VERB_FINAL or copula is not None
    shared = copula if copula is not None else _final_word(text, c1, b, FINAL_POSTPOSITIONS.get(lang))
    boundary = _item_boundary(text, verb_start, c0, lang,
                              verb_start + before_seps[0].start() if before_seps else c0, final)
    if boundary is None or _opens_clause(text, boundary, after, lang) or \
            (lang in LIST_STOPPERS and not final and not _after_copula(text, verb_start, boundary, lang)):
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
    last, tail = _last_item(text, c1, b, after, final, shared)
    items.append(last)
    if lang in LIST_STOPPERS and not _short_items(text, items, lang):
        return None
    frame = _ListFrame(a, b, boundary, c0, tail, final, shared is not None)
    return _item_drafts(text, frame, [(s, e) for s, e in (trim(text, s, e) for s, e in items) if e > s],
                        carried, lang)


def _conjunction(text: str, v0: int, b: int, lang: str) -> Span | None:
    """The list's conjunction after the verb: a word between spaces, or Hebrew's prefix "ו" on the
    last item ("פיזיקאית וכימאית"; not "וו", which writes a foreign w)."""
    prefix = PREFIX_CONJ.get(lang)
    if prefix is not None:
        m = re.search(r"(?<=\s)" + prefix + r"(?=[^\W" + prefix + r"]\w)", text[v0:b])
        return None if m is None else (v0 + m.start(), v0 + m.end())
    alts = _conj_alternatives(lang)
    if alts is None or v0 >= b:
        return None
    m = re.search(r"(?<![\w])(?:" + alts + r")(?![\w])", text[v0:b], re.IGNORECASE)
    if m is None:
        return None
    c0, c1 = v0 + m.start(), v0 + m.end()
    if lang not in ("zh", "ja", "th") and not (text[c0 - 1:c0].isspace() and text[c1:c1 + 1].isspace()):
        return None
    return c0, c1


def _short_items(text: str, items: list[Span], lang: str) -> bool:
    """In the languages of LIST_STOPPERS: items of a few words each, none opening with a preposition
    ("byla fyzička a chemička", not "Deo je ..., kao i malajskih tradicija")."""
    preps = LIST_PREPOSITIONS.get(lang, set())
    for s, e in items:
        ws = words_in(text, s, e)
        if not ws or len(ws) > _SHORT_ITEM_WORDS or ws[0][0].lower() in preps:
            return False
    return True


def _after_copula(text: str, v0: int, boundary: int, lang: str) -> bool:
    """Whether the list's head ends in a copula ("byla fyzička a chemička", "va ser física i química"):
    in the languages of LIST_STOPPERS only such a list is read, the shape of a biography's "X was A and
    B"; other verbs' objects there stay whole."""
    head = words_in(text, v0, boundary)
    return bool(head) and (head[-1][0].lower() in LANG_COPULAS.get(lang, ()) or head[-1][0].lower() in COPULAS)


def _opens_clause(text: str, boundary: int, after: list[tuple[str, int, int]], lang: str) -> bool:
    """In the languages of LIST_STOPPERS: whether what looks like a list holds a clause (see there)."""
    stoppers = LIST_STOPPERS.get(lang)
    if stoppers is None:
        return False
    first = after[0][0].lower()
    if first in LANG_COPULAS.get(lang, ()) or first in CLAUSE_OPENERS.get(lang, ()) or first in COPULAS:
        return True
    if len(after) > 1 and after[1][0].lower() in VERB_PARTICLES.get(lang, ()):
        return True
    shape = VERB_SHAPES.get(lang) if lang in _SHAPED_VERBS else None
    if shape is not None and shape.fullmatch(first):
        return True                         # "... a získala", "... i otrzymała": a verb of its own
    if re.search(r"[\[\](){}:]", text[boundary:after[-1][2]]):
        return True                         # a note, an aside or a heading ("[12] larvy komárů, [13] a larvy")
    return any(w.lower() in stoppers for w, _s, _e in words_in(text, boundary, after[-1][2]))


def _final_word(text: str, c1: int, b: int, words: set[str] | None) -> int | None:
    """Where the run of `words` that ends the clause begins (copulas: "... kémikus volt", "... kimikaria
    izan zen"; a postposition: "... Becquerelin kanssa"); None when the clause does not end in one."""
    ws = words_in(text, c1, b)
    if not words or len(ws) < 2 or ws[-1][0].lower() not in words:
        return None
    k = len(ws) - 1
    while k > 1 and ws[k - 1][0].lower() in words:
        k -= 1
    return ws[k][1]


def item_head(text: str, a: int, head_end: int, item: Span, lang: str) -> int:
    """Where the shared head [a, head_end) of a list ends for one item: before the head's last word
    when both it and the item's first word are prepositions (head "a étudié à", item "à Paris": "a
    étudié" + "à Paris", not "a étudié à à Paris"), else at head_end."""
    preps = PREPOSITIONS.get(lang, set())
    first = words_in(text, item[0], item[1])[:1]
    if first and first[0][0].lower() in preps:
        hw = words_in(text, a, head_end)
        if hw and hw[-1][0].lower() in preps:
            return hw[-1][1]
    return head_end


def _last_item(text: str, c1: int, b: int, after: list[tuple[str, int, int]], final: bool,
               shared: int | None) -> tuple[Span, Span]:
    """The last item (to the end, or in verb-final clauses up to the final verb, or up to the copulas
    or postposition that end the clause and go with every item, at `shared`) and the tail after it."""
    if shared is not None:
        return (c1, shared), (shared, b)
    if final and len(after) == 1:
        return (c1, b), (b, b)
    if final:
        last_end = after[min(len(after) - 2, 3)][2]
        return (c1, last_end), (last_end, b)
    last_end = b
    # stop the last item at a comma
    mm = re.search(r"[,，、،;]", text[c1:b])
    if mm:
        last_end = c1 + mm.start()
    return (c1, last_end), (last_end, b)


@dataclass(frozen=True)
class _ListFrame:
    """Where a list stands in its clause [a, b): its first item from `boundary`, the conjunction at
    `c0`, the `tail` after the last item; `final`: the verb comes last (or a final copula), `shared`:
    a final copula or postposition the items share."""
    a: int
    b: int
    boundary: int
    c0: int
    tail: Span
    final: bool
    shared: bool


def _item_drafts(text: str, frame: _ListFrame, items: list[Span], carried: str | None,
                 lang: str) -> list[Draft] | None:
    a, b, boundary, c0, tail = frame.a, frame.b, frame.boundary, frame.c0, frame.tail
    final, shared = frame.final, frame.shared
    if len(items) < 2 or inside_quotes(text, c0):
        return None
    if any(n_words(text[s:e]) > MAX_ITEM_WORDS for s, e in items[:-1]):
        return None
    if n_words(text[items[-1][0]:items[-1][1]]) > MAX_ITEM_WORDS + 2:
        return None
    noun = _shared_noun(text, items, lang)
    out = []
    for idx, (s, e) in enumerate(items):
        if noun is not None and idx < len(items) - 1:
            head = item_head(text, a, boundary, (s, e), lang) if idx > 0 else boundary
            out.append(Draft([(a, head), (s, e), noun], carried, (a if idx == 0 else s, e)))
            continue
        if final:
            segs = [(a, boundary), (s, e), tail]
            span = (a if idx == 0 else s, e)
        elif shared:
            head = item_head(text, a, boundary, (s, e), lang) if idx > 0 else boundary
            segs = [(a, head), (s, e), tail]
            span = (a if idx == 0 else s, e)
        else:
            head = item_head(text, a, boundary, (s, e), lang) if idx > 0 else boundary
            segs = [(a, head), (s, e)] + ([tail] if idx == len(items) - 1 else [])
            span = (a if idx == 0 else s, e if idx < len(items) - 1 else b)
        out.append(Draft(segs, carried, span))
    return out


def _shared_noun(text: str, items: list[Span], lang: str) -> Span | None:
    """The noun that adjectives in a list share ("польским и французским физиком", "polnische und
    französische Physikerin"): every item before the last one adjective, the last an adjective and the
    noun phrase it goes on with; the noun phrase's span, or None."""
    shape = ADJECTIVE_SHAPES.get(lang)
    last = words_in(text, *items[-1])
    if shape is None or len(last) < 2 or not _adjective(last[0][0], shape, lang):
        return None
    for k, (s, e) in enumerate(items[:-1]):
        ws = words_in(text, s, e)
        if k == 0 and len(ws) == 2 and ws[0][0].lower() in ARTICLES:
            ws = ws[1:]              # "eine polnische und französische Physikerin"
        if len(ws) != 1 or not _adjective(ws[0][0], shape, lang):
            return None
    if lang == "de" and not last[1][0][:1].isupper():
        return None                  # German nouns are capitalised: "polnische und französische Physikerin"
    return last[1][1], items[-1][1]


def _adjective(word: str, shape: re.Pattern[str], lang: str) -> bool:
    if lang == "de" and not word[:1].islower():
        return False
    return shape.fullmatch(word.lower()) is not None


def _item_boundary(text: str, v0: int, c0: int, lang: str, first_sep: int, final: bool) -> int | None:
    """Where the first list item starts: after the last preposition or verb before the first
    separator, or at a determiner; None when the list has no head (it is the subject)."""
    preps = PREPOSITIONS.get(lang, set())
    ws = words_in(text, v0, first_sep)
    if not ws:
        return None
    low = [w.lower() for w, _s, _e in ws]
    if lang == "tr" and "ise" in low[:-1]:
        return ws[low.index("ise")][2]     # "kışlar ise ılık ve yağışlıdır": the items follow the topic
    q = re.search(r"[\"“«„][^\"“”«»„]*[\"”»]?\s*$", text[v0:first_sep])
    if q is not None and q.start() > 0:
        return v0 + q.start()      # a quoted title is the first item
    for idx in range(len(ws) - 1, -1, -1):
        w, s, e = ws[idx]
        lw = w.lower()
        if lw in preps and lw != "of":
            return e if idx < len(ws) - 1 else None
        if idx == 0 and lw in LIST_AUX.get(lang, ()) and len(ws) > 2:
            return ws[2][1]
        if lw in ARTICLES or lw in _HEAD_WORDS:
            if idx == 0 and v0 == ws[0][1] and not _after_verb(text, v0):
                return None
            if idx > 0 and ws[idx - 1][0].lower() in preps | ARTICLES:
                continue
            return s
        if lw in COPULAS or lw in LANG_COPULAS.get(lang, ()) or lw in EN_VERBS or \
                (lang == "en" and lw.endswith("ed") and len(lw) > 3):
            return e if idx < len(ws) - 1 else None
        if any_pronoun(lw, lang):
            return e if idx < len(ws) - 1 else None
        if n_words(text[s:first_sep]) > MAX_ITEM_WORDS:
            return None
    if final and v0 > 0:
        return ws[0][1]
    if v0 < first_sep and _after_verb(text, v0):
        # the verb is taken to be one word: in the languages of LIST_STOPPERS only when a word or a
        # name is all there is between it and the first separator ("työskenteli Pierre Curien ja ...")
        one = len(ws) == 2 or all(w[:1].isupper() for w, _s, _e in ws[1:])
        return ws[1][1] if len(ws) > 1 and (one or lang not in LIST_STOPPERS) else None
    return None


def _after_verb(text: str, v0: int) -> bool:
    return v0 > 0 and text[:v0].strip() != ""
