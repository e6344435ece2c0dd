"""Finding the person: the page title in each language, the Wikidata QID, or choices and suggestions."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..errors import MfactError
from ..languages import get_language
from ..session import Entity
from .base import KnowledgeSource


def fallback_notice(name: str, lang: str, used: Sequence[str]) -> str:
    """What a user is told when `name` has no page in `lang` and pages in `used` serve instead: one
    wording, so that the look-up and the retriever, which both notice it, say the same thing once."""
    where = "the English page" if list(used) == ["en"] else "the pages in " + ", ".join(used)
    return f"no page about {name} in '{lang}'; using {where}" + _across_scripts(lang, used)


# scripts the verifier reads well against evidence in another of them (Latin, Cyrillic: Russian facts
# against the English lead are S where true); across the others it flags true facts as NS
_READ_ACROSS = {"Latin", "Cyrillic"}


def _across_scripts(lang: str, used: Sequence[str]) -> str:
    """A warning for a text in a script that none of the evidence's languages writes and that the
    verifier reads poorly across (docs/verifier.md, "Rules r22"): Greek, Chinese, Arabic ..."""
    try:
        mine = get_language(lang)
        theirs = [get_language(u) for u in used]
    except MfactError:
        return ""
    if mine.script in _READ_ACROSS or mine.script in {t.script for t in theirs}:
        return ""
    return (f" ({mine.name} facts read against {' and '.join(t.name for t in theirs)} evidence are often judged"
            f" NS even when true, but for dates, well-known birth and death places, occupations and"
            f" nationalities, Nobel Prizes, and husbands, wives and parents, which are compared:"
            f" a Wikipedia page or ZIM file in '{lang}' gives evidence in its script)")


@dataclass
class EntityMatch:
    entity: Entity | None = None
    choices: list[str] = field(default_factory=list)       # an ambiguous name: pick one
    suggestions: list[str] = field(default_factory=list)   # an unknown name: did you mean
    notices: list[str] = field(default_factory=list)
    source: str = ""
    failures: list[str] = field(default_factory=list)      # a source that failed: one line each

    def failed(self, src: str, exc: Exception) -> None:
        """Note that source `src` failed to answer (a notice, and a failure for `require`)."""
        line = f"{src}: {exc.message if isinstance(exc, MfactError) else _unreadable(exc)}"
        self.notices.append(line)
        self.failures.append(line)

    @property
    def ok(self) -> bool:
        return self.entity is not None

    def require(self, name: str, lang: str) -> Entity:
        """The entity, or one MfactError listing the choices or suggestions."""
        if self.entity is not None:
            return self.entity
        if self.choices:
            raise MfactError(f"{name!r} is ambiguous in '{lang}'",
                             "choose one of: " + "; ".join(self.choices[:8]))
        if self.failures and not self.suggestions:     # not "no page": a source could not be asked
            raise MfactError(f"could not look {name!r} up in '{lang}': {'; '.join(dict.fromkeys(self.failures))}",
                             "try again later, or use another source (--offline, --zim)")
        hint = ("did you mean: " + "; ".join(self.suggestions[:5])) if self.suggestions else \
            "check the spelling, or add a source (--zim, --factscore-db, or go online)"
        raise MfactError(f"no page about {name!r} found in '{lang}'", hint)


def _unreadable(exc: Exception) -> str:
    """A source's unexpected failure (a reply it could not read), as one line."""
    return f"its reply could not be read ({type(exc).__name__})"


def resolve(name: str, lang: str, sources: Sequence[KnowledgeSource], langs: Sequence[str] = ()) -> EntityMatch:
    """Look `name` up in each source in order. The first source that knows the page gives the entity;
    its title in the other languages of `langs` comes from the source's language links when it has
    them (Wikipedia), else from the same name in that language. A name with no page in `lang` falls
    back to English, with a notice."""
    name = " ".join(name.split())
    if not name:
        raise MfactError("the entity name is empty", "give the name of a person, e.g. --entity 'Marie Curie'")
    match = EntityMatch()
    want = list(dict.fromkeys([lang, *langs, "en"]))
    for try_lang in dict.fromkeys([lang, "en"]):
        for src in sources:
            held = src.languages()
            if held is not None and try_lang not in held:
                continue
            try:
                m = src.lookup(name, try_lang)
            except Exception as exc:  # noqa: BLE001 - one source failing leaves the others
                match.failed(src.name, exc)
                continue
            if m.choices and not m.title:
                if not match.choices:
                    match.choices = list(m.choices)
                    match.source = src.name
                continue
            if m.title:
                titles = {try_lang: m.title}
                links = getattr(src, "langlinks", None)
                if links is not None:
                    try:
                        titles.update({lg: t for lg, t in links(m.title, try_lang, want).items() if lg in want})
                    except Exception as exc:  # noqa: BLE001 - the page is found; its links are a bonus
                        match.notices.append(
                            f"{src.name}: {exc.message if isinstance(exc, MfactError) else _unreadable(exc)}"
                        )
                for other in want:
                    if other in titles or (held is not None and other not in held) or links is not None:
                        continue
                    try:
                        om = src.lookup(m.title, other)
                    except MfactError:
                        continue
                    if om.title:
                        titles[other] = om.title
                attrs = {"description": m.description} if m.description else {}
                match.entity = Entity(name=m.title if try_lang == lang else name, qid=m.qid, titles=titles,
                                      attributes=attrs)
                match.source = src.name
                match.choices = []
                if try_lang != lang:
                    match.notices.append(fallback_notice(name, lang, [try_lang]))
                return match
            for s in m.suggestions:
                if s not in match.suggestions:
                    match.suggestions.append(s)
        if match.choices:
            return match
    return match
