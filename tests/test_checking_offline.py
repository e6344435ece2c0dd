"""The trained offline verifier: features, committed weights, verdicts, and `mfact verify-pairs`."""
from __future__ import annotations

import json

import numpy as np
import pytest

from mfact.core.checking import build_verifier
from mfact.core.checking.text.textutil import normalise_digits, numbers
from mfact.core.checking.verify.features import (SCALAR_NAMES, FeatureModel, PairText,
                                                is_about_someone_else, load_weights, scalar_features)
from mfact.core.cli import main as cli_main
from mfact.core.config import Config
from mfact.core.fake import FakeEmbedder
from mfact.core.session import Evidence


def feats(fact: str, passages: list[str], sims=None) -> dict:
    sims = np.array(sims if sims is not None else [0.8] * len(passages), np.float32)
    x = scalar_features(PairText.of(fact), [PairText.of(p) for p in passages], sims)
    return dict(zip(SCALAR_NAMES, x))


def test_digits_of_every_script_are_normalised():
    assert normalise_digits("١٨٦٧ ১৮৬৭ १८६७ ۱۸۶۷") == "1867 1867 1867 1867"
    assert numbers("born in ১৮৬৭, died 1934") == {"1867", "1934"}
    f = feats("ولدت عام ١٨٦٧", ["Born in 1867 in Warsaw."])
    assert f["has_numbers"] == 1 and f["numbers_found"] == 1 and f["numbers_missing"] == 0
    f = feats("ولدت عام ١٨٦٨", ["Born in 1867 in Warsaw."])
    assert f["numbers_missing"] == 1


def test_overlap_proper_nouns_and_negation_features():
    ev = ["Marie Curie was born in Warsaw and studied in Paris."]
    good = feats("Marie Curie studied in Paris.", ev)
    bad = feats("Marie Curie studied in Vienna under Freud.", ev)
    assert good["lex_union"] == 1.0 and bad["lex_union"] < 0.7
    assert good["propn_missing"] == 0 and bad["propn_missing"] > 0
    assert good["char3_best"] > bad["char3_best"]
    assert feats("Marie Curie did not study in Paris.", ev)["neg_mismatch"] == 1
    assert good["neg_mismatch"] == 0
    assert feats("x", [])["dense_max"] == 0


def test_committed_weights_are_small_and_beat_the_majority_baseline():
    w = load_weights()
    assert len(w["lite"]["w"]) == len(SCALAR_NAMES)
    assert len(w["full"]["w"]) == len(SCALAR_NAMES) + 2 * w["dim"]
    table = [r for r in w["evaluation"]["per_language"] if r["lang"] != "en-vitaminc"]
    assert len(table) >= 8
    for row in table:
        assert row["accuracy"] > row["majority"], row
        assert 0 <= row["ece"] < 0.15, row


EV = [Evidence(id="w1", source="wikipedia", lang="en", title="Marie Curie",
               text="Maria Salomea Skłodowska-Curie was a Polish and naturalised-French physicist and chemist. "
                    "She was born in Warsaw on 7 November 1867."),
      Evidence(id="w2", source="wikipedia", lang="en", title="Marie Curie",
               text="She won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.")]


def test_verdicts_rank_supported_above_contradicted_and_unrelated():
    v = FeatureModel()
    assert v.embedder.name == load_weights()["embedder"]
    facts = ["Marie Curie was born in Warsaw in 1867.", "Marie Curie was born in Lisbon in 1901.",
             "Marie Curie played football for Manchester United."]
    p = v.probabilities(facts, [[e.text for e in EV]] * 3)
    assert p[0] > p[1] and p[0] > p[2]
    verdict = v.verify("She won the Nobel Prize in Physics in 1903.", "Marie Curie", "en", EV)
    assert verdict.label == "S" and verdict.evidence[0] == "w2"
    assert verdict.verifier == f"features/{v.version}" and 0.5 <= verdict.confidence <= 1
    assert v.verify(facts[2], "Marie Curie", "en", EV).label == "NS"
    # the batch path gives the same verdicts as one at a time
    batch = v.verify_batch([(f, "Marie Curie", "en", EV) for f in facts])
    assert [b.label for b in batch] == [v.verify(f, "Marie Curie", "en", EV).label for f in facts]
    assert [b.confidence for b in batch] == pytest.approx([v.verify(f, "Marie Curie", "en", EV).confidence
                                                           for f in facts], abs=1e-3)


