"""The pair reader: the claim combiner's extra input for a claim read alone (verify-pairs)."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from mfact.core.checking.verify.claim_combiner import ClaimCombiner, CombinerOrigin  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
XNLI = ROOT.parent / "shared" / "data" / "xnli-dev"


@pytest.fixture(scope="module")
def det():
    from mfact.core.checking.neural.detector import load_detector
    d = load_detector()
    assert d is not None
    return d


def test_a_new_reader_starts_as_the_detectors_upper_layers_and_reads_a_pair(det):
    from mfact.core.checking.neural.detector import prepare
    from mfact.core.checking.neural.pair_reader import PairModel
    m = PairModel.from_detector(det.model)
    assert len(m.layers) == len(det.model.enc.layers) - det.model.split
    for a, b in zip(m.layers[0].parameters(), det.model.enc.layers[det.model.split].parameters()):
        assert torch.equal(a, b) and a.data_ptr() != b.data_ptr()       # a copy, not the detector's own
    ids, _sp = det.tokens.sentence("Marie Curie was born in Warsaw.")
    s, sm, e, em = prepare(det.cache, [(ids, "t\x000")], [["Marie Curie est née à Varsovie."]], "cpu")
    m.eval()
    z = m(s, sm, e, em)
    assert z.shape == (1,) and torch.isfinite(z).all()


def _reader_file(det, tmp_path, detector_sha: str | None = None, seed: int = 0):
    from mfact.core.checking.neural.pair_reader import PairModel, save_reader
    torch.manual_seed(seed)
    m = PairModel.from_detector(det.model)
    for p in m.head.parameters():
        torch.nn.init.normal_(p, std=0.2)
    m.eval()
    f = tmp_path / f"reader-{seed}.pt"
    for p in m.layers.parameters():                     # as fine-tuning moves them: a little
        p.data += 0.002 * torch.randn_like(p)
    save_reader(m, f, {"detector_sha256": detector_sha if detector_sha is not None else det.digest}, det.model)
    return m, f


def test_the_weights_file_is_int8_by_row_and_reads_back_the_same_logits(det, tmp_path):
    from mfact.core.checking.neural.detector import prepare
    from mfact.core.checking.neural.pair_reader import PairReader
    m, f = _reader_file(det, tmp_path)
    blob = torch.load(f, map_location="cpu", weights_only=True)
    assert blob["kind"] == "pair-reader" and blob["state"]["layers.0.q.weight"].dtype == torch.int8
    assert blob["state"]["head.0.weight"].dtype == torch.float16
    assert f.stat().st_size < 16e6            # the detector's 8 upper layers and a head, one byte a weight
    r = PairReader(det, f)
    assert r.digest == hashlib.sha256(f.read_bytes()).hexdigest()
    pairs = [("Marie Curie was born in Paris.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]),
             ("The river flows north.", ["The river flows north through three towns."])]
    got = r.logits(pairs)
    for (claim, wins), z in zip(pairs, got):
        ids, _sp = det.tokens.sentence(claim)
        with torch.no_grad():
            want = float(m(*prepare(det.cache, [(ids, f"{claim}\x000")], [wins], "cpu"))[0])
        assert z == pytest.approx(want, abs=0.01)       # int8 rows of the change against the fp32 model
    assert got[0] != got[1]
    assert r.logits([("", ["x"])]) == [0.0]


def test_a_reader_trained_on_other_detector_weights_is_not_used(det, tmp_path):
    from mfact.core.checking.neural.pair_reader import load_reader
    _m, good = _reader_file(det, tmp_path, seed=1)
    _m, other = _reader_file(det, tmp_path, detector_sha="0" * 64, seed=2)
    assert load_reader(det, good) is not None
    assert load_reader(det, other) is None
    assert load_reader(det, tmp_path / "missing.pt") is None
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a torch file")
    assert load_reader(det, bad) is None


def test_a_combiner_that_reads_a_pair_reader_fits_only_with_that_reader():
    c = ClaimCombiner([0.0, 0.0], [1.0, 1.0], [0.5, 2.0], 0.0,
                      CombinerOrigin("abcdef12" * 8, "basis123", reader="feed" * 16))
    back = ClaimCombiner.from_json(json.loads(json.dumps(c.to_json())))
    assert back.reader == c.reader and back.digest == c.digest
    assert c.fits("abcdef12", "basis123", "feedfeed") and not c.fits("abcdef12", "basis123", "")
    assert not c.fits("abcdef12", "basis123", "00000000")
    plain = ClaimCombiner([0.0], [1.0], [0.5], 0.0, CombinerOrigin("abcdef12" * 8, "basis123"))
    assert plain.fits("abcdef12", "basis123") and plain.digest != ClaimCombiner(
        [0.0], [1.0], [0.5], 0.0, CombinerOrigin("abcdef12" * 8, "basis123", reader="feed" * 16)).digest


def test_a_claim_alone_is_judged_with_the_readers_logit_after_its_features(det):
    """The shipped combiner reads the shipped reader: the verdict's p is the combiner's over the 50
    fact features and the reader's logit of the claim against the windows the detector read."""
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.session import Evidence
    v = OfflineVerifier()
    if v.combiner is None or not v.combiner.reader:
        pytest.fail("the shipped combiner should read the pair reader (train_combiner)")
    ev = [Evidence(id="e", source="input", lang="en", title="",
                   text="The river flows north through three towns before it reaches the lake.")]
    items = [("The river flows north through three towns.", "", "en", ev),
             ("The river was painted by a famous artist in the winter.", "", "en", ev)]
    got = v.verify_batch(items)
    reader = v.pair_reader()
    assert reader is not None and v.combiner.reader.startswith(reader.digest[:8])
    zs = reader.logits([(claim, ["The river flows north through three towns before it reaches the lake."])
                        for claim, *_ in items])
    for vd, z in zip(got, zs):
        assert len(vd.features) == 50                   # what the store keeps: the reader's logit is not a feature
        p = v.combiner.prob(vd.features + [z])
        assert vd.confidence == pytest.approx(round(p if vd.label == "S" else 1 - p, 4), abs=1e-4)
    assert [vd.label for vd in got] == ["S", "NS"]


