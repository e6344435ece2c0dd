"""Finer facts: the clause refiner of the rule extractor. Each clause is refined into the
smallest facts the sentence states, still only with the sentence's own words.

- trailing relative clauses and participial phrases (", which began in ...", " who was born ...",
  ", appearing in ...") become facts about their antecedent or the clause's subject;
- "including A, B and C" / "such as A and B": the clause up to the list is one fact, and each item
  is one fact with the clause's verb ("He appeared in A", "He appeared in B");
- coordinated noun phrases ("an actor and singer", "films, television shows, and theater
  productions") give one fact per item, with the words before and (in verb-final languages)
  after the list shared (refine_lists.py);
- a date and a place side by side ("born on 7 November 1867 in Warsaw") give a date fact and a
  place fact; one fact per prepositional phrase; a nationality before a noun ("is an American
  actor") gives "is an American" and "is an actor" (refine_phrases.py).

Spans: the words a fact adds. The first fact of a split keeps the shared words before it, the
others only their own item, so spans of one sentence never overlap.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .clauses import Draft, Piece, Span, coordinate, is_pronoun, n_words, phrase_regex, trim, words_in
from .refine_lists import item_head, np_list, split_items
from .refine_phrases import date_place, demonym, pp_split
from ..lexicon.rule_words import (
    ARTICLES,
    AUXILIARIES,
    CLAUSE_OPENERS,
    COPULAS,
    DETERMINERS,
    EN_PARTICIPLE_HEADS,
    GERUND,
    INCLUDING,
    LIST_CONJ,
    MAX_ITEM_WORDS,
    MAX_REFINE_CHARS,
    NON_GERUNDS,
    PARTICIPLES,
    PREPOSITIONS,
    PRONOUNS,
    RELATIVES,
    V2_LANGS,
    VERB_FINAL,
    any_pronoun,
)

# relative pronouns that always speak of a person: the clause is about the subject
_PERSON_RELATIVES = {"who", "quien", "quienes", "qui", "который", "которая", "които", "който", "която",
                     "ambaye", "जो", "যিনি", "جو", "الذي", "التي"}
# "where" and "when": a clause after them with a subject of its own is a fact of its own
_WHERE_WHEN = {"where", "when", "donde", "cuando", "où", "wo", "dove", "onde", "где", "когда", "където", "όπου",
               "di mana", "nơi", "जहाँ", "যেখানে", "جہاں", "حيث"}
# "such as"-like keywords: the list items replace the object after the last preposition
_EXAMPLE_WORDS = {"such as", "like", "como", "comme", "wie", "come", "как", "като", "όπως", "seperti",
                  "như", "kama", "مثل", "مانند", "जैसे", "جیسے", "যেমন", "เช่น"}


@dataclass(frozen=True)
class Clause:
    """What the refiner knows of one clause's sentence: its text, language, the sentence's subject
    (text and span) and the subject carried onto this clause (printed first, not in the span)."""
    text: str
    lang: str
    subject: str | None
    subject_span: Span | None


@dataclass(frozen=True)
class Trailing:
    """A trailing clause found at `cut`: its words start at `start` and speak of `about`."""
    cut: int
    start: int
    about: str | None


class ClauseRefiner:
    """Refines one clause [a, b) of a sentence into finer facts: (text, span) pairs."""

    def refine(self, clause: Clause, a: int, b: int, carried: str | None) -> list[tuple[str, Span]]:
        out = []
        for f in self.region(clause, a, b, carried, depth=0):
            rendered = f.render(clause.text)
            if rendered:
                s, e = trim(clause.text, *f.span)
                out.append((rendered, (s, e) if e > s else f.span))
        return out

    def region(self, clause: Clause, a: int, b: int, carried: str | None, depth: int) -> list[Draft]:
        text, lang = clause.text, clause.lang
        a, b = trim(text, a, b)
        if b <= a:
            return []
        if b - a > MAX_REFINE_CHARS:       # a run-on without punctuation: no finer facts (speed)
            return [Draft([(a, b)], carried, (a, b))]
        if depth < 3:
            tail = self.trailing_clause(clause, a, b, carried)
            if tail is not None:
                head = self.region(clause, a, tail.cut, carried, depth + 1)
                rest: list[Draft] = []
                for i, p in enumerate(coordinate(text, tail.start, b, lang, tail.about)):
                    if i == 0:
                        p = Piece(p.start, p.end, tail.about)
                    rest += self.region(clause, p.start, p.end, p.subject, depth + 1)
                return head + rest
        verb_start = _verb_start(clause, a, b, carried)
        found = self.including(clause, a, b, verb_start, carried)
        if found is None:
            found = np_list(text, a, b, verb_start, carried, lang)
        if found is None:
            found = date_place(text, a, b, verb_start, carried, lang)
        if found is None:
            found = pp_split(text, a, b, verb_start, carried, lang)
        if found is None:
            found = demonym(text, a, b, carried, lang)
        return found if found is not None else [Draft([(a, b)], carried, (a, b))]

    # -- trailing relative clause / participial phrase
    def trailing_clause(self, clause: Clause, a: int, b: int, carried: str | None) -> Trailing | None:
        about = carried or clause.subject
        return (_relative_clause(clause, a, b, about) or _apposition(clause.text, a, b)
                or _participle_clause(clause, a, b, about))

    # -- "including A, B and C", "such as A and B"
    def including(self, clause: Clause, a: int, b: int, verb_start: int, carried: str | None) -> list[Draft] | None:
        text, lang = clause.text, clause.lang
        kws = INCLUDING.get(lang, [])
        if not kws:
            return None
        alts = "|".join(sorted((re.escape(k) for k in kws), key=len, reverse=True))
        m = re.compile(r"(?<!\w)(?:" + alts + r")(?!\w)", re.IGNORECASE).search(text, verb_start, b)
        if m is None or n_words(text[verb_start:m.start()]) < 2:
            return None
        k0, k1 = m.start(), m.end()
        if m.group(0).lower() in _AS_WORDS and text[k0 - 2:k0].strip() != ",":
            # "like", "como", "comme", "come", "wie" without a comma before them: "worked as" ("a travaillé
            # comme professeure à Paris"), unless a list follows ("des romans comme A et B")
            if lang == "en" or not split_items(text, k1, b, lang):
                return None
        if n_words(text[k1:b]) < 1:
            return None
        inserted = _inserted_examples(text, a, b, k0, k1, lang)
        if inserted is not None:
            return inserted
        items = split_items(text, k1, b, lang) or [(k1, b)]
        head_end = _head_end(text, verb_start, k0, lang, m.group(0).lower() in _EXAMPLE_WORDS)
        bare = Clause(text, lang, None, None)
        out = self.region(bare, a, k0, carried, 3) or [Draft([(a, k0)], carried, (a, k0))]
        for i0, i1 in items:
            if lang in VERB_FINAL:
                out.append(Draft([(i0, i1), (a, k0)], carried, (i0, i1)))
            else:
                out.append(Draft([(a, item_head(text, a, head_end, (i0, i1), lang)), (i0, i1)], carried, (i0, i1)))
        return out


_AS_WORDS = {"like", "como", "comme", "come", "wie"}


def _inserted_examples(text: str, a: int, b: int, k0: int, k1: int, lang: str) -> list[Draft] | None:
    """"His solos, such as the intro of Firth of Fifth, shaped the band's sound": an example between
    commas before the predicate, not a list running to the clause's end. Two facts: the clause without
    the insertion, and the example with the predicate. None when it is no such insertion (no comma
    before the keyword, no single example closed by a comma, a predicate of fewer than two words)."""
    if lang in VERB_FINAL:
        return None
    before = text.rfind(",", a, k0)
    if before < 0 or text[before + 1:k0].strip():
        return None
    head = words_in(text, a, before)
    verbs = COPULAS | AUXILIARIES | CLAUSE_OPENERS.get(lang, set())
    if not head or len(head) > 5 or is_pronoun(head[0][0]) or any(w.lower() in verbs for w, _s, _e in head):
        return None        # "She studied several subjects, such as ...", "algunas son patentadas, como ...": a clause
    close = text.find(",", k1, b)
    if close < 0 or n_words(text[k1:close]) < 1 or n_words(text[close + 1:b]) < 2:
        return None
    # "such as A, B and C" is a list: another comma, or a short last part with a conjunction
    rest = text[close + 1:b]
    conj = phrase_regex(LIST_CONJ.get(lang, []))
    found = conj.search(rest) if conj is not None else None
    if "," in rest or (found is not None and n_words(rest[:found.start()]) <= MAX_ITEM_WORDS):
        return None
    return [Draft([(a, before), (close + 1, b)], None, (a, b)),
            Draft([(k1, close), (close + 1, b)], None, (k1, b))]


def _verb_start(clause: Clause, a: int, b: int, carried: str | None) -> int:
    """Where the verb starts: after the subject inside the region, or at once with a carried one."""
    if carried:
        return a
    span = clause.subject_span
    if span is not None and a <= span[0] < span[1] <= b:
        return span[1]
    ws = words_in(clause.text, a, b)
    if ws and any_pronoun(ws[0][0], clause.lang):
        return ws[0][2]
    return a


def _relative_clause(clause: Clause, a: int, b: int, about: str | None) -> Trailing | None:
    """", which ...", ", who ...", ", where ...": the first one after a few words."""
    text, lang = clause.text, clause.lang
    seg = text[a:b]
    rel = RELATIVES.get(lang, [])
    if not rel:
        return None
    alts = "|".join(sorted((re.escape(r) for r in rel), key=len, reverse=True))
    for m in re.finditer(r"[,،，]\s*(" + alts + r")\s", seg, re.IGNORECASE):
        cut = a + m.start()
        word = m.group(1).lower()
        if n_words(text[a:cut]) < 3 or n_words(text[a + m.end():b]) < 2:
            continue
        if lang in V2_LANGS and not _ends_lowercase(text, a + m.end(), b):
            continue       # ", die höchste Auszeichnung der Mathematik": an apposition, no verb at its end
        if word in _WHERE_WHEN:
            first = words_in(text, a + m.end(), b)[0][0]
            if first.lower() in PRONOUNS or first[:1].isupper():
                return Trailing(cut, a + m.end(), None)     # its own subject: "wo er in Aarau ...", not
                                                            # "die Türkei er in Aarau ..."
            if lang == "en":
                return Trailing(cut, a + m.end(), about)
        if word in _PERSON_RELATIVES:       # a person: the one named right before it, else the subject
            return Trailing(cut, a + m.end(), _named_before(text, a, cut, about) or about)
        np = _antecedent(text, a, cut, lang) or _named_before(text, a, cut, about)
        return Trailing(cut, a + m.end(), np or about)
    if lang == "en" and about:
        # "an American actor who was born ..." (no comma): about the subject
        m2 = re.search(r"\s(who)\s", seg)
        if m2 and n_words(seg[:m2.start()]) >= 3 and n_words(seg[m2.end():]) >= 2:
            return Trailing(a + m2.start(), a + m2.end(), about)
    return None


# lowercase words inside a name ("Ludwig van Beethoven", "Gabriel García de la Concha")
_NAME_PARTICLES = {"de", "del", "da", "das", "do", "dos", "di", "du", "van", "von", "der", "den", "la", "le",
                   "y", "bin", "ibn", "al", "el", "zu"}
NAME_MAX_WORDS = 5


def _named_before(text: str, a: int, cut: int, about: str | None) -> str | None:
    """The name right before the comma of a relative clause, when the clause names someone other
    than its subject there ("Marie Curie married Pierre Curie, who was a physicist": "Pierre Curie";
    "fue la hija de Juan Kahlo, quien era un abogado": "Juan Kahlo"): its run of capitalised words
    (name particles inside it), with words before it in the clause; None when the words before the
    comma are no name or are the subject itself. Before rules v21 such a clause was taken as the
    subject's ("Marie Curie was a teacher" of "... the daughter of Władysław Skłodowski, who was a
    teacher")."""
    ws = words_in(text, a, cut)
    if len(ws) < 2 or not ws[-1][0][:1].isupper():
        return None
    k = len(ws) - 1
    while k > 0 and len(ws) - k < NAME_MAX_WORDS and not text[ws[k - 1][2]:ws[k][1]].strip():
        w = ws[k - 1][0]                     # only words with nothing but spaces between them
        if w[:1].isupper() or (w.lower() in _NAME_PARTICLES and k > 1 and ws[k - 2][0][:1].isupper()):
            k -= 1
        else:
            break
    if k == 0:
        return None                          # the clause opens with it: the subject
    while k < len(ws) - 1 and ws[k][0].lower() in _NAME_PARTICLES:
        k += 1
    name = text[ws[k][1]:ws[-1][2]]
    if about and (name.casefold() in about.casefold() or about.casefold() in name.casefold()):
        return None
    return name


