"""Rule-based multilingual atomic-fact extractor: the offline default.

It works on one sentence at a time and never writes a word that is not in the sentence:

1. An introductory phrase ("In 1963, ...") stays with the main clause; the sentence's subject is the
   entity's name, a pronoun, or the leading capitalised words after it.
2. Relative clauses and appositives set off by commas (", who was born in Warsaw,", ", a Polish
   physicist,") become facts of their own about the word they follow (the subject).
3. The rest splits at semicolons and at coordinators that join two clauses ("and won", "y ganó",
   "et a reçu", "और"), per-language lists; a clause without a subject of its own gets the sentence's
   subject carried over ("He studied physics and won ..." -> "He won ...").
4. Each clause is refined into finer facts (core/checking/extract/refine.py): trailing relative
   clauses and participial phrases, "including"/"such as" lists, coordinated noun phrases, a date
   next to a place, one prepositional phrase per fact, a nationality before a noun.
5. Every fact keeps its sentence index and a tight span: the words it adds (a carried subject or
   shared head is not part of the span, so spans of one sentence do not overlap).
"""
from __future__ import annotations

import re

from ...protocols import ExtractedFact, Sentence, Stage
from ...versions import extractor_version
from .clauses import Piece, Span, coordinate, n_words, phrase_regex, trim
from .meta import attribution_end, claim_part, declines, heading
from .refine import Clause, ClauseRefiner
from ..lexicon.rule_words import (
    ARTICLES,
    INTRO_MAX_WORDS,
    INTRO_PARTICIPLES,
    INTRO_WORDS,
    PREPOSITIONS,
    PRONOUNS,
    PRO_DROP,
    RELATIVES,
    V2_LANGS,
    case_suffixed,
    is_pronoun_in,
)
from ..text.textutil import STOPWORDS, content_tokens, han_simplified, words_with_offsets

__all__ = ["PRONOUNS", "RuleExtractor"]


class RuleExtractor(Stage):
    """Clause splitting with subject carry-over, then the clause refiner. `name` and `version` go
    into session configs."""

    name = "rules"
    def __init__(self) -> None:
        # a digest of the extractor's code and tables: any change to them re-extracts, with no
        # number to bump by hand
        self.version = extractor_version()
        self.refiner = ClauseRefiner()

    def extract(self, sentence: Sentence, full_text: str, lang: str, entity: str) -> list[ExtractedFact]:
        text = sentence.text
        base = sentence.start
        if not any(ch.isalpha() for ch in text) or not content_tokens(text):
            return []
        lang = (lang or "en").split("-")[0].lower()
        if declines(text, lang):
            return []        # "Sorry, without the text I cannot answer": no claim (meta.py)
        if heading(text, base, full_text, lang):
            return []        # "Carrera artística[editar]", "Early life": a section heading (meta.py)
        claim = claim_part(text, lang)     # "..., but the passage does not say where": the claim only
        if claim is None:
            return []
        # "According to the provided passage, ...": the claim starts after its source
        s0, e0 = trim(text, attribution_end(claim, lang), len(claim))
        if e0 <= s0:
            return []
        subj_span = _subject(text, s0, e0, lang, entity)
        subject = text[subj_span[0]:subj_span[1]] if subj_span else None
        facts: list[ExtractedFact] = []
        seen: set[str] = set()
        for p in _split(text, s0, e0, lang, subject, subj_span):
            for fact_text, (x0, x1) in self._piece_facts(text, p, lang, subject, subj_span):
                claim = claim_part(fact_text, lang)      # "..., but the text does not say": cut off
                if claim is None:
                    continue
                if claim != fact_text:
                    fact_text, (x0, x1) = claim, _span_in(claim, text, x0, x1)
                key = fact_text.lower()
                if key in seen or not content_tokens(fact_text):
                    continue
                seen.add(key)
                facts.append(ExtractedFact(text=fact_text, span=(base + x0, base + x1)))
        if not facts and claim_part(text[s0:e0], lang) == text[s0:e0]:
            facts.append(ExtractedFact(text=text[s0:e0], span=(base + s0, base + e0)))
        return facts

    def _piece_facts(self, text: str, p: Piece, lang: str, subject: str | None,
                     subj_span: Span | None) -> list[tuple[str, Span]]:
        """The refined facts of one clause; an introductory date goes at the end of the first."""
        a, b = trim(text, p.start, p.end)
        if b <= a or not content_tokens(text[a:b]):
            return []
        intro = None
        if subj_span is not None and a < subj_span[0] <= b and not _verb_before(text, a, subj_span[0], lang):
            if re.search(r"\d", text[a:subj_span[0]]):
                intro = trim(text, a, subj_span[0])   # "In 1999, he ...": the date goes last
            a = subj_span[0]     # an introductory phrase without a date: not part of the facts
        own_subject = p.subject
        if own_subject is None and subj_span is not None and a <= subj_span[0] < b:
            own_subject = subject
        out = self.refiner.refine(Clause(text, lang, own_subject, subj_span), a, b, p.subject)
        if intro is not None and out:
            fact_text, (_x0, x1) = out[0]
            out[0] = (f"{fact_text} {text[intro[0]:intro[1]]}", (intro[0], x1))
        return out


