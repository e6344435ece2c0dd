"""`CheckPipeline`: the stages of one checking configuration, and `build_pipeline` to make one."""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterator

from ..config import Config
from ..events import Event
from ..errors import MfactError
from ..protocols import Embedder, Extractor, GeneratorBase, LanguageDetector, Progress, Retriever, Verifier
from ..session import LABELS, Entity
from .cache import VerdictCache
from .check import CachedVerifier
from .context import Generation, RunRequest, Stages
from .describe import evidence_langs, jsonable, mfact_version, stage_info
from .messages import HumanMsg
from .run import Run
from .stats import RunStats

PIPELINE_VERSION = "1"


class CheckPipeline:
    """Generation + segmentation + extraction + retrieval + verification + metrics, incrementally.

    `stages` (context.Stages) are any objects implementing the Protocols of core/protocols.py. Its
    `embedder` is needed only for SelfCheck (cfg.selfcheck_samples > 0); its `detector` is recorded
    in the config (the CaLM language check uses mfact.core.langid). `cache=False` turns the on-disk
    verdict cache off.
    `adapter`: applies the adaptation learnt from the user's labels to each new verdict (core/adapt;
    default: the one beside the store, as `cfg.adapt` says).
    """

    def __init__(self, stages: Stages, cfg: Config | None = None, cache: bool | VerdictCache = True,
                 adapter: Any = None):
        self.generator: GeneratorBase | None = stages.generator
        self.extractor: Extractor = stages.extractor
        self.retriever: Retriever = stages.retriever
        self.verifier: Verifier = stages.verifier
        self.cfg = cfg or Config()
        self.embedder: Embedder | None = stages.embedder
        self.detector: LanguageDetector | None = stages.detector
        if isinstance(cache, VerdictCache):
            self.cache: VerdictCache | None = cache
        else:
            self.cache = VerdictCache() if cache else None
        if adapter is None:
            from ..adapt import Adapter
            adapter = Adapter(mode=self.cfg.adapt)
        self.adapter = adapter
        self.stats = RunStats()
        self._inbox: queue.Queue | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ public helpers

    def set_human_label(self, fact_id: str, label: str | None) -> None:
        """Relabel a fact of the run in progress (thread-safe; the metrics follow at once and the
        final session carries the label). Outside a run this does nothing."""
        if label is not None and label not in LABELS:
            raise ValueError(f"unknown label {label!r}; one of S, NS, IR")
        with self._lock:
            inbox = self._inbox
        if inbox is not None:
            inbox.put(HumanMsg(fact_id, label))

    def describe(self, lang: str | None = None) -> dict[str, Any]:
        cfg = self.cfg
        return {
            "pipeline": PIPELINE_VERSION,
            "mfact": mfact_version(),
            "generator": stage_info(self.generator, "generator"),
            "extractor": stage_info(self.extractor, "extractor"),
            "retriever": {"sources": list(cfg.sources), **stage_info(self.retriever, "retriever"),
                          "offline": cfg.offline},
            "verifier": stage_info(self.verifier, "verifier"),
            "embedder": stage_info(self.embedder, "embedder") if self.embedder is not None
            else {"kind": "embedder", "name": cfg.embedder},
            "detector": stage_info(self.detector, "detector") if self.detector is not None
            else {"kind": "detector", "name": "py3langid"},
            "k": cfg.k,
            "evidence_langs": evidence_langs(cfg, lang) if lang else list(cfg.evidence_langs),
            "workers": cfg.workers,
            "stop_on_repeat": cfg.stop_on_repeat,
            "stop_at_drift": cfg.stop_at_drift,
            "drift_threshold": cfg.drift_threshold,
            "drift_margin": cfg.drift_margin,
            "selfcheck_samples": cfg.selfcheck_samples,
            "verdict_cache": self.cache is not None,
        }

    def prepare(self, entity: Entity | str, lang: str) -> None:
        """Do now the checking work that does not depend on the text: gather the entity's pages and
        embed their passages for retrieval and for the verifier (stages that can: `prepare`
        methods). Verdicts are unchanged (the same vectors, cached); a batch run calls this while
        the model generates, on the core generation leaves free."""
        from ..languages import get_language

        if isinstance(entity, str):
            entity = Entity(name=entity.strip())
        lang = get_language(lang).code
        texts = self.retriever.prepare(entity, evidence_langs(self.cfg, lang)) or []
        if texts:
            self.verifier.prepare(texts, lang)

    # ------------------------------------------------------------------ run

    def run(self, entity: Entity | str, lang: str, stop: threading.Event | None = None,
            text: str | None = None, *, generation: Generation | None = None,
            question: str = "") -> Iterator[Event]:
        """Check a text: generate it (or take `text`) and stream events; see the module doc.

        `generation`: the seed, prompt and params (context.Generation; default: the configuration's).
        Its `generated=(tokens, stop_reason)` with `text`: the text was generated by this pipeline's
        generator already (a batch, core/batch.py) for that prompt and those params; it is checked as
        if it had just been streamed (generator info, tokens, stop reason, SelfCheck samples).
        `question`: the question the text answers (core/pipeline/question.py: it steers retrieval
        and the IR rule)."""
        from ..languages import UnknownLanguage, get_language

        g = generation or Generation()
        seed, prompt, params, generated = g.seed, g.prompt, g.params, g.generated

        try:
            lang = get_language(lang).code
        except UnknownLanguage as exc:
            raise MfactError(str(exc), "run `mfact languages` for the list") from None
        if isinstance(entity, str):
            if not entity.strip():
                raise MfactError("no entity given", "name the person to write about, e.g. --entity 'Marie Curie'")
            entity = Entity(name=entity.strip())
        if text is None and self.generator is None:
            raise MfactError("no generator and no text to check", "give a text or configure a model")
        if generated is not None and (text is None or self.generator is None):
            raise MfactError("generated= needs the generated text and a generator")
        stages, verifier = self._stages(lang, text, question.strip())
        run = Run(stages, self.cfg, verifier, jsonable(self.describe(lang)),
                  RunRequest(entity, lang, stop, text, seed, prompt, params, generated, question.strip()))
        self.stats = run.stats
        with self._lock:
            self._inbox = run.work.inbox
        try:
            yield from run.events()
        finally:
            with self._lock:
                if self._inbox is run.work.inbox:
                    self._inbox = None
            run.shutdown()


    def _stages(self, lang: str, text: str | None, question: str) -> tuple[Stages, CachedVerifier]:
        """The run's stages and verifier; with a question, its retriever and verifier answer it."""
        from .question import answering

        verifier, retriever = answering(CachedVerifier(self.verifier, self.cache, self.adapter), self.retriever,
                                        question, text, lang)
        return (Stages(self.generator, self.extractor, retriever, self.verifier, self.embedder, self.detector),
                verifier)


