"""PAWS-X in the detector's training data (mix v4) and fine-tuning from given weights (`--init`):
the loader on a small sample written here in the layout of MESH's data/pawsx/, the examples
(paraphrases supported, word-order swaps as bags, cross-lingual pairs), the v4 generator, the dev
set's held-out pairs, and a tiny training run started from a weights file."""
from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
from test_detector import SENTS, _fake_wiki

from mfact.core.training import detector_data as dd

N = 60          # pairs per split
NS = 7          # the pair whose German translation is missing ("NS")


def _pair(i: int) -> dict[str, tuple[str, str, int]]:
    """Pair i in three languages: even i a paraphrase (1), odd i the two names swapped (0)."""
    a, b = f"Alba{i}", f"Borsa{i}"
    if i % 2 == 0:
        return {"en": (f"The {a} River is a tributary of the {b} River in Romania .",
                       f"The {a} River is a tributary of the River {b} in Romania .", 1),
                "de": (f"Der Fluss {a} ist ein Nebenfluss des Flusses {b} in Rumänien.",
                       f"Der {a} ist ein Nebenfluss der {b} in Rumänien.", 1),
                "zh": (f"{a} 河是罗马尼亚 {b} 河的支流。", f"{a} 河是罗马尼亚境内 {b} 河的一条支流。", 1)}
    return {"en": (f"The {a} River is a tributary of the {b} River in `` Romania '' .",
                   f"The {b} River is a tributary of the {a} River in `` Romania '' .", 0),
            "de": (f'Der Fluss {a} ist ein Nebenfluss des Flusses {b} in "Rumänien".',
                   f'Der Fluss {b} ist ein Nebenfluss des Flusses {a} in "Rumänien".', 0),
            "zh": (f"{a} 河是罗马尼亚 {b} 河的支流。", f"{b} 河是罗马尼亚 {a} 河的支流。", 0)}


def write_pawsx(folder: Path) -> Path:
    """dev-<lang>.tsv (sentence1, sentence2, label), test-<lang>.tsv (no label) and the labelled
    tsv_files/test-00000-of-00001.tsv (id, sentences, label), written as pandas writes them."""
    (folder / "tsv_files").mkdir(parents=True, exist_ok=True)
    for split, off in (("dev", 0), ("test", N)):
        for lang in ("en", "de", "zh"):
            with (folder / f"{split}-{lang}.tsv").open("w", encoding="utf-8", newline="") as fh:
                w = csv.writer(fh, delimiter="\t", lineterminator="\n")
                for i in range(off, off + N):
                    s1, s2, y = _pair(i)[lang]
                    if lang == "de" and i == NS:
                        s2, y = "NS", 0
                    w.writerow([s1, s2, y] if split == "dev" else [s1, s2])
    with (folder / "tsv_files" / "test-00000-of-00001.tsv").open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "sentence1", "sentence2", "label"])
        for i in range(N, 2 * N):
            w.writerow([1000 + i, *_pair(i)["zh"]])
    return folder


