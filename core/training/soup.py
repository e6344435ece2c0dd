"""A weight soup of detector runs: the weighted mean of their trained weights, as one checkpoint.

    python -m mfact.core.training.soup --out DIR RUN_A RUN_B [RUN_C ...] [--weights 0.5,0.5]

Each RUN is a training checkpoint folder (its `best.pt`, else `last.pt`) or a checkpoint file. Runs
fine-tuned from the same pretrained body with the same frozen lower layers lie close together in
weight space (v3 and v6: 3.5% apart), so the mean of their weights is a model too (Wortsman et al.,
"Model soups", ICML 2022), at no cost at inference. The runs must share the split and the parameter
names and shapes. The folder written holds `best.pt` and `meta.json` as a training run's do, with
`soup` in the meta (each run's file, SHA-256, step, weight and training command), so `train_detector --export FILE
--ckpt-dir DIR` exports it like any run.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import torch

from ..checking.neural.detector import checkpoint_split


def checkpoint_file(run: Path) -> Path:
    """A run's checkpoint: the file itself, or its folder's best.pt, else last.pt."""
    if run.is_file():
        return run
    for name in ("best.pt", "last.pt"):
        if (run / name).is_file():
            return run / name
    raise FileNotFoundError(f"{run}: no best.pt or last.pt there")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run_command(file: Path, blob: dict) -> str:
    """The command that trained a run: its meta.json's first, else the checkpoint's meta's."""
    mj = file.parent / "meta.json"
    if mj.is_file():
        meta = json.loads(mj.read_text(encoding="utf-8"))
        if meta.get("commands"):
            return str(meta["commands"][0])
        if meta.get("command"):
            return str(meta["command"])
    return str((blob.get("meta") or {}).get("command", ""))


def split_of(blob: dict):
    """The run's split as export reads it: best.pt names it, last.pt keeps it in its arguments."""
    return checkpoint_split(blob)


def weights_of(spec: str, n: int) -> list[float]:
    """`--weights` as n numbers summing to 1 (given ones are normalised; none: equal)."""
    if not spec:
        return [1.0 / n] * n
    ws = [float(x) for x in spec.split(",")]
    if len(ws) != n or any(w < 0 for w in ws) or sum(ws) <= 0:
        raise ValueError(f"--weights needs {n} non-negative numbers, got {spec!r}")
    return [w / sum(ws) for w in ws]


def mix_states(states: list[dict], weights: list[float]) -> dict:
    """The weighted mean of the floating-point tensors; other tensors (counters) from the first."""
    first = states[0]
    for i, st in enumerate(states[1:], 1):
        if set(st) != set(first) or any(st[k].shape != first[k].shape for k in first):
            raise ValueError(f"run {i + 1} has other parameters than run 1: not the same model")
    out = {}
    for k, v in first.items():
        if v.is_floating_point():
            acc = sum(w * st[k].float() for w, st in zip(weights, states))
            out[k] = acc.to(v.dtype)
        else:
            out[k] = v.clone()
    return out


def soup(runs: list[Path], out: Path, weights: list[float]) -> dict:
    files = [checkpoint_file(r) for r in runs]
    blobs = [torch.load(f, map_location="cpu", weights_only=False) for f in files]
    splits = {str(split_of(b)) for b in blobs}
    if len(splits) != 1:
        raise ValueError(f"the runs were trained with different splits ({', '.join(sorted(splits))})")
    recipe = [{"file": str(f), "sha256": sha256(f), "step": b.get("step"), "weight": round(w, 6),
               "command": run_command(f, b)} for f, b, w in zip(files, blobs, weights)]
    meta = dict(blobs[0].get("meta") or {})
    meta["soup"] = recipe
    out.mkdir(parents=True, exist_ok=True)
    torch.save({"split": split_of(blobs[0]), "step": None, "eval": None, "meta": meta,
                "model": mix_states([b["model"] for b in blobs], weights)}, out / "best.pt")
    first_meta = files[0].parent / "meta.json"
    run_meta = json.loads(first_meta.read_text()) if first_meta.is_file() else {}
    run_meta["soup"] = recipe
    (out / "meta.json").write_text(json.dumps(run_meta, indent=1, ensure_ascii=False), encoding="utf-8")
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="checkpoint folders (best.pt, else last.pt) or files")
    ap.add_argument("--out", required=True, help="folder for the soup's best.pt and meta.json")
    ap.add_argument("--weights", default="", help="comma-separated, one per run (default: equal)")
    args = ap.parse_args(argv)
    if len(args.runs) < 2:
        ap.error("a soup needs at least two runs")
    try:
        ws = weights_of(args.weights, len(args.runs))
        meta = soup([Path(r).expanduser() for r in args.runs], Path(args.out).expanduser(), ws)
    except (OSError, ValueError) as e:
        print(f"soup: {e}", file=sys.stderr)
        return 2
    for r in meta["soup"]:
        print(f"{r['weight']:.3f} x {r['file']} (step {r['step']}, sha256 {r['sha256'][:16]})")
    print(f"-> {Path(args.out) / 'best.pt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
