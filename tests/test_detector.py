"""The token-level hallucination detector (issue 21): the corruption data (labels cover exactly
the changed words), the silver exclusion, token spans, the inference API, and the training script
end to end on a tiny sample (slow)."""
from __future__ import annotations

import csv
import json
import random

import pytest

from mfact.core.training import detector_data as dd

SENTS = [
    "Marie Curie was born in 1867 in Warsaw and died in 1934.",
    "She was the first woman to win a Nobel Prize.",
    "Her husband Pierre Curie was a physicist in Paris.",
    "The family moved to the north of France in March 1891.",
    "The laboratory is one of the largest in Europe.",
    "Their daughter Irène won a prize in 1935.",
]


def _check(original: str, ex_sentence: str, spans) -> None:
    """The labelled units are exactly the units of the new sentence that are not in the original:
    dropping them leaves the original's units less the replaced ones, in order."""
    new_units = dd.units(ex_sentence)
    lab = dd.unit_labels(ex_sentence, spans)
    assert any(lab)
    kept_new = [ex_sentence[s:e] for (s, e), y in zip(new_units, lab) if not y]
    changed_new = [ex_sentence[s:e] for (s, e), y in zip(new_units, lab) if y]
    orig_words = [original[s:e] for s, e in dd.units(original)]
    # every unlabelled word is an original word, in the original order
    it = iter(orig_words)
    assert all(any(w == o for o in it) for w in kept_new)
    # every labelled word is new: not the original word at that place
    assert len(kept_new) + len(changed_new) == len(new_units)
    assert len(orig_words) - len(kept_new) <= 2   # one error: one (or two, "n'est pas") words changed


@pytest.mark.parametrize("kind", ["entity", "relation", "contradiction"])
def test_corruption_labels_cover_exactly_the_changed_words(kind):
    pools = dd.Pools(names={"en": ["Lisbon", "Dickens", "Oslo"]})
    rng = random.Random(3)
    made = 0
    for _ in range(200):
        src = rng.choice(SENTS)
        new = dd.corrupt(kind, src, "en", pools, " ".join(SENTS), rng)
        if new is None:
            continue
        spans = dd.diff_spans(src, new)
        _check(src, new, spans)
        made += 1
    assert made > 50


def test_known_corruptions():
    assert dd.diff_spans("She was born in Warsaw.", "She was died in Warsaw.") == [(8, 12)]
    new = "She was not born in Warsaw."
    assert [new[s:e] for s, e in dd.diff_spans("She was born in Warsaw.", new)] == ["not"]
    new = "Elle n'est pas née à Varsovie."
    assert [new[s:e] for s, e in dd.diff_spans("Elle est née à Varsovie.", new)] == ["n'est", "pas"]
    # CJK: characters are the units
    a, b = "居里出生于华沙。", "居里出生于巴黎。"
    assert [b[s:e] for s, e in dd.diff_spans(a, b)] == ["巴", "黎"]


def test_generator_kinds_and_evidence():
    arts = [dd.Article("en", f"A{i}", [s.replace("Curie", f"Curie{i}") for s in SENTS]) for i in range(6)]
    gen = dd.Generator(arts, dd.Pools.build(arts))
    rng = random.Random(0)
    seen = set()
    for _ in range(300):
        ex = gen.example(rng)
        if ex is None:
            continue
        seen.add(ex.kind)
        assert 1 <= len(ex.evidence) <= dd.MAX_EVIDENCE_SENTENCES
        if ex.kind in ("kept", "clause"):
            assert ex.spans == []
        if ex.kind in ("invented", "unverifiable"):
            assert all(dd.unit_labels(ex.sentence, ex.spans))
        if ex.kind == "unverifiable":
            assert ex.sentence not in ex.evidence
        if ex.kind in ("kept", "entity", "relation", "contradiction"):
            # the target's original sentence is among the windows
            assert any(dd.overlap(dd._terms(ex.sentence), dd._terms(e)) >= 0.5 for e in ex.evidence)
    assert {"kept", "entity", "invented", "unverifiable", "contradiction"} <= seen