def test_load_pawsx_sample(tmp_path):
    folder = write_pawsx(tmp_path / "pawsx")
    assert '"Der Fluss Alba1 ist' in (folder / "dev-de.tsv").read_text(encoding="utf-8")   # quoted as pandas does
    train, held = dd.load_pawsx(folder), dd.load_pawsx(folder, heldout=True)
    rows = train + held
    assert train and held and len(rows) == 2 * N
    assert not {r["group"] for r in train} & {r["group"] for r in held}
    assert {r["id"] for r in held}.isdisjoint({r["id"] for r in train})
    by_id = {r["id"]: r for r in rows}
    assert all(r["y"] == 1 - int(r["id"].removeprefix("dev-")) % 2 for r in rows if r["id"].startswith("dev-"))
    # the test split: ids and labels from the labelled file (its own rows have no label)
    assert by_id["1061"]["y"] == 0 and by_id["1060"]["y"] == 1 and len([r for r in rows if r["id"].isdigit()]) == N
    # a missing translation: that language left out of that pair only
    assert set(by_id[f"dev-{NS}"]["text"]) == {"en", "zh"} and set(by_id["dev-5"]["text"]) == {"en", "de", "zh"}
    # pandas quoting undone, PAWS-X's tokenised English joined again
    assert by_id["dev-1"]["text"]["de"][0] == 'Der Fluss Alba1 ist ein Nebenfluss des Flusses Borsa1 in "Rumänien".'
    assert by_id["dev-1"]["text"]["en"][0] == 'The Alba1 River is a tributary of the Borsa1 River in "Romania".'
    assert dd.load_pawsx(tmp_path / "missing") == []
    files = dd.pawsx_files(folder)
    assert set(files) == {f"pawsx/{s}-{lang}.tsv" for s in ("dev", "test") for lang in ("en", "de", "zh")} | \
        {"pawsx/tsv_files/test-00000-of-00001.tsv"}
    hashes = dd.file_hashes(files)
    assert hashes["pawsx/dev-de.tsv"] != hashes["pawsx/test-de.tsv"] and len(hashes) == len(files)


def test_pawsx_pairs_that_share_a_sentence_are_held_out_together():
    rows = [{"id": "1", "y": 0, "text": {"en": ("A b c d.", "C b a d.")}},
            {"id": "2", "y": 1, "text": {"en": ("D c b a.", "Other words here.")}},     # the same words as 1
            {"id": "3", "y": 1, "text": {"en": ("Unrelated one.", "Unrelated two.")}}]
    dd._pawsx_groups(rows)
    assert rows[0]["group"] == rows[1]["group"] != rows[2]["group"]


def test_pawsx_examples(tmp_path):
    rows = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"))
    by_y = dd.pawsx_by_label(rows)
    sentences = {s: r for r in rows for pair in r["text"].values() for s in pair}
    rng = random.Random(4)
    kinds = set()
    for _ in range(400):
        ex = dd.pawsx_example(by_y, rng)
        kinds.add(ex.kind)
        row = sentences[ex.sentence]
        assert ex.article == f"pawsx-{row['id']}"
        # the evidence holds the other sentence of the claim's pair, in the evidence language
        i = row["text"][ex.lang].index(ex.sentence)
        assert row["text"][ex.ev_lang][1 - i] in ex.evidence and 1 <= len(ex.evidence) <= 3
        assert all(sentences[w]["group"] != row["group"] for w in ex.evidence if w != row["text"][ex.ev_lang][1 - i])
        if row["y"] == 1:
            assert ex.spans == [] and ex.kind in ("pawsx", "pawsx-x")
        else:
            assert ex.spans == dd.BAG and ex.kind in ("pawsx-bag", "pawsx-x-bag")
        assert (ex.lang != ex.ev_lang) == ("-x" in ex.kind)
    assert kinds == {"pawsx", "pawsx-x", "pawsx-bag", "pawsx-x-bag"}


def _articles():
    return [dd.Article("en", f"A{i}", [s.replace("Curie", f"Curie{i}") for s in SENTS]) for i in range(6)]


def test_v4_generator_draws_pawsx(tmp_path):
    rows = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"))
    arts = _articles()
    pools = dd.Pools.build(arts).build_forms(arts)
    assert dd.mix_uses("v4", "pawsx") and dd.mix_uses("v4", "vitc") and not dd.mix_uses("v3", "pawsx")
    assert dd.mix_inflects("v4") and abs(sum(w for _k, w in dd.MIX_V4) - 1.0) < 1e-9
    rng = random.Random(1)
    drawn = [dd.Generator(arts, pools, mix="v4", pawsx=rows).example(rng) for _ in range(600)]
    paws = [ex for ex in drawn if ex is not None and ex.kind.startswith("pawsx")]
    assert 0.07 * 600 < len(paws) < 0.18 * 600
    assert {ex.kind for ex in paws} == {"pawsx", "pawsx-x", "pawsx-bag", "pawsx-x-bag"}
    # without PAWS-X files the share is drawn as kept sentences; other mixes never draw it
    rng = random.Random(1)
    assert not any(ex is not None and ex.kind.startswith("pawsx")
                   for ex in (dd.Generator(arts, pools, mix="v4").example(rng) for _ in range(300)))
    rng = random.Random(1)
    assert not any(ex is not None and ex.kind.startswith("pawsx")
                   for ex in (dd.Generator(arts, pools, mix="v3", pawsx=rows).example(rng) for _ in range(300)))


