"""LLM extractor and LLM judge with a scripted generator (the network edge is the generator)."""
from __future__ import annotations

import threading

import pytest

from mfact.core.checking import build_extractor, build_verifier, split_sentences
from mfact.core.checking.extract.llm import BM25, LLMExtractor, load_demos, parse_facts
from mfact.core.checking.verify.llm import LLMVerifier, build_prompt, parse_answer
from mfact.core.config import Config
from mfact.core.errors import MfactError
from mfact.core.protocols import Chunk, DecodingParams
from mfact.core.session import Evidence


class ScriptedGenerator:
    """Answers each prompt with `reply(prompt)`, streamed word by word, recording the params."""
    backend = "scripted"
    model = "scripted-7b"

    def __init__(self, reply, logprob=None):
        self.reply = reply
        self.logprob = logprob
        self.prompts: list[str] = []
        self.params: list[DecodingParams] = []

    def default_prompt(self, entity, lang):
        return f"Tell me a bio of {entity}."

    def stream(self, prompt, params, stop: threading.Event | None = None):
        self.prompts.append(prompt)
        self.params.append(params)
        words = self.reply(prompt).split(" ")
        for i, w in enumerate(words):
            yield Chunk(text=(w if i == 0 else " " + w), logprob=self.logprob)
        yield Chunk(text="", done=True, stop_reason="eos")


TEXT = "Marie Curie was born in Warsaw in 1867 and won the Nobel Prize in 1903."


def test_llm_extractor_prompt_and_parsing(shared_dir):
    gen = ScriptedGenerator(lambda p: "- Marie Curie was born in Warsaw.\n- Marie Curie was born in 1867.\n"
                                      "* She won the Nobel Prize.\n2. She won it in 1903.\n\n"
                                      "Please breakdown the following sentence into independent facts: x\n- junk")
    x = LLMExtractor(gen, demos=load_demos(shared_dir / "data/factscore/demons.json"))
    s = split_sentences(TEXT, "en")[0]
    facts = x.extract(s, TEXT, "en", "Marie Curie")
    assert [f.text for f in facts] == ["Marie Curie was born in Warsaw.", "Marie Curie was born in 1867.",
                                       "She won the Nobel Prize.", "She won it in 1903."]
    assert TEXT[facts[0].span[0]:facts[0].span[1]] == "Marie Curie was born in Warsaw"
    assert TEXT[facts[1].span[0]:facts[1].span[1]] == "Marie Curie was born in Warsaw in 1867"
    prompt = gen.prompts[0]
    assert prompt.count("Please breakdown the following sentence into independent facts:") == 7 + 1 + 1
    assert prompt.rstrip().endswith(TEXT)
    assert gen.params[0].temperature == 0.0 and gen.params[0].greedy


def test_llm_extractor_asks_for_the_texts_language():
    gen = ScriptedGenerator(lambda p: "- Marie Curie nació en Varsovia.")
    x = LLMExtractor(gen)
    t = "Marie Curie nació en Varsovia en 1867."
    facts = x.extract(split_sentences(t, "es")[0], t, "es", "Marie Curie")
    assert "write each fact in Spanish" in gen.prompts[0]
    assert facts[0].text == "Marie Curie nació en Varsovia."


@pytest.mark.parametrize("answer", ["I'm sorry, I cannot help with that.", "", "   \n\n"])
def test_refusals_and_empty_answers_fall_back_to_rules(answer):
    x = LLMExtractor(ScriptedGenerator(lambda p: answer))
    s = split_sentences(TEXT, "en")[0]
    facts = x.extract(s, TEXT, "en", "Marie Curie")
    assert [f.text for f in facts] == ["Marie Curie was born in Warsaw", "Marie Curie was born in 1867",
                                       "Marie Curie won the Nobel Prize in 1903"]
    from mfact.core.checking.extract.rules import RuleExtractor
    assert facts == RuleExtractor().extract(s, TEXT, "en", "Marie Curie")


