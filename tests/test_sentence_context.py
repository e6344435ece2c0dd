"""The detector reads a fact in its sentence: the contexts the run gives and rejudge rebuilds, the
verdict cache keyed on them, the mapping of sentence word scores into a fact's own characters, and
the whole path through `mfact run --texts` with the committed weights."""
from __future__ import annotations

import json
import re

import pytest

from mfact.core.checking.verify.sentence_scores import fact_words
from mfact.core.pipeline.cache import VerdictCache
from mfact.core.pipeline.check import CachedVerifier
from mfact.core.pipeline.text import TextStream, fact_contexts, sentence_context
from mfact.core.protocols import FactContext, Sentence, VerifierBase
from mfact.core.session import Evidence, Verdict

SENT = "Marie Curie was born in Paris and studied physics at the Sorbonne."


def test_fact_words_in_the_facts_own_characters():
    p = {"Paris": 0.9, "studied": 0.4, "physics": 0.5}
    words = [(m.start(), m.end(), p.get(m.group(), 0.1)) for m in re.finditer(r"\S+", SENT)]
    direct = FactContext(SENT, 0, 29)                       # "Marie Curie was born in Paris"
    got = fact_words(SENT[0:29], direct, words)
    assert [SENT[0:29][a:b] for a, b, _p in got] == ["Marie", "Curie", "was", "born", "in", "Paris"]
    assert got[-1] == (24, 29, 0.9)
    assert fact_words(SENT[0:26], FactContext(SENT, 0, 26), words)[-1] == (24, 26, 0.9)   # clipped to the fact
    reworded = FactContext(SENT, 34, 65)                     # "studied physics at the Sorbonne"
    got = fact_words("Marie Curie studied physics", reworded, words)
    assert got == [(12, 19, 0.4), (20, 27, 0.5)]             # found in the reworded fact, in order
    assert fact_words("something else", reworded, words) == []
    assert not FactContext(SENT, 5, 5).valid() and not FactContext(SENT, 0, len(SENT) + 1).valid()


def test_fact_words_finds_words_the_extractor_wrote_without_quotes_or_brackets():
    sent = "Он написал романы «Война и мир» и «Братья Карамазовы» (1880)."
    words = [(m.start(), m.end(), 0.8 if "Карамазов" in m.group() or "Братья" in m.group() else 0.1)
             for m in re.finditer(r"\S+", sent)]
    fact = "Он написал романы Война и мир и Братья Карамазовы 1880"      # as the extractor renders it
    got = fact_words(fact, FactContext(sent, 0, len(sent)), words)
    assert [fact[a:b] for a, b, _p in got] == fact.split()
    assert [fact[a:b] for a, b, p in got if p > 0.5] == ["Братья", "Карамазовы"]


def test_rejudge_rebuilds_the_contexts_the_streamed_run_gave():
    text = ("Ada Lovelace was born in 1815 in London. She worked with Charles Babbage on the Analytical "
            "Engine! Her notes, published in 1843, hold the first program? She died in 1852.")
    stream = TextStream("en")
    sents: list[Sentence] = []
    for i in range(0, len(text), 7):                         # streamed in small chunks, as a model writes
        stream.feed(text[i:i + 7])
        sents += stream.commit(final=False).sentences
    sents += stream.commit(final=True, whole=True).sentences
    assert len(sents) == 4
    spans = [(s.start, s.start + 12) for s in sents] + [(sents[1].start + 4, sents[1].end - 1)]
    run = [sentence_context(s, sp) for s, sp in zip(sents + [sents[1]], spans)]
    assert fact_contexts(stream.clean, "en", spans) == run
    assert run[4] == FactContext(sents[1].text, 4, len(sents[1].text) - 1)
    assert sentence_context(sents[0], (sents[1].start, sents[1].end)) is None    # not in that sentence


