"""LLM judge: FActScore's scoring prompt at temperature 0 on any `Generator`.

    Answer the question about {entity} based on the given context.

    Title: ...
    Text: ...

    Input: {fact} True or False?
    Output:

The answer is parsed robustly (True/False in several languages, "not true", leading chatter); an
answer that says neither counts as not supported with low confidence. The confidence is the
probability of the answer's first token when the backend reports log-probabilities.
"""
from __future__ import annotations

import math
import re
import threading
from typing import Sequence

from ...protocols import DecodingParams, Generator, VerifierBase
from ...session import Evidence, Verdict
from .features import is_about_someone_else

TRUE_WORDS = ("true", "yes", "correct", "supported", "verdadero", "cierto", "vrai", "wahr", "richtig",
              "vero", "verdadeiro", "верно", "правда", "да", "doğru", "evet", "đúng", "kweli", "sahihi",
              "सही", "सत्य", "সত্য", "صحيح", "درست", "صحیح", "จริง", "真", "正确", "正しい", "참", "αληθές",
              "σωστό", "вярно", "benar")
FALSE_WORDS = ("false", "no", "incorrect", "not supported", "falso", "faux", "falsch", "sbagliato",
               "неверно", "ложь", "нет", "yanlış", "hayır", "sai", "uongo", "si kweli", "गलत", "असत्य",
               "মিথ্যা", "خطأ", "غلط", "نادرست", "เท็จ", "假", "错误", "誤り", "거짓", "ψευδές", "λάθος",
               "невярно", "salah")

MAX_PASSAGE_CHARS = 1200


def build_prompt(fact: str, entity: str, passages: Sequence[Evidence]) -> str:
    parts = [f"Answer the question about {entity} based on the given context.\n"]
    for p in passages:
        text = " ".join(p.text.split())[:MAX_PASSAGE_CHARS]
        parts.append(f"Title: {p.title or entity}\nText: {text}\n")
    parts.append(f"Input: {fact.strip()} True or False?\nOutput:")
    return "\n".join(parts)


def _find(words: Sequence[str], text: str) -> int | None:
    best = None
    for w in words:
        pat = r"(?<!\w)" + re.escape(w) + r"(?!\w)" if w.isascii() else re.escape(w)
        m = re.search(pat, text)
        if m and (best is None or m.start() < best):
            best = m.start()
    return best


def parse_answer(answer: str) -> bool | None:
    """True / False from a judge's answer; None when it says neither. FActScore's rule: an answer
    containing both is judged by which comes first; "not true" is False."""
    a = answer.strip().lower()
    if not a:
        return None
    if re.search(r"\bnot\s+(?:true|correct|supported)\b", a):
        return False
    t = _find(TRUE_WORDS, a)
    f = _find(FALSE_WORDS, a)
    if t is None and f is None:
        return None
    if f is None:
        return True
    if t is None:
        return False
    return t < f


class LLMVerifier(VerifierBase):
    name = "llm"
    version = "1"

    def __init__(self, generator: Generator, max_tokens: int = 8, k: int = 5):
        self.generator = generator
        self.max_tokens = max_tokens
        self.k = k
        self._lock = threading.Lock()
        self.version = f"1:{generator.model}"

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        name = f"{self.name}/{self.version}"
        if is_about_someone_else(fact, entity, lang=lang):
            return Verdict("IR", 0.6, name, [], "the fact is about someone or something other than the entity")
        use = [p for p in passages if p.text and p.text.strip()][: self.k]
        prompt = build_prompt(fact, entity, use)
        params = DecodingParams(max_tokens=self.max_tokens, temperature=0.0, top_p=1.0, greedy=True,
                                stop_on_repeat=False, logprobs=True)
        text, first_lp = [], None
        stop = threading.Event()
        with self._lock:
            try:
                for chunk in self.generator.stream(prompt, params, stop):
                    if first_lp is None and chunk.logprob is not None and chunk.text.strip():
                        first_lp = chunk.logprob
                    text.append(chunk.text)
                    if "\n" in "".join(text).strip() or chunk.done:
                        break
            finally:
                stop.set()
        answer = "".join(text).strip().split("\n")[0]
        judged = parse_answer(answer)
        ids = [p.id for p in use]
        shown = answer[:40]
        if judged is None:
            return Verdict("NS", 0.5, name, ids, f"the judge answered neither True nor False: {shown!r}")
        conf = math.exp(first_lp) if first_lp is not None else 0.75
        conf = min(1.0, max(0.5, conf))
        return Verdict("S" if judged else "NS", round(conf, 4), name, ids, f"judge: {shown}")
