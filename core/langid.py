"""Language identification, restricted to the languages mfact offers.

Two detectors, as CaLMQA uses them:

- `langid`: langid.py's model through py3langid (default; always installed);
- `polyglot`: Google's CLD2 through pycld2, the detector polyglot wraps (optional extra
  `mfact[polyglot]`; used only when importable).

Which one decides for a language comes from measurements on the XNLI dev premises
(`bench/langid.py`, table in docs/models.md): `PREFERRED` maps a language to the detector that
identified it best there. `detect(text)` asks langid first and lets the preferred detector of the
language in question have the last word; `check_language(text, lang)` asks the detector preferred
for the requested language.
"""
from __future__ import annotations

import threading

from .languages import language_codes, table_codes
from .protocols import Stage

_lock = threading.Lock()
_identifiers: dict[str, object] = {}

# From bench/langid.py on ../shared/data/xnli-dev (see docs/models.md). Languages not listed use
# langid, which is as good or better everywhere except these.
PREFERRED: dict[str, str] = {}

# CLD2 codes that differ from ours
_CLD2_CODES = {"zh-Hant": "zh", "zh-hant": "zh", "iw": "he", "in": "id", "tl": "fil"}

# Sindhi: langid.py has no class for it (it answers ar, fa or ur). Sindhi writes letters that Arabic,
# Persian and Urdu do not (ڪ ٻ ڀ ٺ ٽ ٿ ڄ ڃ ڇ ڊ ڌ ڍ ڏ ڙ ڦ ڳ ڱ ڻ ۾): a text whose Arabic-script letters
# hold at least 2% of them (and two or more) is Sindhi. On mFAVA's answers: median 11% in Sindhi,
# none at all in Urdu and Persian.
_SINDHI_LETTERS = frozenset("\u06aa\u067b\u0680\u067a\u067d\u067f\u0684\u0683\u0687\u068a\u068c"
                            "\u068d\u068f\u0699\u06a6\u06b3\u06b1\u06bb\u06fe")


def _is_sindhi(text: str) -> bool:
    arabic = sindhi = 0
    for ch in text:
        if "\u0600" <= ch <= "\u06ff":
            arabic += 1
            sindhi += ch in _SINDHI_LETTERS
    return sindhi >= 2 and sindhi >= 0.02 * arabic


def _candidates(expect: str) -> list[str]:
    """The languages a restricted identification chooses among: those with word tables, and the
    language the text is expected in when it is one of the generic ones (a Swedish answer is told
    from the table languages, not from every language langid knows)."""
    codes = table_codes()
    return codes + [expect] if expect and expect not in codes and expect in language_codes() else codes


def _langid(restricted: bool = True, expect: str = ""):
    cands = _candidates(expect) if restricted else []
    key = "restricted:" + ",".join(cands) if restricted else "all"
    with _lock:
        ident = _identifiers.get(key)
        if ident is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier  # noqa: I001

            ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            if restricted:
                known = set(ident.nb_classes)
                ident.set_languages([c for c in cands if c in known])
            _identifiers[key] = ident
        return ident


def langid_detect(text: str, restricted: bool = True, expect: str = "") -> tuple[str, float]:
    """langid.py's answer (over mfact's table languages and `expect` unless `restricted` is False)."""
    if not text or not text.strip():
        return "", 0.0
    code, prob = _langid(restricted, expect).classify(text)
    if (not restricted or "sd" in language_codes()) and _is_sindhi(text):
        return "sd", float(prob)
    return str(code), float(prob)


def polyglot_available() -> bool:
    try:
        import pycld2  # noqa: F401
    except ImportError:
        return False
    return True


def polyglot_detect(text: str, restricted: bool = True) -> tuple[str, float]:
    """CLD2's answer as polyglot gives it: the first of its top three candidates that mfact offers
    (("", 0.0) when it finds none, or when pycld2 is not installed)."""
    if not text or not text.strip():
        return "", 0.0
    try:
        import pycld2
    except ImportError:
        return "", 0.0
    clean = "".join(ch for ch in text if ch.isprintable() or ch in "\n\t")
    try:
        _reliable, _bytes, details = pycld2.detect(clean, bestEffort=True)
    except pycld2.error:
        return "", 0.0
    offered = set(language_codes())
    for _name, code, percent, _score in details:
        code = _CLD2_CODES.get(code, code)
        if code in ("un", "xxx"):
            continue
        if not restricted or code in offered:
            return code, float(percent) / 100.0
    return "", 0.0


DETECTORS = {"langid": langid_detect, "polyglot": polyglot_detect}


class Detector(Stage):
    """A LanguageDetector (protocols) for one named detector."""

    def __init__(self, name: str = "langid"):
        if name not in DETECTORS:
            raise ValueError(f"unknown language detector {name!r}; one of {', '.join(DETECTORS)}")
        self.name = name

    def detect(self, text: str) -> tuple[str, float]:
        return DETECTORS[self.name](text)


def preferred_detector(lang: str) -> str:
    """The detector that decides for `lang` (polyglot only when it is installed)."""
    name = PREFERRED.get(lang, "langid")
    if name == "polyglot" and not polyglot_available():
        return "langid"
    return name


def detect(text: str, expect: str = "") -> tuple[str, float]:
    """(ISO 639-1 code, probability) of the text's language; ("", 0.0) for empty text. `expect`: the
    language the text should be in, a candidate even where it has no word tables."""
    code, prob = langid_detect(text, expect=expect)
    if code and PREFERRED and polyglot_available():
        # polyglot has the last word when it is the preferred detector of either language in question
        other, p2 = polyglot_detect(text)
        if other and other != code and "polyglot" in (PREFERRED.get(code), PREFERRED.get(other)):
            return other, p2
    return code, prob


def check_language(text: str, lang: str) -> tuple[bool, str, float]:
    """Is `text` in `lang`? Asks the detector preferred for `lang`. Returns (ok, detected, prob)."""
    name = preferred_detector(lang)
    code, prob = langid_detect(text, expect=lang) if name == "langid" else DETECTORS[name](text)
    if not code and name != "langid":
        code, prob = langid_detect(text, expect=lang)
    return code == lang, code, prob