def _verb_before(text: str, a: int, subj_start: int, lang: str) -> bool:
    """In German and Dutch a clause may open with its finite verb before the subject ("studierte sie
    in Paris", after an opening phrase that is a fact of its own): the verb stays in the fact."""
    head = text[a:subj_start].strip()
    return lang in V2_LANGS and bool(head) and head[:1].islower() and len(head.split()) == 1 and head.isalpha()


def _span_in(claim: str, text: str, x0: int, x1: int) -> Span:
    """The span of a fact cut short (`claim_part`) within its old span: where it starts there, else
    the old start to the old start plus its length."""
    at = text.find(claim[:20], x0, x1)
    start = at if at >= 0 else x0
    return start, min(x1, start + len(claim))


def _intro_end(text: str, words: list[tuple[str, int, int]], lang: str) -> int:
    """The index of the first word after an introductory phrase that ends in a comma within the
    first few words ("In 1963, ..."); 0 when there is none."""
    w0 = words[0][0].lower()
    for idx, (_w, _s, e) in enumerate(words[:INTRO_MAX_WORDS + 1]):
        rest = text[e:e + 2]
        if not (w0 in PREPOSITIONS.get(lang, ()) or w0 in INTRO_WORDS or w0 in INTRO_PARTICIPLES or w0[:1].isdigit()
                or (w0 in STOPWORDS and w0 not in PRONOUNS and w0 not in ARTICLES and idx < 6)):
            break
        if rest.startswith(",") or rest.startswith("，") or rest.startswith("،"):
            if idx + 1 < len(words) and idx < INTRO_MAX_WORDS:
                return idx + 1
            break
    return 0


def _subject(text: str, s0: int, e0: int, lang: str, entity: str) -> Span | None:
    """The sentence's subject: the entity's name, a pronoun, or the leading capitalised words."""
    words = [w for w in words_with_offsets(text[:e0]) if w[1] >= s0]
    if not words:
        return None
    k = _intro_end(text, words, lang)
    intro, words = words[:k], words[k:]
    if not words:
        return None
    ent_tokens = {t.lower() for t, _s, _e in words_with_offsets(entity or "")}
    inverted = _inverted_subject(words, lang, intro, ent_tokens)
    if inverted is not None:
        return inverted
    first, fs, fe = words[0]
    if first.lower() in ent_tokens:
        end = fe
        for w, _s, e in words[1:]:
            if w.lower() in ent_tokens:
                end = e
            else:
                break
        return fs, end
    if is_pronoun_in(first, lang):
        return fs, fe
    if first.lower() in PRONOUNS:
        return None          # an article or a verb here ("Il film", "O filme", "Es un actor")
    if case_suffixed(first, lang):
        return None         # Turkish "Fransa'da yaşadı": a name with a case ending is no subject
    if first[:1].isupper() and first.lower() not in STOPWORDS:
        end = fe
        for w, _s, e in words[1:7]:
            if w[:1].isupper() or (w.lower() in _NAME_PARTICLES):
                end = e
            else:
                break
        if end == fe and lang in PRO_DROP and len(words) > 1 and words[1][0][:1].islower():
            return None     # "Está situada ...": a verb, the subject is dropped
        return fs, end
    # a caseless script: the entity's name at the start of the sentence (in Chinese in either script:
    # "罗莎·帕克斯" for the article "羅莎·帕克斯")
    if entity and (text[s0:].startswith(entity) or
                   (lang == "zh" and han_simplified(text[s0:s0 + len(entity)]) == han_simplified(entity))):
        return s0, s0 + len(entity)
    return None


_NAME_PARTICLES = {"de", "van", "von", "da", "del", "di", "der", "le", "la", "bin", "ibn"}