def test_the_detectors_pass_over_a_claim_gives_the_readers_logit_of_the_shipped_reader(det):
    """The shipped reader shares the detector's segment vectors and its first upper layers: a claim
    the detector reads for a claim alone gets the reader's logit from that pass, the number the
    reader gives reading the claim itself."""
    from mfact.core.checking.neural.pair_reader import load_reader
    r = load_reader(det)
    assert r is not None and r.model.shared == 4 and r.side() is not None
    pairs = [("Marie Curie was born in Paris.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]),
             ("Marie Curie wurde in Warschau geboren.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]),
             ("The river flows north through three towns and then, after a long bend past the old mill, the "
              "bridge, the church and the market square of the last town, west into the lake, where in the "
              "spring of every year the fishermen of the valley, their wives and their children gather on the "
              "shore to watch the ice break.",                         # 78 tokens: two parts
              ["The river flows north through three towns.", "It reaches the lake."])]
    got = det.score_tokens(pairs, side=r.side(), want=frozenset({0, 2}))
    alone = r.logits(pairs)
    assert got[0][1].side == pytest.approx(alone[0], abs=1e-4)
    assert got[2][1].side == pytest.approx(alone[2], abs=1e-4)       # a claim longer than one part: its first
    assert got[1][1].side is None                                      # not asked for
    assert got[0][1].side < 0 < alone[1]
    plain = det.score_tokens(pairs)                                    # the word scores are the same either way
    assert [w for w, _t in plain] == [w for w, _t in got]


def test_verify_pairs_reads_each_claim_once_for_the_detector_and_the_reader(det, monkeypatch):
    """A claim alone goes through the shared layers once: the reader's own pass is not run, and the
    verdicts are those of the reader run on its own."""
    from mfact.core.checking.neural.pair_reader import PairReader
    from mfact.core.checking.verify.offline import OfflineVerifier
    from mfact.core.session import Evidence
    ev = [Evidence(id="e", source="input", lang="", title="",
                   text="Marie Curie, née Skłodowska le 7 novembre 1867 à Varsovie, est une physicienne.")]
    items = [("Marie Curie was born in Warsaw.", "Marie Curie", "en", ev),
             ("Marie Curie was born in Paris.", "Marie Curie", "en", ev)]
    v = OfflineVerifier()
    assert v.combiner is not None and v.combiner.reader, "the shipped combiner should fit the shipped reader"
    calls = []
    real = PairReader.logits
    monkeypatch.setattr(PairReader, "logits", lambda self, pairs: calls.append(len(pairs)) or real(self, pairs))
    shared = v.verify_batch(items)
    assert calls == []
    monkeypatch.setattr(PairReader, "side", lambda self: None)       # the reader reads each claim itself
    again = OfflineVerifier().verify_batch(items)
    assert calls == [2]
    assert [(x.label, x.confidence) for x in shared] == [(x.label, x.confidence) for x in again]
    assert [x.label for x in shared] == ["S", "NS"]


def test_a_reader_is_tied_to_the_detectors_segment_vectors_and_stores_only_its_own_layers(det, tmp_path):
    from mfact.core.checking.neural.detector import prepare
    from mfact.core.checking.neural.pair_reader import PairReader, PairModel, save_reader, shared_layers, tie
    m = PairModel.from_detector(det.model)
    torch.manual_seed(3)
    with torch.no_grad():
        m.seg += 0.004 * torch.randn_like(m.seg)                       # trained before the vectors were frozen
        for p in m.layers[2:].parameters():
            p += 0.002 * torch.randn_like(p)
    assert shared_layers(m, det.model) == 0
    assert tie(m, det.model) == 2 and torch.equal(m.seg, det.model.seg)
    m.eval()
    f = tmp_path / "tied.pt"
    save_reader(m, f, {"detector_sha256": det.digest}, det.model)
    blob = torch.load(f, map_location="cpu", weights_only=True)
    assert blob["shared"] == 2 and "seg" not in blob["state"]
    assert not any(k.startswith(("layers.0.", "layers.1.")) for k in blob["state"])
    assert "layers.2.q.weight" in blob["state"]
    r = PairReader(det, f)
    claim, wins = "Marie Curie was born in Paris.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]
    ids, _sp = det.tokens.sentence(claim)
    with torch.no_grad():
        want = float(m(*prepare(det.cache, [(ids, f"{claim}\x000")], [wins], "cpu"))[0])
    assert r.logits([(claim, wins)])[0] == pytest.approx(want, abs=0.01)
    got = det.score_tokens([(claim, wins)], side=r.side(), want=frozenset({0}))
    assert got[0][1].side == pytest.approx(r.logits([(claim, wins)])[0], abs=1e-4)
    with pytest.raises(ValueError, match="not the detector's"):
        m.shared = 3                                                   # its third layer moved
        save_reader(m, tmp_path / "no.pt", {}, det.model)
    del blob["state"]["layers.2.q.weight"]                             # a file without one of its own layers
    torch.save(blob, tmp_path / "short.pt")
    with pytest.raises(ValueError, match="without some of its layers"):
        PairReader(det, tmp_path / "short.pt")


def test_an_int8_detectors_pass_gives_the_reader_nothing(det, monkeypatch):
    from mfact.core.checking.neural.pair_reader import load_reader
    r = load_reader(det)
    monkeypatch.setattr(det, "quantized", True)
    assert r.side() is None
    with pytest.raises(ValueError, match="int8"):
        det.score_tokens([("A claim.", ["A passage."])], side=(4, lambda x, m, n: x[:, 0, 0]), want=frozenset({0}))


def _script(folder: Path, ck: Path, *extra: str) -> list[str]:
    """A small train_pair run on `folder`'s English and Spanish test files, checkpoints in `ck`."""
    return [sys.executable, "-m", "mfact.core.training.train_pair", "--xnli-test", str(folder), "--langs", "en,es",
            "--ckpt-dir", str(ck), "--eval-every", "2", "--val-rows", "6", "--threads", "1", *extra]


def _test_files(tmp_path: Path, langs=("en", "es")) -> Path:
    """XNLI dev's first rows written as labelled test files (the format train_pair reads)."""
    folder = tmp_path / "xnli-test"
    folder.mkdir()
    for lang in langs:
        rows = (XNLI / f"dev-{lang}.tsv").read_text(encoding="utf-8").splitlines()[:90]
        (folder / f"test-{lang}.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return folder


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_runs_resumes_and_exports_a_reader_the_verifier_can_load(tmp_path, det):
    folder = _test_files(tmp_path)
    ck = tmp_path / "ck"
    base = _script(folder, ck, "--batch", "4")
    proc = subprocess.run(base + ["--steps", "2"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "validation" in proc.stdout and (ck / "last.pt").is_file() and (ck / "best.pt").is_file()
    proc = subprocess.run(base + ["--steps", "4", "--resume"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "resumed at step 2" in proc.stdout
    assert torch.load(ck / "last.pt", map_location="cpu", weights_only=False)["step"] == 4
    out = tmp_path / "reader.pt"
    proc = subprocess.run(base + ["--export", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from mfact.core.checking.neural.pair_reader import load_reader
    r = load_reader(det, out)
    assert r is not None
    assert set(r.meta["data"]) == {"xnli-test/test-en.tsv", "xnli-test/test-es.tsv"}
    assert [h["step"] for h in r.meta["history"]] == [2, 4] and r.meta["run_args"]["seed"] == 13
    assert len(r.logits([("A claim.", ["A passage."])])) == 1
    assert r.model.shared == 0                       # every layer trained: nothing shared with the detector


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_a_reader_trained_with_frozen_layers_keeps_the_detectors_segment_vectors_and_shares_them(tmp_path, det):
    folder = _test_files(tmp_path)
    ck = tmp_path / "ck"
    base = _script(folder, ck, "--batch", "4", "--freeze", "6", "--steps", "3")
    proc = subprocess.run(base, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / "reader.pt"
    proc = subprocess.run(base + ["--export", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from mfact.core.checking.neural.pair_reader import load_reader
    r = load_reader(det, out)
    assert r is not None and r.model.shared == 6 and torch.equal(r.model.seg, det.model.seg)
    assert out.stat().st_size < 5e6                 # two layers and a head


def test_the_tie_command_rewrites_an_older_reader_to_share_the_detectors_layers(tmp_path, det):
    from mfact.core.checking.neural.pair_reader import PairModel, load_reader, save_reader
    m = PairModel.from_detector(det.model)
    with torch.no_grad():
        m.seg += 0.003
        for p in m.layers[4:].parameters():
            p += 0.001
    src, out = tmp_path / "old.pt", tmp_path / "tied.pt"
    save_reader(m, src, {"detector_sha256": det.digest, "command": "train_pair --export old.pt"}, det.model)
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_pair", "--tie", str(src), str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "4 layers shared" in proc.stdout
    r = load_reader(det, out)
    assert r is not None and r.model.shared == 4
    assert r.meta["command"] == "train_pair --export old.pt" and r.meta["tied"]["shared_layers"] == 4
    assert r.meta["tied"]["segment_vectors_moved_by"] == pytest.approx(0.003, abs=1e-4)
    assert out.stat().st_size < src.stat().st_size * 0.6
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_pair", "--tie", str(tmp_path / "none.pt"),
                           str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "none.pt" in proc.stderr


def test_the_training_script_refuses_a_folder_without_labelled_test_files(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_pair", "--xnli-test", str(tmp_path),
                           "--langs", "en", "--steps", "1"], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "no test-en.tsv" in proc.stderr


def test_the_german_labels_label_every_languages_parallel_test_rows(tmp_path):
    from mfact.core.training.train_pair import build_test_files, load_rows
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "test-de.tsv").write_text("Er kam.\tEr war da.\nEr kam.\tEr fehlte.\u2028Lange.\n", encoding="utf-8")
    (texts / "test-en.tsv").write_text("He came.\tHe was there.\nHe came.\tHe was away.\n", encoding="utf-8")
    labels = tmp_path / "de.txt"
    labels.write_text(
        "Er kam.\tEr war da.\tentailment\nEr kam.\tEr fehlte.\u2028Lange.\tcontradiction\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    assert build_test_files(texts, labels, out) == {"de": 2, "en": 2}
    assert (out / "test-en.tsv").read_text(encoding="utf-8").splitlines() == [
        "He came.\tHe was there.\tentailment", "He came.\tHe was away.\tcontradiction"]
    assert "\u2028" not in (out / "test-de.tsv").read_text(encoding="utf-8")      # one row stays one row
    rows = load_rows(out, ["en", "de"])
    assert [r["y"] for r in rows] == [1, 0] and rows[1]["text"]["de"] == ("Er kam.", "Er fehlte. Lange.")
    labels.write_text("Er kam.\tEr war da.\tentailment\nSie ging.\tEr fehlte.\tcontradiction\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not the German test file"):
        build_test_files(texts, labels, tmp_path / "out2")
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_pair", "--xnli-test", str(tmp_path / "o3"),
                           "--build-test", str(texts), str(labels)], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "not the German test file" in proc.stderr


def test_a_batch_draws_the_extra_rows_at_their_share_in_their_own_language():
    import random

    from mfact.core.training.train_pair import Pool, draw
    rows = [{"item": i, "y": i % 2, "text": {lg: (f"P{i}{lg}", f"H{i}{lg}") for lg in ("en", "es", "fr")}}
            for i in range(20)]
    extra = [{"item": -1 - i, "y": 1, "text": {"en": (f"E{i}", f"C{i}")}} for i in range(20)]
    langs = ("en", "es", "fr")
    pairs, _ = draw(Pool(rows, extra, 0.25), random.Random(1), 400, langs, 0.5)
    from_extra = [p for p in pairs if p[0].startswith("E")]
    assert 60 <= len(from_extra) <= 140                      # 25% of 400, give or take
    assert all(h.startswith("C") for _p, h in from_extra)    # an English-only row stays English
    assert {p[0][-2:] for p in pairs if p[0].startswith("P")} == {"en", "es", "fr"}
    pairs, _ = draw(Pool(rows, extra, 0.0), random.Random(1), 100, langs, 0.5)
    assert not any(p[0].startswith("E") for p in pairs)


def _vitaminc_zip(folder: Path, n: int = 12) -> None:
    import zipfile

    from mfact.core.training.examples import h32
    pages = [p for p in (f"Page {i}" for i in range(100)) if h32(p) % 10][:n]   # training pages only
    lines = [json.dumps({"page": pg, "claim": f"{pg} had {i} members .", "evidence": f"{pg} has {i} members .",
                         "label": "SUPPORTS" if i % 2 else "REFUTES"}) for i, pg in enumerate(pages)]
    folder.mkdir()
    with zipfile.ZipFile(folder / "vitaminc_real.zip", "w") as z:
        z.writestr("vitaminc_real/test.jsonl", "\n".join(lines) + "\n")


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_mixes_vitaminc_rows_into_its_batches(tmp_path):
    folder = _test_files(tmp_path)
    _vitaminc_zip(tmp_path / "vitc")
    ck = tmp_path / "ck"
    proc = subprocess.run([sys.executable, "-m", "mfact.core.training.train_pair", "--xnli-test", str(folder),
                           "--langs", "en,es", "--vitaminc", str(tmp_path / "vitc"), "--extra-share", "0.5",
                           "--ckpt-dir", str(ck), "--batch", "4", "--steps", "2", "--eval-every", "2",
                           "--val-rows", "6", "--threads", "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "12 extra (VitaminC)" in proc.stdout
    assert torch.load(ck / "last.pt", map_location="cpu", weights_only=False)["args"]["vitaminc"] == str(
        tmp_path / "vitc"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mfact.core.training.train_pair",
            "--xnli-test",
            str(folder),
            "--langs",
            "en,es",
            "--vitaminc",
            str(tmp_path),
            "--ckpt-dir",
            str(ck),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode != 0 and "no VitaminC zip" in proc.stderr


def test_nli_files_of_each_sets_fields_are_read_as_rows_in_their_language(tmp_path):
    from mfact.core.training.train_pair import load_nli_file
    f = tmp_path / "mixed.jsonl"
    f.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in [
        {"sentence1": "A man plays.", "sentence2": "A person plays.", "gold_label": "entailment"},      # SNLI, MultiNLI
        {"sentence1": "A man plays.", "sentence2": "Nobody plays.", "gold_label": "-"},                # no agreed label
        {"sentence1": "他在家。", "sentence2": "他不在家。", "label": "contradiction"},                     # OCNLI
        {"premise": "Dia makan.", "hypothesis": "Dia lapar.", "label": "n"},                            # IndoNLI
        {"premise": "Dia makan.", "hypothesis": "Dia makan nasi.", "label": "E"},
    ]) + "\n\n", encoding="utf-8")
    rows = load_nli_file(f, "xx")
    assert [(r["text"]["xx"][1], r["y"], r["y3"]) for r in rows] == [
        ("A person plays.", 1, 0), ("他不在家。", 0, 2), ("Dia lapar.", 0, 1), ("Dia makan nasi.", 1, 0)]
    f.write_text(
        '{"sentence1": "A", "sentence2": "B", "gold_label": "entailment"}\n{"sentence1": "A", "sen', encoding="utf-8"
    )
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        load_nli_file(f, "xx")
    f.write_text('{"text": "A", "label": "entailment"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 has no premise"):
        load_nli_file(f, "xx")
    f.write_text('{"premise": "A", "hypothesis": "B", "label": "-"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="no labelled pair"):
        load_nli_file(f, "xx")


def test_an_nli_row_outside_the_training_languages_is_read_in_its_own():
    import random

    from mfact.core.training.train_pair import Pool, draw
    rows = [{"item": i, "y": 0, "text": {lg: (f"P{lg}", f"H{lg}") for lg in ("en", "es")}} for i in range(5)]
    extra = [{"item": -1, "y": 1, "text": {"id": ("Pid", "Hid")}}]
    pairs, ys = draw(Pool(rows, extra, 0.5), random.Random(3), 200, ("en", "es"), 0.5)
    mine = [(p, y) for p, y in zip(pairs, ys) if "id" in p[0]]
    assert 60 <= len(mine) <= 140 and all(p == ("Pid", "Hid") and y == 1 for p, y in mine)


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_trains_on_nli_files_keeps_each_step_and_exports_one(tmp_path, det):
    folder = _test_files(tmp_path)
    nli = tmp_path / "indo.jsonl"
    nli.write_text(
        "".join(
            json.dumps({"premise": f"Ini kalimat {i}.", "hypothesis": f"Kalimat {i}.", "label": "ecn"[i % 3]}) + "\n"
            for i in range(9)
        ),
        encoding="utf-8",
    )
    ck = tmp_path / "ck"
    base = _script(folder, ck, "--batch", "4", "--extra-share", "0.5")
    proc = subprocess.run(base + ["--steps", "4", "--keep-evals", "--nli", f"id:{nli}"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "9 extra (NLI id)" in proc.stdout
    assert (ck / "step-2.pt").is_file() and (ck / "step-4.pt").is_file()
    out = tmp_path / "reader.pt"
    proc = subprocess.run(
        base + ["--export", str(out), "--from-step", "2"], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    meta = torch.load(out, map_location="cpu", weights_only=True)["meta"]
    assert meta["step"] == 2 and meta["data"][f"nli/id:{nli}"] == hashlib.sha256(nli.read_bytes()).hexdigest()
    for bad, says in ((f"{nli}", "wants LANG:FILE"), (f"id:{tmp_path / 'none.jsonl'}", "--nli id:")):
        proc = subprocess.run(base + ["--steps", "1", "--nli", bad], capture_output=True, text=True, timeout=600)
        assert proc.returncode != 0 and says in proc.stderr


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_probe_is_xnli_devs_training_premises_in_the_never_trained_languages():
    import argparse

    from mfact.core.training.train_pair import _probe
    from mfact.core.training.examples import XNLI_TRAIN_LANGS
    rows, langs = _probe(argparse.Namespace(xnli_dev=str(XNLI), probe_rows=40, langs=",".join(XNLI_TRAIN_LANGS)))
    assert langs == ("bg", "el", "sw", "th", "tr", "ur") and len(rows) == 40
    assert all(r["item"] % 5 != 0 for r in rows)            # never a held-out premise of bench/verify_xnli.py
    assert set(rows[0]["text"]) == set(langs)
    more = ",".join(XNLI_TRAIN_LANGS + ("bg", "el", "th", "tr"))
    assert _probe(argparse.Namespace(xnli_dev=str(XNLI), probe_rows=40, langs=more))[1] == ("sw", "ur")
    assert _probe(argparse.Namespace(xnli_dev="", probe_rows=40, langs=more)) == ([], ())


def test_a_three_class_reader_reads_entailment_against_the_other_two_and_keeps_its_head_in_its_file(det, tmp_path):
    from mfact.core.checking.neural.detector import prepare
    from mfact.core.checking.neural.pair_reader import PairModel, PairReader, binary_logit, save_reader
    z = torch.tensor([[2.0, 0.5, -1.0], [-1.0, 1.0, 1.0]])
    p = torch.softmax(z, -1)
    assert torch.allclose(binary_logit(z), torch.log(p[:, 0] / (p[:, 1] + p[:, 2])), atol=1e-5)
    assert torch.equal(binary_logit(torch.tensor([[0.7], [-0.2]])), torch.tensor([0.7, -0.2]))
    with pytest.raises(ValueError, match="1 or 3"):
        PairModel.from_detector(det.model, 2)
    torch.manual_seed(3)
    m = PairModel.from_detector(det.model, 3)
    for q in m.head.parameters():
        torch.nn.init.normal_(q, std=0.2)
    m.eval()
    f = tmp_path / "r3.pt"
    save_reader(m, f, {"detector_sha256": det.digest}, det.model)
    assert torch.load(f, map_location="cpu", weights_only=True)["classes"] == 3
    r = PairReader(det, f)
    assert r.model.classes == 3 and r.model.head[-1].out_features == 3
    claim, wins = "Marie Curie was born in Paris.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]
    ids, _sp = det.tokens.sentence(claim)
    with torch.no_grad():
        out = m.scores(*prepare(det.cache, [(ids, f"{claim}\x000")], [wins], "cpu"))
    assert out.shape == (1, 3)
    assert r.logits([(claim, wins)])[0] == pytest.approx(float(binary_logit(out)[0]), abs=0.01)


def test_xnli_rows_keep_their_three_labels_and_a_batch_draws_them_on_request(tmp_path):
    import random

    from mfact.core.training.train_pair import Pool, draw, load_rows
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "test-en.tsv").write_text(
        "A.\tB.\tentailment\nA.\tC.\tneutral\nA.\tD.\tcontradiction\n", encoding="utf-8"
    )
    rows = load_rows(folder, ["en"])
    assert [(r["y"], r["y3"]) for r in rows] == [(1, 0), (0, 1), (0, 2)]
    pairs, ys = draw(Pool(rows), random.Random(0), 30, ("en",), 0.0, key="y3")
    assert {h: y for (_p, h), y in zip(pairs, ys)} == {"B.": 0, "C.": 1, "D.": 2}
    pairs, ys = draw(Pool(rows), random.Random(0), 30, ("en",), 0.0)
    assert {h: y for (_p, h), y in zip(pairs, ys)} == {"B.": 1, "C.": 0, "D.": 0}


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_trains_a_three_class_reader_the_verifier_loads(tmp_path, det):
    from mfact.core.training.pair_data import load_xnli_rows
    assert {r["y3"] for r in load_xnli_rows(XNLI, langs=("en",))} == {0, 1, 2}
    folder = _test_files(tmp_path)
    ck = tmp_path / "ck"
    base = _script(folder, ck, "--batch", "4")
    proc = subprocess.run(base + ["--steps", "2", "--classes", "3"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / "reader.pt"
    proc = subprocess.run(base + ["--export", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    from mfact.core.checking.neural.pair_reader import load_reader
    r = load_reader(det, out)
    assert r is not None and r.model.classes == 3 and r.meta["run_args"]["classes"] == 3
    proc = subprocess.run(
        base + ["--classes", "3", "--vitaminc", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode != 0 and "--classes 3 needs XNLI's three labels" in proc.stderr


def test_a_consistency_batch_reads_each_row_twice_in_two_languages_with_one_label():
    import random

    from mfact.core.training.train_pair import draw_pairs
    rows = [{"item": i, "y": i % 2, "text": {lg: (f"P{i}{lg}", f"H{i}{lg}") for lg in ("en", "es", "fr")}}
            for i in range(30)]
    pairs, ys = draw_pairs(rows, random.Random(2), 400, ("en", "es", "fr"), 0.0)
    assert len(pairs) == 400 and len(ys) == 400
    for (a, b), (ya, yb) in zip(zip(pairs[0::2], pairs[1::2]), zip(ys[0::2], ys[1::2])):
        assert a[1][1:-2] == b[1][1:-2] and ya == yb == int(a[1][1:-2]) % 2   # one row, one label
        assert a[1][-2:] != b[1][-2:]                                        # read in two languages
        assert a[0][-2:] == a[1][-2:]                                        # cross 0: one language a pair
    pairs, _ = draw_pairs(rows, random.Random(2), 400, ("en", "es", "fr"), 1.0)
    assert any(p[0][-2:] != p[1][-2:] for p in pairs)                        # cross 1: premises in other languages


def test_the_consistency_term_is_zero_for_alike_verdicts_and_grows_with_their_difference():
    from mfact.core.training.train_pair import consistency
    assert float(consistency(torch.tensor([1.5, 1.5, -2.0, -2.0]))) == pytest.approx(0.0, abs=1e-7)
    small = float(consistency(torch.tensor([0.5, -0.5])))
    big = float(consistency(torch.tensor([3.0, -3.0])))
    assert 0 < small < big
    p, q = torch.sigmoid(torch.tensor(3.0)), torch.sigmoid(torch.tensor(-3.0))
    kl = p * torch.log(p / q) + (1 - p) * torch.log((1 - p) / (1 - q))
    assert big == pytest.approx(float(kl), rel=1e-4)                          # symmetric: both KLs are equal here
    z = torch.tensor([2.0, -1.0], requires_grad=True)
    consistency(z).backward()
    assert z.grad[0] > 0 > z.grad[1]                                          # pulls the two verdicts together


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_the_training_script_trains_with_the_consistency_term_and_refuses_what_it_cannot_pair(tmp_path):
    folder = _test_files(tmp_path)
    ck = tmp_path / "ck"
    base = _script(folder, ck, "--steps", "2")
    proc = subprocess.run(base + ["--batch", "4", "--consistency", "1.0"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert torch.load(ck / "last.pt", map_location="cpu", weights_only=False)["args"]["consistency"] == 1.0
    proc = subprocess.run(base + ["--batch", "5", "--consistency", "1.0"], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "even --batch" in proc.stderr
    proc = subprocess.run(base + ["--batch", "4", "--consistency", "1.0", "--vitaminc", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and "English only" in proc.stderr


@pytest.mark.skipif(not (XNLI / "dev-en.tsv").is_file(), reason="needs ../shared/data/xnli-dev")
def test_layer_dropout_acts_only_while_training_and_the_script_sets_it(det, tmp_path):
    from mfact.core.checking.neural.detector import prepare
    from mfact.core.checking.neural.pair_reader import PairModel
    m = PairModel.from_detector(det.model)
    claim, wins = "Marie Curie was born in Paris.", ["Marie Curie est née le 7 novembre 1867 à Varsovie."]
    ids, _sp = det.tokens.sentence(claim)
    batch = prepare(det.cache, [(ids, f"{claim}\x000")], [wins], "cpu")
    m.train()
    m.head[2].p = 0.0                                     # only the layers' dropout left
    with torch.no_grad():
        assert torch.equal(m(*batch), m(*batch))          # off by default: as the committed reader trained
        m.drop = 0.3
        assert not torch.equal(m(*batch), m(*batch))
        m.eval()
        assert torch.equal(m(*batch), m(*batch))
    folder = _test_files(tmp_path)
    ck = tmp_path / "ck"
    proc = subprocess.run(_script(folder, ck, "--batch", "4", "--steps", "2", "--layer-dropout", "0.1"),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert torch.load(ck / "last.pt", map_location="cpu", weights_only=False)["args"]["layer_dropout"] == 0.1
