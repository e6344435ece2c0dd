"""Evidence the user gives: `mfact check --evidence E`, the `evidence` of a `mfact run --texts` line.

With given passages they are the only evidence: no knowledge source is asked. `read_evidence(path)`
reads a JSON list of strings or JSONL lines `{"text", "title"?, "url"?, "lang"?}` (or a JSON list
of such objects); `parse_evidence(value, where)` validates the same from already-parsed JSON. Long
passages are split into ~256-token passages like pages are. `GivenRetriever` ranks them for a fact
by the same hybrid as the knowledge sources: dense similarity (the embedder) and BM25 over the given
passages.
"""
from __future__ import annotations

import math
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import MfactError
from ..protocols import Embedder, Stage
from ..schema import json_type
from ..session import MAX_PASSAGE_CHARS, Entity, Evidence
from .passages import split_text
from .retrieval import DENSE_WEIGHT, evidence_id

SOURCE = "given"
MAX_PASSAGES = 5000
MAX_GIVEN_CHARS = 10_000_000     # the passages of one text (or one --evidence file) in all
BIG_EVIDENCE = (1000, 1_000_000)  # passages or characters from which indexing is worth a progress line
_WORDS = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\u0e00-\u0e7f]")
_UNTITLED = re.compile(r"passage \d+")      # the name a passage without a title gets


def _passage(d: Any, where: str, lang: str) -> dict:
    if isinstance(d, str):
        d = {"text": d}
    if not isinstance(d, dict):
        raise MfactError(f"{where}: a passage must be a string or an object with \"text\", "
                         f"got {json_type(d)}")
    text = d.get("text")
    if not isinstance(text, str) or not text.strip():
        raise MfactError(f"{where}: \"text\" must be a non-empty string")
    if len(text) > MAX_PASSAGE_CHARS:
        raise MfactError(f"{where}: \"text\" is {len(text):,} characters; at most {MAX_PASSAGE_CHARS:,}")
    out = {"text": text.strip(), "lang": lang}
    for key in ("title", "url", "lang"):
        v = d.get(key)
        if v is None:
            continue
        if not isinstance(v, str):
            raise MfactError(f"{where}: \"{key}\" must be a string")
        out[key] = v.strip()
    return out


def parse_evidence(value: Any, where: str = "evidence", lang: str = "", empty: bool = False) -> list[dict]:
    """Validated passages `{"text", "title", "url", "lang"}` from parsed JSON: a list of strings or
    objects. Raises MfactError naming the first bad item. `empty`: an empty list is a row's "no
    evidence" (its facts are checked against nothing, as `verify-pairs` scores `"evidence": []`);
    otherwise it is refused (an --evidence file of no passages)."""
    if not isinstance(value, list):
        raise MfactError(f"{where}: must be a list of passages (strings or {{\"text\": ...}} objects)")
    if not value and not empty:
        raise MfactError(f"{where}: the list of passages is empty")
    if len(value) > MAX_PASSAGES:
        raise MfactError(f"{where}: {len(value)} passages; at most {MAX_PASSAGES}")
    out = [_passage(d, f"{where}[{i}]", lang) for i, d in enumerate(value)]
    _total(out, where)
    return out


def _total(passages: list[dict], where: str) -> None:
    total = sum(len(p["text"]) for p in passages)
    if total > MAX_GIVEN_CHARS:
        raise MfactError(f"{where}: {total:,} characters of passages in all; at most {MAX_GIVEN_CHARS:,}",
                         "give the passages that matter, or split the text")


def size_words(passages: Sequence[dict]) -> str:
    """`5,000 given passages (5.0 M characters)` when the evidence is big enough for indexing to take a
    while (`BIG_EVIDENCE`), else ""."""
    chars = sum(len(p["text"]) for p in passages)
    if len(passages) < BIG_EVIDENCE[0] and chars < BIG_EVIDENCE[1]:
        return ""
    return f"{len(passages):,} given passages ({chars / 1e6:.1f} M characters)"


def read_evidence(path: str | Path, lang: str = "") -> list[dict]:
    """Passages from a file: a JSON list (of strings or objects), or JSONL with one object (or
    string) per line. Errors name the file and the line."""
    from ..inputs import loads, not_empty, read_text

    text, p = read_text(str(Path(path).expanduser()), "evidence file (a JSON list or JSONL)")
    stripped = not_empty(text, p, "passages").strip()
    if stripped.startswith("["):
        return parse_evidence(loads(stripped, p), str(p), lang)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        out.append(_passage(loads(line, f"{p}:{n}", one_line=True), f"{p}:{n}", lang))
        if len(out) > MAX_PASSAGES:
            raise MfactError(f"{p}: more than {MAX_PASSAGES} passages")
    _total(out, str(p))
    return out


def _terms(text: str) -> list[str]:
    out: list[str] = []
    for w in _WORDS.findall(text.casefold()):
        if _CJK.search(w):
            out.extend(w[i:i + 2] for i in range(max(1, len(w) - 1)))
        else:
            out.append(w)
    return out