def _ends_lowercase(text: str, start: int, b: int) -> bool:
    """Whether the words from `start` end in a lowercase word at `b` or before one of its commas: the
    verb that closes a German or Dutch relative clause (a list inside it has commas too)."""
    ends = [m.start() for m in re.finditer(r"[,;]", text[start:b])] + [b - start]
    for e in ends:
        ws = words_in(text, start, start + e)
        if ws and ws[-1][0][:1].islower():
            return True
    return False


def _apposition(text: str, a: int, b: int) -> Trailing | None:
    """", a software company that ...": about the name right before the comma."""
    seg = text[a:b]
    for m in re.finditer(r"[,،，]\s+(?=(?:a|an|the|un|una|une|ein|eine|uno|um|uma)\s)", seg):
        cut = a + m.start()
        nw = words_in(text, a, cut)
        if len(nw) < 3 or n_words(text[a + m.end():b]) < 2:
            continue
        run = []
        for w, ws0, _we in reversed(nw):
            if w[:1].isupper():
                run.append(ws0)
            else:
                break
        if run and len(run) < len(nw):
            return Trailing(cut, a + m.end(), text[run[-1]:cut].strip())
    return None


def _participle_clause(clause: Clause, a: int, b: int, about: str | None) -> Trailing | None:
    """", appearing in ...", ", born in ...", ", leaving ...": about the subject."""
    text, lang = clause.text, clause.lang
    gerund = GERUND.get(lang)
    heads = {p.split()[0] for p in PARTICIPLES.get(lang, [])}
    for m in re.finditer(r"[,،，]\s+", text[a:b]):
        cut = a + m.start()
        nxt = words_in(text, a + m.end(), b)
        if not nxt or n_words(text[a:cut]) < 3 or len(nxt) < 2:
            continue
        lw = nxt[0][0].lower()
        if lw in NON_GERUNDS:
            continue
        is_part = bool(gerund is not None and gerund.match(lw)) or lw in heads or \
            (lang == "en" and lw in EN_PARTICIPLE_HEADS)
        if lang == "fr" and lw == "en" and len(nxt) > 1 and gerund and gerund.match(nxt[1][0].lower()):
            is_part = True
        if is_part and about:
            return Trailing(cut, a + m.end(), about)
    return None


