"""The detector's corruptions of a Wikipedia sentence, per language: a swapped word (relation, antonym,
number), another entity of the same kind, a negation, a cut clause, a retopicalised sentence."""
from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from ..checking.slots.counterparts import ANTONYMS, RELATIONS, pairs
from ..checking.text.textutil import SPACELESS
from .examples import Article, _terms, overlap


# negations; the relation swaps and antonyms (RELATIONS, ANTONYMS) are the checks' too (checking/slots/counterparts.py)
NEGATIONS = {   # word -> negated words (the changed words are the label)
    "en": {
        "is": "is not",
        "was": "was not",
        "are": "are not",
        "were": "were not",
        "has": "has not",
        "had": "had not",
        "can": "cannot",
        "will": "will not",
    },
    "es": {"es": "no es", "fue": "no fue", "era": "no era", "son": "no son", "tiene": "no tiene", "ha": "no ha"},
    "fr": {"est": "n'est pas", "était": "n'était pas", "sont": "ne sont pas", "a": "n'a pas", "fut": "ne fut pas"},
    "de": {"ist": "ist nicht", "war": "war nicht", "wurde": "wurde nicht", "hat": "hat nicht", "sind": "sind nicht"},
    "ca": {"és": "no és", "va": "no va", "era": "no era", "són": "no són", "ha": "no ha"},
    "it": {"è": "non è", "era": "non era", "fu": "non fu", "ha": "non ha"},
    "pt": {"é": "não é", "foi": "não foi", "era": "não era", "tem": "não tem"},
    "ro": {"este": "nu este", "era": "nu era", "sunt": "nu sunt", "a": "nu a"},
    "pl": {
        "jest": "nie jest",
        "był": "nie był",
        "była": "nie była",
        "było": "nie było",
        "są": "nie są",
        "ma": "nie ma",
    },
    "cs": {"je": "není", "byl": "nebyl", "byla": "nebyla", "bylo": "nebylo", "jsou": "nejsou", "má": "nemá"},
    "id": {"adalah": "bukan", "merupakan": "bukan merupakan", "telah": "belum", "sudah": "belum"},
    "ms": {"ialah": "bukan", "adalah": "bukan", "merupakan": "bukan merupakan", "telah": "belum"},
    "vi": {"là": "không phải là", "đã": "chưa", "có": "không có"},
    "zh": {"是": "不是", "有": "没有"},
    "yue": {"係": "唔係", "是": "不是", "有": "冇"},
    "fi": {"on": "ei ole", "oli": "ei ollut"},
    "hu": {"volt": "nem volt", "van": "nincs"},
    "eo": {"estas": "ne estas", "estis": "ne estis", "havas": "ne havas"},
    "sr": {"je": "nije", "bio": "nije bio", "је": "није", "био": "није био"},
    "fa": {"است": "نیست", "بود": "نبود"},
    "la": {"est": "non est", "erat": "non erat", "fuit": "non fuit"},
    "lt": {"yra": "nėra", "buvo": "nebuvo"},
}
MONTH_LANGS = ("en", "es", "fr", "de", "ca", "it", "pt", "ro", "pl", "cs", "tr", "id", "ms", "fi", "hu", "eo",
               "lt", "ru", "sr", "eu", "la", "vi", "fa", "he", "sd", "ur", "ar", "el", "bg")


def _cldr_months(lang: str) -> list[str]:
    """The 12 month names as a date writes them in `lang` (CLDR format context, through Babel)."""
    try:
        from babel.dates import get_month_names
        names = get_month_names("wide", context="format", locale=lang)
        # Catalan's format names carry their preposition ("de novembre", "d’octubre"): the word alone
        return [re.sub(r"^(?:de |d’|d')", "", str(names[m])) for m in range(1, 13)]
    except Exception:  # noqa: BLE001 - a locale Babel lacks: no month swaps in that language
        return []
_REL = {k: pairs(v) for k, v in RELATIONS.items() if v}
_ANT = {k: pairs(v) for k, v in ANTONYMS.items()}
_MONTHS = {lang: _cldr_months(lang) for lang in MONTH_LANGS}


def _match_case(src: str, repl: str) -> str:
    if src[:1].isupper() and repl[:1].islower():
        return repl[:1].upper() + repl[1:]
    return repl


def _word_swap(sentence: str, table: dict[str, str], lang: str, rng: random.Random) -> str | None:
    """Swap one word found in `table` (whole words; substrings for spaceless scripts)."""
    if not table:
        return None
    if lang in SPACELESS:
        found = [(m.start(), m.end(), k) for k in table for m in re.finditer(re.escape(k), sentence)]
    else:
        found = []
        for m in re.finditer(r"[\w'’]+", sentence):
            w = m.group(0)
            k = w if w in table else (w.lower() if w.lower() in table else None)
            if k is not None:
                found.append((m.start(), m.end(), k))
    if not found:
        return None
    s, e, k = rng.choice(found)
    return sentence[:s] + _match_case(sentence[s:e], table[k]) + sentence[e:]


