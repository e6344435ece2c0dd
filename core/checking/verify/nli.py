"""NLI verifier: any Hugging Face sequence-classification NLI model (e.g. a multilingual mDeBERTa
XNLI model, for users with network or a local copy).

The fact is the hypothesis, each of the top passages the premise; the fact is supported when the
largest entailment probability over the passages reaches 0.5. The entailment class is found from
the model's `id2label` ("entailment", "entail", ...).
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from ...errors import MfactError
from ...protocols import VerifierBase
from ...session import Evidence, Verdict
from .features import is_about_someone_else


def _entailment_index(id2label: dict) -> int:
    for idx, lab in id2label.items():
        if "entail" in str(lab).lower() and "not" not in str(lab).lower():
            return int(idx)
    raise MfactError("the NLI model has no 'entailment' label "
                     f"(labels: {', '.join(str(v) for v in id2label.values())})",
                     "use a model fine-tuned for NLI, e.g. an XNLI model")


class NLIVerifier(VerifierBase):
    name = "nli"

    def __init__(self, model_id: str, device: str = "auto", k: int = 5, max_length: int = 512):
        self.model_id = model_id
        self.version = f"1:{model_id}"
        self.k = k
        self.max_length = max_length
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:  # pragma: no cover - torch/transformers are dependencies
            raise MfactError(f"the NLI verifier needs torch and transformers ({exc})") from None
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(model_id)
            self.model = AutoModelForSequenceClassification.from_pretrained(model_id)
        except (OSError, ValueError) as exc:
            raise MfactError(f"cannot load NLI model {model_id!r}: {str(exc).splitlines()[0][:200]}",
                             "give a local directory or a Hugging Face id (needs the network once)") from None
        self.entail = _entailment_index(self.model.config.id2label)
        if device in ("", "auto"):
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.model.to(device).eval()
        self._torch = torch
        self._lock = threading.Lock()

    def describe(self) -> dict[str, Any]:
        return {"device": self.device}

    def entailment_probs(self, fact: str, premises: Sequence[str]) -> list[float]:
        torch = self._torch
        enc = self.tokenizer(list(premises), [fact] * len(premises), truncation=True,
                             max_length=self.max_length, padding=True, return_tensors="pt")
        enc = {k: v.to(self.device) for k, v in enc.items()}
        with self._lock, torch.no_grad():
            logits = self.model(**enc).logits.float()
        return torch.softmax(logits, dim=-1)[:, self.entail].cpu().tolist()

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        name = f"{self.name}/{self.version}"
        if is_about_someone_else(fact, entity, lang=lang):
            return Verdict("IR", 0.6, name, [], "the fact is about someone or something other than the entity")
        use = [p for p in passages if p.text and p.text.strip()][: self.k]
        if not use:
            return Verdict("NS", 0.5, name, [], "no evidence was found")
        probs = self.entailment_probs(fact, [p.text for p in use])
        best = max(range(len(use)), key=lambda i: probs[i])
        p = float(probs[best])
        label = "S" if p >= 0.5 else "NS"
        conf = p if label == "S" else 1.0 - p
        return Verdict(label, round(conf, 4), name, [use[best].id],
                       f"entailment probability {p:.2f} (best of {len(use)} passages)")