def _fake_wiki(folder, langs=("en", "pl"), n=30):
    folder.mkdir(parents=True, exist_ok=True)
    for lang in langs:
        with (folder / f"wiki_references_and_queries_{lang}.csv").open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["Category", "Article Title", "URL", "reference_1", "reference_2", "query_1"])
            for i in range(n):
                text = " ".join(s.replace("Curie", f"Curie{i}").replace("1867", str(1800 + i)) for s in SENTS)
                w.writerow(
                    [
                        "c",
                        f"{lang} title {i}",
                        "u",
                        text,
                        f"Another paragraph number {i} was written in 19{i:02d} by Jan Kowalski in Krakow.",
                        "q",
                    ]
                )


def test_silver_articles_are_dropped(tmp_path):
    wiki = tmp_path / "wiki"
    _fake_wiki(wiki, ("pl",), 10)
    silver = tmp_path / "silver"
    silver.mkdir()
    ref = " ".join(s.replace("Curie", "Curie3").replace("1867", "1803") for s in SENTS)
    ref += " Another paragraph number 3 was written in 1903 by Jan Kowalski in Krakow."
    (silver / "silver_polish.json").write_text(json.dumps([{"references": ref + " and more", "generated_text": "x"}]))
    arts, rep = dd.load_articles(wiki, leads=False, silver_dir=silver)
    assert rep["dropped_silver"] == {"pl": 1}
    assert "pl title 3" not in {a.title for a in arts} and len(arts) == 9


def test_token_spans_and_units():
    torch = pytest.importorskip("torch")  # noqa: F841
    from mfact.core.checking.neural.detector import Tokens, word_units
    from mfact.core.checking.neural.e5torch import E5File
    tk = Tokens(E5File())
    text = "Marie Curie was born in Paris."
    ids, spans = tk.sentence(text)
    assert len(ids) == len(spans) and ids == tk.tok.encode(text)
    covered = "".join(text[a:b] for a, b in spans)
    assert covered == text.replace(" ", "")
    assert word_units("居里 born 1867年") == [(0, 1), (1, 2), (3, 7), (8, 12), (12, 13)]
    assert word_units(text) == dd.units(text)