def _split(text: str, s0: int, e0: int, lang: str, subject: str | None, subj_span: Span | None) -> list[Piece]:
    """The sentence's clauses: a comma-bounded insertion right after the subject (a relative clause
    or an appositive) first, then semicolons and coordinators in the main clause."""
    main: list[Span] = [(s0, e0)]
    extra: list[Piece] = []
    found_intro = _participle_intro(text, s0, lang, subject, subj_span)
    intro = None
    if found_intro is not None:
        # "Born in Warsaw, she ...": the phrase is a fact about the subject, the rest starts there
        intro, s0 = found_intro
        extra.append(intro)
        main = [(s0, e0)]
    if subj_span is not None and subject is not None:
        found = _insertion(text, e0, lang, subject, subj_span[1])
        if found is not None:
            piece, rest_start = found
            extra.append(piece)
            main = [(subj_span[0] if subj_span[0] < s0 else s0, subj_span[1]), (rest_start, e0)]
    pieces: list[Piece] = []
    if len(main) == 2:
        # the subject is carried onto the rest of the main clause
        head, rest = main
        sub_pieces = coordinate(text, rest[0], rest[1], lang, subject)
        first = sub_pieces[0]
        pieces.append(Piece(first.start, first.end, text[head[0]:head[1]]))
        pieces.extend(sub_pieces[1:])
    else:
        pieces.extend(coordinate(text, main[0][0], main[0][1], lang, subject))
    # relative-clause facts go right after the main clause they belong to, an opening phrase first
    if intro is not None:
        return [intro] + pieces[:1] + extra[1:] + pieces[1:]
    return pieces[:1] + extra + pieces[1:]


def _is_participle_phrase(words: list[tuple[str, int, int]]) -> bool:
    """An opening phrase led by one of INTRO_PARTICIPLES ("Born in Warsaw"), or in German and Dutch
    ended by one ("In Warschau geboren")."""
    return bool(words) and (words[0][0].lower() in INTRO_PARTICIPLES or words[-1][0].lower() in INTRO_PARTICIPLES)


def _inverted_subject(words: list[tuple[str, int, int]], lang: str, intro: list[tuple[str, int, int]],
                      ent_tokens: set[str]) -> Span | None:
    """In German and Dutch the finite verb comes before the subject after an opening phrase:
    "Geboren in Warschau, studierte Marie Curie in Paris" / "..., studierte sie ...": the subject
    after that verb (the entity's name or a pronoun), when the phrase is a participle phrase."""
    if lang not in V2_LANGS or not _is_participle_phrase(intro) or len(words) < 3 or not words[0][0][:1].islower():
        return None
    w, s, e = words[1]
    if is_pronoun_in(w, lang):
        return s, e
    if w.lower() not in ent_tokens:
        return None
    for w2, _s2, e2 in words[2:]:
        if w2.lower() not in ent_tokens:
            break
        e = e2
    return s, e


def _participle_intro(text: str, s0: int, lang: str, subject: str | None,
                      subj_span: Span | None) -> tuple[Piece, int] | None:
    """"Born in Warsaw, she ...": the opening phrase (to its comma) as a piece about the subject after
    it, when the sentence opens with one of INTRO_PARTICIPLES; and where the rest of the sentence
    starts: the subject, or in German and Dutch the verb before it ("Geboren in Warschau, studierte
    sie ...", "In Warschau geboren, studierte sie ...")."""
    if subject is None or subj_span is None or subj_span[0] <= s0:
        return None
    comma = max(text.rfind(",", s0, subj_span[0]), text.rfind("，", s0, subj_span[0]))
    between = text[comma + 1:subj_span[0]]
    if lang in V2_LANGS and comma > s0 and between.strip():
        end = comma                                         # the verb after the comma starts the rest
        rest = subj_span[0] - len(between.lstrip())
        ok = _is_participle_phrase(words_with_offsets(text[s0:comma]))
    else:
        end = rest = subj_span[0]
        head = words_with_offsets(text[s0:end])
        ok = bool(head) and head[0][0].lower() in INTRO_PARTICIPLES
    if not ok:
        return None
    a, b = trim(text, s0, end)
    return (Piece(a, b, subject + ","), rest) if b > a and n_words(text[a:b]) >= 2 else None


def _insertion(text: str, e0: int, lang: str, subject: str, after: int) -> tuple[Piece, int] | None:
    """", who was born in Warsaw," / ", a Polish physicist," right after the subject: its piece and
    where the rest of the main clause starts."""
    m = re.match(r"\s*[,،，]\s*", text[after:e0])
    if not m:
        return None
    ins_start = after + m.end()
    rel = phrase_regex(RELATIVES.get(lang, []))
    low_first = text[ins_start:ins_start + 20].split(" ", 1)[0].lower()
    rm = rel.match(text, ins_start) if rel else None
    is_app = low_first in ARTICLES
    close = re.search(r"[,،，]", text[ins_start:e0])
    if not (rm or is_app) or not close:
        return None
    ins_end = ins_start + close.start()
    rest_start = ins_end + 1
    if n_words(text[rest_start:e0]) < 2 or n_words(text[ins_start:ins_end]) < 2:
        return None
    if rm:
        return Piece(rm.end(), ins_end, subject), rest_start
    return Piece(ins_start, ins_end, subject + ","), rest_start
