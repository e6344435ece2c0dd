"""Nationality in the slot checks: "Marie Curie was a German chemist" against "Marie Curie was a
Polish and naturalised-French physicist and chemist".

A *nationality statement* is a copula about the subject followed, within a few words, by
nationality adjectives ("was a Polish and naturalised-French physicist", "est une physicienne
polonaise", "– polska i francuska fizyczka"); the words are data (`data/nationality.json`:
country -> language -> forms), so statements in different languages compare by country. The
subject is the entity, or a pronoun, or (for a claim alone) the name before the copula.

A fact's statement conflicts when the evidence makes statements about the same subject and none of
their countries is one of the fact's (a nation agrees with its state: Scottish with British).
Anything less (no statement in the evidence, a nationality in passing: "worked with German
physicists") is no conflict.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable, Sequence

from .kinship import name_words
from ..text.textutil import by_languages, data_json, fold_accents, scripts_of

WINDOW = 6                     # words after the copula and article in which nationalities count
COPULAS = frozenset("""is was are were est était fut sont es era fue son è fu sono foi é era ist war sind
wurde is was zijn jest był była było byli je byl byla bylo был была было были является являлся являлась
являлись és fou ser este fost""".split()) | {"–", "—"}
ARTICLES = frozenset("a an the un une le la l una uno um uma o ein eine einer eines een de het".split())
PRONOUNS = frozenset("""he she it they il elle ils elles él ella ellos ele ela eles lui lei egli essa er sie es
hij zij ze on ona oni он она они ell ea""".split())
# a preposition ends the phrase: "a physicist of German descent", "publié en anglais", "eine
# Gemeinde in der belgischen Provinz" say nothing of the subject's nationality
PREPOSITIONS = frozenset("""of in on at from for with by to into about as than
de du des en à au aux dans par pour sur avec chez
del en a con por para sobre desde
di da in con per su
do da em no na com por para
von vom in im auf aus mit für bei zu zum zur nach über
van in op uit met voor bij
w we z ze na do od dla przez o po
в во на из с со о об по для от к у за при
amb des în din la cu pe pentru despre""".split())
STOP = frozenset(".;:!?()")          # a comma does not end the list ("polonaise, naturalisée française")

_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|[–—]|[,.;:!?]")
_PARENS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """(language -> {folded form: country}, nation -> the state it is part of)."""
    data = data_json("nationality.json")
    forms: dict[str, dict[str, str]] = {}
    for code, langs in data.items():
        if code.startswith("_"):
            continue
        for lang, words in langs.items():
            for w in words:
                forms.setdefault(lang, {})[fold_accents(w)] = code
    part_of = {n: state for state, nations in data.get("_parts", {}).items() for n in nations}
    return forms, part_of


@functools.lru_cache(maxsize=64)
def _forms_for(langs: tuple[str, ...]) -> dict[str, str]:
    """{folded form: country} of `langs` and English."""
    return by_languages(_table()[0], langs)


def agree(a: str, b: str) -> bool:
    """The same country, or a nation and its state (ENG and GB)."""
    part_of = _table()[1]
    return a == b or part_of.get(a) == b or part_of.get(b) == a or (a in part_of and part_of.get(a) == part_of.get(b))


@dataclass(frozen=True)
class Statement:
    """Nationalities said of someone: (country, start, end) of each word, and who (the words before
    the copula)."""
    countries: tuple[tuple[str, int, int], ...]
    subject: str


def _words_of(lang_forms: dict[str, str], token: str, start: int) -> list[tuple[str, int, int]]:
    """The countries a token names, a hyphenated compound read part by part ("naturalised-French",
    "US-amerikanischer" as a whole first)."""
    whole = lang_forms.get(fold_accents(token))
    if whole:
        return [(whole, start, start + len(token))]
    out, pos = [], 0
    for part in token.split("-"):
        code = lang_forms.get(fold_accents(part))
        if code:
            out.append((code, start + pos, start + pos + len(part)))
        pos += len(part) + 1
    return out


@functools.lru_cache(maxsize=2048)
def statements(text: str, langs: tuple[str, ...]) -> tuple[Statement, ...]:
    """Every nationality statement in `text`, with the words of `langs` and English."""
    forms = _forms_for(langs)
    if not forms:
        return ()
    plain = _PARENS.sub(lambda m: " " * len(m.group(0)), text)       # "(1867–1934)": no copula
    toks = [(m.group(0), m.start()) for m in _TOKEN.finditer(plain)]
    out: list[Statement] = []
    for i, (tok, _s) in enumerate(toks):
        if tok.lower() not in COPULAS:
            continue
        j = i + 1
        while j < len(toks) and toks[j][0].lower() in ARTICLES:
            j += 1
        found: list[tuple[str, int, int]] = []
        k, seen = j, 0
        while k < len(toks) and seen < WINDOW and toks[k][0] not in STOP and toks[k][0].lower() not in PREPOSITIONS:
            tok2, s2 = toks[k]
            if tok2 == ",":
                k += 1
                continue
            seen += 1
            if k + 1 < len(toks):       # "South African", "south korean": two words
                two = f"{tok2} {toks[k + 1][0]}"
                code = forms.get(fold_accents(two))
                if code and text[s2:toks[k + 1][1]].strip() == tok2:
                    found.append((code, s2, s2 + len(two)))
                    k += 2
                    continue
            found += _words_of(forms, tok2, s2)
            k += 1
        if found:
            start = max((k for k, (t, _x) in enumerate(toks[:i]) if t in STOP), default=-1) + 1
            subject = " ".join(t for t, _x in toks[start:i] if t not in STOP and t != ",")
            out.append(Statement(tuple(found), subject))
    return tuple(out)


def _about(st: Statement, subject: frozenset[str]) -> bool:
    """Whether a statement is about the subject: its words before the copula share one of the
    subject's name, or are a pronoun, or none (a list: "– polska fizyczka" after parentheses)."""
    words = [fold_accents(w) for w in re.split(r"[\s,]+", st.subject) if w]
    if not words:
        return True
    if words[-1] in PRONOUNS or words[0] in PRONOUNS:
        return True
    return bool(subject & set(words))


