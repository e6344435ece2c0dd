"""The fact basis of the fact features (core/checking/verify/fact_features.py), computed without labels.

    python -m mfact.core.training.feature_basis --articles ARTICLES.pkl \\
        --out core/checking/data/detector-basis.npz [--n 3000] [--seed 5]

From the detector's development articles (`detector_data.split_articles`: never trained on), the
fixed corruption dev set's sentences (corrupted and kept, with their evidence windows) are read by
the installed detector (at the CPU precision inference uses: fp32 by default). Each sentence gives two fact vectors
[mean final state, top token's final state, mean head hidden layer] (1,152): over the whole sentence
and over a random run of its words (facts are often clauses). The basis is their mean and first
COMPONENTS principal components (no scaling). The file holds the command, the seed, the detector's
digest and the articles file's SHA-256 (`meta`). No labels are read: the corruption spans are not
used, and no silver or gold text is among the articles (`load_articles` drops silver's).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

from ..checking.verify.fact_features import COMPONENTS, HIDDEN


def fact_vectors(tokens, spans: list[tuple[int, int]]) -> list[np.ndarray]:
    """[mean h, h at the top token, mean g] over the tokens inside each (start, end) span, from
    tokens whose projection is the identity (proj = [h, h, g])."""
    out = []
    for a, b in spans:
        inside = [t for t, (x, y) in enumerate(tokens.spans) if x < b and a < y]
        if not inside:
            continue
        pr = tokens.proj[inside]
        top = inside[int(np.argmax(np.asarray(tokens.logits)[inside]))]
        out.append(np.concatenate([pr[:, :HIDDEN].mean(0), tokens.proj[top, HIDDEN:2 * HIDDEN],
                                   pr[:, 2 * HIDDEN:].mean(0)]))
    return out


def sub_span(sentence: str, rng: random.Random) -> tuple[int, int] | None:
    """A random run of at least 3 of the sentence's words (None for a sentence of under 4)."""
    words = [m.span() for m in re.finditer(r"\S+", sentence)]
    if len(words) < 4:
        return None
    n = rng.randint(3, len(words) - 1)
    i = rng.randint(0, len(words) - n)
    return words[i][0], words[i + n - 1][1]


def examples(articles_path: Path, n: int, seed: int) -> list:
    import pickle

    from . import detector_data as dd
    arts, _rep = pickle.loads(articles_path.read_bytes())
    _train, dev = dd.split_articles(arts)
    langs = {a.lang for a in dev}
    exs = dd.dev_set(dev, dd.Pools.build(dev), per_lang=max(1, -(-n // max(1, len(langs)))), seed=seed)
    random.Random(seed).shuffle(exs)
    return exs[:n]


def compute(exs: list, seed: int, det=None) -> tuple[np.ndarray, np.ndarray, int]:
    """(mean, components, vectors used) of the examples' fact vectors."""
    import torch

    from ..checking.neural.detector import Projection, load_detector
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    det = det or load_detector()
    if det is None:
        raise SystemExit("no detector weights installed (core/checking/data/detector.pt)")
    eye = np.eye(HIDDEN, dtype=np.float32)
    ident = Projection(eye, eye, eye)
    rng = random.Random(seed)
    vecs: list[np.ndarray] = []
    t0 = time.time()
    for j, ex in enumerate(exs):
        (_w, tokens), = det.score_tokens([(ex.sentence, ex.evidence)], project=ident)
        spans = [(0, len(ex.sentence))]
        sub = sub_span(ex.sentence, rng)
        if sub:
            spans.append(sub)
        vecs += fact_vectors(tokens, spans)
        if j % 500 == 0:
            print(f"  {j}/{len(exs)} sentences, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    v = np.stack(vecs).astype(np.float64)
    mean = v.mean(0)
    _u, _s, vt = np.linalg.svd(v - mean, full_matrices=False)
    return mean.astype(np.float32), vt[:COMPONENTS].astype(np.float32), len(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mfact.core.training.feature_basis", description=__doc__.split("\n")[0])
    ap.add_argument("--articles", required=True, help="the sentence-split articles (train_detector's articles-*.pkl)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=3000, help="development sentences read")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    art = Path(args.articles).expanduser()
    t0 = time.time()
    exs = examples(art, args.n, args.seed)
    from ..checking.neural.detector import load_detector
    det = load_detector()
    mean, comps, used = compute(exs, args.seed, det)
    meta = {
        "command": "python -m mfact.core.training.feature_basis " + " ".join(sys.argv[1:] if argv is None else argv),
        "seed": args.seed,
        "sentences": len(exs),
        "vectors": used,
        "components": COMPONENTS,
        "detector_sha256": det.digest if det is not None else None,
        "articles_sha256": hashlib.sha256(art.read_bytes()).hexdigest(),
        "languages": sorted({e.lang for e in exs}),
        "seconds": round(time.time() - t0),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.npz")
    np.savez(tmp, mean=mean, comps=comps, meta=np.array(json.dumps(meta, sort_keys=True)))
    tmp.replace(out)
    print(json.dumps(meta, indent=1))
    print(
        f"basis -> {out} ({out.stat().st_size / 1e3:.0f} KB,"
        f" sha256 {hashlib.sha256(out.read_bytes()).hexdigest()[:16]})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
