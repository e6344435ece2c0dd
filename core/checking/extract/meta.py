"""Sentences that hold no claim about the world: the model declines, apologises, asks the user for
something, or speaks of its own input ("I'm sorry, but without a reference text I cannot answer";
"The provided passage does not mention his birth date").

Such a sentence is not a fact to check: coloured not supported, it would call a refusal a
hallucination, and a text that only declines would be scored instead of counted as an abstention
(a text with no facts, docs/science.md). The pipeline asks before extraction:

- `declines(sentence, lang)`: the sentence is a question (`asks`: it ends with a question mark), or
  opens with an apology followed by a punctuation mark
  ("Sorry, ...", "Maaf, ...", "Desculpe, mas ..."; in zh, yue, ja, ko and th any apology that opens
  it), says what the speaker cannot do or does not have, in the first person ("I cannot", "não
  posso", "negaliu", "我无法"), or asks the user for something ("please provide"). Then none of it
  is checked.
- `claim_part(text, lang)`: a fact that says its input lacks something ("without a provided
  passage", "the given text does not mention", "文中未提及": a "without" phrase, or in one clause
  the input named as such, "the provided passage", beside a negation) keeps only the clauses before that
  remark ("Marie Curie was born in 1867, but the provided text does not mention where" -> "Marie
  Curie was born in 1867"), and is dropped when the remark opens it.
- `attribution_end(text, lang)`: an opening that only names the input as the source ("According to
  the provided passage, ...") is not part of the claim: the fact's span starts after it.

The phrases are a data file, `core/checking/data/meta_phrases.json` (37 languages, each sentence
also read with the English phrases: a model often declines in English). They are written for
precision: a biography's sentence must not match (tests/test_meta.py runs them over the 77,862
sentences of the bundled en/es/fr Wikipedia leads; docs/checking.md has the scan of the detector's
Wikipedia articles in 24 languages, which live in the user cache).
"""
from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ..text.textutil import data_json, words_with_offsets

_AFTER_APOLOGY = r"\s*[,，、!！.。:：;；،]"
_NO_PUNCTUATION = frozenset({"zh", "yue", "ja", "ko", "th"})    # an apology runs on without a comma


class _Phrases(NamedTuple):
    opens: re.Pattern[str] | None      # an apology that opens the sentence
    asks: re.Pattern[str] | None       # first-person inability, a request, what answering would need
    lacks: re.Pattern[str] | None      # a "without" phrase: no text, passage or reference given
    named: re.Pattern[str] | None      # the model's input named as such ("the provided passage")
    neg: re.Pattern[str] | None        # a negation
    source: re.Pattern[str] | None     # an opening naming the input as the source, no comma needed


@functools.lru_cache(maxsize=64)
def _phrases(lang: str) -> _Phrases:
    """One language's phrases (meta_phrases.json), compiled."""
    table = data_json("meta_phrases.json").get(lang) or {}

    def either(*kinds: str) -> re.Pattern[str] | None:
        parts = [p for k in kinds for p in table.get(k) or []]
        return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE) if parts else None

    sorry = either("sorry")
    opens = (re.compile(r"^[\W_]*(?:" + sorry.pattern + ")" + ("" if lang in _NO_PUNCTUATION else _AFTER_APOLOGY),
                        re.IGNORECASE) if sorry is not None else None)
    src = either("source")
    source = re.compile(r"^\s*(?:" + src.pattern + r")\s*,?\s*", re.IGNORECASE) if src is not None else None
    return _Phrases(opens, either("cannot", "please"), either("without"), either("input"), either("neg"), source)


def _langs(lang: str) -> tuple[str, ...]:
    base = (lang or "en").split("-")[0].lower()
    return (base, "en") if base != "en" else ("en",)


# quoted words are someone else's ("I Can't Hold Back", a player's "I cannot play for six weeks")
_QUOTED = re.compile(
    r'"[^"\n]{0,400}"|“[^”\n]{0,400}”|„[^“”\n]{0,400}[“”]|«[^»\n]{0,400}»|「[^」\n]{0,400}」|『[^』\n]{0,400}』'
)


def _unquoted(text: str) -> str:
    """The text with its quotations blanked out (same length)."""
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


_QUESTION = re.compile(r"(\w+)[\s\u00a0]*[?？؟][\s\"'“”‘’«»‹›）)\]」』]*$")