def _other_script(said_of: str, subject: frozenset[str]) -> bool:
    """Whether a fact's statement names its subject in another script than every word of the entity's
    name ("Мария Кюри была немецким химиком" for "Marie Curie"): a text about the entity that the IR
    rule kept speaks of it, and the names cannot be compared."""
    mine = scripts_of(said_of)
    return bool(mine and subject) and not mine & scripts_of(" ".join(subject))


@dataclass(frozen=True)
class NationalityConflict:
    fact_word: tuple[str, int, int]          # (country, start, end) in the fact
    evidence_word: tuple[str, int, int]      # in the passage
    passage: int


Word = tuple[str, int, int]


def said_of_subject(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
                    order: Sequence[int], read: Callable[[str, tuple[str, ...]], tuple[Statement, ...]],
                    ) -> tuple[list[Word], list[tuple[int, Word]]]:
    """(the words of the fact's statements about its subject, (passage, word) of the evidence's),
    with `read` the statements' reader (nationalities here, occupations in occupation.py)."""
    subject = name_words(entity)      # "de", "von", "van" are no one's name
    mine = read(fact, (lang,))
    if not subject and mine:          # a claim alone: its own subject
        subject = name_words(mine[0].subject)
    said = [c for st in mine if _about(st, subject) or _other_script(st.subject, subject) for c in st.countries]
    if not said:
        return [], []
    return said, [(i, c) for i in order for st in read(passages[i][0], passages[i][1])
                  if _about(st, subject) for c in st.countries]


def nationality_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]],
                          entity: str, order: Sequence[int]) -> list[NationalityConflict]:
    """The fact's nationality statements about the subject that the evidence's contradict."""
    said, theirs = said_of_subject(fact, lang, passages, entity, order, statements)
    if not said or not theirs or any(agree(c[0], e[0]) for c in said for _i, e in theirs):
        return []
    i, e = theirs[0]
    return [NationalityConflict(said[0], e, i)]