def test_no_evidence_ir_and_other_embedders():
    v = build_verifier(Config(), FakeEmbedder())
    assert v.verify("She was born in Warsaw.", "Marie Curie", "en", []).label == "NS"
    out = v.verify("Pierre Curie was a French physicist.", "Marie Skłodowska", "en", EV)
    assert out.label == "IR"
    # another embedder: the lite model (scalar features) still gives a verdict
    out = v.verify("She was born in Warsaw in 1867.", "Marie Curie", "en", EV)
    assert out.label in ("S", "NS") and out.evidence


@pytest.mark.parametrize("fact,entity,expected", [
    ("Pierre Curie was a French physicist.", "Marie Curie", False),   # shares a name part
    ("Pierre Curie was a French physicist.", "Albert Einstein", True),
    ("He won the Nobel Prize.", "Albert Einstein", False),
    ("The Moon is the Sun's Dream is a film.", "Lanny Flaherty", True),
    ("Einstein married his cousin Elsa.", "Albert Einstein", False),
    # rules r22: a name in another script than the entity's cannot be compared with it ("Мария Кюри" is
    # "Marie Curie"): checked, not set aside
    ("Пьер Кюри был физиком.", "Albert Einstein", False),
    ("Пьер Кюри был физиком.", "Альберт Эйнштейн", True),
    ("بيير كوري فيزيائي", "Albert Einstein", False),                  # caseless script: never IR
    ("was born in 1867.", "Marie Curie", False),
])
def test_ir_rule_is_conservative(fact, entity, expected):
    assert is_about_someone_else(fact, entity) is expected


@pytest.mark.parametrize("fact,context,expected", [
    # leading function words are skipped: "Les" is not the proper noun, "Véhicules" would be
    ("Les Véhicules Renault furent produits à Billancourt.", "", True),
    # a capitalised first word that the evidence writes in lower case is a common word
    ("Les véhicules électriques ont été produits en 1990.", "", False),
    ("Électriques ont été les premiers véhicules.", "les véhicules électriques de la marque", False),
    # a first word alone is a name only when something says so: not "Électriques" here (the
    # evidence never writes it), nor the sentence-initial common words of Latin or Malay answers
    ("Électriques ont été les premiers véhicules.", "la marque Renault", False),
    ("Humanum capillum circiter millionem atomorum carbonii latus est.", "de atomis", False),
    ("Ramai yang berpendapat bahawa not kertas lebih berharga.", "not polimer", False),
    # ... but it is when a name follows, or the fact writes it capitalised inside a sentence
    ("Einstein won the Nobel Prize in 1921.", "", False),
    ("Albert Einstein won the Nobel Prize.", "", True),
    ("Albert Einstein won the Nobel Prize.", "She worked in Paris.", True),
    # a name the evidence talks about is part of the story: checked, not IR (inflected forms too)
    ("Albert Einstein won the Nobel Prize.", "She corresponded with Albert Einstein.", False),
    ("A Hatikvát gyakran előadják ünnepeken.", "A Hatikva Izrael nemzeti himnusza.", False),
    ("A Hatikvát gyakran előadják ünnepeken.", "Budapest Magyarország fővárosa.", True),
])
def test_ir_rule_skips_function_words_and_reads_the_evidence(fact, context, expected):
    assert is_about_someone_else(fact, "Marie Curie", context) is expected


@pytest.mark.parametrize("fact,lang,expected", [
    # German capitalises nouns: after an article the capital is no name (before: IR, and the fact
    # about OpenMail was set aside unchecked)
    ("eine Groupware-Lösung von Hewlett-Packard entwickelt wurde", "de", False),
    ("Der Konzern stellte den Vertrieb 2001 ein.", "de", False),
    # the same words in a language whose capitals mark names stay IR; a German name without article too
    ("eine Groupware-Lösung von Hewlett-Packard entwickelt wurde", "", True),
    ("Hewlett-Packard Enterprise stellte den Vertrieb 2001 ein.", "de", True),
])
def test_ir_rule_reads_german_nouns_after_an_article(fact, lang, expected):
    context = "OpenMail ist eine Groupware für E-Mails und Kalendarien."
    assert is_about_someone_else(fact, "OpenMail", context, lang) is expected


