"""Sentence splitting with exact character offsets, for every language mfact offers.

A sentence ends at a terminator (`.` `!` `?` `…`, Arabic `؟` `۔`, Devanagari/Bengali `।` `॥`, CJK
`。！？`) that is a real boundary, or at a line break. A `.` is not a boundary after an abbreviation
("Dr.", "St.", "z. B."), after a single-letter initial ("J. R. R. Tolkien"), inside a number or date
("3.5", "1.10.1867", German ordinals "7. November"), when the next word starts in lower case, or
inside a quotation that closes later on the same line.

Spans are `[start, end)` into the text, in order, never overlapping, and together they cover every
non-whitespace character (whitespace between sentences belongs to no sentence).

`complete_prefix` is for streaming text: a sentence counts as complete only once its terminator is
followed by whitespace (or a line break, or the next sentence), so "born in 1867." is not complete
until the model writes the space after it — it could still be "1867.5".
"""
from __future__ import annotations

import functools

import re

from ...protocols import Sentence

# Terminators that need whitespace (or the end) after them to end a sentence.
LATIN_TERMINATORS = ".!?…‼⁇⁈⁉"
# Terminators that end a sentence without whitespace after them.
CJK_TERMINATORS = "。！？｡"
# Terminators of scripts without case: a boundary whenever followed by whitespace or the end.
OTHER_TERMINATORS = "؟۔।॥።"
TERMINATORS = LATIN_TERMINATORS + CJK_TERMINATORS + OTHER_TERMINATORS

CLOSERS = "\"'”’»)]}」』）〕】›"
THAI_MIN_SENTENCE = 30              # characters before a space can end a Thai sentence
LINE_BREAKS = "\n\r\u2028\u2029\x0b\x0c\x85"

OPEN_QUOTES = {"“": "”", "«": "»", "„": "“", "「": "」", "『": "』", "‹": "›", "(": ")", "（": "）"}

# Abbreviations that take a period, lower-cased, without the final period. Shared across languages:
# a false "no split" joins two sentences (harmless for checking), a false split cuts a fact in two.
_ABBREVIATIONS = {
    # English
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "mt", "ft", "vs", "etc", "inc", "ltd", "co",
    "corp", "gen", "col", "lt", "sgt", "capt", "cmdr", "adm", "gov", "sen", "rep", "rev", "hon",
    "pres", "nos", "vol", "vols", "pp", "ca", "approx", "fig", "dept", "univ", "assn",
    "bros", "messrs", "e.g", "i.e", "cf", "al", "ed", "eds", "op", "jan", "feb", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "b", "d", "c", "u.s", "u.k", "u.s.a", "a.m",
    "p.m", "ph.d", "b.a", "m.a", "b.sc", "m.sc", "d.c",
    # Spanish / Portuguese / Italian
    "sra", "srta", "dña", "dra", "ud", "uds", "núm", "pág", "avda", "av", "ee.uu", "p.ej", "sto",
    "sta", "nº", "n.º", "dott", "sig", "sigg", "ecc", "pag",
    # French
    "m", "mm", "mme", "mlle", "mgr", "env", "p.ex", "av. j.-c", "apr. j.-c", "j.-c",
    # German
    "z.b", "bzw", "usw", "ggf", "geb", "gest", "nr", "hr", "fr", "bd", "jh", "jhd", "chr", "v. chr",
    "n. chr", "u.a", "d.h", "vgl", "evtl", "dipl", "ing", "hl",
    # Russian / Bulgarian (Cyrillic)
    "г", "гг", "т.е", "т.д", "т.п", "им", "ул", "др", "см", "стр", "проф", "акад", "род", "ок", "в",
    "вв", "н.э", "до н.э", "гр", "с", "т",
    # Turkish / Indonesian / Vietnamese / Swahili
    "vb", "yy", "örn", "bkz", "hz", "sdr", "tn", "bpk", "dll", "dsb", "tgl",
    "ts", "gs", "bw", "bi",
    # Greek
    "π.χ", "κ.λπ", "κ", "αγ", "μ.χ",
}

# month names that follow an ordinal day "7." in languages that write dates like that (CLDR, Babel)
_ORDINAL_DAY_LANGS = ("de", "tr", "cs", "fi", "hu", "pl", "sr", "lt", "eo")


