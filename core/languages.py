"""The languages mfact offers. Every part of mfact takes its language list from here.

Resource levels follow the multilingual factuality papers (Kim et al. 2024; Islam et al. 2025):
high for languages with large Wikipedias and much training data, medium and low below.

`LANGUAGES` are the languages with mfact's own word tables (relations, occupations, prompts ...).
`GENERIC` are the others that both the encoder (multilingual-e5-small, on XLM-R's CC-100 languages)
and Babel (a CLDR locale) cover, each with a Wikipedia edition: they are checked on the generic path
(CLDR dates, months and numbers, the multilingual detector, no word tables), and the UI says so once
(`generic_notice`). `ALL_LANGUAGES` is both; every code of it is accepted everywhere.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from .errors import MfactError

# What a language is, beyond its record's fields: the one place for these traits (the checking
# stages read them from here).
# Written without spaces between words: the knowledge layer cuts and indexes passages by characters.
NO_SPACES = frozenset({"zh", "yue", "ja", "th", "lo", "km", "my", "bo"})
# ... and of those, read a character at a time by the rules (Han and kana: a character is about a word).
BY_CHARACTER = frozenset({"zh", "yue", "ja"})
# Chinese and Cantonese: Han characters, simplified or traditional.
HAN = frozenset({"zh", "yue"})
# The East Asian languages: dates in 年/月/日 (년/월/일), full-width punctuation.
EAST_ASIAN = frozenset({"zh", "ja", "ko", "yue"})
# Babel's locale names where they are not the code (several scripts where a language has them).
CLDR_LOCALES: dict[str, tuple[str, ...]] = {"sr": ("sr", "sr_Latn"), "zh": ("zh", "zh_Hant"), "yue": ("yue",),
                                            "sd": ("sd",), "la": ("la",), "eo": ("eo",)}
# The word tables (core/checking/data/*.json) and how deep their language keys lie.
RULE_TABLES = {"relations": 1, "occupation": 1, "nationality": 1, "kinship": 1, "prizes": 1,
               "number_words": 0, "meta_phrases": 0}


@dataclass(frozen=True)
class Language:
    code: str          # ISO 639-1 / BCP-47 primary subtag
    name: str          # English name
    native: str        # native name
    script: str        # ISO 15924 script name
    direction: str     # "ltr" or "rtl"
    wiki: str          # Wikipedia subdomain code
    resource: str      # "high" | "medium" | "low"
    tables: bool = True  # mfact's own word tables; False: the generic path (CLDR + the detector)

    @property
    def spaceless(self) -> bool:
        """Written without spaces between words."""
        return self.code in NO_SPACES

    @property
    def by_character(self) -> bool:
        """Read a character at a time by the rules (Han and kana)."""
        return self.code in BY_CHARACTER

    @property
    def cldr_locales(self) -> tuple[str, ...]:
        """Babel's locale names for the language, first the one for its dates and numbers."""
        return CLDR_LOCALES.get(self.code, (self.code,))

    @property
    def rule_tables(self) -> tuple[str, ...]:
        """The word tables that have entries of this language (`RULE_TABLES`)."""
        return tuple(name for name in RULE_TABLES if self.code in _table_languages(name))


@functools.lru_cache(maxsize=None)
def _table_languages(name: str) -> frozenset[str]:
    """The language codes of one word table: its keys at the table's depth."""
    raw = resources.files("mfact.core").joinpath("checking", "data", f"{name}.json").read_text("utf-8")
    level = [json.loads(raw)]
    for _ in range(RULE_TABLES[name]):
        level = [v for d in level if isinstance(d, dict) for v in d.values()]
    return frozenset(k for d in level if isinstance(d, dict) for k in d)


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