def asks(sentence: str) -> bool:
    """Whether the sentence is a question: it ends with a question mark ("?", "？", "؟"; closing
    quotes and brackets after it allowed) right after a word that is not capitalised, outside
    brackets. A question claims nothing: a model that repeats the user's question, or asks one
    back, says nothing true or false (silver: 64 of 68 questions in the answers hold no tagged
    word, the other 4 a glued word). Not questions: a title ("His films Where Is the Friend's
    House?"), an uncertain date ("(1583?"); a Spanish question opens with "¿" whatever its end."""
    text = sentence.strip()
    m = _QUESTION.search(text)
    if not m or text[:m.start()].count("(") > text[:m.start()].count(")"):
        return False
    last = m.group(1)
    return not last[0].isdigit() and (not last[0].isupper() or text.lstrip("\"'“«").startswith("¿"))


def declines(sentence: str, lang: str) -> bool:
    """Whether the sentence declines, apologises, asks the user for something or is a question
    (none of it a claim)."""
    text = _unquoted(sentence.strip())
    if not text.strip():
        return False
    if asks(text):
        return True
    for code in _langs(lang):
        ph = _phrases(code)
        if (ph.opens is not None and ph.opens.search(text)) or (ph.asks is not None and ph.asks.search(text)):
            return True
    return False


_CLAUSE = re.compile(r"[^,;:，；、،—–]+[,;:，；、،—–]*")


def _is_remark(clause: str, following: str, lang: str) -> bool:
    """Whether a clause says that the model's input lacks something: a "without" phrase, or the
    input named as such with a negation in it or in the clause after it ("a passagem fornecida não
    especifica", "Based on the provided passage, it is not possible to", "文中未提及")."""
    for code in _langs(lang):
        ph = _phrases(code)
        if ph.lacks is not None and ph.lacks.search(clause):
            return True
        if ph.named is not None and ph.neg is not None and ph.named.search(clause) and (
                ph.neg.search(clause) or ph.neg.search(following)):
            return True
    return False


def _remark_at(text: str, lang: str) -> int | None:
    """Where the first clause of `text` that is a remark about the input starts, or None."""
    plain = _unquoted(text)
    clauses = list(_CLAUSE.finditer(plain))
    for i, m in enumerate(clauses):
        following = clauses[i + 1].group(0) if i + 1 < len(clauses) else ""
        if _is_remark(m.group(0).strip(), following, lang):
            return m.start()
    return None


def speaks_of_input(text: str, lang: str) -> bool:
    """Whether a fact says that the model's input (a text, passage or reference) lacks something."""
    return _remark_at(text, lang) is not None


ATTRIBUTION_MAX_WORDS = 10     # "berdasarkan informasi yang diberikan dalam teks": a source, not a claim


def attribution_end(text: str, lang: str) -> int:
    """Where the claim starts after an opening that only names its source, the model's input, with no
    negation ("Según el fragmento proporcionado, la pizza ..." -> at "la pizza"; "Berdasarkan teks,
    ..."): the end of that first clause and its comma; 0 when the text opens otherwise. Where such an
    opening takes no comma ("Laut dem bereitgestellten Text wurde sie ...", "Verilen metne göre
    Marie ..."), the language's `source` phrase marks its end."""
    plain = _unquoted(text)
    for code in _langs(lang):
        src = _phrases(code).source
        if src is not None and (m := src.match(plain)) and m.end() < len(plain.rstrip()):
            return m.end()
    for m in list(_CLAUSE.finditer(plain))[:2]:      # a connective may come first ("Jadi, berdasarkan teks, ...")
        clause = m.group(0)
        if m.end() >= len(plain.rstrip()) or not re.search(r"[,，、،]\s*$", clause):
            return 0
        n_words = len(words_with_offsets(clause))
        for code in _langs(lang):
            ph = _phrases(code)
            if (n_words <= ATTRIBUTION_MAX_WORDS and ph.named is not None and ph.named.search(clause)
                    and not (ph.neg is not None and ph.neg.search(clause))):
                return m.end() + len(plain[m.end():]) - len(plain[m.end():].lstrip())
        if n_words > 2:
            return 0
    return 0


