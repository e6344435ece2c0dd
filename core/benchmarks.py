"""The benchmark files of the field, read as sessions whose annotators' marks are human labels, so a
researcher can browse a benchmark's answers in the TUI, relabel them, `mfact rejudge` them and read
the agreement between mfact and the annotators in `mfact report`.

- **Mu-SHROOM** (SemEval-2025 Task 3) JSONL: one answer a line, `id`, `lang`, `model_input` (the
  question), `model_output_text`, `hard_labels` (`[[start, end], ...]`, characters).
- **mFAVA** (Islam et al. 2025) JSON: a list of `{"references", "generated_text",
  "silver_annotations"}`, the annotated copy of the answer with `<entity>`, `<relation>`,
  `<contradictory>`, `<invented>`, `<subjective>`, `<unverifiable>` tags; the language from the file
  name (`silver_french.json`) or a `lang` field.

The facts are the rule extractor's; a fact that overlaps a marked span is the annotators' NS, any
other their S (subjective tags mark nothing). Offsets are those of the text as the file gives it.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from .errors import MfactError
from .schema import json_type
from .session import Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, now_iso

MFAVA_TAGS = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
_TAG = re.compile(r"</?(" + "|".join(MFAVA_TAGS) + r")>", re.IGNORECASE)
MAX_ANSWERS = 100_000


def is_mushroom(obj: Any) -> bool:
    return isinstance(obj, dict) and "model_output_text" in obj


def is_mfava(obj: Any) -> bool:
    return isinstance(obj, list) and bool(obj) and isinstance(obj[0], dict) and "generated_text" in obj[0]


def _labelled_facts(text: str, lang: str, entity: str, marked: list[tuple[int, int]], when: str) -> list[Fact]:
    """The rule extractor's facts of `text`, each the annotators' NS where it overlaps a mark."""
    from .checking import split_sentences
    from .checking.extract.rules import RuleExtractor
    x = RuleExtractor()
    facts: list[Fact] = []
    for k, sent in enumerate(split_sentences(text, lang)):
        for f in x.extract(sent, text, lang, entity):
            a, b = f.span
            label = "NS" if any(s < b and e > a for s, e in marked) else "S"
            facts.append(Fact(id=f"s{k}f{len(facts)}", text=f.text, sentence=k, span=(a, b),
                              human=HumanLabel(label=label, time=when)))
    return facts


def _language(code: str, where: str) -> str:
    from .languages import UnknownLanguage, get_language
    try:
        return get_language(code).code
    except UnknownLanguage as exc:
        raise MfactError(f"{where}: {exc.message}", exc.hint) from None


@dataclass(frozen=True)
class _Answer:
    """A benchmark's answer: its session id, language, subject (entity), text and question."""
    sid: str
    lang: str
    entity: str
    text: str
    question: str = ""


def _session(answer: _Answer, evidence: list[Evidence], facts: list[Fact], source: str) -> Session:
    sid, lang, entity, text, question = answer.sid, answer.lang, answer.entity, answer.text, answer.question
    s = Session(id=sid, language=lang, entity=Entity(name=entity), name=sid,
                generator=GeneratorInfo(backend="imported", model=source), text=text,
                stop_reason="imported", facts=facts, evidence=evidence, question=question)
    from .checks import calm_checks
    s.checks = calm_checks(text, lang)
    return s


def _hard_labels(v: Any, n: int, where: str) -> list[tuple[int, int]]:
    """A Mu-SHROOM answer's hard labels, `[[start, end], ...]` in characters of its text (null or
    absent: none); a malformed or out-of-range one is refused naming the line."""
    if v is None:
        return []
    hint = "hard_labels are [[start, end], ...] with 0 <= start <= end <= the length of model_output_text"
    if not isinstance(v, list):
        raise MfactError(f"{where}: must be a list of [start, end], got {json_type(v)}", hint)
    out = []
    for i, m in enumerate(v):
        if (not isinstance(m, list) or len(m) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in m) or not 0 <= m[0] <= m[1] <= n):
            raise MfactError(
                f"{where}[{i}]: {json.dumps(m)[:60]} is not [start, end] inside the answer ({n} characters)", hint
            )
        out.append((m[0], m[1]))
    return out