_NUM = re.compile(r"(?<![\w.,])\d{1,4}(?:[.,]\d{3})*(?:[.,]\d+)?(?![\w])")
_YEAR = re.compile(r"^(1[0-9]|20)\d\d$")


@dataclass
class Pools:
    """Values of each type per language, from the training articles, for entity swaps; the word
    forms seen per stem (for inflection variants)."""
    names: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    forms: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def build_forms(self, articles: list[Article], per_lang_sentences: int = 60000) -> "Pools":
        """Lower-case alphabetic words of 6+ letters grouped by their stem (all but the last 3
        letters, at least 5): forms of one word in an inflecting language ("italialaisten",
        "italialaisista"). Stems with a single form are dropped."""
        by: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        count: dict[str, int] = defaultdict(int)
        for a in articles:
            if a.lang in SPACELESS or count[a.lang] > per_lang_sentences:
                continue
            for sent in a.sentences:
                count[a.lang] += 1
                for w in sent.split():
                    w = w.strip(_WORD_EDGE)
                    if len(w) >= 6 and w.isalpha() and w.islower():
                        by[a.lang][stem_of(w)].add(w)
        self.forms = {lang: {k: sorted(v) for k, v in d.items() if len(v) > 1} for lang, d in by.items()}
        return self

    @classmethod
    def build(cls, articles: list[Article], per_lang: int = 4000, seed: int = 1) -> "Pools":
        rng = random.Random(seed)
        p = cls()
        seen: dict[str, set] = defaultdict(set)
        for a in articles:
            for s in a.sentences[:12]:
                for idx, m in enumerate(re.finditer(r"\S+", s)):
                    w = m.group(0).strip(".,;:()[]\"'«»“”")
                    if idx and len(w) > 2 and w[:1].isupper() and w[1:].islower() and w.isalpha():
                        seen[a.lang].add(w)
        for lang, found in seen.items():
            ws = sorted(found)
            rng.shuffle(ws)
            p.names[lang] = ws[:per_lang]
        return p


_WORD_EDGE = ".,;:()[]\"'«»“”!?"      # stripped from a word before its forms are stored or looked up


def stem_of(word: str) -> str:
    return word[:max(5, len(word) - 3)]


def _entity_swap(sentence: str, lang: str, pools: Pools, forbidden: str, rng: random.Random) -> str | None:
    """Swap a year, number, month or capitalised name for another value of the same type that the
    evidence does not contain."""
    cands: list[tuple[int, int, str]] = []
    for m in _NUM.finditer(sentence):
        cands.append((m.start(), m.end(), "num"))
    months = _MONTHS.get(lang, [])
    if months:
        low = [x.lower() for x in months]
        for m in re.finditer(r"\w+", sentence):
            if m.group(0).lower() in low:
                cands.append((m.start(), m.end(), "month"))
    if lang not in SPACELESS and pools.names.get(lang):
        for m in re.finditer(r"[^\W\d_][\w'’\-]*", sentence):
            w = m.group(0)
            if m.start() > 0 and len(w) > 2 and w[:1].isupper() and w.lower() not in _REL.get(lang, {}):
                cands.append((m.start(), m.end(), "name"))
    if not cands:
        return None
    # names a little less often than numbers (they are the most frequent candidates)
    s, e, kind = rng.choice(cands)
    old = sentence[s:e]
    for _ in range(20):
        if kind == "num":
            digits = re.sub(r"\D", "", old)
            if _YEAR.match(old):
                new = str(int(old) + rng.choice([-1, 1]) * rng.choice([1, 2, 3, 5, 10, 12, 20, 37, 50, 100]))
            elif len(digits) == 1:
                new = str(rng.choice([d for d in range(2, 10) if str(d) != old]))
            else:
                new = "".join(c if not c.isdigit() else str(rng.randrange(10)) for c in old)
                if new[0] == "0":
                    new = str(rng.randrange(1, 10)) + new[1:]
        elif kind == "month":
            low = [x.lower() for x in months]
            i = low.index(old.lower())
            new = _match_case(old, months[(i + rng.randrange(1, 12)) % 12])
        else:
            new = rng.choice(pools.names[lang])
        if new != old and new.lower() not in forbidden.lower():
            return sentence[:s] + new + sentence[e:]
    return None


def _negate(sentence: str, lang: str, rng: random.Random) -> str | None:
    table = NEGATIONS.get(lang)
    if not table:
        return None
    return _word_swap(sentence, table, lang, rng)


def _clause(sentence: str, rng: random.Random) -> str | None:
    parts = [p for p in re.split(r"(?<=[,;])\s+|\s+\(|\)\s*", sentence) if p]
    cands = [p.rstrip(",; ") for p in parts if len(p.split()) >= 5 and p.strip() != sentence.strip()]
    if not cands:
        return None
    return rng.choice(cands)