@pytest.mark.parametrize("mix, lo, hi", [("v5", 0.05, 0.15), ("v6", 0.02, 0.09), ("v9", 0.03, 0.10)])
def test_paraphrase_mixes_draw_pawsx_paraphrases_without_bags(tmp_path, mix, lo, hi):
    rows = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"))
    arts = _articles()
    pools = dd.Pools.build(arts).build_forms(arts)
    assert dd.mix_uses(mix, "pawsx") and abs(sum(w for _k, w in dd.MIXES[mix]) - 1.0) < 1e-9
    rng = random.Random(1)
    drawn = [dd.Generator(arts, pools, mix=mix, pawsx=rows).example(rng) for _ in range(600)]
    paws = [ex for ex in drawn if ex is not None and ex.kind.startswith("pawsx")]
    assert lo * 600 < len(paws) < hi * 600
    assert {ex.kind for ex in paws} == {"pawsx", "pawsx-x"} and all(ex.spans == [] for ex in paws)


def test_v10_inserts_errors_into_human_paraphrases_at_the_changed_words(tmp_path):
    """Mix v10: v9's shares, and some PAWS-X paraphrases carry an inserted error labelled at the
    changed words (the rest stay supported, bags stay bags); v9 inserts none."""
    rows = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"))
    arts = _articles()
    pools = dd.Pools.build(arts).build_forms(arts)
    assert dd.MIXES["v10"] == dd.MIX_V9 and dd.mix_pawsx_langs("v10") == dd.mix_pawsx_langs("v9")
    drawn = {}
    for mix in ("v9", "v10"):
        rng = random.Random(3)
        got = [dd.Generator(arts, pools, mix=mix, pawsx=rows).example(rng, kind="pawsx-para") for _ in range(300)]
        drawn[mix] = [ex for ex in got if ex is not None]
    assert all(ex.spans == [] and ex.kind in ("pawsx", "pawsx-x") for ex in drawn["v9"])
    wrong = [ex for ex in drawn["v10"] if ex.spans]
    assert 0.25 * 300 < len(wrong) < 0.5 * 300
    for ex in wrong:
        base, _dash, kind = ex.kind.rpartition("-")
        assert base in ("pawsx", "pawsx-x") and kind in ("entity", "relation", "contradiction")
        assert all(0 <= a < b <= len(ex.sentence) and ex.sentence[a:b].strip() for a, b in ex.spans)
    assert any(ex.spans == [] for ex in drawn["v10"])


def test_human_error_labels_only_the_changed_words():
    arts = _articles()
    pools = dd.Pools.build(arts)
    text = "He was born in 1901 and died in 1950."
    for seed in range(20):
        got = dd.human_error(text, "en", pools, text, random.Random(seed))
        assert got is not None
        new, spans, kind = got
        assert new != text and kind in ("entity", "relation", "contradiction") and spans
        kept = new
        for a, b in sorted(spans, reverse=True):
            kept = kept[:a] + kept[b:]
        assert set(kept.split()) <= set(text.split()) | {"."}, (new, spans)


def test_dev_set_takes_held_out_pawsx_pairs_after_the_rest(tmp_path):
    folder = write_pawsx(tmp_path / "pawsx")
    held = dd.load_pawsx(folder, heldout=True)
    held_ids = {f"pawsx-{r['id']}" for r in held}
    arts = _articles()
    pools = dd.Pools.build(arts)
    base = dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(extra=2))
    with_p = dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(extra=2, pawsx_rows=held))
    assert [e.sentence for e in with_p[:len(base)]] == [e.sentence for e in base]
    added = with_p[len(base):]
    assert len(added) == 2 * 2 * len(dd.PAWSX_LANGS) and all(e.article in held_ids for e in added)
    assert len(dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(pawsx_rows=held))) == len(
        dd.dev_set(arts, pools, per_lang=10))