@functools.lru_cache(maxsize=1)
def _months() -> frozenset[str]:
    from .cldr import month_names_of
    return month_names_of(_ORDINAL_DAY_LANGS)

_WORD_BEFORE = re.compile(r"([^\s\"'“”„«»()\[\]{}]*)$")


def _is_line_break(ch: str) -> bool:
    return ch in LINE_BREAKS


def _prev_token(text: str, start: int, i: int) -> str:
    """The token right before position i (the terminator), within the current sentence."""
    m = _WORD_BEFORE.search(text, start, i)
    return m.group(1) if m else ""


def _next_word(text: str, k: int) -> str | None:
    """The word after position k (skipping spaces and opening quotes); None at the end or a newline."""
    n = len(text)
    j = k
    while j < n and text[j].isspace():
        if _is_line_break(text[j]):
            return None
        j += 1
    while j < n and text[j] in "\"'“„«‘([{¿¡「『":
        j += 1
    if j >= n:
        return None
    e = j
    while e < n and not text[e].isspace():
        e += 1
    return text[j:e] or None


def _period_is_abbreviation(text: str, start: int, i: int, lang: str) -> bool:
    """True when the `.` at i belongs to the token before it (abbreviation, initial, ordinal)."""
    tok = _prev_token(text, start, i)
    if not tok:
        return False
    low = tok.lower().rstrip(".")
    if low in _ABBREVIATIONS:
        return True
    core = tok.replace(".", "")
    # single-letter initial (J. R. R. Tolkien) or dotted initials (U.S., e.g.)
    if len(core) == 1 and core.isalpha():
        return True
    if "." in tok and re.fullmatch(r"(?:\w\.)+\w", tok) and len(core) <= 4:
        return True
    return False


def _is_boundary(text: str, start: int, at: tuple[int, int, int], lang: str,
                 require_next: bool = True) -> bool:
    """Decide whether the terminator run text[i:j] (followed by closers up to k; `at`: (i, j, k))
    ends a sentence.

    `require_next`: judge with the following word (a full text); False when only whitespace follows
    so far (streaming) — then only the token before the terminator decides.
    """
    i, j, k = at
    n = len(text)
    term = text[i]
    if term in CJK_TERMINATORS:
        return True
    if k < n and not text[k].isspace():
        # "3.5", "1.10.1867", "example.com", "?!" inside a word
        return False
    if term in OTHER_TERMINATORS:
        return True
    run = text[i:j]
    if run == "." and _period_is_abbreviation(text, start, i, lang):
        return False
    nxt = _next_word(text, k) if require_next else None
    if run == "." and nxt is not None:
        prev = _prev_token(text, start, i)
        if prev.isdigit() and len(prev) <= 2:
            # "am 7. November 1867", "1. 10. 1867", "le 3. ..." : ordinal or date part
            if nxt[:1].isdigit() or nxt.lower().strip(".,") in _months():
                return False
    if nxt is not None:
        first = nxt[0]
        if first.isalpha() and first.islower():
            # a sentence does not start in lower case in a cased script ("e.g. the", '"Why?" he asked')
            return False
        if first in ",;:)]}":
            return False
    return True


def _quote_closes_later(text: str, pos: int, closer: str, limit: int = 400) -> bool:
    end = min(len(text), pos + limit)
    for q in range(pos, end):
        c = text[q]
        if _is_line_break(c):
            return False
        if c == closer:
            return True
    return False


def _open_quote(text: str, i: int, start: int | None, quotes: list[str]) -> None:
    """A quotation mark at i opens a quotation when its closer follows (a straight quote only after
    a space, a bracket or a dash, or at the start of the sentence)."""
    ch = text[i]
    if ch == '"':
        prev = text[i - 1] if i > 0 else " "
        if (prev.isspace() or prev in "([{—–-:" or i == start) and _quote_closes_later(text, i + 1, '"'):
            quotes.append('"')
    elif _quote_closes_later(text, i + 1, OPEN_QUOTES[ch]):
        quotes.append(OPEN_QUOTES[ch])


def _terminator_run(text: str, i: int, quotes: list[str]) -> tuple[int, int]:
    """(j, k): the end of the run of terminators at i, and of the closers after it (closing the
    quotations they close). A quotation still open after them keeps the sentence going."""
    n = len(text)
    j = i
    while j < n and text[j] in TERMINATORS:
        j += 1
    k = j
    while k < n and text[k] in CLOSERS:
        if quotes and text[k] == quotes[-1]:
            quotes.pop()
        k += 1
    return j, k


