"""Checking stages: sentence splitting, cleaning, atomic-fact extraction and verification.

    split_sentences(text, lang) -> list[Sentence]        exact offsets, every language mfact offers
    complete_prefix(text, lang) -> int                   end of the last complete sentence (streaming)
    clean_text(raw) -> str                               model markup removed
    build_extractor(cfg, generator=None) -> Extractor    cfg.extractor: auto | rules | llm
    build_verifier(cfg, embedder, generator=None)        cfg.verifier: offline | cross | llm | nli:<model id>
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import MfactError
from .clean import clean_text, drop_unfinished
from .segment import complete_prefix, split_sentences

if TYPE_CHECKING:  # pragma: no cover
    from ..config import Config
    from ..protocols import Embedder, Extractor, Generator, Verifier

__all__ = ["split_sentences", "complete_prefix", "clean_text", "drop_unfinished", "build_extractor",
           "build_verifier", "VERIFIER_NAMES"]

VERIFIER_NAMES = ("offline", "lite", "slots", "detector", "cross", "llm", "nli:<model id>")


def _is_base_embedded(generator: Any) -> bool:
    model = str(getattr(generator, "model", "") or "").lower()
    backend = str(getattr(generator, "backend", "") or "").lower()
    return backend in ("fake", "") or "270m" in model or model in ("embedded", "")


def build_extractor(cfg: "Config", generator: "Generator | None" = None) -> "Extractor":
    """The extractor `cfg.extractor` names. `auto`: the LLM extractor when a capable generator is
    given (anything but the embedded 270M base model), else the rule-based one."""
    choice = (getattr(cfg, "extractor", "auto") or "auto").strip().lower()
    if choice == "rules":
        from .extract_rules import RuleExtractor
        return RuleExtractor()
    if choice == "llm":
        if generator is None:
            raise MfactError("the llm extractor needs a model", "use --extractor rules, or give a model")
        from .extract_llm import LLMExtractor
        return LLMExtractor(generator)
    if choice == "auto":
        if generator is not None and not _is_base_embedded(generator):
            from .extract_llm import LLMExtractor
            return LLMExtractor(generator)
        from .extract_rules import RuleExtractor
        return RuleExtractor()
    raise MfactError(f"unknown extractor {choice!r}", "choose auto, rules or llm")


def build_verifier(cfg: "Config", embedder: "Embedder | None" = None,
                   generator: "Generator | None" = None) -> "Verifier":
    """The verifier `cfg.verifier` names: offline (default: evidence windows, slot checks and the
    feature model), lite (the feature model alone), cross (the
    experimental cross-encoder, weights from `python -m mfact.core.checking.train_cross`), llm (judge),
    nli:<model id>."""
    choice = (getattr(cfg, "verifier", "offline") or "offline").strip()
    if choice == "offline":
        from .verify_default import DefaultVerifier
        return DefaultVerifier(embedder)
    if choice == "lite":
        from .verify_default import LiteVerifier
        return LiteVerifier(embedder)
    if choice == "detector":
        from .verify_default import DetectorVerifier
        return DetectorVerifier(embedder)
    if choice == "slots":
        from .verify_default import SlotsVerifier
        return SlotsVerifier(embedder)
    if choice == "cross" or choice.startswith("cross:"):
        from .verify_cross import CrossVerifier
        return CrossVerifier(embedder, weights_path=choice[6:] or None)
    if choice == "llm":
        if generator is None:
            raise MfactError("the llm verifier needs a model", "use --verifier offline, or give a model")
        from .verify_llm import LLMVerifier
        return LLMVerifier(generator)
    if choice.startswith("nli:") and len(choice) > 4:
        from .verify_nli import NLIVerifier
        return NLIVerifier(choice[4:], device=getattr(cfg, "device", "auto"))
    raise MfactError(f"unknown verifier {choice!r}", "choose offline, lite, slots, detector, cross, llm or nli:<Hugging Face model id>")
