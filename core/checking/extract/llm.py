"""LLM atomic-fact extractor: FActScore's few-shot scheme on any `Generator`.

The prompt is FActScore's: the fixed demos of `demons.json` (sentence -> facts), plus the demo most
similar to the sentence by BM25, then the sentence; the model answers with `- fact` lines. For a
text not in English the instruction asks for facts in the text's language. Answers are parsed
robustly (bullets of any kind, numbering, stray chatter, the model starting the next demo); a refusal
or an empty answer falls back to the rule-based extractor, so a sentence never loses its facts.
"""
from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Sequence

from ...errors import MfactError
from ...protocols import DecodingParams, ExtractedFact, Generator, Sentence, Stage
from .rules import RuleExtractor
from .meta import claim_part, declines, heading
from ..text.textutil import content_tokens, locate_span, tokens

INSTRUCTION = "Please breakdown the following sentence into independent facts:"
N_FIXED_DEMOS = 7

_REFUSAL = re.compile(r"\b(i'?m sorry|i cannot|i can'?t|as an ai|i am unable|i'm unable|unable to)\b", re.I)
_BULLET = re.compile(r"^\s*(?:[-*•·‣▪–—]|\d{1,2}[.)]|\(\d{1,2}\))\s*(.+?)\s*$")

_BUILTIN_DEMOS = {
    "He made his acting debut in the film The Moon is the Sun's Dream (1992), and continued to appear "
    "in small and supporting roles throughout the 1990s.": [
        "He made his acting debut in the film.", "He made his acting debut in The Moon is the Sun's Dream.",
        "The Moon is the Sun's Dream is a film.", "The Moon is the Sun's Dream was released in 1992.",
        "After his acting debut, he appeared in small and supporting roles.",
        "After his acting debut, he appeared in small and supporting roles throughout the 1990s."],
}


def _demos_path() -> Path | None:
    p = Path("/work/shared/data/factscore/demons.json")
    return p if p.exists() else None


