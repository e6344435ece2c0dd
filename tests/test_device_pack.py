"""The folder carried to a lent GPU machine for detector training (core/training/device_pack.py)."""
import pickle
import subprocess
import sys
import tarfile

import pytest

torch = pytest.importorskip("torch")

from test_detector_pawsx import write_pawsx  # noqa: E402

from mfact.core.training import detector_data as dd  # noqa: E402
from mfact.core.training import device_pack  # noqa: E402


def test_shards_of_a_checkpoint_come_back_as_a_checkpoint_export_reads(tmp_path):
    """The device writes best.pt as fp16 shards under 14 MB (what a call brings back is 16 MiB a
    file); joined here they are the same weights (fp16-rounded) with the run's meta and log."""
    (tmp_path / "unshard.py").write_text(device_pack.UNSHARD_PY, encoding="utf-8")
    ck, out, back = tmp_path / "ck", tmp_path / "out", tmp_path / "back"
    ck.mkdir()
    out.mkdir()
    model = {f"layer{i}.w": torch.randn(1000, 1000) for i in range(8)} | {"steps": torch.tensor(3)}
    torch.save({"model": model, "opt": {"x": 1}, "step": 2576, "split": 6}, ck / "best.pt")
    (ck / "meta.json").write_text('{"seed": 13}', encoding="utf-8")
    (ck / "train.log").write_text("step 2576: dev score 0.907\n", encoding="utf-8")
    for args in (["shard", ck, "v7", out], ["join", out, "v7", back]):
        subprocess.run([sys.executable, tmp_path / "unshard.py", *map(str, args)], check=True, capture_output=True)
    shards = sorted(out.glob("v7_*.pt"))
    assert len(shards) == 2 and all(p.stat().st_size < 14.5e6 for p in shards)
    got = torch.load(back / "best.pt", weights_only=False)
    assert got["step"] == 2576 and got["split"] == 6 and "opt" not in got
    assert set(got["model"]) == set(model) and got["model"]["steps"].item() == 3
    assert all(torch.equal(got["model"][k], v.half().float()) for k, v in model.items() if v.is_floating_point())
    assert (back / "meta.json").read_text() == '{"seed": 13}' and "0.907" in (back / "train.log").read_text()


@pytest.mark.slow
def test_pack_writes_everything_a_run_unpacks(tmp_path):
    arts = [dd.Article("fr", f"Article {i}", [f"Marie Curie est née à Varsovie en {1860 + i}."] * 4) for i in range(3)]
    pkl = tmp_path / "articles.pkl"
    pkl.write_bytes(pickle.dumps((arts, {})))
    xnli = tmp_path / "xnli"
    xnli.mkdir()
    (xnli / "dev-fr.tsv").write_text("Il pleut.\tIl fait beau.\tcontradiction\n" * 6, encoding="utf-8")
    vitc = tmp_path / "vitc"
    vitc.mkdir()
    out = tmp_path / "carry"
    size = device_pack.pack(out, device_pack.Sources(pkl, xnli, vitc, write_pawsx(tmp_path / "pawsx")), 1.0)
    names = {p.name for p in out.iterdir()}
    assert {"articles.pkl.xz", "e5-trim.bin.xz", "xnli.tar.xz", "pawsx.tar.xz", "site.tar.xz", "run.sh",
            "unshard.py", "vitc"} <= names and "e5-trim.bin" not in names
    assert size < 64 * 2 ** 20 - 5 * 2 ** 20          # room for the tracked tree without the weights
    with tarfile.open(out / "site.tar.xz") as t:
        tops = {n.split("/")[1] for n in t.getnames() if n.count("/") >= 1}
        dats = {n.rsplit("/", 1)[1] for n in t.getnames() if "/locale-data/" in n}
    assert set(device_pack.SITE_PACKAGES) <= tops
    assert {"root.dat", "fr.dat", "fr_CA.dat"} <= dats and "haw.dat" not in dats      # mfact's languages only
    with tarfile.open(out / "xnli.tar.xz") as t:
        assert "xnli-dev/dev-fr.tsv" in t.getnames()
    assert "--mix $m" in (out / "run.sh").read_text() and 'MIXES=${MIXES:-v7}' in (out / "run.sh").read_text()


def test_a_missing_input_is_one_clear_line(tmp_path, capsys):
    assert device_pack.main(["--out", str(tmp_path / "c"), "--articles", str(tmp_path / "none.pkl")]) == 2
    err = capsys.readouterr().err
    assert "--articles" in err and "none.pkl" in err and err.count("\n") == 1


def test_run_sh_reads_each_mix_with_its_own_split_or_the_default():
    """`MIXES="v7:4 v3 v7:0 v9:4:14"`: each entry's split after the colon, $SPLIT without one, and its
    seed after a second colon, $SEED without one; the tag names both (run.sh's own lines, run by bash)."""
    lines = device_pack.RUN_SH.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("for e in $MIXES"))
    body = [line for line in lines[start + 1:start + 4] if line.strip().startswith(("m=", "tag="))]
    assert len(body) == 2, body
    script = "\n".join(["SPLIT=6", "SEED=13", "for e in $MIXES; do", *body, 'echo "$m $sp $sd $tag"', "done"])
    out = subprocess.run(["bash", "-c", script], env={"MIXES": "v7:4 v3 v7:0 v9:4:14", "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:4] == ["v7 4 13 v7-x4-s13", "v3 6 13 v3-x6-s13", "v7 0 13 v7-x0-s13", "v9 4 14 v9-x4-s14"]
    assert "--seed $sd --split $sp" in device_pack.RUN_SH
