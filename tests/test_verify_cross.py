"""The experimental cross-encoder verifier (`--verifier cross[:FILE]`): loading, windows, caching,
verdict shape, the CLI path, clear errors, and the training script end to end (slow)."""
from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from mfact.core.checking import build_verifier  # noqa: E402
from mfact.core.checking.neural.cross_model import new_model, save_weights  # noqa: E402
from mfact.core.checking.verify.cross import CrossVerifier, windows_of  # noqa: E402
from mfact.core.cli import main as cli_main  # noqa: E402
from mfact.core.config import Config  # noqa: E402
from mfact.core.errors import MfactError
from mfact.core.session import Evidence  # noqa: E402

LONG = ("Marie Curie was a physicist and chemist. " * 5 + "She was born in Warsaw in 1867. "
        + "She moved to Paris in 1891. " + "Her husband was Pierre Curie. " * 4)


@pytest.fixture(scope="module")
def weights(tmp_path_factory):
    """A weights file as the training script writes it (untrained upper layers: fast to make)."""
    torch.manual_seed(0)
    model, _tok = new_model(6)
    path = tmp_path_factory.mktemp("cross") / "cv.pt"
    save_weights(model, path, {"version": "cross-test", "temperature": 1.0, "threshold": 0.5})
    return path


@pytest.fixture(scope="module")
def verifier(weights):
    v = build_verifier(Config(verifier=f"cross:{weights}"))
    assert isinstance(v, CrossVerifier)
    return v


def test_weights_file_holds_only_the_trained_part(weights):
    assert weights.stat().st_size < 30_000_000            # upper 6 layers + head, fp16
    blob = torch.load(weights, weights_only=True)
    assert blob["split"] == 6 and not any(".layers.0." in k or "word" in k for k in blob["state"])


def test_rules_before_the_model(verifier):
    ev = [Evidence(id="e", source="x", lang="en", title="Marie Curie", text="Marie Curie was born in Warsaw.")]
    assert verifier.verify("She was born in Warsaw.", "Marie Curie", "en", []).label == "NS"
    assert verifier.verify("Pierre Curie was a French physicist.", "Albert Einstein", "en", ev).label == "IR"


def test_windows_verdict_shape_and_shared_evidence_is_encoded_once(verifier):
    ws = windows_of(LONG, "en")
    assert len(ws) > 1 and all(len(w) <= 600 for w in ws) and any("born in Warsaw" in w for w in ws)
    assert windows_of("Short passage.", "en") == ["Short passage."]
    ev = [Evidence(id="a", source="x", lang="en", title="t", text="The Eiffel Tower is in Paris."),
          Evidence(id="b", source="x", lang="en", title="t", text=LONG)]
    v = verifier.verify("Marie Curie was born in Warsaw in 1867.", "Marie Curie", "en", ev)
    assert v.label in ("S", "NS") and 0.5 <= v.confidence <= 1
    assert v.evidence and set(v.evidence) <= {"a", "b"} and v.verifier.startswith("cross/cross-test")
    assert "p(supported)=" in v.reason
    before = len(verifier._states.data)
    again = verifier.verify("Marie Curie was born in Warsaw in 1867.", "Marie Curie", "en", ev)
    assert len(verifier._states.data) == before and again.confidence == pytest.approx(v.confidence, abs=1e-4)
    verifier.verify("Marie Curie was born in 1867.", "Marie Curie", "en", ev)
    windows = {w for e in ev for w in windows_of(e.text, "en")}
    passage_states = [k for k in verifier._states.data if k[1] in windows]
    assert len(passage_states) <= len(windows)            # a window is encoded once, whichever fact reads it
    # one batch gives the same verdicts as one fact at a time
    facts = ["Marie Curie was born in Warsaw.", "Marie Curie moved to Paris.", "Marie Curie was a chemist."]
    batch = verifier.verify_batch([(f, "Marie Curie", "en", ev) for f in facts])
    single = [verifier.verify(f, "Marie Curie", "en", ev) for f in facts]
    assert [b.label for b in batch] == [s.label for s in single]
    assert [b.confidence for b in batch] == pytest.approx([s.confidence for s in single], abs=2e-3)


def test_verify_pairs_with_the_cross_encoder(weights, tmp_path, capsys):
    f = tmp_path / "pairs.jsonl"
    rows = [{"id": 1, "lang": "fr", "claim": "Marie Curie est née à Varsovie.", "evidence": LONG},
            {"id": 2, "lang": "de", "claim": "Marie Curie wurde in Paris geboren.", "evidence": [LONG, "x y z"]}]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--json", "--verifier", f"cross:{weights}"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["id"] for o in out] == [1, 2] and all(o["label"] in ("S", "NS") for o in out)


def test_missing_weights_is_one_clear_error(tmp_path, capsys):
    with pytest.raises(MfactError, match="weights are missing"):
        CrossVerifier(weights_path=tmp_path / "none.pt")
    f = tmp_path / "p.jsonl"
    f.write_text('{"id": 1, "lang": "en", "claim": "x", "evidence": "y"}\n', encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--verifier", f"cross:{tmp_path / 'none.pt'}"]) == 1
    err = capsys.readouterr().err
    assert "weights are missing" in err and err.count("\n") == 1


@pytest.mark.slow
def test_training_script_end_to_end_on_a_small_sample(shared_dir, tmp_path, capsys):
    from mfact.core.training import train_cross

    out = tmp_path / "cv.pt"
    rc = train_cross.main(["--data", str(shared_dir / "data"), "--small", "--steps", "3", "--batch", "8",
                           "--xnli-eval-per-lang", "4", "--eval-per-set", "20", "--out", str(out)])
    assert rc == 0 and out.stat().st_size < 30_000_000
    text = capsys.readouterr().out
    assert "xnli_heldout: n=60" in text and "wrote" in text
    v = CrossVerifier(weights_path=out)
    assert v.meta["steps"] == 3 and "data_sha256" in v.meta and v.meta["command"].startswith("python -m")
    ev = [Evidence(id="e", source="x", lang="en", title="t", text="Marie Curie was born in Warsaw.")]
    assert v.verify("Marie Curie was born in Warsaw.", "Marie Curie", "en", ev).label in ("S", "NS")