@pytest.mark.parametrize("fact,lang,expected", [
    # rules r13 read the connective as a name ("Ancak En ..."), so a fact with a swapped actor
    # ("Freddie Mercury'yi") was IR and never checked
    ("Ancak En İyi Erkek Oyuncu dalındaki Altın Küre Ödülü'nü Rocketman filmiyle kazandı.", "tr", False),
    ("However Golden Globe voters gave the award to Rocketman.", "en", False),
    ("Однако Золотой глобус получил фильм Rocketman.", "ru", False),
    # a name after the connective is still someone else's
    ("Ancak Hugh Jackman En İyi Erkek Oyuncu ödülünü kazandı.", "tr", True),
])
def test_ir_rule_skips_a_connective_opening_the_fact(fact, lang, expected):
    context = ("Taron Egerton Galli bir aktördür. Rocketman filminde Elton John'u canlandırdı; bu rol ona En İyi "
               "Erkek Oyuncu dalında Altın Küre Ödülü'nü kazandırdı. Golden Globe, Золотой глобус.")
    assert is_about_someone_else(fact, "Taron Egerton", context, lang) is expected


@pytest.mark.parametrize("fact,expected", [
    # rules r21: Turkish drops the subject; a name in the locative, ablative, dative or accusative is
    # no subject, so the fact is the entity's ("he teaches at Harvard"): before, IR and never checked
    ("Harvard Üniversitesi'nde ders veriyor.", False),
    ("Ankara'da doğdu.", False),
    ("Harvard Üniversitesi'ni bitirdi.", False),
    ("Ankara'dan İstanbul'a taşındı.", False),
    # a name in the nominative or the genitive is someone else, as before
    ("Harvard Üniversitesi ona ödül verdi.", True),
    ("Ahmet Bey'in babası öğretmendi.", True),
])
def test_ir_rule_reads_turkish_case_endings(fact, expected):
    context = "Orhan Pamuk Türk yazar. 2007'den beri New York'taki Columbia Üniversitesi'nde ders veriyor."
    assert is_about_someone_else(fact, "Orhan Pamuk", context, "tr") is expected


@pytest.mark.parametrize("fact,lang", [
    # rules v19: a subject pronoun of the languages added for mFAVA is the entity, not someone else
    # (before, "Ő" and "Hura" opened the fact like a name, and the fact was IR, never checked)
    ("Ő Párizsban halt meg.", "hu"),
    ("Hura Parisen hil zen.", "eu"),
])
def test_ir_rule_reads_the_subject_pronouns_of_the_mfava_languages(fact, lang):
    assert is_about_someone_else(fact, "Marie Curie", "Marie Curie Varsovian jaio zen.", lang) is False
    assert is_about_someone_else("Albert Einstein Párizsban halt meg.", "Marie Curie", "", lang) is True


def test_ir_rule_cannot_compare_names_across_scripts():
    # rules r22: "Мария Кюри" is not "Marie Curie" letter by letter, and the English evidence does not
    # write it: before, the fact was someone else's (IR)
    context = "Marie Curie was a Polish and naturalised-French physicist and chemist."
    assert is_about_someone_else("Мария Кюри родилась в Варшаве.", "Marie Curie", context, "ru") is False
    assert is_about_someone_else("Η Μαρί Κιουρί γεννήθηκε το 1867.", "Marie Curie", context, "el") is False
    # in one script, a name the evidence does not know is still someone else's
    assert is_about_someone_else("Альберт Эйнштейн родился в Ульме.", "Мария Кюри", "Мария Кюри родилась.", "ru")


def test_verify_pairs_cli(tmp_path, capsys):
    f = tmp_path / "pairs.jsonl"
    rows = [{"id": "a", "lang": "en", "claim": "She won the Nobel Prize in Physics in 1903.",
             "evidence": [e.text for e in EV], "label": "S"},
            {"id": 2, "lang": "en", "claim": "Marie Curie played football for Manchester United.",
             "evidence": EV[0].text, "label": "NS"}]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--json"]) == 0
    out = capsys.readouterr()
    lines = [json.loads(x) for x in out.out.splitlines()]
    assert [x["id"] for x in lines] == ["a", 2]
    assert [x["label"] for x in lines] == ["S", "NS"]
    assert all(0.5 <= x["confidence"] <= 1 for x in lines)
    assert "accuracy en: 1.000 (2/2)" in out.err