class Recorder(VerifierBase):
    name = "rec"
    version = "1"

    def __init__(self, uses_context: bool):
        self.reads = uses_context
        self.calls: list = []

    @property
    def uses_context(self) -> bool:
        return self.reads

    def verify(self, fact, entity, lang, passages):
        self.calls.append((fact, None))
        return Verdict("S", 0.9, "rec/1", [], "")

    def verify_batch(self, items, contexts=None):
        self.calls += [(it[0], c) for it, c in zip(items, contexts or [None] * len(items))]
        return [Verdict("S", 0.9, "rec/1", [], "") for _ in items]


@pytest.mark.parametrize("reads", [True, False])
def test_the_cache_keys_on_the_sentence_only_for_a_verifier_that_reads_it(tmp_path, reads):
    rec = Recorder(reads)
    cv = CachedVerifier(rec, VerdictCache(tmp_path / "v.sqlite3"))
    ev = [Evidence(id="e1", source="given", lang="en", title="x", text="Marie Curie was born in Warsaw.")]
    a, b = FactContext(SENT, 0, 29), FactContext("Marie Curie was born in Paris.", 0, 29)
    assert cv.verify("Marie Curie was born in Paris", "Marie Curie", "en", ev, a)[1] is False
    assert cv.verify("Marie Curie was born in Paris", "Marie Curie", "en", ev, a)[1] is True
    # the same words in another sentence: a new verdict for a verifier that reads sentences
    assert cv.verify("Marie Curie was born in Paris", "Marie Curie", "en", ev, b)[1] is (not reads)
    assert [c for _f, c in rec.calls] == ([a, b] if reads else [None])


class SentenceDetector:
    """A stand-in for the trained model (its scoring only): p = 0.95 for "Paris", else 0.05; it
    records what it was asked to score."""
    threshold = 0.65

    def __init__(self):
        self.asked: list[str] = []

    def score(self, items):
        out = []
        for sent, _windows in items:
            self.asked.append(sent)
            words, pos = [], 0
            for w in sent.split(" "):
                words.append((pos, pos + len(w), 0.95 if w.startswith("Paris") else 0.05))
                pos += len(w) + 1
            out.append(words)
        return out


def test_the_detector_scores_the_sentence_once_for_all_its_facts():
    from mfact.core.checking.verify.detector import DetectorVerifier
    v = DetectorVerifier()
    det = v._detector = SentenceDetector()
    ev = [Evidence(id="e1", source="given", lang="en", title="Marie Curie",
                   text="Marie Curie was born in Warsaw. She studied physics at the Sorbonne in Paris.")]
    facts = [("Marie Curie was born in Paris", FactContext(SENT, 0, 29)),
             ("Marie Curie studied physics", FactContext(SENT, 34, 49))]
    out = v.verify_batch([(f, "Marie Curie", "en", ev) for f, _c in facts], contexts=[c for _f, c in facts])
    assert det.asked == [SENT]                                 # one pass over the sentence, none per fact
    assert out[0].label == "NS" and [facts[0][0][a:b] for a, b in out[0].marks] == ["Paris"]
    assert "Paris" not in facts[1][0] and not (out[1].label == "NS" and out[1].marks)
    v.verify_batch([(facts[0][0], "Marie Curie", "en", ev)], contexts=[facts[0][1]])
    assert det.asked == [SENT]                                 # kept: the same sentence and passages
    v.verify_batch([(facts[0][0], "Marie Curie", "en", ev)])   # no context (verify-pairs): the fact alone
    assert det.asked == [SENT, facts[0][0]]


