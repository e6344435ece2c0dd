"""The E5 copy carried to a GPU machine: rows of the training texts kept byte for byte, the rest zero."""
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_detector_pawsx import write_pawsx  # noqa: E402

from mfact.core.checking.neural import e5torch  # noqa: E402
from mfact.core.training import detector_data as dd  # noqa: E402
from mfact.core.training import trim_e5  # noqa: E402


def _rows(f: e5torch.E5File) -> np.ndarray:
    return f.raw(trim_e5.WORD).reshape(f.config.vocab, -1)


def test_trimmed_copy_keeps_the_training_texts_rows_and_embeds_them_as_the_original(tmp_path):
    arts = [dd.Article("fr", f"Article {i}", [f"Marie Curie est née à Varsovie en {1860 + i}.",
                                              "Elle reçoit le prix Nobel de physique."]) for i in range(3)]
    pkl = tmp_path / "articles.pkl"
    pkl.write_bytes(pickle.dumps((arts, {})))
    out = tmp_path / "trim.bin"
    assert trim_e5.main(["--out", str(out), "--articles", str(pkl), "--sample", "1",
                         "--pawsx", str(write_pawsx(tmp_path / "pawsx"))]) == 0
    src, trimmed = e5torch.E5File(), e5torch.E5File(out)
    tk = e5torch.E5Tokenizer(src)
    kept_text = "Marie Curie est née à Varsovie en 1861."
    ids = tk.encode(kept_text)
    a, b = _rows(src), _rows(trimmed)
    assert (a[ids] == b[ids]).all() and b[ids].any(axis=1).all()
    paws_ids = tk.encode(dd.load_pawsx(tmp_path / "pawsx")[0]["text"]["zh"][0])
    assert (a[paws_ids] == b[paws_ids]).all()               # PAWS-X text (another script) kept too
    unused = tk.encode("Dostojewski schrieb Schuld und Sühne")
    assert not b[[i for i in unused if i not in set(tk.encode(" ".join(s for a_ in arts for s in a_.sentences)))]].any()
    assert (~b.any(axis=1)).mean() > 0.95                     # almost everything else is zero
    # the rest of the file is untouched, and a text of kept tokens is embedded exactly as before
    assert src.raw("emb.pos").tobytes() == trimmed.raw("emb.pos").tobytes()
    e1, e2 = e5torch.build_encoder(src).eval(), e5torch.build_encoder(trimmed).eval()
    with torch.no_grad():
        x, m = e5torch.pad_batch([tk.single(kept_text)], tk.pad)
        assert torch.equal(e1(x, m), e2(x, m))


def test_a_missing_articles_file_is_one_clear_line(tmp_path, capsys):
    assert trim_e5.main(["--out", str(tmp_path / "t.bin"), "--articles", str(tmp_path / "none.pkl")]) == 2
    assert "none.pkl" in capsys.readouterr().err and not (tmp_path / "t.bin").exists()
