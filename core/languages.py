"""The languages mfact offers. Every part of mfact takes its language list from here.

Resource levels follow the multilingual factuality papers (Kim et al. 2024; Islam et al. 2025):
high for languages with large Wikipedias and much training data, medium and low below.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import MfactError


@dataclass(frozen=True)
class Language:
    code: str          # ISO 639-1 / BCP-47 primary subtag
    name: str          # English name
    native: str        # native name
    script: str        # ISO 15924 script name
    direction: str     # "ltr" or "rtl"
    wiki: str          # Wikipedia subdomain code
    resource: str      # "high" | "medium" | "low"


LANGUAGES: tuple[Language, ...] = (
    Language("en", "English", "English", "Latin", "ltr", "en", "high"),
    Language("es", "Spanish", "Español", "Latin", "ltr", "es", "high"),
    Language("fr", "French", "Français", "Latin", "ltr", "fr", "high"),
    Language("de", "German", "Deutsch", "Latin", "ltr", "de", "high"),
    Language("ru", "Russian", "Русский", "Cyrillic", "ltr", "ru", "high"),
    Language("zh", "Chinese", "中文", "Han", "ltr", "zh", "high"),
    Language("vi", "Vietnamese", "Tiếng Việt", "Latin", "ltr", "vi", "high"),
    Language("ja", "Japanese", "日本語", "Japanese", "ltr", "ja", "high"),
    Language("it", "Italian", "Italiano", "Latin", "ltr", "it", "high"),
    Language("pt", "Portuguese", "Português", "Latin", "ltr", "pt", "high"),
    Language("tr", "Turkish", "Türkçe", "Latin", "ltr", "tr", "medium"),
    Language("ar", "Arabic", "العربية", "Arabic", "rtl", "ar", "medium"),
    Language("hi", "Hindi", "हिन्दी", "Devanagari", "ltr", "hi", "medium"),
    Language("el", "Greek", "Ελληνικά", "Greek", "ltr", "el", "medium"),
    Language("bg", "Bulgarian", "Български", "Cyrillic", "ltr", "bg", "medium"),
    Language("th", "Thai", "ไทย", "Thai", "ltr", "th", "medium"),
    Language("ko", "Korean", "한국어", "Hangul", "ltr", "ko", "high"),
    Language("fa", "Persian", "فارسی", "Arabic", "rtl", "fa", "medium"),
    Language("id", "Indonesian", "Bahasa Indonesia", "Latin", "ltr", "id", "medium"),
    Language("ur", "Urdu", "اردو", "Arabic", "rtl", "ur", "low"),
    Language("bn", "Bengali", "বাংলা", "Bengali", "ltr", "bn", "low"),
    Language("sw", "Swahili", "Kiswahili", "Latin", "ltr", "sw", "low"),
    # the languages of mFAVA (Islam et al. 2025) that the ones above lack
    Language("pl", "Polish", "Polski", "Latin", "ltr", "pl", "high"),
    Language("ca", "Catalan", "Català", "Latin", "ltr", "ca", "medium"),
    Language("cs", "Czech", "Čeština", "Latin", "ltr", "cs", "medium"),
    Language("fi", "Finnish", "Suomi", "Latin", "ltr", "fi", "medium"),
    Language("he", "Hebrew", "עברית", "Hebrew", "rtl", "he", "medium"),
    Language("hu", "Hungarian", "Magyar", "Latin", "ltr", "hu", "medium"),
    Language("ro", "Romanian", "Română", "Latin", "ltr", "ro", "medium"),
    Language("sr", "Serbian", "Српски", "Cyrillic", "ltr", "sr", "medium"),
    Language("eu", "Basque", "Euskara", "Latin", "ltr", "eu", "low"),
    Language("eo", "Esperanto", "Esperanto", "Latin", "ltr", "eo", "low"),
    Language("la", "Latin", "Latina", "Latin", "ltr", "la", "low"),
    Language("lt", "Lithuanian", "Lietuvių", "Latin", "ltr", "lt", "low"),
    Language("ms", "Malay", "Bahasa Melayu", "Latin", "ltr", "ms", "low"),
    Language("yue", "Cantonese", "粵語", "Han", "ltr", "zh-yue", "low"),
    Language("sd", "Sindhi", "سنڌي", "Arabic", "rtl", "sd", "low"),
)

_BY_CODE = {lang.code: lang for lang in LANGUAGES}
# tags whose primary subtag is another language of the table (Wikipedia's code for Cantonese)
_ALIASES = {"zh-yue": "yue"}


class UnknownLanguage(MfactError, ValueError):
    """Raised for a language code mfact does not offer; the message lists the codes it does."""

    def __init__(self, code: str):
        self.code = code
        super().__init__(f"unknown language {code!r}; choose one of: " + ", ".join(sorted(_BY_CODE)))


def get_language(code: str) -> Language:
    """Look a language up by code (case-insensitive, region subtags ignored: 'pt-BR' -> pt; 'zh-yue',
    Wikipedia's code for Cantonese, -> yue)."""
    key = (code or "").strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key).split("-")[0]
    try:
        return _BY_CODE[key]
    except KeyError:
        raise UnknownLanguage(code) from None


def language_codes() -> list[str]:
    return [lang.code for lang in LANGUAGES]


def parse_language_list(spec: str) -> list[Language]:
    """Parse 'es,ar,bn' into Language objects, raising UnknownLanguage for the first bad code."""
    return [get_language(part) for part in spec.split(",") if part.strip()]