def parse_mushroom(text: str, name: str) -> list[Session]:
    from .pipeline.question import topic_of
    out: list[Session] = []
    when = now_iso()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MfactError(f"{name}:{n}: not JSON ({exc.msg})", "one Mu-SHROOM answer a line") from None
        if not is_mushroom(d) or not isinstance(d["model_output_text"], str):
            raise MfactError(f"{name}:{n}: no model_output_text", "one Mu-SHROOM answer a line")
        answer, question = d["model_output_text"], str(d.get("model_input") or "")
        marks = _hard_labels(d.get("hard_labels"), len(answer), f"{name}:{n}: hard_labels")
        lang = _language(str(d.get("lang") or "").lower(), f"{name}:{n}")
        topic = topic_of(question, []) or "the question"
        sid = str(d.get("id") or f"mushroom-{n}")
        out.append(_session(_Answer(sid, lang, topic, answer, question), [],
                            _labelled_facts(answer, lang, topic, marks, when), "mu-shroom"))
    return out


def mfava_marks(annotated: str) -> tuple[str, list[tuple[int, int]]]:
    """The answer without its tags, and the spans its tags mark (subjective ones left out)."""
    plain: list[str] = []
    marks: list[tuple[int, int]] = []
    open_at: list[tuple[str, int]] = []
    pos = last = 0
    for m in _TAG.finditer(annotated):
        plain.append(annotated[last:m.start()])
        pos += m.start() - last
        last = m.end()
        tag = m.group(1).lower()
        if not m.group(0).startswith("</"):
            open_at.append((tag, pos))
        elif open_at:
            t, start = open_at.pop()
            if t != "subjective" and pos > start:
                marks.append((start, pos))
    plain.append(annotated[last:])
    return "".join(plain), sorted(marks)


def carry_marks(plain: str, marks: list[tuple[int, int]], target: str) -> list[tuple[int, int]]:
    """The marks of `plain` (the annotated copy without its tags) as spans of `target` (the answer
    as the file gives it, which the annotator's copy may differ from): a character alignment, equal
    runs carried as they are, a replaced run marked when any character it replaces is, an inserted
    one when the characters on both sides of it are."""
    if plain == target or not marks:
        return list(marks) if plain == target else []
    import difflib
    hot = [False] * len(plain)
    for a, b in marks:
        hot[a:b] = [True] * (b - a)
    out = [False] * len(target)
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, plain, target, autojunk=False).get_opcodes():
        if op == "equal":
            out[b0:b1] = hot[a0:a1]
        elif op == "replace":
            out[b0:b1] = [any(hot[a0:a1])] * (b1 - b0)
        elif op == "insert":
            out[b0:b1] = [0 < a0 < len(hot) and hot[a0 - 1] and hot[a0]] * (b1 - b0)
    spans: list[tuple[int, int]] = []
    for i, h in enumerate(out):
        if h and spans and spans[-1][1] == i:
            spans[-1] = (spans[-1][0], i + 1)
        elif h:
            spans.append((i, i + 1))
    return spans


def _mfava_lang(name: str, data: list) -> str:
    from .languages import ALL_LANGUAGES
    if isinstance(data[0].get("lang"), str):
        return _language(data[0]["lang"], name)
    m = re.search(r"silver_(?:gold_)?([a-z]+)\.json$", name.lower())
    names = {lang.name.lower(): lang.code for lang in ALL_LANGUAGES} | {"latina": "la"}
    if m and m.group(1) in names:
        return names[m.group(1)]
    raise MfactError(f"{name}: the language of an mFAVA file is not known",
                     'name the file silver_<language>.json (silver_french.json) or give each item a "lang"')


def parse_mfava(data: list, name: str) -> list[Session]:
    lang = _mfava_lang(name, data)
    when = now_iso()
    out: list[Session] = []
    for n, d in enumerate(data[:MAX_ANSWERS]):
        if not isinstance(d, dict) or not isinstance(d.get("silver_annotations", d.get("generated_text")), str):
            raise MfactError(f"{name}[{n}]: no silver_annotations or generated_text", "an mFAVA item per entry")
        plain, marks = mfava_marks(str(d.get("silver_annotations") or d.get("generated_text")))
        given = d.get("generated_text")
        text = given if isinstance(given, str) and given.strip() else plain
        marks = carry_marks(plain, marks, text)
        ref = str(d.get("references") or "")
        entity = " ".join(ref.split()[:4]) or f"answer {n}"
        sid = "mfava-" + hashlib.sha1(f"{lang}\0{text}".encode("utf-8")).hexdigest()[:12]
        evidence = [Evidence(id="e0", source="reference", title=entity, text=ref, lang=lang)] if ref else []
        out.append(_session(_Answer(sid, lang, entity, text, ""), evidence,
                            _labelled_facts(text, lang, entity, marks, when), "mfava"))
    return out