# A section heading of a text written like a Wikipedia article ("Biografía[editar]", "Early life",
# "Leben"): the small base models write them between paragraphs, and checked as facts they were
# coloured not supported and counted as hallucinations.
_EDIT_LINK = re.compile(r"\[[^\[\]\d\n]{1,60}\]\s*$")      # "[editar]", "[modifier | modifier le code]"; not "[12]"
_LINE_END = tuple(".!?…。！？؟।॥۔:;,，；")                # a line ending so is a sentence, or leads into one
HEADING_MAX_WORDS = 5
EDIT_LINK_MAX_WORDS = 6
HEADING_MAX_CHARS = {"zh": 12, "yue": 12, "ja": 12, "th": 24}     # scripts without spaces between words


def heading(text: str, start: int, full_text: str, lang: str) -> bool:
    """Whether the sentence `text`, at `start` of `full_text`, is a section heading: a line of its
    own that either ends in a wiki edit link ("Carrera artística[editar]", "Biographie[modifier |
    modifier le code]": at most 6 words before it) or follows a blank line and is a short phrase
    (at most 5 words; 12 characters in Chinese and Japanese) with no digit, nothing that ends or
    leads into a sentence at its end (".", ":", ...) and no copula or auxiliary ("Early life" and
    "Key dates" are headings, "Einstein was German" is not). Only what comes before the line is
    read, so a streamed text and the same text checked whole give the same facts; the text's first
    line is a heading only with an edit link (a one-line claim typed without a full stop stays a
    claim)."""
    end = start + len(text)
    before = full_text[:start].rstrip(" \t")
    after = full_text[end:].lstrip(" \t")
    if (before and not before.endswith("\n")) or (after and not after.startswith("\n")):
        return False                             # not a line of its own
    line = text.strip()
    if not line or not any(c.isalpha() for c in line):
        return False
    base = _langs(lang)[0]
    link = _EDIT_LINK.search(line)
    if link is not None:
        body = line[:link.start()].strip()
        return bool(body) and len(body.split()) <= EDIT_LINK_MAX_WORDS and not body.endswith(_LINE_END)
    if not before or not before[:-1].rstrip(" \t").endswith("\n"):
        return False                             # the text's first line, or no blank line before it
    if line.endswith(_LINE_END) or any(c.isdigit() for c in line):
        return False
    if base in HEADING_MAX_CHARS:
        return len("".join(line.split())) <= HEADING_MAX_CHARS[base]
    words = [w.strip("\"'“”‘’«»()[]").casefold() for w in line.split()]
    if len(words) > HEADING_MAX_WORDS:
        return False
    shapes = _verb_shapes(base)
    return not any(w in _verb_words(base) or any(p.search(w) for p in shapes) for w in words)


@functools.lru_cache(maxsize=64)
def _verb_words(lang: str) -> frozenset[str]:
    """Copulas, auxiliaries and common verbs (rule_words' tables, this language's and English's): a
    line with one says something."""
    from ..lexicon import rule_words as rw  # not at the top: rule_words reads the slot tables
    words = set(rw.COPULAS) | set(rw.AUXILIARIES) | set(rw.EN_VERBS)
    words |= rw.LANG_COPULAS.get(lang, set()) | rw.FINAL_COPULAS.get(lang, set())
    if lang == "de":
        words |= set(rw.DE_FINITE)
    return frozenset(w.casefold() for w in words)


@functools.lru_cache(maxsize=64)
def _verb_shapes(lang: str) -> tuple[re.Pattern[str], ...]:
    """This language's verb endings (rule_words' shapes of finite and past forms: "nació", "urodził"):
    a word so shaped makes the line a statement, not a heading."""
    from ..lexicon import rule_words as rw
    return tuple(t[lang] for t in (rw.VERB_SHAPES, rw.FINITE_SHAPES, rw.FINAL_VERB_SHAPES) if lang in t)


def claim_part(text: str, lang: str) -> str | None:
    """`text` without what it says about the model's input: the whole of it when it says nothing
    of the kind; the clauses before such a remark ("Marie Curie was born in 1867" of "Marie Curie
    was born in 1867, but the provided text does not mention where"); None when the remark opens it."""
    at = _remark_at(text, lang)
    if at is None:
        return text
    keep = text[:at].rstrip(" ,;:，；、،—–")
    return keep if len(words_with_offsets(keep)) >= 3 else None      # not a lone "Unfortunately" or "No entanto"