# The generic languages: XLM-R's CC-100 languages that Babel has a locale for, less the ones above
# (names, scripts and directions from CLDR; Tagalog is left out: Babel names it only as Filipino).
GENERIC: tuple[Language, ...] = (
    Language("af", "Afrikaans", "Afrikaans", "Latin", "ltr", "af", "medium", False),
    Language("am", "Amharic", "አማርኛ", "Ethiopic", "ltr", "am", "low", False),
    Language("as", "Assamese", "অসমীয়া", "Bengali", "ltr", "as", "low", False),
    Language("az", "Azerbaijani", "Azərbaycan", "Latin", "ltr", "az", "medium", False),
    Language("be", "Belarusian", "Беларуская", "Cyrillic", "ltr", "be", "medium", False),
    Language("br", "Breton", "Brezhoneg", "Latin", "ltr", "br", "low", False),
    Language("bs", "Bosnian", "Bosanski", "Latin", "ltr", "bs", "medium", False),
    Language("cy", "Welsh", "Cymraeg", "Latin", "ltr", "cy", "medium", False),
    Language("da", "Danish", "Dansk", "Latin", "ltr", "da", "medium", False),
    Language("et", "Estonian", "Eesti", "Latin", "ltr", "et", "medium", False),
    Language("fy", "Western Frisian", "Frysk", "Latin", "ltr", "fy", "low", False),
    Language("ga", "Irish", "Gaeilge", "Latin", "ltr", "ga", "low", False),
    Language("gd", "Scottish Gaelic", "Gàidhlig", "Latin", "ltr", "gd", "low", False),
    Language("gl", "Galician", "Galego", "Latin", "ltr", "gl", "medium", False),
    Language("gu", "Gujarati", "ગુજરાતી", "Gujarati", "ltr", "gu", "low", False),
    Language("ha", "Hausa", "Hausa", "Latin", "ltr", "ha", "low", False),
    Language("hr", "Croatian", "Hrvatski", "Latin", "ltr", "hr", "medium", False),
    Language("hy", "Armenian", "Հայերեն", "Armenian", "ltr", "hy", "medium", False),
    Language("is", "Icelandic", "Íslenska", "Latin", "ltr", "is", "medium", False),
    Language("jv", "Javanese", "Jawa", "Latin", "ltr", "jv", "low", False),
    Language("ka", "Georgian", "Ქართული", "Georgian", "ltr", "ka", "medium", False),
    Language("kk", "Kazakh", "Қазақ тілі", "Cyrillic", "ltr", "kk", "medium", False),
    Language("km", "Khmer", "ខ្មែរ", "Khmer", "ltr", "km", "low", False),
    Language("kn", "Kannada", "ಕನ್ನಡ", "Kannada", "ltr", "kn", "medium", False),
    Language("ku", "Kurdish", "Kurdî (kurmancî)", "Latin", "ltr", "ku", "low", False),
    Language("ky", "Kyrgyz", "Кыргызча", "Cyrillic", "ltr", "ky", "low", False),
    Language("lo", "Lao", "ລາວ", "Lao", "ltr", "lo", "low", False),
    Language("lv", "Latvian", "Latviešu", "Latin", "ltr", "lv", "medium", False),
    Language("mg", "Malagasy", "Malagasy", "Latin", "ltr", "mg", "low", False),
    Language("mk", "Macedonian", "Македонски", "Cyrillic", "ltr", "mk", "medium", False),
    Language("ml", "Malayalam", "മലയാളം", "Malayalam", "ltr", "ml", "medium", False),
    Language("mn", "Mongolian", "Монгол", "Cyrillic", "ltr", "mn", "low", False),
    Language("mr", "Marathi", "मराठी", "Devanagari", "ltr", "mr", "medium", False),
    Language("my", "Burmese", "မြန်မာ", "Myanmar", "ltr", "my", "low", False),
    Language("ne", "Nepali", "नेपाली", "Devanagari", "ltr", "ne", "low", False),
    Language("nl", "Dutch", "Nederlands", "Latin", "ltr", "nl", "high", False),
    Language("no", "Norwegian", "Norsk", "Latin", "ltr", "no", "medium", False),
    Language("om", "Oromo", "Oromoo", "Latin", "ltr", "om", "low", False),
    Language("or", "Odia", "ଓଡ଼ିଆ", "Odia", "ltr", "or", "low", False),
    Language("pa", "Punjabi", "ਪੰਜਾਬੀ", "Gurmukhi", "ltr", "pa", "low", False),
    Language("ps", "Pashto", "پښتو", "Arabic", "rtl", "ps", "low", False),
    Language("sa", "Sanskrit", "संस्कृत भाषा", "Devanagari", "ltr", "sa", "low", False),
    Language("si", "Sinhala", "සිංහල", "Sinhala", "ltr", "si", "low", False),
    Language("sk", "Slovak", "Slovenčina", "Latin", "ltr", "sk", "medium", False),
    Language("sl", "Slovenian", "Slovenščina", "Latin", "ltr", "sl", "medium", False),
    Language("so", "Somali", "Soomaali", "Latin", "ltr", "so", "low", False),
    Language("sq", "Albanian", "Shqip", "Latin", "ltr", "sq", "medium", False),
    Language("su", "Sundanese", "Basa Sunda", "Latin", "ltr", "su", "low", False),
    Language("sv", "Swedish", "Svenska", "Latin", "ltr", "sv", "high", False),
    Language("ta", "Tamil", "தமிழ்", "Tamil", "ltr", "ta", "medium", False),
    Language("te", "Telugu", "తెలుగు", "Telugu", "ltr", "te", "medium", False),
    Language("ug", "Uyghur", "ئۇيغۇرچە", "Arabic", "rtl", "ug", "low", False),
    Language("uk", "Ukrainian", "Українська", "Cyrillic", "ltr", "uk", "high", False),
    Language("uz", "Uzbek", "O‘zbek", "Latin", "ltr", "uz", "medium", False),
    Language("xh", "Xhosa", "IsiXhosa", "Latin", "ltr", "xh", "low", False),
    Language("yi", "Yiddish", "ייִדיש", "Hebrew", "rtl", "yi", "low", False),
)

ALL_LANGUAGES: tuple[Language, ...] = LANGUAGES + GENERIC

_BY_CODE = {lang.code: lang for lang in ALL_LANGUAGES}
# tags whose primary subtag is another language of the table (Wikipedia's code for Cantonese;
# Norwegian Bokmål, which no.wikipedia.org writes)
_ALIASES = {"zh-yue": "yue", "nb": "no"}


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
    """Every language mfact accepts: those with tables, then the generic ones."""
    return [lang.code for lang in ALL_LANGUAGES]


def table_codes() -> list[str]:
    """The languages with mfact's own word tables."""
    return [lang.code for lang in LANGUAGES]


def generic_notice(code: str) -> str:
    """The one line the UI shows once for a language on the generic path ("" for one with tables)."""
    try:
        lang = get_language(code)
    except UnknownLanguage:
        return ""
    if lang.tables:
        return ""
    return (f"{lang.name} ({lang.code}) has no word tables of its own: its rules are generic (CLDR dates "
            f"and numbers, and the multilingual detector)")


def parse_language_list(spec: str) -> list[Language]:
    """Parse 'es,ar,bn' into Language objects, raising UnknownLanguage for the first bad code."""
    return [get_language(part) for part in spec.split(",") if part.strip()]
