"""Offline Wikipedia from Kiwix `.zim` files (optional extra `zim`: libzim).

Title lookup (redirects followed), suggestions, full-text search, and article HTML reduced to text with
section titles and infobox rows kept. Each archive's language comes from its `Language` metadata
(ISO 639-3), else from a `_xx_` part of the file name (wikipedia_es_all_maxi.zim)."""
from __future__ import annotations

import re
import threading
from pathlib import Path
from urllib.parse import unquote

from ..errors import MfactError
from .base import Page, TitleMatch
from .htmltext import html_to_text

NAME = "zim"
_ISO3 = {"eng": "en", "spa": "es", "fra": "fr", "fre": "fr", "deu": "de", "ger": "de", "rus": "ru", "zho": "zh",
         "chi": "zh", "vie": "vi", "ara": "ar", "hin": "hi", "ben": "bn", "swa": "sw", "swh": "sw", "tur": "tr",
         "jpn": "ja", "ita": "it", "por": "pt", "kor": "ko", "ell": "el", "gre": "el", "bul": "bg", "tha": "th",
         "fas": "fa", "per": "fa", "ind": "id", "urd": "ur", "pol": "pl", "nld": "nl", "ukr": "uk",
         "eus": "eu", "baq": "eu", "yue": "yue", "cat": "ca", "ces": "cs", "cze": "cs", "epo": "eo",
         "fin": "fi", "heb": "he", "hun": "hu", "lat": "la", "lit": "lt", "msa": "ms", "may": "ms",
         "zsm": "ms", "ron": "ro", "rum": "ro", "srp": "sr", "snd": "sd"}


class _Zim:
    def __init__(self, path: Path):
        try:
            from libzim.reader import Archive
        except ImportError:
            raise MfactError("reading .zim files needs libzim", "pip install 'mfact[zim]'") from None
        if not path.exists():
            raise MfactError(f"ZIM file {path} does not exist", "check the --zim path")
        try:
            self.archive = Archive(str(path))
            _ = self.archive.entry_count
        except Exception as exc:  # noqa: BLE001 - libzim raises RuntimeError and others for damaged files
            raise MfactError(
                f"ZIM file {path} cannot be read: {exc}", "the file is damaged or not a ZIM file"
            ) from None
        self.path = path
        self.lock = threading.Lock()
        self.lang = self._language()

    def _meta(self, key: str) -> str:
        try:
            return bytes(self.archive.get_metadata(key)).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001 - metadata is optional
            return ""

    def _language(self) -> str:
        code = self._meta("Language").split(",")[0].strip().lower()
        if len(code) == 2:
            return code
        if code in _ISO3:
            return _ISO3[code]
        m = re.search(r"_([a-z]{2})_", self.path.name)
        return m.group(1) if m else ""

    def entry(self, title: str):
        """The article entry for a title (redirects followed), or None."""
        a = self.archive
        path = title.replace(" ", "_")
        lookups = [(a.has_entry_by_path, a.get_entry_by_path, c) for c in (path, title, "A/" + path)]
        lookups.append((a.has_entry_by_title, a.get_entry_by_title, title))
        for has, get, key in lookups:
            try:
                if has(key):
                    e = get(key)
                    return e.get_redirect_entry() if e.is_redirect else e
            except Exception:  # noqa: BLE001
                continue
        return None

    def suggest(self, text: str, limit: int) -> list[str]:
        from libzim.suggestion import SuggestionSearcher

        try:
            res = SuggestionSearcher(self.archive).suggest(text).getResults(0, limit)
            return [self.archive.get_entry_by_path(p).title for p in res]
        except Exception:  # noqa: BLE001 - an archive without a title index
            return []

    def search(self, text: str, limit: int) -> list[str]:
        from libzim.search import Query, Searcher

        try:
            res = Searcher(self.archive).search(Query().set_query(text)).getResults(0, limit)
            return [self.archive.get_entry_by_path(p).title for p in res]
        except Exception:  # noqa: BLE001 - an archive without a full-text index
            return []


class ZimSource:
    name = NAME

    def __init__(self, files: list[str]):
        self._zims = [_Zim(Path(f).expanduser()) for f in files]

    def languages(self) -> list[str]:
        return sorted({z.lang for z in self._zims if z.lang})

    def _for(self, lang: str) -> list[_Zim]:
        return [z for z in self._zims if z.lang == lang]

    def lookup(self, name: str, lang: str) -> TitleMatch:
        sugg: list[str] = []
        for z in self._for(lang):
            with z.lock:
                e = z.entry(name)
                if e is None:
                    sugg += z.suggest(name, 5) or z.search(name, 5)
                    continue
                html = bytes(e.get_item().content).decode("utf-8", "replace")
            _, _, disamb, links = html_to_text(html)
            if disamb:
                choices = [unquote(ln.split("#")[0]).replace("_", " ").lstrip("./").removeprefix("A/")
                           for ln in links if "://" not in ln and not ln.startswith("#")]
                return TitleMatch(choices=list(dict.fromkeys(c for c in choices if c)))
            return TitleMatch(title=e.title)
        return TitleMatch(suggestions=list(dict.fromkeys(sugg)))

    def get_page(self, title: str, lang: str) -> Page | None:
        for z in self._for(lang):
            with z.lock:
                e = z.entry(title)
                if e is None:
                    continue
                html = bytes(e.get_item().content).decode("utf-8", "replace")
            _, sections, _, _ = html_to_text(html)
            if sections:
                return Page(source=NAME, lang=lang, title=e.title, sections=sections,
                            url=f"zim://{z.path.name}/{e.path}")
        return None

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        out: list[str] = []
        for z in self._for(lang):
            with z.lock:
                out += z.suggest(prefix, limit)
        return list(dict.fromkeys(out))[:limit]

    def search(self, text: str, lang: str, limit: int = 10) -> list[str]:
        out: list[str] = []
        for z in self._for(lang):
            with z.lock:
                out += z.search(text, limit)
        return list(dict.fromkeys(out))[:limit]