def test_bags_are_scored_apart():
    """A bag counts only as detected or not (its own line), never in the word F1 or the score."""
    pytest.importorskip("torch")
    from mfact.core.training.train_detector import evaluate
    kept = dd.Example("Marie Curie was born in Warsaw.", [], ["Marie Curie was born in Warsaw."], "kept", "en")
    para = dd.Example("Curie was born in Warsaw.", [], ["Marie Curie was born in Warsaw."], "pawsx-x", "en", "de")
    bag = dd.Example("Warsaw was born in Curie.", list(dd.BAG), ["Curie was born in Warsaw."], "pawsx-bag", "en")
    probs = [[0.1] * 6, [0.1, 0.1, 0.9, 0.1, 0.1], [0.1, 0.9, 0.1, 0.1, 0.1]]
    res = evaluate([kept, para, bag], probs)
    alone = evaluate([kept, para], probs[:2])
    assert res["kinds"]["pawsx-bag (any word flagged)"] == 1.0
    assert res["kinds"]["pawsx-x (none flagged)"] == 0.0 and res["score"] == alone["score"]
    assert set(res["langs"]) == {"en", "pawsx-x"}


@pytest.fixture(scope="module")
def weights_file(tmp_path_factory):
    """An exported weights file (split 10, not the default) whose head differs from a new model's."""
    torch = pytest.importorskip("torch")
    from mfact.core.checking.neural.detector import new_model, save_weights
    model, _tok = new_model(10)
    with torch.no_grad():
        model.head[1].weight.fill_(0.01)
        model.head[3].bias.fill_(-2.5)
    path = tmp_path_factory.mktemp("init") / "det.pt"
    save_weights(model, path, {"command": "test"})
    return path


def test_init_loads_the_weights_and_their_split(weights_file, tmp_path):
    torch = pytest.importorskip("torch")
    from types import SimpleNamespace

    from mfact.core.checking.neural.detector import new_model
    from mfact.core.training.train_detector import _apply_init, _load_init
    args = SimpleNamespace(init=str(weights_file), split=8, explicit=set())
    init = _load_init(args, None)
    assert args.split == 10 and init["sha256"] and _load_init(args, {"resumed": 1}) is None
    model, _tok = new_model(args.split)
    _apply_init(model, init)
    w = model.head[1].weight
    assert torch.all(model.head[3].bias == -2.5) and torch.allclose(w, torch.full_like(w, 0.01), atol=1e-4)
    with pytest.raises(SystemExit, match="differs from the --init weights' split 10"):
        _load_init(SimpleNamespace(init=str(weights_file), split=8, explicit={"split"}), None)
    with pytest.raises(SystemExit, match="no such file"):
        _load_init(SimpleNamespace(init=str(tmp_path / "none.pt"), split=8, explicit=set()), None)
    (tmp_path / "bad.pt").write_bytes(b"not torch")
    with pytest.raises(SystemExit, match="not a checkpoint or weights file"):
        _load_init(SimpleNamespace(init=str(tmp_path / "bad.pt"), split=8, explicit=set()), None)
    torch.save({"x": 1}, tmp_path / "other.pt")
    with pytest.raises(SystemExit, match="no detector weights"):
        _load_init(SimpleNamespace(init=str(tmp_path / "other.pt"), split=8, explicit=set()), None)