@pytest.mark.parametrize("content,message", [
    ('{"id": 1, "lang": "en", "claim": "x", "evidence": "y"}\n{"id": 2, "claim": ""}', "pairs.jsonl:2: claim:"),
    ('{"id": 1, "lang": "en", "claim": "x", "evidence": 5}', "pairs.jsonl:1: evidence:"),
    ("not json", "pairs.jsonl:1: not valid JSON"),
    ('{"id": 1, "claim": "x", "evidence": "y"}\n{"id": 1, "claim": "x", "evidence": "y"}', "duplicate id"),
    ('{"id": 1, "claim": "x", "evidence": "y", "label": "maybe"}', "unknown gold label"),
    ("", "no pairs (the input is empty)"),
    ("\n\n", "no pairs (the input is empty)"),
    ('{"id": 1, "claim": "x", "evidence": "y", "score": NaN}', "pairs.jsonl:1: score: NaN is not a number"),
    ('{"id": 1, "claim": "x", "evidence": "\\udc00"}', "pairs.jsonl:1: evidence: a lone surrogate"),
    ('{"id": 1, "lang": "zz", "claim": "x", "evidence": "y"}', "pairs.jsonl:1: lang: unknown language 'zz'"),
])
def test_verify_pairs_bad_input_one_clear_error(tmp_path, capsys, content, message):
    f = tmp_path / "pairs.jsonl"
    f.write_text(content, encoding="utf-8")
    assert cli_main(["verify-pairs", str(f)]) == 1
    out = capsys.readouterr()
    assert out.out == "" and message in out.err and out.err.count("\n") == 1
    assert cli_main(["verify-pairs", str(tmp_path / "nope.jsonl")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_verify_pairs_unknown_language_one_line_per_bad_row_others_run(tmp_path, capsys):
    f = tmp_path / "pairs.jsonl"
    f.write_text('{"id": "a", "lang": "zz", "claim": "x", "evidence": "y"}\n'
                 '{"id": "b", "lang": "en", "claim": "Paris is in France.", "evidence": "Paris is in France."}\n'
                 '{"id": "c", "lang": "xx-evil", "claim": "x", "evidence": "y"}\n', encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--json"]) == 1
    out = capsys.readouterr()
    assert [json.loads(x)["id"] for x in out.out.splitlines()] == ["b"]
    err = out.err.splitlines()
    assert len(err) == 2 and "pairs.jsonl:1: lang: unknown language 'zz'" in err[0] and "pairs.jsonl:3:" in err[1]


def test_training_script_end_to_end_on_a_small_sample(shared_dir, tmp_path, monkeypatch, capsys):
    if not (shared_dir / "data/xnli-dev/dev-en.tsv").exists():
        pytest.skip("XNLI dev data not available")
    from mfact.core.training import train_verifier

    monkeypatch.setattr(train_verifier, "default_embedder", lambda name: FakeEmbedder(64))
    out = tmp_path / "w.json"
    rc = train_verifier.main(["--data", str(shared_dir / "data"), "--langs", "en,de,sw", "--train-langs", "en,de",
                              "--items-per-lang", "40", "--vitaminc", "60", "--cache", str(tmp_path / "v.npz"),
                              "--out", str(out)])
    assert rc == 0
    w = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["lang"]: r for r in w["evaluation"]["per_language"]}
    assert set(rows) == {"en", "de", "sw", "en-vitaminc"}
    assert rows["sw"]["seen_in_training"] is False and rows["en"]["seen_in_training"] is True
    assert rows["en"]["n"] == 498 and rows["en"]["majority"] == pytest.approx(2 / 3)
    assert w["embedder"] == "fake-hash" and len(w["full"]["w"]) == len(SCALAR_NAMES) + 128
    assert "| sw | yes | 498 |" in capsys.readouterr().out
    # the weights drive a verifier; with the embedder they were trained with, the full model is used
    v = FeatureModel(FakeEmbedder(64), weights=w)
    assert v._model()[1] is True
    assert v.verify("She won the Nobel Prize in Physics in 1903.", "Marie Curie", "en", EV).label in ("S", "NS")
    assert (tmp_path / "v.npz").exists()


def test_serbian_cyrillic_and_latin_words_meet():
    """Serbian is written in both alphabets (Wikipedia mostly in Cyrillic, people often in Latin):
    the lexical features and the evidence windows compare the words in the Latin spelling; other
    Cyrillic languages keep their letters, and their function words stay function words."""
    from mfact.core.checking.text.textutil import content_tokens, tokens
    from mfact.core.checking.verify.windows import terms, top_windows

    assert tokens("Државна химна Израела је Хатиква") == tokens("Državna himna Izraela je Hatikva")
    assert tokens("Љубљана, Њујорк, Џон") == ["ljubljana", "njujork", "džon"]
    assert tokens("Россия и мир") == ["россия", "i", "mir"]            # я: Russian, kept
    assert content_tokens("Он сказал, что это не так") == ["skazal", "tak"]     # the stopwords still drop
    assert "что" not in content_tokens("что") and not content_tokens("и она не")
    assert terms("Национална химна") == terms("Nacionalna himna")
    article = ["Београд је главни град Србије. Нови Сад је други град по величини. Химна Израела је Хатиква."]
    best = top_windows("Himna Izraela je Hatikva.", article, "sr", k=1)
    assert "Хатиква" in best[0].text


def test_detector_paraphrase_gate():
    """A fact that closely paraphrases its best window keeps only the detector's words that stand
    out above its median; below the cosine the scores are untouched."""
    from mfact.core.checking.verify.offline import (GATE_MIN_CHARS, GATE_MIN_CHARS_SPACELESS, PARAPHRASE_COS,
                                                     STAND_OUT, STANDS_APART, gate_words)
    n = GATE_MIN_CHARS // 5 + 1
    flat = [(5 * i, 5 * i + 4, 0.88 + 0.01 * (i % 3)) for i in range(n)]
    assert gate_words(flat, PARAPHRASE_COS - 0.01) == flat
    assert max(p for *_s, p in gate_words(flat, PARAPHRASE_COS)) == 0.0          # flagged whole: none stands out
    short = flat[:GATE_MIN_CHARS // 5 - 1]
    assert gate_words(short, 0.99) == short                                      # a short fact: as it is
    one = [(5 * i, 5 * i + 4, 0.05 + 0.01 * (i % 2)) for i in range(n)]
    one[2] = (10, 14, 0.1 + STAND_OUT + 0.5)
    gated = gate_words(one, 0.95)
    assert gated[2] == one[2] and all(p == 0.0 for i, (*_s, p) in enumerate(gated) if i != 2)
    assert gate_words([], 0.99) == []
    # a cosine under PARAPHRASE_COS: the gate opens when the best window stands apart from the rest
    # (asked only then: it embeds every window of the evidence)
    asked: list[float] = []

    def apart(x: float):
        return lambda: asked.append(x) or x
    assert gate_words(flat, 0.80, apart(STANDS_APART - 0.01)) == flat
    assert max(p for *_s, p in gate_words(flat, 0.80, apart(STANDS_APART))) == 0.0
    assert gate_words(short, 0.80, apart(0.5)) == short and gate_words(flat, 0.95, apart(0.0)) != flat
    assert asked == [STANDS_APART - 0.01, STANDS_APART]
    # Chinese, Cantonese, Japanese: a character is about a word, so a shorter fact is long enough
    cjk = [(i, i + 1, 0.9) for i in range(GATE_MIN_CHARS_SPACELESS + 1)]
    assert gate_words(cjk, 0.95, lang="en") == cjk
    assert max(p for *_s, p in gate_words(cjk, 0.95, lang="yue")) == 0.0
    assert gate_words(cjk[:GATE_MIN_CHARS_SPACELESS - 1], 0.95, lang="zh") == cjk[:GATE_MIN_CHARS_SPACELESS - 1]


def test_the_paraphrase_gate_through_verify_pairs(tmp_path, capsys):
    """Through `mfact verify-pairs --verifier detector` with the committed weights: a long close
    paraphrase of the bundled English lead is S (the detector alone flags all of it; the gate keeps
    only words that stand out, here none; without the gate it is NS, flagged whole); a wrong year in
    the same kind of sentence stays NS (the detector passes it in this long sentence; the year stands
    between the words that hold 1903 in the lead: counterparts.swapped_number)."""
    from mfact.core.training.train_cross import bundled_leads

    lead = bundled_leads()["en"]["Marie Curie"]
    claims = [("Marie Curie, a physicist and chemist of Polish birth who later became French, carried out"
               " research into radioactivity.", "S"),
              ("Marie Curie, a physicist and chemist of Polish birth who was later naturalised French, shared"
               " the 1905 Nobel Prize in Physics with her husband Pierre Curie.", "NS")]
    f = tmp_path / "pairs.jsonl"
    f.write_text("".join(json.dumps({"id": i, "lang": "en", "claim": c, "evidence": lead, "entity": "Marie Curie"})
                         + "\n" for i, (c, _w) in enumerate(claims)), encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--verifier", "detector", "--json"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [o["label"] for o in out] == [w for _c, w in claims]
