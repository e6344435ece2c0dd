"""CLDR through Babel: month names and number symbols of every language mfact offers (the slot
checks read dates and numbers with them; the sentence splitter and the extractor's word tables know
month abbreviations by them)."""
from __future__ import annotations

import functools
import json
import re
import unicodedata
from typing import Iterable
from .textutil import MARKED_WORD, lowered
from ...languages import CLDR_LOCALES
# Babel's locale names for mfact's language codes (several scripts where a language has them)
_BABEL = CLDR_LOCALES     # core/languages.py


def _offered() -> list[str]:
    from ...languages import LANGUAGES
    return [lang.code for lang in LANGUAGES]


def _fold(word: str) -> str:
    return lowered(word).strip(".")


@functools.lru_cache(maxsize=None)
def _own_month_words(lang: str, min_len: int = 3) -> dict[str, int]:
    """Month names of one language (wide and abbreviated, format and stand-alone) from CLDR, of at
    least `min_len` characters (shorter abbreviations are too ambiguous to find dates by)."""
    base = _cldr_months().get(lang)
    if base is None:
        base = _read_cldr_months(lang)
    out: dict[str, int] = {}
    for w, m in base:
        if len(w) >= min_len:
            for form in {w, unicodedata.normalize("NFD", w), unicodedata.normalize("NFKC", w)}:
                out.setdefault(form, m)
    return out


def _read_cldr_months(lang: str) -> list[tuple[str, int]]:
    """A language's CLDR month names, folded, in Babel's order (a name may come twice), without
    the numeric ones (CJK "11月", Korean "11월": the CJK pattern reads those)."""
    try:
        from babel import Locale, UnknownLocaleError
        from babel.dates import get_month_names
    except ImportError:  # pragma: no cover - babel is a dependency
        return []
    out: list[tuple[str, int]] = []
    for loc in _BABEL.get(lang, (lang,)):
        try:
            Locale.parse(loc)
        except (UnknownLocaleError, ValueError):
            continue
        for width in ("wide", "abbreviated"):
            for context in ("format", "stand-alone"):
                try:
                    names = get_month_names(width, context=context, locale=loc)
                except (KeyError, ValueError, UnknownLocaleError):
                    continue
                for m, name in names.items():
                    w = _fold(str(name))
                    if w and not any(c.isdigit() for c in w):
                        out.append((w, int(m)))
    return out


@functools.lru_cache(maxsize=1)
def _cldr_months() -> dict[str, list[tuple[str, int]]]:
    """The month names of every offered language (and English), read from Babel once and kept in
    mfact's cache folder, named by Babel's version and the languages: reading ~40 locales' data
    took 0.6 s of every start that checks a fact (the rule extractor's date words import it), and
    held the interpreter lock that long in whatever thread imported it first (the TUI's keys
    waited). A cache that cannot be read or written is only slower."""
    import hashlib

    try:
        import babel
        version = babel.__version__
    except ImportError:  # pragma: no cover - babel is a dependency
        return {}
    langs = _offered() + ["en"]
    from ...paths import cached_json

    tag = hashlib.sha256(json.dumps([version, langs, sorted(_BABEL.items())]).encode()).hexdigest()[:12]
    got = cached_json(
        f"cldr-months-{tag}.json",
        lambda: {lang: _read_cldr_months(lang) for lang in dict.fromkeys(langs)},
        valid=lambda v: _month_rows(v) is not None,
    )
    return _month_rows(got) or {}


def _month_rows(got: object) -> dict[str, list[tuple[str, int]]] | None:
    """The month table as read from its JSON file, or None when the file holds something else."""
    if not isinstance(got, dict):
        return None
    try:
        return {lang: [(w, int(m)) for w, m in rows] for lang, rows in got.items()}
    except (TypeError, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def all_month_names() -> frozenset[str]:
    """Every CLDR month name (any length, lower case) of every language mfact offers."""
    out: set[str] = set()
    for lang in _offered() + ["en"]:
        out |= set(_own_month_words(lang, 1))
    return frozenset(out)


def month_names_of(langs: Iterable[str]) -> frozenset[str]:
    """The CLDR month names (lower case) of the given languages."""
    return frozenset(w for lang in langs for w in _own_month_words(lang, 1))


@functools.lru_cache(maxsize=None)
def _all_month_words() -> dict[str, int]:
    """Month names of every offered language; a word that names different months in two languages
    is left out."""
    seen: dict[str, int] = {}
    bad: set[str] = set()
    for lang in _offered() + ["en"]:
        for w, m in _own_month_words(lang).items():
            if w in seen and seen[w] != m:
                bad.add(w)
            seen.setdefault(w, m)
    return {w: m for w, m in seen.items() if w not in bad}


@functools.lru_cache(maxsize=None)
def month_words(lang: str) -> dict[str, int]:
    """Month word -> month number for a text in `lang`: its own CLDR names first, then English, then
    those of every other language mfact offers (evidence may be in another language)."""
    table = dict(_all_month_words())
    table.update(_own_month_words("en"))
    table.update(_own_month_words(lang))
    return table


@functools.lru_cache(maxsize=None)
def _month_regex(lang: str) -> re.Pattern[str]:
    words = sorted(month_words(lang), key=len, reverse=True)
    alt = "|".join(re.escape(w) for w in words)
    return re.compile(r"(?<![\w])(" + alt + r")\.?(?![\w])", re.IGNORECASE)


@functools.lru_cache(maxsize=None)
def number_symbols(lang: str) -> tuple[str, str]:
    """(group, decimal) separators of `lang` from CLDR; English's when Babel has no such locale."""
    try:
        from babel.numbers import get_decimal_symbol, get_group_symbol
        loc = _BABEL.get(lang, (lang,))[0]
        return get_group_symbol(loc), get_decimal_symbol(loc)
    except Exception:  # noqa: BLE001 - unknown locale: English symbols
        return ",", "."


@functools.lru_cache(maxsize=None)
def magnitude_words(lang: str) -> frozenset[str]:
    """The words of `lang`'s long compact numbers in CLDR ("Millionen", "tuhatta", "करोड़"), folded,
    English's with them: a number's own words ("1,5 Millionen")."""
    out: set[str] = set()
    for code in dict.fromkeys([lang, "en"]):
        try:
            from babel import Locale
            formats = Locale.parse(_BABEL.get(code, (code,))[0]).compact_decimal_formats.get("long", {})
        except Exception:  # noqa: BLE001 - unknown locale: no words of its own
            continue
        for plural in formats.values():
            for pattern in plural.values():
                text = getattr(pattern, "pattern", str(pattern))
                out.update(_fold(w) for w in re.findall(MARKED_WORD, text.replace("'", " ")) if not w.isdigit())
    return frozenset(out)