class GivenRetriever(Stage):
    """A `Retriever` over the passages the user gave (the only evidence of the session)."""

    name = "given"
    version = "1"

    def __init__(self, passages: Sequence[dict], embedder: Embedder | None = None,
                 dense_weight: float = DENSE_WEIGHT, evidence: Sequence[Evidence] = ()):
        """`evidence`: passages already split and named (a stored session's, `mfact rejudge`),
        ranked as they are, before those of `passages`."""
        self.embedder = embedder
        self.dense_weight = dense_weight if embedder is not None else 0.0
        self.notices: list[str] = []
        self.evidence: list[Evidence] = list(evidence)
        for i, p in enumerate(passages):
            title = p.get("title") or f"passage {i + 1}"
            lang = p.get("lang") or ""
            for chunk in split_text(p["text"], lang) or [p["text"]]:
                self.evidence.append(Evidence(id=evidence_id(SOURCE, lang, title, chunk), source=SOURCE,
                                              lang=lang, title=title, text=chunk, url=p.get("url") or ""))
        self._terms = [Counter(_terms(f"{e.title} {e.text}")) for e in self.evidence]
        n = len(self._terms)
        df: Counter = Counter()
        for t in self._terms:
            df.update(t.keys())
        self._idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self._avg = (sum(sum(t.values()) for t in self._terms) / n) if n else 1.0
        self._vectors: dict[str, np.ndarray] | None = None
        self._lock = threading.Lock()

    def _bm25(self, query: str) -> np.ndarray:
        q = set(_terms(query))
        out = np.zeros(len(self._terms), dtype=np.float32)
        for i, tf in enumerate(self._terms):
            length = sum(tf.values()) or 1
            s = 0.0
            for w in q:
                f = tf.get(w, 0)
                if f:
                    s += self._idf[w] * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * length / self._avg))
            out[i] = s
        return out

    def _dense(self, fact: str, query: str, only: Sequence[int]) -> np.ndarray:
        """Cosine of the query with the passages `only` (the others score 0). A passage stands in by
        its window (a sentence or two, `checking/verify/windows.py`) that best matches the fact lexically,
        its lead when none does: embedding costs grow with the text, so a 1 KB passage costs about
        as much as ten of its sentences. Vectors are kept by text, so what facts share is embedded once."""
        from ..checking.verify.windows import top_windows

        if self.embedder is None:
            return np.zeros(len(self.evidence), dtype=np.float32)
        texts = {}
        for i in only:
            e = self.evidence[i]
            win = top_windows(fact, [e.text], e.lang, k=1)
            # a title the user gave says what the passage is about; "passage 12" does not, and
            # without it the window's vector is the one the verifier asks the embedder's cache for
            head = "" if _UNTITLED.fullmatch(e.title) else f"{e.title}\n"
            texts[i] = head + (win[0].text if win else e.text)
        with self._lock:
            if self._vectors is None:
                self._vectors = {}
            todo = list(dict.fromkeys(t for t in texts.values() if t not in self._vectors))
            if todo:
                for t, v in zip(todo, self.embedder.embed_passages(todo)):
                    self._vectors[t] = np.asarray(v, dtype=np.float32)
            rows = {i: self._vectors[t] for i, t in texts.items()}
        q = np.asarray(self.embedder.embed_queries([query])[0], dtype=np.float32)
        out = np.zeros(len(self.evidence), dtype=np.float32)
        for i, v in rows.items():
            out[i] = float(v @ q)
        return out

    def retrieve(self, entity: Entity | str, fact: str, langs: Sequence[str], k: int = 8) -> list[Evidence]:
        if not self.evidence:
            return []
        name = entity.name if isinstance(entity, Entity) else str(entity)
        query = f"{name} {fact}".strip()
        lexical = self._bm25(fact)
        best = float(lexical.max()) if len(lexical) else 0.0
        if best > 0:
            lexical = lexical / best
        score = (1.0 - self.dense_weight) * lexical
        if len(self.evidence) <= k:
            # every passage is returned anyway (the verifier picks its windows inside them): the
            # lexical order is enough, and nothing is embedded here
            pass
        elif self.dense_weight > 0:
            # a cheap lexical first stage: only the best 2k passages (and the first, a lead) are
            # embedded and scored densely
            cand = list(dict.fromkeys([0, *np.argsort(-lexical, kind="stable")[:2 * k].tolist()]))
            score = score + self.dense_weight * self._dense(fact, query, cand)
        order = np.argsort(-score, kind="stable")[:k]
        out = []
        for i in order:
            e = self.evidence[int(i)]
            out.append(Evidence(id=e.id, source=e.source, lang=e.lang, title=e.title, text=e.text,
                                url=e.url, section=e.section, score=round(float(score[i]), 6)))
        return out