def _antecedent(text: str, a: int, cut: int, lang: str) -> str | None:
    """The noun phrase right before a ', which': from its last determiner, without a trailing
    prepositional phrase of time ("the Fischer Research Laboratory in 1936")."""
    ws = words_in(text, a, cut)
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


def _head_end(text: str, verb_start: int, k0: int, lang: str, example: bool) -> int:
    """Where the words an item of an "including" list is printed after end."""
    head_end = _object_start(text, verb_start, k0, lang)
    if example:
        hw = words_in(text, verb_start, k0)
        preps = PREPOSITIONS.get(lang, set()) - {"of"}
        for idx in range(len(hw) - 1, max(0, len(hw) - 5), -1):
            if hw[idx][0].lower() in preps:
                return hw[idx][2]
    return head_end


def _object_start(text: str, v0: int, end: int, lang: str) -> int:
    """Where the object of the verb starts: after its first preposition, or at its first
    determiner, whichever comes first; the end when neither."""
    preps = PREPOSITIONS.get(lang, set()) - {"of", "over"}
    ws = words_in(text, v0, end)
    for idx, (w, s, e) in enumerate(ws):
        lw = w.lower()
        if idx == 0:
            continue
        if lw in preps:
            return e
        if lw in DETERMINERS or w[:1].isdigit():
            return s
    return ws[1][1] if len(ws) > 1 else end