def test_run_texts_with_the_detector_marks_words_inside_the_facts(tmp_path, capsys):
    """The real path: `mfact run --texts --verifier detector` with the committed weights on a French
    text against the bundled French lead; every mark lies inside its fact's span."""
    pytest.importorskip("torch")
    from mfact.core.cli import main
    from mfact.core.training.train_cross import bundled_leads
    lead = bundled_leads()["fr"]["Marie Curie"]
    text = ("Marie Curie est née le 22 mars 1867 à Paris et a étudié à la Sorbonne. Elle a reçu le prix "
            "Nobel de physique en 1903.")
    texts = tmp_path / "t.jsonl"
    texts.write_text(json.dumps({"id": "c1", "lang": "fr", "entity": "Marie Curie", "text": text,
                                 "evidence": [lead]}, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", "--texts", str(texts), "--offline", "--verifier", "detector", "--no-progress",
                 "--out", str(out)]) == 0
    files = [p for p in out.glob("*.json") if p.name != "summary.json"]
    s = json.loads(files[0].read_text(encoding="utf-8"))
    facts = s["facts"]
    assert facts and all(f["auto"]["verifier"].startswith("detector/") for f in facts)
    # the sentence-reading version ("...s2"), whose verdicts carry the fact features of a basis ("b<digest>")
    assert all(re.search(r"s2b[0-9a-f]{8}$", f["auto"]["verifier"]) for f in facts)
    assert all(len(f["auto"]["features"]) == 50 for f in facts if f["auto"]["label"] != "IR")
    born = [f for f in facts if "1867" in f["text"]]
    assert born and born[0]["auto"]["label"] == "NS"          # the slot checks still decide the date
    for f in facts:
        for a, b in f["auto"].get("marks") or []:
            assert 0 <= a < b <= len(f["text"])


def test_the_default_reads_facts_in_their_sentence_and_standalone_claims_as_their_own():
    from mfact.core.checking.verify.offline import _UNSET, OfflineVerifier
    from mfact.core.checking.verify.slots import SlotsVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Marie Curie", text="Marie Curie was born in Warsaw.")]
    fact = "Marie Curie was born in Paris"
    v = OfflineVerifier()
    v.combiner = None                          # without the claim combiner: the feature model alone
    alone = v.verify_batch([(fact, "Marie Curie", "en", ev)])            # verify-pairs: no sentence
    assert v._detector is _UNSET and "p(supported)" in alone[0].reason   # the weights are not even loaded
    det = v._detector = SentenceDetector()
    v.verify_batch([(fact, "Marie Curie", "en", ev)])
    assert det.asked == []
    v.verify_batch([(fact, "Marie Curie", "en", ev)], contexts=[FactContext(SENT, 0, 29)])
    assert det.asked == [SENT] and v.uses_context
    with_comb = OfflineVerifier()
    if with_comb.combiner is not None:         # the shipped combiner: the claim is read as a sentence
        det2 = with_comb._detector = SentenceDetector()
        with_comb.verify_batch([(fact + " in 1867", "Marie Curie", "en", ev)])
        assert det2.asked == [fact + " in 1867"]
    assert not SlotsVerifier().uses_context and SlotsVerifier().detector() is None


def test_the_pipeline_loads_the_detector_before_the_first_fact(mfact_home):
    """Built for a check, the default verifier has its weights loaded and says so on the way: the
    first fact does not wait ~4 s for torch and the int8 model."""
    pytest.importorskip("torch")
    from mfact.core.checking.verify.offline import _UNSET
    from mfact.core.config import load_config
    from mfact.core.pipeline import build_pipeline
    heard = []
    p = build_pipeline(load_config({"offline": True}), heard.append, need_generator=False)
    assert p.verifier.name == "offline" and p.verifier._detector is not _UNSET and p.verifier._detector is not None
    assert any(h.stage == "verifier" and "loading the verifier offline" in h.message for h in heard)


TESLA_SR = ("Никола Тесла је био српски и амерички проналазач, инжењер електротехнике и машинства и "
            "футуриста. Рођен је 10. јула 1856. у Смиљану, а умро 7. јануара 1943. у Њујорку.")