def _trim(sentence: str, rng: random.Random) -> str | None:
    """The sentence with a part left out (a parenthesis, or the phrase before the first or after
    the last comma): still supported by the original, but not a copy of it."""
    cands = []
    par = re.sub(r"\s*[(（][^()（）]{2,80}[)）]", "", sentence)
    if par != sentence:
        cands.append(par)
    parts = re.split(r"(?<=[,，、;])\s*", sentence)
    if len(parts) >= 2:
        head, tail = "".join(parts[1:]), "".join(parts[:-1]).rstrip(",，、; ")
        if len(head.split()) >= 5 or (len(head) >= 12 and not re.search(r"\s", head)):
            cands.append(head[:1].upper() + head[1:])
        if len(tail.split()) >= 5 or (len(tail) >= 12 and not re.search(r"\s", tail)):
            cands.append(tail + sentence[-1:] if sentence[-1:] in ".。!?" else tail)
    cands = [c.strip() for c in cands if c.strip() and c.strip() != sentence.strip()]
    return rng.choice(cands) if cands else None


def _fuse(a: str, b: str, lang: str) -> str:
    """Two supported sentences as one (the second joined after a semicolon)."""
    if lang in SPACELESS:
        return a.rstrip("。.") + "，" + b
    b = b[:1].lower() + b[1:] if b[:1].isupper() and b[1:2].islower() and b.split()[0].lower() in _FUNCTION_START else b
    return a.rstrip(" .") + "; " + b


def _inflect(sentence: str, lang: str, pools: "Pools", rng: random.Random, most: int = 3) -> str | None:
    """Up to `most` lower-case words swapped for another form of the same stem seen in the
    language's articles (a supported sentence need not use the evidence's word forms)."""
    forms = pools.forms.get(lang)
    if not forms:
        return None
    words = sentence.split(" ")
    cands = []
    for i, w in enumerate(words):
        core = w.strip(_WORD_EDGE)
        if len(core) >= 6 and core.isalpha() and core.islower() and stem_of(core) in forms:
            cands.append((i, core))
    if not cands:
        return None
    rng.shuffle(cands)
    for i, core in cands[:rng.randint(1, most)]:
        alt = [f for f in forms[stem_of(core)] if f != core]
        words[i] = words[i].replace(core, rng.choice(alt))
    out = " ".join(words)
    return out if out != sentence else None


# sentence-initial words that are not names (lower-cased when fused after a semicolon)
_FUNCTION_START = {"the", "he", "she", "it", "they", "in", "on", "at", "this", "his", "her", "el", "la", "los",
                   "las", "en", "il", "elle", "le", "les", "der", "die", "das", "er", "sie", "es", "lo", "di", "da"}


def _variant(src: str, a: "Article", rng: random.Random, pools: "Pools | None" = None) -> tuple[str, list[str]] | None:
    """A supported sentence that is not a copy of one evidence sentence: `src` trimmed, or fused
    with another sentence of the article, or (with `pools`, v3) with other forms of some of its
    words, on its own or after the others; with the sentences it comes from."""
    if pools is not None and pools.forms:
        r = rng.random()
        if r < 0.4:
            v = _inflect(src, a.lang, pools, rng)
            return (v, [src]) if v else None
        base = _variant(src, a, rng)
        if base is not None and r < 0.7:
            v = _inflect(base[0], a.lang, pools, rng, most=2)
            return (v, base[1]) if v else base
        return base
    if rng.random() < 0.5:
        t = _trim(src, rng)
        if t:
            return t, [src]
    tt = _terms(src)
    near = sorted(((overlap(tt, _terms(x)), j) for j, x in enumerate(a.sentences) if x != src), reverse=True)[:3]
    if not near:
        return None
    other = a.sentences[rng.choice(near)[1]]
    part = _clause(other, rng) or other
    if len(src) + len(part) > 300:
        return None
    return _fuse(src, part, a.lang), [src, other]


def _retopic(sentence: str, target: "Article", rng: random.Random) -> str | None:
    """A sentence of another article with its names replaced by names of `target` (an invented
    sentence that talks about the article's subject)."""
    names = [w.strip(".,;:()\"'«»“”") for s in target.sentences[:8] for w in s.split()[1:]]
    names = [w for w in names if len(w) > 2 and w[:1].isupper() and w[1:].islower() and w.isalpha()]
    if not names:
        return None
    out, n = [], 0
    for idx, w in enumerate(sentence.split(" ")):
        core = w.strip(".,;:()\"'«»“”")
        if idx and core and len(core) > 2 and core[:1].isupper() and core.isalpha():
            w = w.replace(core, rng.choice(names))
            n += 1
        out.append(w)
    return " ".join(out) if n else None
