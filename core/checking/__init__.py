"""Checking stages: sentence splitting, cleaning, atomic-fact extraction and verification.

    split_sentences(text, lang) -> list[Sentence]        exact offsets, every language mfact offers
    complete_prefix(text, lang) -> int                   end of the last complete sentence (streaming)
    clean_text(raw) -> str                               model markup removed
    build_extractor(cfg, generator=None) -> Extractor    cfg.extractor, one of EXTRACTORS
    build_verifier(cfg, embedder, generator=None)        cfg.verifier, one of VERIFIERS
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..errors import MfactError
from .text.clean import clean_text, drop_unfinished
from .text.segment import complete_prefix, split_sentences

if TYPE_CHECKING:  # pragma: no cover
    from ..config import Config
    from ..protocols import Embedder, Extractor, Generator, Verifier

__all__ = ["split_sentences", "complete_prefix", "clean_text", "drop_unfinished", "build_extractor",
           "build_verifier", "EXTRACTORS", "VERIFIERS", "VERIFIER_NAMES", "verifier_help"]


@dataclass(frozen=True)
class ExtractorKind:
    """One extractor the configuration can name: what it is and how to make it."""
    help: str
    build: Callable[[Generator | None], Extractor]


@dataclass(frozen=True)
class VerifierKind:
    """One verifier the configuration can name (`NAME` or `NAME:ARGUMENT`): what it is, whether it
    takes an argument (`argument`: how the help names it), and how to make it."""
    help: str
    build: Callable[[Config, str, Embedder | None, Generator | None], Verifier]
    argument: str = ""
    needs_argument: bool = False


def _is_base_embedded(generator: Generator) -> bool:
    model = str(generator.model or "").lower()
    backend = str(generator.backend or "").lower()
    return backend in ("fake", "") or "270m" in model or model in ("embedded", "")


def _rules(generator: Generator | None) -> Extractor:
    from .extract.rules import RuleExtractor
    return RuleExtractor()


def _llm_extractor(generator: Generator | None) -> Extractor:
    if generator is None:
        raise MfactError("the llm extractor needs a model", "use --extractor rules, or give a model")
    from .extract.llm import LLMExtractor
    return LLMExtractor(generator)


def _auto_extractor(generator: Generator | None) -> Extractor:
    if generator is not None and not _is_base_embedded(generator):
        return _llm_extractor(generator)
    return _rules(generator)


EXTRACTORS: dict[str, ExtractorKind] = {
    "auto": ExtractorKind("the LLM extractor with a capable model (not the embedded 270M), else rules",
                          _auto_extractor),
    "rules": ExtractorKind("the multilingual rule-based extractor (offline)", _rules),
    "llm": ExtractorKind("few-shot extraction by the model", _llm_extractor),
}


def build_extractor(cfg: Config, generator: Generator | None = None) -> Extractor:
    """The extractor `cfg.extractor` names (EXTRACTORS)."""
    choice = (cfg.checking.extractor or "auto").strip().lower()
    kind = EXTRACTORS.get(choice)
    if kind is None:
        raise MfactError(f"unknown extractor {choice!r}", "choose " + _either(list(EXTRACTORS)))
    return kind.build(generator)


def _default(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.offline import OfflineVerifier
    return OfflineVerifier(embedder)


def _lite(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.lite import LiteVerifier
    return LiteVerifier(embedder)


def _slots(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.slots import SlotsVerifier
    return SlotsVerifier(embedder)


def _detector(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.detector import DetectorVerifier
    return DetectorVerifier(embedder, detector_path=arg or None)


def _cross(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.cross import CrossVerifier
    return CrossVerifier(embedder, weights_path=arg or None)


def _llm_verifier(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    if generator is None:
        raise MfactError("the llm verifier needs a model", "use --verifier offline, or give a model")
    from .verify.llm import LLMVerifier
    return LLMVerifier(generator)


def _nli(cfg: Config, arg: str, embedder: Embedder | None, generator: Generator | None) -> Verifier:
    from .verify.nli import NLIVerifier
    return NLIVerifier(arg, device=cfg.decoding.device)


VERIFIERS: dict[str, VerifierKind] = {
    "offline": VerifierKind("the default: evidence windows, slot checks, feature model, and the trained token-level"
                            " detector for facts read in their sentence", _default),
    "lite": VerifierKind("the feature model alone", _lite),
    "slots": VerifierKind("the slot checks alone", _slots),
    "detector": VerifierKind("the default with the detector on every claim, standalone ones too (the committed"
                             " weights, or a weights file of train_detector --export), docs/verifier.md", _detector,
                             argument="FILE"),
    "cross": VerifierKind("experimental cross-encoder, see docs/verifier.md", _cross, argument="FILE"),
    "llm": VerifierKind("the model as judge", _llm_verifier),
    "nli": VerifierKind("an NLI model", _nli, argument="Hugging Face model id", needs_argument=True),
}
# every verifier as a user names it (`nli:<model id>`)
VERIFIER_NAMES = tuple(f"{n}:<{k.argument}>" if k.needs_argument else n for n, k in VERIFIERS.items())


def verifier_help() -> str:
    """The --verifier help, from VERIFIERS."""
    parts = []
    for name, kind in VERIFIERS.items():
        shown = name + (f":<{kind.argument}>" if kind.needs_argument else f"[:{kind.argument}]" if kind.argument
                        else "")
        parts.append(f"{shown} ({kind.help})")
    return _either(parts)


def _either(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def build_verifier(cfg: Config, embedder: Embedder | None = None,
                   generator: Generator | None = None) -> Verifier:
    """The verifier `cfg.verifier` names (VERIFIERS): `NAME`, or `NAME:ARGUMENT` for those that take
    one (cross:FILE, nli:<model id>)."""
    choice = (cfg.checking.verifier or "offline").strip()
    name, colon, arg = choice.partition(":")
    kind = VERIFIERS.get(name)
    if kind is None or (colon and not kind.argument) or (kind.needs_argument and not arg):
        raise MfactError(f"unknown verifier {choice!r}", "choose " + _either(
            [n if not k.needs_argument else f"{n}:<{k.argument}>" for n, k in VERIFIERS.items()]))
    return kind.build(cfg, arg, embedder, generator)