def test_load_detector_without_weights(tmp_path):
    pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import load_detector
    assert load_detector(tmp_path / "none.pt") is None


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_training_end_to_end_small(tmp_path, capsys):
    pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import TokenDetector
    from mfact.core.training.train_detector import main
    wiki = tmp_path / "wiki"
    _fake_wiki(wiki, ("en", "pl", "lt"), 40)
    ck = tmp_path / "ck"
    args = ["--small", "--wiki", str(wiki), "--silver", str(tmp_path / "nosilver"), "--no-leads",
            "--ckpt-dir", str(ck), "--steps", "4", "--eval-every", "2"]
    assert main(args) == 0
    assert (ck / "last.pt").exists() and (ck / "best.pt").exists()
    assert main(args + ["--resume", "--steps", "6"]) == 0
    lines = (ck / "dev.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["step"] == 6
    out = tmp_path / "det.pt"
    assert main(args + ["--export", str(out)]) == 0
    assert out.stat().st_size < 30e6
    det = TokenDetector(out)
    assert det.meta["command"].startswith("python -m mfact.core.training.train_detector")
    assert "data_sha256" in det.meta and det.meta["seed"] == 13
    assert 0.1 <= det.threshold <= 0.95 and "eval_export" in det.meta
    # the loaded detector's threshold is the one fitted for its precision (fp32 unless
    # $MFACT_DETECTOR_PRECISION says int8; the two differ when the tiny model's fits do)
    assert set(det.meta["thresholds"]) == {"int8", "fp32"} and det.threshold == det.meta["thresholds"][det.precision]
    again = tmp_path / "det-recal.pt"     # the thresholds fitted again: same weights, the command recorded
    assert main(args + ["--recalibrate", str(out), "--out", str(again)]) == 0
    det2 = TokenDetector(again)
    assert det2.meta["recalibrated"][-1].split()[-1] == str(again) and det2.meta["command"] == det.meta["command"]
    assert set(det2.meta["eval_export_by_precision"]) == {"int8", "fp32"}
    res = det.score([("Marie Curie was born in Paris.", ["Marie Curie est née à Varsovie."]),
                     ("居里出生于巴黎。", ["Marie Curie est née à Varsovie."]), ("", [])])
    assert [(a, b) for a, b, _p in res[0]] == [(0, 5), (6, 11), (12, 15), (16, 20), (21, 23), (24, 30)]
    assert len(res[1]) == 8 and res[2] == []
    assert all(0.0 <= p <= 1.0 for r in res for _a, _b, p in r)
    _verify_pairs_with_weights(tmp_path, out, capsys)
    _soup_exports_like_a_run(tmp_path, args, ck, main)


def _soup_exports_like_a_run(tmp_path, args, ck, main):
    """A soup of the run with its last checkpoint is exported as a run is, its recipe in the meta."""
    from mfact.core.checking.neural.detector import TokenDetector
    from mfact.core.training import soup
    assert soup.main(["--out", str(tmp_path / "soup"), str(ck / "best.pt"), str(ck / "last.pt")]) == 0
    at = args.index("--ckpt-dir") + 1
    out = tmp_path / "soup.pt"
    assert main(args[:at] + [str(tmp_path / "soup")] + args[at + 1:] + ["--export", str(out), "--calibrate", "0"]) == 0
    det = TokenDetector(out)
    assert [r["weight"] for r in det.meta["soup"]] == [0.5, 0.5]
    assert det.meta["command"].startswith("python -m mfact.core.training.train_detector")


def _verify_pairs_with_weights(tmp_path, weights, capsys):
    """`--verifier detector:FILE` judges with that weights file, and its verdicts' version names the
    file's digest (verdicts cached under other weights are not reused)."""
    import hashlib

    from mfact.core.checking.verify.detector import DetectorVerifier
    from mfact.core.cli import main as cli_main
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": 1, "lang": "fr", "claim": "Marie Curie est née à Paris.",
                                 "evidence": "Marie Curie est née à Varsovie.", "entity": "Marie Curie"}) + "\n",
                     encoding="utf-8")
    capsys.readouterr()
    assert cli_main(["verify-pairs", str(pairs), "--verifier", f"detector:{weights}", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert [r["label"] for r in rows] == ["NS"]               # the slot check still decides the place
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:8]
    assert f"-d{digest}" in DetectorVerifier(detector_path=weights).version
    assert f"-d{digest}" not in DetectorVerifier().version


def test_detector_verifier_with_a_missing_weights_file(tmp_path, capsys):
    from mfact.core.cli import main as cli_main
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": 1, "lang": "en", "claim": "x", "evidence": "y"}) + "\n", encoding="utf-8")
    assert cli_main(["verify-pairs", str(pairs), "--verifier", f"detector:{tmp_path / 'none.pt'}"]) != 0
    err = capsys.readouterr().err
    assert "no detector weights file" in err and "none.pt" in err


def test_data_workers_draw_the_same_batches_as_the_main_process():
    """--workers N: the batches (examples, token labels, evidence window ids) are those the main
    process draws itself, step for step, so a run is the same with or without workers."""
    pytest.importorskip("torch")
    from types import SimpleNamespace

    from mfact.core.training.train_detector import _tokens, batches
    arts = [dd.Article("en", f"A{i}", [s.replace("Curie", f"Curie{i}") for s in SENTS]) for i in range(6)]
    gen = dd.Generator(arts, dd.Pools.build(arts))
    tokens = _tokens()
    args = SimpleNamespace(seed=5, batch=4, steps=13, workers=0)
    here = list(batches(gen, tokens, args, 10))
    args.workers = 2
    there = list(batches(gen, tokens, args, 10))
    assert len(here) == len(there) == 3
    for (exs, sents, labels, _none), (exs2, sents2, labels2, wins) in zip(here, there):
        assert [e.sentence for e in exs] == [e.sentence for e in exs2]
        assert sents == sents2 and labels == labels2
        assert wins == [[tokens.window(w) for w in e.evidence] for e in exs]


def test_time_budget_decays_the_rate_and_stops():
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from mfact.core.training.train_detector import TimeBudget
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    args = SimpleNamespace(max_minutes=1.0, steps=1000)
    tb = TimeBudget(args, opt)
    assert tb.after_step(100) is False and opt.param_groups[0]["lr"] == pytest.approx(0.9, abs=0.01)
    tb.t0 -= 45                       # three quarters of the time gone: the time fraction leads
    assert tb.after_step(100) is False and opt.param_groups[0]["lr"] == pytest.approx(0.25, abs=0.02)
    tb.t0 -= 20
    assert tb.after_step(101) is True
    assert TimeBudget(SimpleNamespace(max_minutes=0, steps=10), opt).after_step(5) is False


def test_v3_variants_are_supported_and_errors_in_them_are_labelled():
    """Mix v3: a supported variant (trimmed, fused, other word forms) has no hallucinated word and is
    no copy of an evidence sentence; an error inserted into a variant marks only the changed words."""
    arts = [dd.Article("en", f"A{i}", [s.replace("Curie", f"Curie{i}") for s in SENTS]
                       + ["Scientists, including physicists and chemists, were awarded prizes in Stockholm.",
                          "A physicist awarder was working in Paris (France) for many years, awarding prizes."])
            for i in range(6)]
    pools = dd.Pools.build(arts).build_forms(arts)
    assert pools.forms["en"] and all(len(v) > 1 and all(dd.stem_of(w) == k for w in v)
                                     for k, v in pools.forms["en"].items())
    assert {"awarded", "awarder"} <= set(pools.forms["en"].get("award", []))
    gen = dd.Generator(arts, pools, mix="v3")
    rng = random.Random(2)
    para = 0
    for _ in range(400):
        ex = gen.example(rng, kind="paraphrase")
        if ex is None:
            continue
        para += 1
        assert ex.spans == [] and ex.sentence not in ex.evidence
    assert para > 50
    for _ in range(200):
        ex = gen.example(rng, kind="entity")
        if ex is not None:
            assert 1 <= sum(dd.unit_labels(ex.sentence, ex.spans)) <= 2
    for seed in range(5):
        new = dd._inflect("The awarded physicist spoke.", "en", pools, random.Random(seed))
        if new is not None:
            old_w, new_w = "The awarded physicist spoke.".split(), new.split()
            changed = [(a, b) for a, b in zip(old_w, new_w) if a != b]
            assert len(old_w) == len(new_w) and changed and all(dd.stem_of(a) == dd.stem_of(b) for a, b in changed)


def test_vitaminc_rows_and_bag_loss(tmp_path):
    """VitaminC claims: training pages only; a refuted claim is a bag (some word is wrong): its loss
    is that of its most suspect token, and its other tokens get no gradient."""
    torch = pytest.importorskip("torch")
    import zipfile

    from mfact.core.training.train_detector import label_batch, label_tensors, token_loss, _tokens
    rows = [{"claim": f"Claim {i} is true .", "evidence": f"Evidence {i} .", "page": f"P{i}",
             "label": "SUPPORTS" if i % 2 else "REFUTES"} for i in range(40)]
    with zipfile.ZipFile(tmp_path / "vitaminc_real.zip", "w") as z:
        z.writestr("vitaminc_real/test.jsonl", "\n".join(json.dumps(r) for r in rows))
    got = dd.load_vitaminc(tmp_path)
    assert 0 < len(got) < 40 and all(dd.h32(f"P{c.split()[1]}") % 10 for c, _e, _y in got)
    assert got[0][0].endswith("true.")           # tokenised punctuation re-attached
    ex_bag = dd.vitc_example([("Claim one is false.", "Evidence.", 0)], random.Random(0))
    ex_ok = dd.vitc_example([("Claim one is true.", "Evidence.", 1)], random.Random(0))
    assert ex_bag.spans == dd.BAG and ex_ok.spans == []
    _s, labels = label_batch(_tokens(), [ex_bag, ex_ok])
    y, m = label_tensors(labels)
    assert (y[0, 1:-1] == 2).all() and (y[1] == 0).all()
    logits = torch.zeros(y.shape, requires_grad=True)
    with torch.no_grad():
        logits[0, 2] = 3.0
    loss = token_loss(logits, y, m, torch.nn.BCEWithLogitsLoss(reduction="none"))
    loss.backward()
    g = logits.grad
    assert g[0, 2] < 0 and (g[0, :2] == 0).all() and (g[0, 3:] == 0).all()    # only the top token of the bag
    assert (g[1, 1:int(m[1].sum()) + 1] > 0).all()                             # supported: every token pushed down


def test_direct_batches_equal_the_cached_path():
    """A GPU run (`--direct`) computes the lower layers on the whole batch from int arrays made in
    the data workers; the upper layers see the same states as through the text cache."""
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from mfact.core.checking.neural.detector import LowerCache, new_model, prepare, prepare_direct
    from mfact.core.training.train_detector import batches
    arts = [dd.Article("en", f"A{i}", [s.replace("Curie", f"Curie{i}") for s in SENTS]) for i in range(6)]
    gen = dd.Generator(arts, dd.Pools.build(arts))
    model, tokens = new_model(10)
    model.eval()
    args = SimpleNamespace(seed=3, batch=4, steps=2, workers=0, direct=False)
    cached = list(batches(gen, tokens, args, 0))
    args.direct = True
    direct = list(batches(gen, tokens, args, 0))
    cache = LowerCache(model, tokens, "cpu")
    with torch.no_grad():
        for (exs, sents, labels, wins), (_n, _m, labels2, arr) in zip(cached, direct):
            assert labels == labels2 and isinstance(arr, dict)
            a = model.upper(*prepare(cache, sents, [x.evidence for x in exs], "cpu", window_ids=wins))
            b = model.upper(*prepare_direct(model, arr, "cpu"))
            assert a.shape == b.shape and torch.allclose(a, b, atol=0.1)


FRENCH_LEAD = ["Maria Salomea Skłodowska-Curie, née le 7 novembre 1867 à Varsovie et morte le 4 juillet 1934 à "
               "Passy, est une physicienne et chimiste polonaise, naturalisée française."]
GOOD, BAD, INVENTED = ("Marie Curie est née le 7 novembre 1867 à Varsovie.",
                       "Marie Curie est née le 22 mars 1867 à Paris.",
                       "Elle a aussi écrit trois romans policiers sous un pseudonyme.")


@pytest.mark.parametrize("quantize", [False, True], ids=["fp32", "int8"])
def test_committed_weights_on_the_french_lead(quantize):
    """The committed weights (real model, fp32 as shipped on CPU, and the int8 scheme): the wrong
    date and place are flagged, an invented sentence is flagged whole, and in the sentence the
    evidence states only the place may reach the threshold, scoring below every one of those errors
    ("Varsovie." sits near it: 0.22 in fp32 at threshold 0.2; the slot checks decide that fact in
    the verifier)."""
    pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import TokenDetector
    det = TokenDetector(quantize=quantize)
    ev = FRENCH_LEAD
    good, bad, invented = GOOD, BAD, INVENTED
    res = det.score([(good, ev), (bad, ev), (invented, ev)])
    flagged = [{s[a:b].strip(".") for a, b, p in r if p >= det.threshold} for s, r in zip((good, bad, invented), res)]
    assert flagged[0] <= {"Varsovie"}
    assert {"22", "mars", "Paris"} <= flagged[1]
    assert len(flagged[2]) == len(res[2])
    errors = [p for a, b, p in res[1] if bad[a:b].strip(".") in {"22", "mars", "Paris"}]
    assert max(p for _a, _b, p in res[0]) < min(errors)
    # int8 activations are quantised per call: an item's scores must not depend on its neighbours
    # (fp32 scores in batches of 16, padded: the same up to float rounding)
    alone = TokenDetector(quantize=quantize).score([(good, ev)])
    other = TokenDetector(quantize=quantize).score([(invented, ev), (good, ev)])[1]
    if quantize:
        assert alone[0] == res[0] == other
    else:
        assert all(abs(x[2] - y[2]) < 1e-4 and abs(x[2] - z[2]) < 1e-4 for x, y, z in zip(alone[0], res[0], other))


def test_cpu_precisions_fp32_and_the_int8_scheme(monkeypatch):
    """fp32, the CPU default, runs the trained model as it is. The int8 scheme keeps each
    feed-forward output and the head in fp32 and stays near fp32 (per-tensor int8 of every linear
    layer moved word scores by 0.29 on average on silver sentences); each precision takes its own
    fitted threshold; $MFACT_DETECTOR_PRECISION picks one, and a bad value is refused with a message."""
    pytest.importorskip("torch")
    from torch import nn

    from mfact.core.checking.neural import detector as d
    from mfact.core.checking.verify import offline as vd
    from mfact.core.errors import MfactError
    items = [(s, FRENCH_LEAD) for s in (GOOD, BAD, INVENTED)]
    d32, d8 = d.TokenDetector(quantize=False), d.TokenDetector(quantize=True)
    assert (d32.precision, d8.precision) == ("fp32", "int8")
    assert d32.threshold == d32.meta["thresholds"]["fp32"] and d8.threshold == d8.meta["thresholds"]["int8"]
    r32, r8 = d32.score(items), d8.score(items)
    diffs = [abs(a[2] - b[2]) for x, y in zip(r32, r8) for a, b in zip(x, y)]
    assert sum(diffs) / len(diffs) < 0.1
    layer = d8.model.enc.layers[0]
    assert type(layer.fo) is nn.Linear and type(layer.q) is not nn.Linear and type(d8.model.head[1]) is nn.Linear
    assert type(d32.model.enc.layers[0].q) is nn.Linear
    assert d.int8_layers(d32.model) and not [n for n in d.int8_layers(d32.model) if n.endswith(".fo") or "head" in n]
    monkeypatch.delenv("MFACT_DETECTOR_PRECISION", raising=False)
    assert d.load_detector().precision == "fp32" and d.TokenDetector().precision == "fp32"
    assert "f32g" in vd.OfflineVerifier().version
    monkeypatch.setenv("MFACT_DETECTOR_PRECISION", "int8")
    assert d.load_detector().precision == "int8" and "q2g" in vd.OfflineVerifier().version
    monkeypatch.setenv("MFACT_DETECTOR_PRECISION", "fp16")
    with pytest.raises(MfactError, match="MFACT_DETECTOR_PRECISION"):
        d.load_detector()


def test_a_large_weights_file_stores_its_matrices_as_int8_rows(tmp_path):
    """Fewer frozen layers make the trained part larger: with every layer trained (split 0) fp16
    would pass WEIGHTS_LIMIT, so each matrix is stored as int8 rows with one scale per row, the file
    stays under the limit, and the model read back scores as the one written, up to the rounding.
    With the default split the file is fp16 as before."""
    torch = pytest.importorskip("torch")
    from mfact.core.checking.neural import detector as d
    model, _tok = d.new_model(0)
    torch.manual_seed(3)
    with torch.no_grad():
        model.head[1].weight.normal_(0, 0.05)
        model.enc.layers[11].q.weight.add_(torch.randn_like(model.enc.layers[11].q.weight) * 0.01)
    small = d.stored_state(d.new_model(6)[0])
    assert all(v.dtype == torch.float16 for v in small.values())
    state = d.stored_state(model)
    assert state["enc.layers.0.q.weight"].dtype == torch.int8
    assert state["enc.layers.0.q.weight" + d.INT8_SUFFIX].shape == (384, 1)
    assert state["head.3.bias"].dtype == torch.float16
    path = tmp_path / "w.pt"
    d.save_weights(model.eval(), path, {"threshold": 0.5})
    assert path.stat().st_size <= d.WEIGHTS_LIMIT < sum(v.numel() * 2 for v in model.trainable().values())
    back, _ = d.model_of(torch.load(path, map_location="cpu", weights_only=True))
    for k, v in model.trainable().items():
        err = (back.state_dict()[k] - v).abs().max().item()
        assert err <= v.abs().max().item() / 127 * 0.51 + 1e-3, k
    x = torch.randn(1, 5, 384)
    m = torch.ones(1, 5, dtype=torch.bool)
    with torch.no_grad():
        a, b = (
            model.eval().upper(x[:, :3], m[:, :3], x[:, 3:], m[:, 3:]),
            back.eval().upper(x[:, :3], m[:, :3], x[:, 3:], m[:, 3:]),
        )
    assert (a - b).abs().max().item() < 0.05


def test_split_zero_is_read_as_zero():
    """A run with every layer trained (--split 0) names split 0; export once read that as missing
    and rebuilt the model with the default split (lower layers cached per text that had been trained
    across the pair: dev score 0.49 instead of 0.96)."""
    pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import checkpoint_split
    from mfact.core.training.soup import split_of
    assert checkpoint_split({"split": 0}, 8) == 0 and split_of({"split": 0, "args": {"split": 6}}) == 0
    assert checkpoint_split({"args": {"split": 0}}, 8) == 0
    assert checkpoint_split({}, 8) == 8 and checkpoint_split({"args": {}}) is None