def load_demos(path: Path | str | None = None) -> dict[str, list[str]]:
    """FActScore's demos (sentence -> facts). Falls back to one built-in demo when the file is absent."""
    p = Path(path) if path else _demos_path()
    if p is None:
        return dict(_BUILTIN_DEMOS)
    try:
        d = json.loads(Path(p).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise MfactError(f"demos file {p} is unreadable ({exc})", "give a JSON object sentence -> [facts]") from None
    if not isinstance(d, dict) or not all(isinstance(v, list) for v in d.values()):
        raise MfactError(f"demos file {p} must map sentences to lists of facts")
    return {str(k): [str(x) for x in v] for k, v in d.items()}


class BM25:
    """Okapi BM25 over a handful of short documents (k1=1.5, b=0.75)."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75):
        self.toks = [tokens(d) for d in docs]
        self.k1, self.b = k1, b
        self.avg = sum(len(t) for t in self.toks) / max(1, len(self.toks))
        df: Counter[str] = Counter()
        for t in self.toks:
            df.update(set(t))
        n = len(self.toks)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}

    def scores(self, query: str) -> list[float]:
        q = tokens(query)
        out = []
        for t in self.toks:
            tf = Counter(t)
            s = 0.0
            for w in q:
                if w in tf:
                    f = tf[w]
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * len(t) / self.avg))
            out.append(s)
        return out


def parse_facts(answer: str) -> list[str]:
    """`- fact` lines of a model answer, in order, de-duplicated; stops where the model starts
    another demo. Lines without a bullet count only when no line has one."""
    facts: list[str] = []
    plain: list[str] = []
    for line in answer.replace("\r", "").split("\n"):
        if INSTRUCTION.lower()[:30] in line.lower():
            break
        if not line.strip():
            if facts:
                break
            continue
        m = _BULLET.match(line)
        if m:
            facts.append(m.group(1).strip())
        elif not facts:
            plain.append(line.strip())
    out = facts or [p for p in plain if len(p.split()) >= 2 or len(p) >= 4][:1]
    seen: set[str] = set()
    result = []
    for f in out:
        f = f.strip().strip('"').strip()
        if not f or _REFUSAL.search(f) or f.lower() in seen:
            continue
        seen.add(f.lower())
        result.append(f)
    return result


class LLMExtractor(Stage):
    """FActScore-style few-shot extraction with any Generator; rules as the fallback."""

    name = "llm"
    version = "17"       # 2: sentences that decline, and facts about the model's input, hold no claim;
                         # 3: the same phrases in the first person plural and more of the input's names;
                         # 4: its fallback, the rules, split more clauses (rules 6);
                         # 5: and read an opening participle phrase (rules 7);
                         # 6: and read "comme"/"como" without a list as "as" (rules 8);
                         # 7: and join a Romance list item with its place to its list (rules 9);
                         # 8: and read a German participle phrase before an inverted clause (rules 10);
                         # 9: and Chinese dates and places, Turkish clauses (rules 11);
                         # 10: and Arabic clauses joined by the prefix "و" (rules 12);
                         # 11: and Russian and German adjective lists, Russian clauses (rules 13)
                         # 12: and Turkish topic clauses with "ise", Chinese clauses' own subjects (rules 14)
                         # 13: and Turkish "ve" between noun phrases, German clauses, examples between
                         #     commas (rules 15)
                         # 14: and Turkish clauses ending in a title's copula (rules 16)
                         # 16: a section heading holds no claim, and is not asked about (rules 20)
                         # 17: its fallback, the rules, give a relative clause after a name to that name (rules 21)

    def __init__(self, generator: Generator, demos: dict[str, list[str]] | None = None,
                 max_tokens: int = 200, n_fixed: int = N_FIXED_DEMOS):
        self.generator = generator
        self.demos = demos if demos is not None else load_demos()
        self.demo_keys = list(self.demos)
        self.bm25 = BM25(self.demo_keys)
        self.max_tokens = max_tokens
        self.n_fixed = n_fixed
        self.fallback = RuleExtractor()
        self._lock = threading.Lock()      # one generation at a time on a shared model

    def build_prompt(self, sentence: str, lang: str) -> str:
        fixed = self.demo_keys[: self.n_fixed]
        scores = self.bm25.scores(sentence)
        ranked = sorted(range(len(self.demo_keys)), key=lambda i: -scores[i])
        extra = [self.demo_keys[i] for i in ranked if self.demo_keys[i] not in fixed][:1]
        parts = []
        for d in fixed + extra:
            parts.append(f"{INSTRUCTION} {d}\n" + "\n".join(f"- {f}" for f in self.demos[d]) + "\n")
        instr = INSTRUCTION
        if lang and not lang.lower().startswith("en"):
            from ...languages import UnknownLanguage, get_language
            try:
                lname = get_language(lang).name
            except UnknownLanguage:
                lname = lang
            instr = (f"{INSTRUCTION} (the sentence is in {lname}; write each fact in {lname}, "
                     f"using only information in the sentence)")
        parts.append(f"{instr} {sentence}\n")
        return "\n".join(parts)

    def _generate(self, prompt: str) -> str:
        params = DecodingParams(max_tokens=self.max_tokens, temperature=0.0, top_p=1.0, greedy=True,
                                stop_on_repeat=False)
        out = []
        stop = threading.Event()
        with self._lock:
            try:
                for chunk in self.generator.stream(prompt, params, stop):
                    out.append(chunk.text)
                    joined = "".join(out)
                    if INSTRUCTION[:20] in joined or "\n\n" in joined.lstrip("\n"):
                        break
                    lines = [x.strip() for x in joined.split("\n")[:-1] if x.strip()]
                    if len(lines) >= 2 and lines[-1] in lines[:-1]:
                        break       # a small model looping on the same fact
                    if chunk.done:
                        break
            finally:
                stop.set()      # a backend generating in a thread stops within one token
        return "".join(out)

    def extract(self, sentence: Sentence, full_text: str, lang: str, entity: str) -> list[ExtractedFact]:
        if (not content_tokens(sentence.text) or declines(sentence.text, lang)
                or heading(sentence.text, sentence.start, full_text, lang)):
            return []        # a refusal, a request or a heading holds no claim (meta.py): not worth a generation
        answer = self._generate(self.build_prompt(sentence.text, lang))
        facts = [c for f in parse_facts(answer) if (c := claim_part(f, lang))]
        if not facts:
            return self.fallback.extract(sentence, full_text, lang, entity)
        return [ExtractedFact(text=f, span=locate_span(f, sentence.start, sentence.text)) for f in facts]
