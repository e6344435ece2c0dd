"""What the two local backends share (llama.cpp, core/models/llamacpp.py; transformers,
core/models/hf.py): `LocalGenerator`, the base of a model loaded in this process, and
`ChunkBuffer`, which turns sampled tokens into the `Chunk`s a stream yields."""
from __future__ import annotations

import logging
import threading

from ..errors import MfactError
from ..protocols import Chunk, GeneratorBase
from .prompts import build_prompt

log = logging.getLogger("mfact.models")


class ChunkBuffer:
    """The tokens sampled since the last chunk, with their log-probabilities and next-token
    entropies when known: a chunk carries their count, the summed log-probability and the mean
    entropy."""

    def __init__(self) -> None:
        self.tokens = 0
        self.logprobs: list[float] = []
        self.entropies: list[float] = []

    def add(self, logprob: float | None = None, entropy: float | None = None) -> None:
        self.tokens += 1
        if logprob is not None:
            self.logprobs.append(logprob)
        if entropy is not None:
            self.entropies.append(entropy)

    def chunk(self, text: str, done: bool = False, stop_reason: str | None = None) -> Chunk:
        """A chunk of `text` carrying the tokens so far (then counted from zero again)."""
        lps, ents = self.logprobs, self.entropies
        out = Chunk(text, tokens=self.tokens, logprob=sum(lps) if lps else None,
                    entropy=sum(ents) / len(ents) if ents else None, done=done, stop_reason=stop_reason)
        self.tokens, self.logprobs, self.entropies = 0, [], []
        return out


class LocalGenerator(GeneratorBase):
    """A model loaded in this process: one generation at a time per model (`_lock`), the prompt
    style (`auto` is chat when the model has a chat template), the biography prompt and its
    rendering through the template, batches (a declared capability), and failures as one
    MfactError. A backend supplies `_has_template`, `_apply_template`, `_closed` and may
    recognise failures of its own in `_known_failure`."""

    batching = True

    def __init__(self, name: str, prompt_style: str, has_template: bool) -> None:
        self.model = name                 # Generator protocol: the model's id, path or name
        self.prompt_style = prompt_style if prompt_style in ("completion", "chat") else (
            "chat" if has_template else "completion")
        self._lock = threading.Lock()     # one generation at a time per loaded model

    # ------------------------------------------------------------------ prompts

    def default_prompt(self, entity: str, lang: str) -> str:
        return build_prompt(entity, lang, self.prompt_style)

    def render_prompt(self, prompt: str) -> str:
        """The exact text fed to the model (the chat template applied for chat style)."""
        if self.prompt_style != "chat" or not self._has_template():
            return prompt
        return self._apply_template(prompt)

    def _has_template(self) -> bool:
        raise NotImplementedError

    def _apply_template(self, prompt: str) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ state and failures

    def _closed(self) -> bool:
        raise NotImplementedError

    def _check_open(self) -> None:
        if self._closed():
            raise MfactError(f"model {self.model} was closed", "load it again")

    def _known_failure(self, exc: BaseException) -> MfactError | None:
        """A failure this backend explains better than "generation failed" (out of memory, ...)."""
        return None

    def _error(self, exc: BaseException) -> MfactError:
        if isinstance(exc, MfactError):
            return exc
        known = self._known_failure(exc)
        if known is not None:
            return known
        log.error("%s generation failed", self.backend, exc_info=exc)
        return MfactError(f"generation with {self.model} failed: {type(exc).__name__}: {exc}",
                          "details are in the log")