@pytest.mark.timeout(300)
def test_fine_tune_v4_from_weights_small_and_resume(weights_file, tmp_path):
    """`--mix v4 --init FILE --small`: the run starts from the file's weights (scored at step 0; with
    a zero learning rate they stay as they were), records them in its meta with the PAWS-X hashes,
    and `--resume` goes on from its last checkpoint."""
    torch = pytest.importorskip("torch")
    from mfact.core.training.train_detector import main
    wiki = tmp_path / "wiki"
    _fake_wiki(wiki, ("en", "pl", "lt"), 40)
    ck = tmp_path / "ck"
    args = ["--small", "--mix", "v4", "--wiki", str(wiki), "--silver", str(tmp_path / "nosilver"), "--no-leads",
            "--xnli", str(tmp_path / "noxnli"), "--vitaminc", str(tmp_path / "novitc"),
            "--pawsx", str(write_pawsx(tmp_path / "pawsx")), "--dev-extra", "1",
            "--init", str(weights_file), "--ckpt-dir", str(ck), "--steps", "2", "--eval-every", "2", "--lr", "0"]
    assert main(args) == 0
    dev = [json.loads(x) for x in (ck / "dev.jsonl").read_text().splitlines()]
    assert [d["step"] for d in dev] == [0, 2]
    assert any(k.startswith("pawsx") for k in dev[0]["kinds"])
    last = torch.load(ck / "last.pt", map_location="cpu", weights_only=False)
    init = torch.load(weights_file, map_location="cpu", weights_only=True)["state"]
    assert last["args"]["split"] == 10 and set(last["model"]) == set(init)
    assert all(torch.equal(last["model"][k], init[k].float()) for k in init)
    meta = json.loads((ck / "meta.json").read_text())
    assert meta["init"]["path"] == str(weights_file) and meta["data"]["pawsx_train_pairs"] > 0
    assert (
        "pawsx/dev-de.tsv" in meta["data_sha256"] and "pawsx/tsv_files/test-00000-of-00001.tsv" in meta["data_sha256"]
    )
    assert main(args + ["--resume", "--steps", "3"]) == 0
    dev = [json.loads(x) for x in (ck / "dev.jsonl").read_text().splitlines()]
    assert [d["step"] for d in dev] == [0, 2, 3]            # resumed at 2: no second step-0 evaluation
    meta = json.loads((ck / "meta.json").read_text())
    assert len(meta["commands"]) == 2 and meta["init"]["sha256"]
    assert torch.load(ck / "last.pt", map_location="cpu", weights_only=False)["step"] == 3


def test_v7_reads_pawsx_in_four_languages_only(tmp_path):
    """Mix v7 (after v5 and v6 stopped flagging Korean): PAWS-X pairs of en, de, es, fr only, for
    training, the held-out dev rows and the data hashes alike; v6 reads every language."""
    from argparse import Namespace

    from mfact.core.training.train_detector import side_data
    folder = write_pawsx(tmp_path / "pawsx")
    args = Namespace(xnli=str(tmp_path / "none"), vitaminc="", pawsx=str(folder))
    v6, v7 = side_data(args, "v6"), side_data(args, "v7")
    assert any("zh" in r["text"] for r in v6["pawsx"] + v6["pawsx_held"])
    assert v7["pawsx"] and all(set(r["text"]) <= {"en", "de"} for r in v7["pawsx"] + v7["pawsx_held"])
    assert [r["id"] for r in v7["pawsx"]] == [r["id"] for r in v6["pawsx"]]      # same pairs, same split
    assert not any(k.endswith("-zh.tsv") for k in v7["files"]) and any(k.endswith("-zh.tsv") for k in v6["files"])