# --------------------------------------------------------------------------- wiring


def build_pipeline(cfg: Config, on_progress: Callable[[Progress], None] | None = None,
                   *, generator: GeneratorBase | None = None, need_generator: bool = True) -> CheckPipeline:
    """The real stages from the configuration (model, embedder, knowledge, extractor, verifier).

    `need_generator=False` skips loading a model (checking a given text with the rules extractor
    and a verifier that needs no model)."""
    from ..checking import build_extractor, build_verifier
    from ..embedders import load_embedder
    from ..knowledge import build_retriever

    def progress(stage: str, msg: str) -> None:
        if on_progress:
            on_progress(Progress(stage, 0, None, msg))

    gen = generator
    if gen is None and (need_generator or cfg.extractor == "llm" or cfg.verifier == "llm"):
        from ..models import load_generator
        progress("model", "loading the model")
        gen = load_generator(cfg, on_progress)
    progress("embedder", f"loading the embedder {cfg.embedder}")
    embedder = load_embedder(cfg.embedder)
    progress("knowledge", "opening the knowledge sources")
    retriever = build_retriever(cfg, embedder)
    extractor = build_extractor(cfg, gen)
    verifier = build_verifier(cfg, embedder, gen)
    progress("verifier", f"loading the verifier {verifier.name}")
    verifier.load()
    return CheckPipeline(Stages(gen, extractor, retriever, verifier, embedder), cfg)
