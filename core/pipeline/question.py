"""A text checked as the answer to a question (`run --texts` lines' "question", `mfact check
--question`, the TUI's "Check a text…").

The question does three things:

- it steers retrieval: each fact's query holds the question too (`QuestionRetriever`), so the
  passages that answer it come first;
- it changes the IR rule: a fact that answers the question is never IR because it names someone
  other than the entity: the wrong person is the hallucination (`AnsweringVerifier`: NS, the name
  marked). A fact answers the question when it is in the answer's first sentence or shares a
  content word with the question; other facts about someone else stay IR, as without a question;
- it gives the topic when no entity is given (`topic_of`): the evidence's title, else the first
  name in the evidence, else the name in the question, else the question itself;
- it changes what is marked: a fact with words that neither its evidence nor the question says is
  NS, marked at those words (`checking.verify.answer`: the wrong value, not the fact around it), read
  against the evidence window that shares most with its sentence and the question. On real answers
  to questions the verifier's "supported" for a fact with an unsaid value was wrong more often than
  right: dropping the unsaid marks of facts judged S lowered the Mu-SHROOM tuning half at every
  threshold (docs/experiments.md). A fact whose words are all said keeps the verifier's verdict.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Sequence

from ..checking.verify.answer import local_evidence, unsaid, whole_names, without_asked
from ..protocols import FactContext, Stage
from ..session import Entity, Evidence, Verdict
from .check import CachedVerifier

# the reason the verifiers give for a fact about someone else (core/checking: rule_verdicts, the
# LLM and NLI verifiers)
SOMEONE_ELSE = "the fact is about someone or something other than the entity"
WRONG_PERSON = ("the answer names someone the evidence of the question's topic does not: the wrong "
                "person is the hallucination")
WRONG_PERSON_CONFIDENCE = 0.7
UNSAID = "the evidence and the question do not say: "
MAX_REASON_WORDS = 120
MAX_TOPIC_CHARS = 200

# a word, with its hyphens and apostrophes ("Jean-Paul", "Nigeria's")
_TOKEN = re.compile(r"[^\W_][\w'’‐-]*")
_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"(?:['’]s?)?$")
_UNTITLED = re.compile(r"passage \d+")


def _names(text: str) -> list[tuple[int, int]]:
    """The spans of the runs of capitalised words of `text` (separated by spaces only), a
    possessive cut off ("Nigeria's" -> "Nigeria")."""
    out: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for m in list(_TOKEN.finditer(text)) + [None]:
        joined = m is not None and bool(run) and not text[run[-1][1]:m.start()].strip()
        if m is not None and m.group()[:1].isupper() and (joined or not run):
            run.append((m.start(), m.end()))
            continue
        if run:
            a, b = run[0][0], run[-1][1]
            b -= len(_POSSESSIVE.search(text[a:b]).group())          # type: ignore[union-attr]
            out.append((a, b))
        run = [(m.start(), m.end())] if m is not None and m.group()[:1].isupper() else []
    return out


def _first_name(text: str, *, skip_start: bool) -> str:
    """The first name-like phrase of `text`: two capitalised words or more; with `skip_start`, a
    single capitalised word counts too unless it opens the text ("Who is Nigeria's ..." -> Nigeria)."""
    single = ""
    for a, b in _names(text):
        phrase = text[a:b]
        if len(phrase.split()) >= 2:
            return phrase
        if skip_start and not single and text[:a].strip():
            single = phrase
    return single


def topic_of(question: str, passages: Sequence[dict]) -> str:
    """What the text is about when no entity is given ("" when neither says)."""
    for p in passages:
        title = (p.get("title") or "").strip()
        if title and not _UNTITLED.fullmatch(title):
            return title[:MAX_TOPIC_CHARS]
    for p in passages[:1]:
        first = _first_name(" ".join(p.get("text", "").split())[:500], skip_start=False)
        if first:
            return first[:MAX_TOPIC_CHARS]
    q = " ".join(question.split())
    return (_first_name(q, skip_start=True) or q)[:MAX_TOPIC_CHARS].strip()


def _stems(text: str) -> set[str]:
    return {w.casefold()[:5] for w in _WORD.findall(text) if len(w) >= 4}


@dataclass(frozen=True)
class Question:
    """The question a text answers, and the answer's first sentence (when the text is given)."""
    text: str
    first_sentence: str = ""

    def answered_by(self, fact: str, context: FactContext | None) -> bool:
        """Whether `fact` answers the question: it is in the answer's first sentence, or it shares
        a content word (its first five letters, of words of four or more) with the question."""
        if context is not None and self.first_sentence and context.sentence.strip() == self.first_sentence:
            return True
        return bool(_stems(fact) & _stems(self.text))

    def query(self, fact: str) -> str:
        return f"{fact}\n{self.text}"


def name_marks(fact: str) -> list[tuple[int, int]]:
    """The first name of the fact, as a mark (its wrong words)."""
    found = _names(fact)
    return found[:1]