def test_pawsx_never_trains_a_held_out_language(tmp_path, monkeypatch):
    """A language the corruption data holds out, or that no training article has, is never trained on
    through PAWS-X (v5 and v6 trained Korean paraphrases, all supported, and flagged no Korean word
    after); its held-out pairs stay in the dev set. (The sample data has en, de and zh: zh plays the
    held-out language.)"""
    from argparse import Namespace

    from mfact.core.training import detector_data as dd
    from mfact.core.training.train_detector import side_data
    folder = write_pawsx(tmp_path / "pawsx")
    args = Namespace(xnli=str(tmp_path / "none"), vitaminc="", pawsx=str(folder))
    before = side_data(args, "v6")
    monkeypatch.setattr(dd, "HELDOUT_LANGS", ("lt", "zh", "eu"))
    got = side_data(args, "v6")
    assert any("zh" in r["text"] for r in before["pawsx"])
    assert got["pawsx"] and not any("zh" in r["text"] for r in got["pawsx"])
    assert any("zh" in r["text"] for r in got["pawsx_held"])
    only_en = side_data(args, "v6", {"en", "pl"})        # the languages of the training articles
    assert only_en["pawsx"] and all(set(r["text"]) == {"en"} for r in only_en["pawsx"])
    assert any("de" in r["text"] for r in only_en["pawsx_held"])


def test_extend_appends_a_clause_labelled_at_its_words():
    src = "Marie Curie was born in 1867 in Warsaw and died in 1934."
    other = "In 1903, the prize went to her husband, who taught at the Sorbonne for many years."
    seen = set()
    for seed in range(30):
        new, spans = dd.extend(src, other, "en", random.Random(seed))
        body = src[:-1]
        assert new.startswith(body) and new.endswith(".")
        marked = new[spans[0][0]:spans[-1][1]]
        # the appended clause, and only it, is labelled: a non-initial clause of `other`
        assert marked in other and spans[0][0] > len(body) and new[len(body):spans[0][0]] in (", ", " and ", "; ")
        seen.add(new[len(body):spans[0][0]])
    assert seen == {", ", " and ", "; "}
    # no sentence end, or a clause too short: nothing made
    assert dd.extend("Marie Curie", other, "en", random.Random(1)) is None
    assert dd.extend(src, "Yes.", "en", random.Random(1)) is None
    # spaceless scripts join with a full-width comma, labelled by character
    new, spans = dd.extend("她出生于华沙。", "她的丈夫皮埃尔是一位物理学家", "zh", random.Random(2))
    assert new == "她出生于华沙，她的丈夫皮埃尔是一位物理学家。" and new[spans[0][0]] == "她" and spans[0][0] == 7


def test_v11_draws_extensions_with_the_source_in_the_evidence(tmp_path):
    rows = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"))
    arts = _articles()
    pools = dd.Pools.build(arts).build_forms(arts)
    assert abs(sum(w for _k, w in dd.MIX_V11) - 1.0) < 1e-9 and dd.mix_uses("v11", "extension")
    rng = random.Random(4)
    drawn = [dd.Generator(arts, pools, mix="v11", pawsx=rows).example(rng) for _ in range(800)]
    ext = [ex for ex in drawn if ex is not None and ex.kind == "extension"]
    assert 0.04 * 800 < len(ext) < 0.13 * 800
    for ex in ext:
        assert ex.spans and ex.spans[-1][1] <= len(ex.sentence)
        start = ex.spans[0][0]
        # the sentence up to the clause is a copy of an evidence sentence; the clause is in none
        head = ex.sentence[:start].rstrip(" ,;").removesuffix(" and").rstrip(" ,;")
        clause = ex.sentence[start:ex.spans[-1][1]]
        assert any(e.startswith(head) for e in ex.evidence), ex
        assert not any(clause in e for e in ex.evidence), ex


def test_dev_set_takes_extensions_last(tmp_path):
    held = dd.load_pawsx(write_pawsx(tmp_path / "pawsx"), heldout=True)
    arts = _articles()
    pools = dd.Pools.build(arts)
    base = dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(extra=2, pawsx_rows=held))
    with_e = dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(extra=2, pawsx_rows=held, extensions=True))
    assert [e.sentence for e in with_e[:len(base)]] == [e.sentence for e in base]
    added = with_e[len(base):]
    assert len(added) == 2 and all(e.kind == "extension" and e.spans for e in added)
    assert dd.dev_set(arts, pools, per_lang=10, extras=dd.DevExtras(extensions=True)) == dd.dev_set(
        arts, pools, per_lang=10)