def test_parse_facts_variants():
    assert parse_facts("Sure! Here are the facts:\n- A is B.\n- A is B.\n• C is D.") == ["A is B.", "C is D."]
    assert parse_facts("He was a physicist.") == ["He was a physicist."]
    assert parse_facts("- I'm sorry, I can't do that.") == []


def test_bm25_prefers_the_matching_demo():
    bm = BM25(["the cat sat on the mat", "astronauts selected by NASA in 1963", "a producer and engineer"])
    scores = bm.scores("He was selected by NASA as an astronaut")
    assert max(range(3), key=lambda i: scores[i]) == 1


def test_build_extractor_auto_uses_llm_for_capable_models():
    gen = ScriptedGenerator(lambda p: "- x y")
    assert build_extractor(Config(extractor="auto"), gen).name == "llm"
    gen.model = "embedded gemma-3-270m"
    assert build_extractor(Config(extractor="auto"), gen).name == "rules"


# ------------------------------------------------------------------ judge

EV = [Evidence(id="e1", source="wikipedia", lang="en", title="Marie Curie",
               text="Maria Skłodowska-Curie was born in Warsaw on 7 November 1867."),
      Evidence(id="e2", source="wikipedia", lang="en", title="Marie Curie", text="She died in 1934.")]


def test_judge_prompt_is_factscores():
    p = build_prompt("She was born in Warsaw.", "Marie Curie", EV)
    assert p.startswith("Answer the question about Marie Curie based on the given context.\n")
    assert "Title: Marie Curie\nText: Maria Skłodowska-Curie was born" in p
    assert p.endswith("Input: She was born in Warsaw. True or False?\nOutput:")


@pytest.mark.parametrize("answer,expected", [
    ("True", True), (" true.", True), ("False", False), ("It is not true.", False),
    ("True or False? False", True), ("Verdadero", True), ("Faux", False), ("ไม่ทราบ", None),
    ("", None), ("Answer: FALSE, because", False),
])
def test_parse_answer(answer, expected):
    assert parse_answer(answer) is expected


def test_judge_confidence_from_logprobs_and_temperature_zero():
    gen = ScriptedGenerator(lambda p: "True\nInput: more", logprob=-0.105)
    v = LLMVerifier(gen).verify("She was born in Warsaw.", "Marie Curie", "en", EV)
    assert v.label == "S" and v.confidence == pytest.approx(0.9003, abs=1e-3)
    assert v.evidence == ["e1", "e2"] and v.verifier.startswith("llm/")
    assert gen.params[0].temperature == 0.0 and gen.params[0].greedy
    v = LLMVerifier(ScriptedGenerator(lambda p: "Hmm, maybe")).verify("x y", "Marie Curie", "en", EV)
    assert v.label == "NS" and v.confidence == 0.5


def test_judge_marks_facts_about_someone_else_irrelevant():
    gen = ScriptedGenerator(lambda p: "True")
    v = LLMVerifier(gen).verify("Pierre Curie was a French physicist.", "Marie Skłodowska", "en", EV)
    assert v.label == "IR" and not gen.prompts
    # a fact naming the entity, or a pronoun, is never IR
    assert LLMVerifier(gen).verify("Pierre Curie married Marie.", "Marie Curie", "en", EV).label == "S"
    assert LLMVerifier(gen).verify("Pierre Curie married her.", "Marie Skłodowska", "en", EV).label == "S"


def test_build_verifier_choices():
    with pytest.raises(MfactError):
        build_verifier(Config(verifier="llm"), None, None)
    with pytest.raises(MfactError):
        build_verifier(Config(verifier="oracle"), None, None)
    assert build_verifier(Config(verifier="llm"), None, ScriptedGenerator(lambda p: "True")).name == "llm"


def test_a_looping_model_is_cut_at_the_first_repeated_line():
    gen = ScriptedGenerator(lambda p: "- He is an actor.\n- He is American.\n- He is an actor.\n" + "- x y z\n" * 50)
    x = LLMExtractor(gen)
    t = "Lanny Flaherty is an American actor."
    facts = x.extract(split_sentences(t, "en")[0], t, "en", "Lanny Flaherty")
    assert [f.text for f in facts] == ["He is an actor.", "He is American."]