def _scan(text: str, lang: str) -> list[tuple[int, int, bool]]:
    """Sentences as (start, end, ended_by_terminator)."""
    out: list[tuple[int, int, bool]] = []
    n = len(text)
    start: int | None = None
    last_ns = -1                      # index of the last non-space character seen
    quotes: list[str] = []            # expected closing characters, innermost last
    thai = (lang or "").lower().startswith("th")
    i = 0

    def close(end: int, terminated: bool) -> None:
        nonlocal start, quotes
        if start is not None and end > start:
            out.append((start, end, terminated))
        start = None
        quotes = []

    while i < n:
        ch = text[i]
        if _is_line_break(ch):
            close(last_ns + 1, False)
            i += 1
            continue
        if ch.isspace():
            if (thai and start is not None and i - start >= THAI_MIN_SENTENCE and i + 1 < n
                    and "\u0e00" <= text[i + 1] <= "\u0e7f" and "\u0e00" <= text[i - 1] <= "\u0e7f"):
                # Thai has no sentence punctuation: a space between Thai words after a long enough
                # run ends the sentence
                close(last_ns + 1, False)
            i += 1
            continue
        if start is None:
            start = i
        last_ns = i
        # quotation tracking
        if quotes and ch == quotes[-1]:
            quotes.pop()
            i += 1
            continue
        if ch == '"' or (ch in OPEN_QUOTES and ch not in "()（"):
            _open_quote(text, i, start, quotes)
            i += 1
            continue
        if ch in TERMINATORS:
            j, k = _terminator_run(text, i, quotes)
            last_ns = k - 1
            if not quotes and _is_boundary(text, start, (i, j, k), lang):
                close(k, True)
            i = k
            continue
        i += 1
    if start is not None:
        close(last_ns + 1, False)
    return out


def split_sentences(text: str, lang: str = "en") -> list[Sentence]:
    """Split `text` into sentences with exact `[start, end)` offsets (see the module docstring)."""
    if not text:
        return []
    return [Sentence(index=idx, start=s, end=e, text=text[s:e])
            for idx, (s, e, _t) in enumerate(_scan(text, lang or "en"))]


def _ends_with_terminator(text: str, start: int, end: int) -> tuple[int, int, int] | None:
    """(i, j, k) of the terminator run that ends text[start:end] (before closers), or None."""
    k = end
    while k > start and text[k - 1] in CLOSERS:
        k -= 1
    j = k
    while j > start and text[j - 1] in TERMINATORS:
        j -= 1
    if j == k:
        return None
    return j, k, end


def complete_prefix(text: str, lang: str = "en", final: bool = False) -> int:
    """End offset of the last complete sentence of a (streaming) text; 0 when there is none.

    With `final=True` the text is finished: every sentence is complete, so this returns the end of
    the last sentence that is not an unfinished fragment (see `drop_unfinished`).
    """
    spans = _scan(text, lang or "en")
    if not spans:
        return 0
    if final:
        return last_finished_end(text, spans)
    s, e, terminated = spans[-1]
    tail = text[e:]
    prev_end = spans[-2][1] if len(spans) > 1 else 0
    if any(_is_line_break(c) for c in tail):
        return e
    if not tail:
        return prev_end
    # only whitespace follows: complete when it ends in a terminator that is a boundary by itself
    term = _ends_with_terminator(text, s, e)
    if term is None:
        return prev_end
    if _is_boundary(text, s, term, lang, require_next=False):
        return e
    return prev_end


def last_finished_end(text: str, spans: list[tuple[int, int, bool]] | None = None,
                      lang: str = "en") -> int:
    """End of the last sentence of a finished text that ends with a terminator or a line break."""
    spans = spans if spans is not None else _scan(text, lang)
    if not spans:
        return 0
    s, e, terminated = spans[-1]
    if terminated or _ends_with_terminator(text, s, e) is not None:
        return e
    if any(_is_line_break(c) for c in text[e:]):
        # a line of its own (heading, list item) that the model finished with a newline
        return e
    return spans[-2][1] if len(spans) > 1 else 0
