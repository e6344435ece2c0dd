"""Family roles in the slot checks: "Marie Curie's mother was Pierre Curie" against "her husband,
Pierre Curie".

A *link* ties a capitalised name to a kinship word next to it ("her husband, Pierre Curie", "Pierre
Curie was her husband", "ihr Ehemann Pierre Curie"): only function words (possessives, articles,
copulas, "named") and commas may stand between them, and the kinship word must not belong to
someone else ("Irène's husband", "the father of Irène", "Pierre, father of Irène"): in a biography a
role without an owner is the subject's. The words are data (`data/kinship.json`, per language).

A fact's link conflicts with the evidence when
- the evidence links the same person only to roles that cannot be the fact's ("mother" against
  "husband"; "parent" or "spouse" fit either gender), or
- the fact names a father or a mother that the evidence never links, and the evidence links another
  person to that role (one father, one mother; spouses, children and siblings may be several).

Anything less certain (a name the evidence never ties to a role, a name of the subject's own words
only) is no conflict: the other checks decide.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

from ..text.textutil import by_languages, data_json, fold_accents

ROLE_GROUP = {"father": ("parent", "m"), "mother": ("parent", "f"), "parent": ("parent", ""),
              "son": ("child", "m"), "daughter": ("child", "f"), "child": ("child", ""),
              "husband": ("spouse", "m"), "wife": ("spouse", "f"), "spouse": ("spouse", ""),
              "brother": ("sibling", "m"), "sister": ("sibling", "f"), "sibling": ("sibling", "")}
UNIQUE = ("father", "mother")           # a person has one of each
MAX_FILLERS = 3                         # function words between a kinship word and its name

GENITIVE = frozenset("of de du des del della dello degli di da do dos das von vom van af lui".split())
NOT_NAMES = frozenset("ibu bapa frau herr mrs mr ms sir lady lord".split())   # capitalised, yet no name
# possession as a suffix of the kinship word itself: Finnish "isänsä" (his father; "isä" is bare),
# Hungarian "apja", "férje" (but "apa", "anya" bare), Indonesian and Malay "-nya"
POSSESSED = {"fi": lambda w: w.endswith(("nsä", "nsa")), "hu": lambda w: w not in ("apa", "anya"),
             "id": lambda w: w.endswith("nya"), "ms": lambda w: w.endswith("nya")}
# words that name a family role only right after a possessive: German "ihr Mann", "seine Frau", "ihrem
# Mann" (a man, a woman, a title: "Frau Curie", elsewhere)
AFTER_POSSESSIVE = {"de": {"mann": "husband", "mannes": "husband", "manne": "husband", "frau": "wife"}}
OTHERS = frozenset("annak ennek whose".split())      # "annak legidősebb fia": that one's son
CONJUNCTIONS = frozenset("and et y e und en i ja és dan oraz a".split())


@dataclass(frozen=True)
class Words:
    """The short words of some languages that may stand between a kinship word and its name."""
    possessives: frozenset[str]
    copulas: frozenset[str]
    fillers: frozenset[str]              # possessives, copulas, articles, "named"


@functools.lru_cache(maxsize=64)
def function_words(langs: tuple[str, ...]) -> Words:
    """The function words of `langs` and English (`_function_words` in kinship.json): a word of one
    language is no filler in another ("on" is "is" in Finnish, "where" in Catalan)."""
    table = data_json("kinship.json").get("_function_words", {})
    pos: set[str] = set()
    cop: set[str] = set()
    other: set[str] = set()
    for lg in dict.fromkeys((*langs, "en")):
        entry = table.get(lg, {})
        pos |= set(entry.get("possessives", "").split())
        cop |= set(entry.get("copulas", "").split())
        other |= set(entry.get("other", "").split())
    return Words(frozenset(pos), frozenset(cop), frozenset(pos | cop | other))


_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|[,;:!?()\[\]«»„“”\"]|\.(?=\s|$)")
_ELISION = re.compile(r"\b([dlDL])['’](?=[^\W\d_])")
_POSSESSIVE = re.compile(r"['’](?:s|)$")


@functools.lru_cache(maxsize=1)
def kin_words() -> dict[str, dict[str, str]]:
    """language -> {word form (lower case): role}."""
    data = data_json("kinship.json")
    out: dict[str, dict[str, str]] = {}
    for lang, roles in data.items():
        if lang.startswith("_"):
            continue
        for role, words in roles.items():
            if role not in ROLE_GROUP:
                raise ValueError(f"kinship.json: unknown role {role!r} ({lang})")
            for w in words:
                out.setdefault(lang, {})[w.lower()] = role
    return out


@functools.lru_cache(maxsize=64)
def _kin_for(langs: tuple[str, ...]) -> dict[str, str]:
    """{word form: role} of `langs` and English."""
    return by_languages(kin_words(), langs)


@functools.lru_cache(maxsize=1)
def every_kin_word() -> frozenset[str]:
    return frozenset(w for table in kin_words().values() for w in table)


def compatible(a: str, b: str) -> bool:
    """Whether one person can hold both roles (the same role, or a gender-neutral one of its kind)."""
    ga, sa = ROLE_GROUP[a]
    gb, sb = ROLE_GROUP[b]
    return ga == gb and (not sa or not sb or sa == sb)


@dataclass(frozen=True)
class Link:
    """A name tied to a family role; `owner` is the name whose relative it is ("" = the subject's)."""
    role: str
    name: str
    name_span: tuple[int, int]
    kin_span: tuple[int, int]
    owner: str = ""
    marked: bool = False          # something says whose relative it is (not a title: "Father Brown")


@dataclass(frozen=True)
class _Tok:
    text: str
    start: int
    end: int

    @property
    def word(self) -> bool:
        return self.text[0].isalpha()

    @property
    def capital(self) -> bool:
        return self.text[0].isupper()

    @property
    def low(self) -> str:
        return self.text.lower()


def _tokens(text: str) -> list[_Tok]:
    spaced = _ELISION.sub(lambda m: m.group(1) + " ", text)      # same length: offsets stay
    return [_Tok(text[m.start():m.end()], m.start(), m.end()) for m in _TOKEN.finditer(spaced)]


def _name_end(toks: list[_Tok], i: int) -> int:
    """The index after the capitalised name that starts at token i (particles inside: "de", "von")."""
    j = i + 1
    while j < len(toks):
        if toks[j].word and toks[j].capital:
            j += 1
        elif toks[j].low in GENITIVE and j + 1 < len(toks) and toks[j + 1].word and toks[j + 1].capital:
            j += 2
        else:
            break
    return j


def _name_start(toks: list[_Tok], j: int) -> int:
    """The index of the first token of the capitalised name that ends at token j (inclusive)."""
    i = j
    while i > 0:
        if toks[i - 1].word and toks[i - 1].capital:
            i -= 1
        elif toks[i - 1].low in GENITIVE and i > 1 and toks[i - 2].word and toks[i - 2].capital:
            i -= 2
        else:
            break
    return i


def _span_text(text: str, toks: list[_Tok], i: int, j: int) -> tuple[str, tuple[int, int]]:
    a, b = toks[i].start, toks[j - 1].end
    name = _POSSESSIVE.sub("", text[a:b])
    return name, (a, a + len(name))


def _closes(toks: list[_Tok], j: int) -> bool:
    """Whether an apposition's name ends at token j: a comma, a bracket, the sentence's end or a
    conjunction follows ("her husband, Pierre Curie, ..."; not "del seu pare, Peter visita")."""
    return j >= len(toks) or toks[j].text in (",", "(", ")", ".", ";", ":", "!", "?") or toks[j].low in CONJUNCTIONS


def _forward(text: str, toks: list[_Tok], i: int, fw: Words) -> tuple[str, tuple[int, int], str] | None:
    """The name a kinship word at token i introduces ("husband Pierre Curie", "husband, Pierre
    Curie,", "Ojcem był Władysław"), with the owner named on the way ("father of Irène,
    Frédéric,"); None."""
    owner = ""
    j, fillers, comma = i + 1, 0, False
    while j < len(toks) and fillers <= MAX_FILLERS:
        t = toks[j]
        if t.text == "," and not comma:
            comma = True           # an apposition: the name comes next, and closes
            j += 1
            continue
        if t.low in GENITIVE and j + 1 < len(toks) and toks[j + 1].word and toks[j + 1].capital:
            end = _name_end(toks, j + 1)
            owner = _span_text(text, toks, j + 1, end)[0]
            j, comma = end, False
            continue
        if t.word and t.low in fw.fillers and not comma:
            fillers += 1
            j += 1
            continue
        if t.word and t.capital:
            end = _name_end(toks, j)
            if comma and not _closes(toks, end):
                return None
            name, span = _span_text(text, toks, j, end)
            return name, span, owner
        return None
    return None


def _backward(text: str, toks: list[_Tok], i: int, fw: Words) -> tuple[str, tuple[int, int]] | None:
    """The name before a kinship word at token i that it describes ("Pierre Curie, her husband",
    "Pierre Curie was her husband"): at least one function word or a comma between, a comma only
    right after the name ("Ernestin isä": Ernest's father, a genitive owner, is no relative); None."""
    j, between = i - 1, 0
    while j >= 0 and between <= MAX_FILLERS:
        t = toks[j]
        if t.text == ",":
            if j == 0 or not (toks[j - 1].word and toks[j - 1].capital):
                return None
            between += 1
            j -= 1
            continue
        if t.word and t.low in fw.fillers:
            between += 1
            j -= 1
            continue
        if t.word and t.capital and not _POSSESSIVE.search(t.text) and between:
            start = _name_start(toks, j)
            while start < j and toks[start].low in fw.fillers:      # "Her Pierre ..." at a sentence start
                start += 1
            if start == j and (j == 0 or toks[j - 1].text in (".", "!", "?", ":", ";")):
                return None        # one capitalised word opening a sentence ("Lisäksi", "Jejím")
            return _span_text(text, toks, start, j + 1)
        return None
    return None


def _owner_before(text: str, toks: list[_Tok], i: int) -> str:
    """"Irène's husband": the possessor named right before the kinship word (skipping nothing)."""
    if i == 0 or not toks[i - 1].word or not _POSSESSIVE.search(toks[i - 1].text):
        return ""
    start = _name_start(toks, i - 1)
    return _span_text(text, toks, start, i)[0] if toks[start].capital else ""


def _a_name(name: str, fw: Words) -> bool:
    """Not a kinship word or a title on its own ("Ibu bapanya": "parents", sentence-initial)."""
    words = name_words(name)
    return bool(words) and not words <= (every_kin_word() | NOT_NAMES | fw.fillers)


@functools.lru_cache(maxsize=2048)
def links(text: str, langs: tuple[str, ...]) -> tuple[Link, ...]:
    """Every name tied to a family role in `text`, with the kinship words of `langs` and English."""
    words = _kin_for(langs)
    if not words:
        return ()
    fw = function_words(langs)
    toks = _tokens(text)
    out: list[Link] = []
    for i, t in enumerate(toks):
        role = _role(toks, i, words, langs, fw)
        if role is None:
            continue
        owner = _owner_before(text, toks, i)
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        marked = bool(owner) or _marked(toks, i, t.low, langs, fw) or (nxt is not None and nxt.low in fw.copulas)
        fwd = _forward(text, toks, i, fw)
        if fwd is not None and _a_name(fwd[0], fw):
            name, span, owner2 = fwd
            out.append(Link(role, name, span, (t.start, t.end), owner or owner2, marked or bool(owner2)))
            continue
        if nxt is not None and nxt.low in GENITIVE:
            continue                  # "Pierre, father of ...": someone else's relative
        if _POSSESSIVE.sub("", t.low) not in words:
            continue                  # "fährt Wladimir seine Frau ...": the name before is the owner
        back = _backward(text, toks, i, fw)
        if back is not None and _a_name(back[0], fw):
            out.append(Link(role, back[0], back[1], (t.start, t.end), owner, marked))
    return tuple(out)


def _role(toks: list[_Tok], i: int, words: dict[str, str], langs: tuple[str, ...], fw: Words) -> str | None:
    """The family role token i names, if any (AFTER_POSSESSIVE words only after a possessive)."""
    t = toks[i]
    if not t.word:
        return None
    role = words.get(_POSSESSIVE.sub("", t.low))
    if role is None and i > 0 and toks[i - 1].low in fw.possessives:
        role = next((AFTER_POSSESSIVE[lg][t.low] for lg in langs if t.low in AFTER_POSSESSIVE.get(lg, {})), None)
    return role


@functools.lru_cache(maxsize=2048)
def mentions(text: str, langs: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """The spans of every kinship word in `text` ("Tatăl său a murit ...": a relative, named or not)."""
    words = _kin_for(langs)
    fw = function_words(langs)
    toks = _tokens(text)
    return tuple((t.start, t.end) for i, t in enumerate(toks) if _role(toks, i, words, langs, fw) is not None)


def _marked(toks: list[_Tok], i: int, word: str, langs: tuple[str, ...], fw: Words) -> bool:
    """A possessive in the two words before the kinship word or right after it ("tatăl său"), or a
    possessive form of it; not when the words before name another owner."""
    before = [toks[j].low for j in range(max(0, i - 2), i)]
    if any(w in OTHERS for w in before):
        return False
    if any(w in fw.possessives for w in before) or (i + 1 < len(toks) and toks[i + 1].low in fw.possessives):
        return True
    return any(lg in POSSESSED and POSSESSED[lg](word) for lg in langs[:1])


def name_words(name: str) -> frozenset[str]:
    """The folded words of a name, without possessive or case endings after an apostrophe."""
    out = set()
    for w in re.split(r"[\s\-]+", name):
        w = re.split(r"['’]", w)[0] if not re.match(r"^[dlDLoO]['’]", w) else w
        f = fold_accents(w)
        if len(f) > 1 and f not in GENITIVE:
            out.add(f)
    return frozenset(out)


def _word_alike(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 3


def _own_words(name: str, subject: frozenset[str]) -> frozenset[str]:
    """The words of a name that are not the subject's (his or her own family name is shared)."""
    return frozenset(w for w in name_words(name) if not any(_word_alike(w, s) for s in subject))


def same_person(a: frozenset[str], b: frozenset[str]) -> bool:
    """Names (their own words) of one person: every word of the shorter matches one of the other."""
    if not a or not b:
        return False
    short, long_ = sorted((a, b), key=len)
    if len(short) == 1 and len(long_) > 1:
        return False               # "Arnau" and "Arnau Sureda i de Santmartí" may be two Arnaus
    return all(any(_word_alike(w, x) for x in long_) for w in short)


def _share_a_word(a: frozenset[str], b: frozenset[str]) -> bool:
    return any(_word_alike(w, x) for w in a for x in b)


def _is_subject(owner: str, subject: frozenset[str]) -> bool:
    return not owner or not _own_words(owner, subject)


@dataclass(frozen=True)
class KinConflict:
    """One fact link the evidence contradicts, and the evidence link that says so."""
    fact: Link
    evidence: Link
    passage: int
    wrong: str            # "role": the kinship word is wrong; "person": the name is


def kin_conflicts(fact: str, lang: str, passages: Sequence[tuple[str, tuple[str, ...]]], entity: str,
                  order: Sequence[int]) -> list[KinConflict]:
    """The fact's family roles that the evidence contradicts. `passages`: (text, its languages) each;
    `order`: the passages to look in, best first."""
    subject = name_words(entity)
    found = links(fact, (lang,))
    if not subject:               # a claim alone ("X's mother was Y"): its possessor is the subject
        subject = next((name_words(k.owner) for k in found if k.owner), frozenset())
    mine = [k for k in found if k.marked and _is_subject(k.owner, subject) and _own_words(k.name, subject)]
    if not mine:
        return []
    theirs = [(i, k) for i in order for k in links(passages[i][0], passages[i][1])
              if k.marked and _is_subject(k.owner, subject) and _own_words(k.name, subject)]
    out: list[KinConflict] = []
    for f in mine:
        who = _own_words(f.name, subject)
        same = [(i, k) for i, k in theirs if same_person(who, _own_words(k.name, subject))]
        if same:
            if not any(compatible(f.role, k.role) for _i, k in same):
                out.append(KinConflict(f, same[0][1], same[0][0], "role"))
            continue
        if f.role in UNIQUE:           # another father, sharing no word of the name (not "Jána Křtitele")
            other = [(i, k) for i, k in theirs if k.role == f.role
                     and not _share_a_word(who, _own_words(k.name, subject))
                     and not _told_of(f.name, passages[i][0], k)]
            if other:
                out.append(KinConflict(f, other[0][1], other[0][0], "person"))
    return out


def _told_of(name: str, text: str, k: Link) -> bool:
    """A one-word "name" that the evidence's sentence naming relative `k` holds: something told of
    him, no other person ("Sein Vater war Sänger" against "Sein Vater Johann van Beethoven war Sänger
    in der Bonner Hofkapelle": German capitalises the noun)."""
    if " " in name.strip():
        return False
    a = text.rfind(". ", 0, k.kin_span[0]) + 1
    b = text.find(". ", max(k.name_span[1], k.kin_span[1]))
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text[a:len(text) if b < 0 else b]) is not None
