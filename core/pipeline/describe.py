"""What a run is made of, for the session's config: stage descriptions, decoding parameters,
evidence languages and the generator's record."""
from __future__ import annotations

import json
import logging
from typing import Any, Sequence

from ..config import Config
from ..protocols import DecodingParams, GeneratorBase, StageLike
from ..session import GeneratorInfo

log = logging.getLogger("mfact.pipeline")


def jsonable(obj: Any) -> Any:
    """Plain JSON data (what a stage describes about itself may hold objects: they become text)."""
    return json.loads(json.dumps(obj, default=str, ensure_ascii=False))


def stage_info(obj: StageLike | None, kind: str) -> dict[str, Any]:
    """What a stage is, for the session's config: its name, version and what it describes of
    itself (`Stage.describe`: a generator's backend, model and prompt style, an embedder's dim,
    a retriever's sources, a verifier's options)."""
    if obj is None:
        return {"kind": kind, "name": None}
    return {"kind": kind, "name": obj.name or type(obj).__name__, "version": str(obj.version or ""),
            **obj.describe()}


def new_notices(stages: Sequence[StageLike], seen: dict[int, int]) -> list[str]:
    """The notices the stages collected since last asked (`seen`: how many of each were read)."""
    out: list[str] = []
    for stage in stages:
        notes = list(stage.notices)
        read = seen.get(id(stage), 0)
        out.extend(str(n) for n in notes[read:])
        seen[id(stage)] = max(read, len(notes))
    return out


def decoding_params(cfg: Config, seed: int | None = None) -> DecodingParams:
    """Decoding parameters from the configuration (validated by mfact.core.models)."""
    from ..models import decoding_params as models_params

    d = models_params(cfg)
    if seed is not None:
        d.seed = seed
    return d


def evidence_langs(cfg: Config, lang: str) -> list[str]:
    langs = list(cfg.evidence_langs) or [lang, "en"]
    out: list[str] = []
    for x in langs:
        if x and x not in out:
            out.append(x)
    return out


def generator_info(gen: GeneratorBase, prompt: str, params: DecodingParams) -> GeneratorInfo:
    """Backend, model, the exact prompt (and the rendered one), decoding parameters and seed."""
    from ..models import generator_info as models_info

    return models_info(gen, prompt, params)


def mfact_version() -> str:
    try:
        from .. import __version__
        return str(__version__)
    except Exception:  # noqa: BLE001
        return ""