def test_serbian_latin_text_reads_cyrillic_evidence_in_latin_letters():
    """Serbian is written in both scripts (Wikipedia mostly Cyrillic): a sentence in Latin letters
    is scored against its evidence spelt in Latin too (mFAVA silver sr: 43.3 -> 53.2 and 51.0 -> 57.7
    on the two samples); a Cyrillic sentence, or another language, gets the evidence as it is.
    The real detector reads the transliterated lead as supporting every word."""
    pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import load_detector
    from mfact.core.checking.verify.sentence_scores import SentenceScorer
    from mfact.core.checking.text.textutil import has_cyrillic, serbian_latin
    from mfact.core.checking.verify.offline import OfflineVerifier
    assert serbian_latin("Љубљана, ЏЕМ и Њујорк; ы") == "Ljubljana, DžEM i Njujork; ы"
    det = load_detector()
    seen: list = []

    class Spy:                     # the real detector, its inputs recorded
        threshold = det.threshold

        def score_tokens(self, pairs, batch=None, project=None):
            seen.extend(pairs)
            return det.score_tokens(pairs, batch, project)

    latin = "Nikola Tesla je bio srpski i američki pronalazač, inženjer elektrotehnike i mašinstva."
    cyrillic = "Никола Тесла је био српски и амерички проналазач."
    emb = OfflineVerifier().embedder
    read = SentenceScorer(lambda w, c, a, l: w, 2).read(Spy(), emb, "sr", [(latin, [TESLA_SR]), (cyrillic, [TESLA_SR])])
    assert seen[0][0] == latin and seen[0][1] and not any(has_cyrillic(w) for w in seen[0][1])
    assert seen[1][0] == cyrillic and all(has_cyrillic(w) for w in seen[1][1])
    assert max(p for _a, _b, p in read[0].words) < det.threshold
    seen.clear()
    SentenceScorer(lambda w, c, a, l: w, 2).read(Spy(), emb, "ru", [(latin, [TESLA_SR])])
    assert all(has_cyrillic(w) for w in seen[0][1])


class FlagsEverything:
    """A stand-in detector that reads every word as doubtful (0.9), as the real one reads many a
    supported paraphrase."""
    threshold = 0.5

    def score(self, items):
        out = []
        for sent, _windows in items:
            words, pos = [], 0
            for w in sent.split(" "):
                words.append((pos, pos + len(w), 0.9))
                pos += len(w) + 1
            out.append(words)
        return out


def test_a_fact_with_a_number_no_passage_has_is_no_paraphrase_for_the_gate():
    """The paraphrase gate clears a fact that reads close to its best window when no word stands
    out; a number that the evidence does not have at all gets its score back, and only it is marked."""
    from mfact.core.checking.verify.offline import OfflineVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Marie Curie",
                   text="Marie Curie worked at the University of Paris and taught physics to many students there.")]
    close = "Marie Curie worked at the University of Paris and taught physics to many students there."
    new_number = "Marie Curie worked at the University of Paris and taught physics to 300 students there."
    v = OfflineVerifier()
    v._detector = FlagsEverything()
    out = v.verify_batch([(s, "Marie Curie", "en", ev) for s in (close, new_number)],
                         contexts=[FactContext(s, 0, len(s)) for s in (close, new_number)])
    assert out[0].label == "S", out[0].reason
    assert out[1].label == "NS" and [new_number[a:b] for a, b in out[1].marks] == ["300"], out[1].reason


CURIE_EN = ("Marie Curie was a Polish and naturalised-French physicist and chemist. "
            "She was born in Warsaw in 1867, when the city was part of the Russian Empire. "
            "She studied in secret at the Flying University in Warsaw and in 1891 moved to Paris. "
            "At the Sorbonne she earned degrees in physics and in mathematics. "
            "In 1895 she married the physicist Pierre Curie, with whom she shared a laboratory. "
            "Together with her husband she discovered two chemical elements, polonium and radium. "
            "She received the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911. "
            "She died in 1934 at a sanatorium in Passy, Savoy, of aplastic anaemia caused by radiation.")