def _p_hallucinated(v: Verdict) -> float:
    """The verifier's p(not supported) of a verdict (0.5 where it does not say)."""
    if v.label == "S":
        return 1.0 - v.confidence
    return v.confidence if v.label == "NS" else 0.5


def unsaid_verdict(v: Verdict, fact: str, marks: list[tuple[int, int]]) -> Verdict:
    """NS at the words the evidence does not say; its confidence ranks it by the verifier's own
    p(not supported), from 0.5 (the verifier was sure it is supported) to 1.0."""
    words = ", ".join(fact[a:b] for a, b in marks)
    if len(words) > MAX_REASON_WORDS:
        words = words[:MAX_REASON_WORDS - 1] + "…"
    return dataclasses.replace(v, label="NS", confidence=round(0.5 + 0.5 * _p_hallucinated(v), 4),
                               reason=UNSAID + words, marks=marks)


def answer_verdict(v: Verdict, fact: str, lang: str, question: str, sentence: str,
                   texts: Sequence[str]) -> Verdict:
    """The verdict of a fact of an answer to `question`, from the verifier's `v`: NS at the words
    that neither the evidence nor the question says (`checking.verify.answer.unsaid`), read against
    the window of `texts` (the whole evidence of the text, else the fact's passages) that shares most
    with its `sentence` and the question; where every word is said, an NS keeps its marks less the
    question's words (else the fact's), any other verdict stays as it is."""
    marks = unsaid(fact, lang, local_evidence(sentence or fact, question, texts, lang), question)
    if marks:       # each holds a word the question does not say: none is cut away whole
        return unsaid_verdict(v, fact, whole_names(fact, without_asked(fact, marks, lang, question), lang))
    if v.label == "NS":
        kept = (without_asked(fact, v.marks, lang, question)
                or without_asked(fact, [(0, len(fact))], lang, question))
        if kept:
            return dataclasses.replace(v, marks=kept)
    return v


class AnsweringVerifier(CachedVerifier):
    """The run's verifier when the text answers a question: a fact that answers it and that the
    verifier set aside as about someone else is NS, its name marked (the wrong person); a fact with
    words the evidence and the question do not say is NS at those words; a fact judged NS whose
    words are all said keeps its verdict and marks."""

    def __init__(self, verifier: Any, cache: Any, adapter: Any, question: Question,
                 evidence: Sequence[str] | None = None):
        super().__init__(verifier, cache, adapter)
        self.question = question
        self.evidence = list(evidence) if evidence else None

    def verify_many(self, items: Sequence[tuple[str, str, str, Sequence[Evidence]]],
                    contexts: Sequence[FactContext | None] | None = None) -> list[tuple[Verdict, bool]]:
        done = super().verify_many(items, contexts)
        ctx = list(contexts) if contexts is not None else [None] * len(items)
        out = []
        for (fact, _entity, lang, passages), c, (v, cached) in zip(items, ctx, done):
            other = v.label == "IR" and v.reason == SOMEONE_ELSE and self.question.answered_by(fact, c)
            named = without_asked(fact, name_marks(fact), lang, self.question.text) if other else []
            if named:       # a name the question does not say (its own name misspelt is not someone else)
                v = Verdict("NS", WRONG_PERSON_CONFIDENCE, v.verifier, [], WRONG_PERSON, marks=named)
            elif v.label != "IR" or other:
                texts = self.evidence or [p.text for p in passages if p.text]
                v = answer_verdict(v, fact, lang, self.question.text, c.sentence if c is not None else "", texts)
            out.append((v, cached))
        return out


def answering(verifier: CachedVerifier, retriever: Any, question: str, text: str | None,
              lang: str) -> tuple[CachedVerifier, Any]:
    """(verifier, retriever) of a run or a rejudge whose text answers `question` (both as they are
    when it answers none); `text`: the answer, when it is known before the run."""
    if not question:
        return verifier, retriever
    first = ""
    if text:
        from .text import clean_text, sentences_of

        clean = clean_text(text)
        sents = sentences_of(clean, lang)
        first = clean[sents[0].start:sents[0].end].strip() if sents else ""
    q = Question(question, first)
    given = getattr(retriever, "evidence", None)       # the text's own passages (GivenRetriever), all of them
    evidence = [e.text for e in given if getattr(e, "text", "")] if isinstance(given, list) else None
    return (AnsweringVerifier(verifier.verifier, verifier.cache, verifier.adapter, q, evidence),
            QuestionRetriever(retriever, q) if retriever is not None else None)


class QuestionRetriever(Stage):
    """A retriever whose query for each fact holds the question too."""

    def __init__(self, inner: Any, question: Question):
        self.inner = inner
        self.question = question
        self.name = inner.name
        self.version = inner.version

    @property
    def notices(self) -> Sequence[str]:          # type: ignore[override]
        return self.inner.notices

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def retrieve(self, entity: Entity, fact: str, langs: Sequence[str], k: int = 8) -> list[Evidence]:
        return self.inner.retrieve(entity, self.question.query(fact), langs, k)
