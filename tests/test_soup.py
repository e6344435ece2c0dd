"""Weight soups of detector runs (core/training/soup.py): the weighted mean of their weights, as a
checkpoint folder that `train_detector --export` reads like a run's."""
import json

import pytest

torch = pytest.importorskip("torch")

from mfact.core.training import soup  # noqa: E402


def _run(folder, scale, *, name="best.pt", split=6, shape=(3, 4), step=100):
    folder.mkdir(parents=True)
    model = {"enc.w": torch.full(shape, float(scale)), "head.b": torch.tensor([scale, -scale], dtype=torch.float16),
             "count": torch.tensor(7)}
    torch.save({"model": model, "split": split, "step": step, "meta": {"seed": 13, "mix": "v3"}}, folder / name)
    (folder / "meta.json").write_text(json.dumps({"seed": 13, "command": f"run {scale}"}), encoding="utf-8")
    return folder


def test_soup_is_the_weighted_mean_and_records_its_runs(tmp_path):
    a, b = _run(tmp_path / "a", 1.0), _run(tmp_path / "b", 4.0, name="last.pt", step=250)
    assert soup.main(["--out", str(tmp_path / "s"), str(a), str(b), "--weights", "3,1"]) == 0
    got = torch.load(tmp_path / "s" / "best.pt", weights_only=False)
    assert torch.allclose(got["model"]["enc.w"], torch.full((3, 4), 1.75))
    assert got["model"]["head.b"].dtype == torch.float16 and got["model"]["head.b"].tolist() == [1.75, -1.75]
    assert got["model"]["count"].item() == 7 and got["split"] == 6
    recipe = got["meta"]["soup"]
    assert [r["weight"] for r in recipe] == [0.75, 0.25] and [r["step"] for r in recipe] == [100, 250]
    assert recipe[1]["file"].endswith("last.pt") and len(recipe[0]["sha256"]) == 64
    assert [r["command"] for r in recipe] == ["run 1.0", "run 4.0"]
    meta = json.loads((tmp_path / "s" / "meta.json").read_text())
    assert meta["command"] == "run 1.0" and meta["soup"] == recipe


def test_equal_weights_by_default():
    assert soup.weights_of("", 4) == [0.25] * 4
    assert soup.weights_of("2,2,4", 3) == [0.25, 0.25, 0.5]
    for bad in ("1,2", "1,-1,1", "0,0,0"):
        with pytest.raises(ValueError):
            soup.weights_of(bad, 3)


@pytest.mark.parametrize("other, said", [(dict(shape=(4, 4)), "other parameters"), (dict(split=4), "different splits")])
def test_runs_of_other_models_are_refused(tmp_path, capsys, other, said):
    a, b = _run(tmp_path / "a", 1.0), _run(tmp_path / "b", 2.0, **other)
    assert soup.main(["--out", str(tmp_path / "s"), str(a), str(b)]) == 2
    assert said in capsys.readouterr().err and not (tmp_path / "s" / "best.pt").exists()


def test_a_missing_run_is_named(tmp_path, capsys):
    a = _run(tmp_path / "a", 1.0)
    assert soup.main(["--out", str(tmp_path / "s"), str(a), str(tmp_path / "nothing")]) == 2
    assert "nothing: no best.pt or last.pt" in capsys.readouterr().err