def test_a_paraphrase_stands_apart_from_the_rest_of_its_evidence_in_any_language():
    """How far a sentence's best window stands above the evidence's median window (the real E5):
    a Malay or Latin rewording of one sentence of an English article stands apart by at least
    STANDS_APART; a sentence about the same person that the article does not support does not, though
    the Latin one reads at a cosine above PARAPHRASE_COS (0.88) against its best window. Evidence with
    fewer than APART_MIN_WINDOWS windows gives 0."""
    from mfact.core.checking.verify.sentence_scores import APART_MIN_WINDOWS, SentenceScorer
    from mfact.core.checking.verify.offline import STANDS_APART, OfflineVerifier
    from mfact.core.checking.verify.windows import lead_first
    emb = OfflineVerifier().embedder
    scorer = SentenceScorer(lambda w, c, a, l: w, 2)
    assert len(lead_first([CURIE_EN], "en", 256)) >= APART_MIN_WINDOWS

    def apart(s: str, evidence: list[str]) -> float:
        return scorer.apart(emb, "en", evidence, emb.embed_queries([s])[0])

    rewordings = ["Selepas belajar secara rahsia di Universiti Terbang di Warsaw, beliau berpindah ke Paris "
                  "pada tahun 1891.",
                  "Bersama suaminya, beliau menemui dua unsur kimia baharu iaitu polonium dan radium.",
                  "Postquam in Universitate Volanti Varsoviae clam studuit, anno 1891 Lutetiam Parisiorum migravit."]
    unsupported = ["Marie Curie juga seorang pemain piano yang terkenal dan sering membuat konsert di Paris dan "
                   "Warsaw.",
                   "Semasa Perang Dunia Pertama, beliau menubuhkan unit radiografi bergerak untuk merawat askar "
                   "yang cedera.",
                   "Marie Curie etiam clarissima pianista fuit quae saepe Lutetiae et Varsoviae concentus dabat."]
    assert all(apart(s, [CURIE_EN]) >= STANDS_APART for s in rewordings)
    assert all(apart(s, [CURIE_EN]) < STANDS_APART for s in unsupported)
    assert apart(rewordings[0], [CURIE_EN.split(". ")[2]]) == 0.0         # one window: nothing to stand apart from


def test_the_gate_opens_for_a_rewording_whose_best_window_stands_apart():
    """Through the default verifier with a detector that flags every word (as the real one flags many
    a paraphrase, most of all across languages): a Basque rewording of one sentence of the English
    evidence is S although its cosine with its windows is under PARAPHRASE_COS (they are picked by
    shared words, and it shares none); a Basque sentence the evidence does not support stays NS."""
    from mfact.core.checking.verify.sentence_scores import SentenceScorer
    from mfact.core.checking.verify.offline import PARAPHRASE_COS, STANDS_APART, OfflineVerifier
    ev = [Evidence(id="e1", source="given", lang="en", title="Marie Curie", text=CURIE_EN)]
    para = "Marie Curiek Varsoviako Unibertsitate Hegalarian ezkutuan ikasi zuen, eta 1891n Parisera joan zen."
    made_up = "Marie Curiek Lehen Mundu Gerran erradiografia unitate mugikorrak antolatu zituen zaurituentzat."
    v = OfflineVerifier()
    v._detector = FlagsEverything()
    seen: list = []
    scorer = SentenceScorer(lambda w, c, a, l: seen.append((c, a())) or w, 2)
    scorer.read(FlagsEverything(), v.embedder, "eu", [(para, [CURIE_EN]), (made_up, [CURIE_EN])])
    assert seen[0][0] < PARAPHRASE_COS and seen[0][1] >= STANDS_APART
    assert seen[1][0] < PARAPHRASE_COS and seen[1][1] < STANDS_APART
    out = v.verify_batch([(s, "Marie Curie", "eu", ev) for s in (para, made_up)],
                         contexts=[FactContext(s, 0, len(s)) for s in (para, made_up)])
    assert out[0].label == "S", out[0].reason
    assert out[1].label == "NS", out[1].reason
