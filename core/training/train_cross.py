"""Train the cross-encoder verifier and write `core/checking/data/cross_verifier.pt`.

    python -m mfact.core.training.train_cross [--data ../shared/data] [--steps 1500] [--batch 32]
        [--split 6] [--seed 13] [--out FILE] [--small]

Data (supported = 1; not supported, contradiction, neutral, not enough info = 0), all split so that
nothing of an evaluation item is trained on:

- XNLI dev: the premises with index % 5 != 0 (the held-out premises, % 5 == 0, are what
  `bench/verify_xnli.py` scores), in the training languages only (bg, el, sw, th, tr, ur are never
  seen). Each (premise, hypothesis) is used in several language pairs: premise in one language,
  hypothesis in the same or another one (the dev set is parallel).
- VitaminC real + synthetic contrast sets (English), split by Wikipedia page (pages whose hash
  % 10 == 0 are held out); FEVER symmetric/adversarial/triggers; a sample of ANLI.
- Synthetic claims (`synth.py`): invented biographies with claims in en/es/fr/de (template) and
  corrupted sentences of the bundled Wikipedia leads (en/es/fr), split by person / article.

The lower `split` layers are frozen: their states are computed once per distinct text and cached
in memory, and only the upper layers, segment vectors and head are trained (AdamW, linear warm-up
and decay). The temperature is fitted on a validation part (by group) and the evaluation (accuracy,
ECE, majority baseline per set) is printed and stored in the weights file with the data hashes and
the command line.
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
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

from ..checking.neural.cross_model import (MAX_FACT_TOKENS, MAX_PASSAGE_TOKENS, encode_texts, new_model, save_weights,
                          stack_states)
from .synth import Pair, lead_pairs, template_pairs
from .train_verifier import ece

TRAIN_LANGS = ["en", "es", "fr", "de", "ru", "zh", "ar", "hi", "vi"]
HELDOUT_LANGS = ["bg", "el", "sw", "th", "tr", "ur"]
ALL_LANGS = TRAIN_LANGS + HELDOUT_LANGS
DEFAULT_OUT = Path(__file__).parents[1] / "checking" / "data" / "cross_verifier.pt"


def _h(s: str) -> int:
    return int(hashlib.sha1(s.encode("utf-8")).hexdigest()[:8], 16)


# --------------------------------------------------------------------------- data


def load_xnli(folder: Path, lang: str) -> list[tuple[int, str, str, int]]:
    """(item, premise, hypothesis, y) of one language's dev file; item = premise index."""
    rows = []
    for i, line in enumerate((folder / f"dev-{lang}.tsv").read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if len(parts) == 3:
            rows.append((i // 3, parts[0], parts[1], int(parts[2].strip() == "entailment")))
    return rows


def xnli_pairs(folder: Path, rng: random.Random, per_item: int, heldout: bool = False) -> list[Pair]:
    """Training pairs (premises % 5 != 0) in training-language pairs, or the held-out pairs (% 5 == 0)
    monolingual in all 15 languages."""
    langs = ALL_LANGS if heldout else TRAIN_LANGS
    data = {lang: load_xnli(folder, lang) for lang in langs}
    n = min(len(v) for v in data.values())
    out = []
    for j in range(n):
        item = data["en"][j][0]
        if (item % 5 == 0) != heldout:
            continue
        y = data["en"][j][3]
        if heldout:
            for lang in langs:
                _i, p, h, yy = data[lang][j]
                out.append(Pair(h, p, yy, "xnli", lang, lang, f"xnli-{item}", "xnli"))
            continue
        combos = set()
        for _ in range(per_item):
            lp = rng.choice(TRAIN_LANGS)
            lh = lp if rng.random() < 0.5 else rng.choice(TRAIN_LANGS)
            combos.add((lp, lh))
        for lp, lh in sorted(combos):
            out.append(Pair(data[lh][j][2], data[lp][j][1], y, "xnli" if lp == lh else "xnli-x",
                            lh, lp, f"xnli-{item}", "xnli"))
    return out


def _zip_jsonl(path: Path, member: str):
    with zipfile.ZipFile(path) as z:
        with z.open(member) as fh:
            for line in io.TextIOWrapper(fh, encoding="utf-8"):
                if line.strip():
                    yield json.loads(line)


def vitaminc_pairs(folder: Path, heldout: bool) -> list[Pair]:
    out = []
    for name in ("vitaminc_real", "vitaminc_synthetic"):
        zpath = folder / "vitaminc" / f"{name}.zip"
        if not zpath.exists():
            continue
        for d in _zip_jsonl(zpath, f"{name}/test.jsonl"):
            page = d.get("page") or d.get("case_id", "")
            if (_h(page) % 10 == 0) != heldout:
                continue
            out.append(Pair(d["claim"], d["evidence"], int(d["label"] == "SUPPORTS"), name, "en", "en",
                            f"vc-{page}", name))
    return out


def other_fever_pairs(folder: Path) -> list[Pair]:
    out = []
    for name, member in (("fever_symmetric", "fever_symmetric/dev.jsonl"),
                         ("fever_symmetric", "fever_symmetric/test.jsonl"),
                         ("fever_adversarial", "fever_adversarial/test.jsonl"),
                         ("fever_triggers", "fever_triggers/test.jsonl"),
                         ("anli", "anli/test.jsonl")):
        zpath = folder / "vitaminc" / f"{name}.zip"
        if not zpath.exists():
            continue
        for d in _zip_jsonl(zpath, member):
            claim, ev = d.get("claim"), d.get("evidence")
            if not claim or not ev or not isinstance(ev, str):
                continue
            out.append(Pair(claim, ev, int(d.get("label") == "SUPPORTS"), name, "en", "en",
                            f"{name}-{_h(ev)}", name))
    return out


def bundled_leads() -> dict[str, dict[str, str]]:
    from ..knowledge.vital import data_files
    out: dict[str, dict[str, str]] = {}
    for lang, path in data_files().items():
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
        out[lang] = {t: d.get("extract", "") for t, d in raw.items() if isinstance(d, dict) and d.get("extract")}
    return out


def build_data(data: Path, rng: random.Random, small: bool) -> tuple[list[Pair], list[Pair], dict[str, list[Pair]]]:
    """(train, validation, evaluation sets by name)."""
    xnli = data / "xnli-dev"
    scale = 0.08 if small else 1.0
    train: list[Pair] = []
    train += xnli_pairs(xnli, rng, per_item=10)
    vc = vitaminc_pairs(data, heldout=False)
    rng.shuffle(vc)
    train += vc[:int(14000 * scale)]
    fever = other_fever_pairs(data)
    rng.shuffle(fever)
    train += fever[:int(3000 * scale)]
    train += template_pairs(int(5000 * scale), seed=rng.randrange(1 << 30))
    leads = bundled_leads()
    in_dev = lambda t: _h(t) % 10 == 0  # noqa: E731
    train += lead_pairs(leads, int(1500 * scale), seed=rng.randrange(1 << 30), keep=lambda t: not in_dev(t))
    if small:
        rng.shuffle(train)
        train = train[:int(len(train) * scale)]
    # validation: 5% of the training groups (for the temperature and early checks)
    val = [p for p in train if _h("val" + p.group) % 20 == 0]
    train = [p for p in train if _h("val" + p.group) % 20 != 0]
    evals = {
        "xnli_heldout": xnli_pairs(xnli, rng, 0, heldout=True),
        "vitaminc_heldout": vitaminc_pairs(data, heldout=True),
        "bio_template_dev": template_pairs(600 if not small else 120, seed=987654321),
        "bio_leads_dev": lead_pairs(leads, 200 if not small else 40, seed=4242, keep=in_dev),
    }
    return train, val, evals


def data_hashes(data: Path) -> dict[str, str]:
    out = {}
    for p in sorted(list((data / "xnli-dev").glob("dev-*.tsv")) + list((data / "vitaminc").glob("*.zip"))):
        out[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    return out


# --------------------------------------------------------------------------- states cache


class StateCache:
    """Lower-layer states per distinct text (fp16, in memory)."""

    def __init__(self, model, tok, device: str = "cpu"):
        self.model, self.tok, self.device = model, tok, device
        self.states: dict[tuple[str, int], torch.Tensor] = {}

    def fill(self, texts: list[str], max_tokens: int, label: str) -> None:
        todo = list(dict.fromkeys(t for t in texts if (t, max_tokens) not in self.states))
        t0 = time.time()
        step = 2048
        for i in range(0, len(todo), step):
            part = todo[i:i + step]
            for t, s in zip(part, encode_texts(self.model, self.tok, part, max_tokens, device=self.device)):
                self.states[(t, max_tokens)] = s.to(torch.float16)
            done = i + len(part)
            print(f"  lower states {label}: {done}/{len(todo)} ({done / max(1e-6, time.time() - t0):.0f}/s)",
                  file=sys.stderr, flush=True)

    def batch(self, pairs: list[Pair]):
        c, cm = stack_states([self.states[(p.claim, MAX_FACT_TOKENS)] for p in pairs], self.device)
        e, em = stack_states([self.states[(p.evidence, MAX_PASSAGE_TOKENS)] for p in pairs], self.device)
        return c, cm, e, em


def fill_cache(cache: StateCache, pairs: list[Pair], label: str) -> None:
    cache.fill([p.claim for p in pairs], MAX_FACT_TOKENS, label + " facts")
    cache.fill([p.evidence for p in pairs], MAX_PASSAGE_TOKENS, label + " passages")


# --------------------------------------------------------------------------- metrics


@torch.no_grad()
def logits_of(model, cache: StateCache, pairs: list[Pair], batch: int = 64) -> np.ndarray:
    model.eval()
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i].evidence))
    res = np.zeros(len(pairs), np.float32)
    for i in range(0, len(order), batch):
        idx = order[i:i + batch]
        res[idx] = model.upper(*cache.batch([pairs[k] for k in idx])).float().cpu().numpy()
    return res


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    def nll(t):
        p = np.clip(1 / (1 + np.exp(-logits / t)), 1e-7, 1 - 1e-7)
        return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    temps = np.exp(np.linspace(np.log(0.3), np.log(4.0), 81))
    return float(min(temps, key=nll))


def report(name: str, pairs: list[Pair], p: np.ndarray) -> dict:
    y = np.array([q.y for q in pairs])
    pred = (p >= 0.5).astype(int)
    rows: dict = {"n": len(pairs), "accuracy": float((pred == y).mean()), "ece": ece(p, y),
                  "majority": float(max(y.mean(), 1 - y.mean()))}
    by_lang: dict[str, list[int]] = defaultdict(list)
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(pairs):
        key = q.lang_claim if q.lang_claim == q.lang_evidence else f"{q.lang_claim}<-{q.lang_evidence}"
        by_lang[key].append(i)
        by_kind[q.kind].append(i)
    if len(by_lang) > 1:
        rows["by_lang"] = {
            k: {
                "n": len(v),
                "accuracy": float((pred[v] == y[v]).mean()),
                "majority": float(max(y[v].mean(), 1 - y[v].mean())),
            }
            for k, v in sorted(by_lang.items())
        }
    if len(by_kind) > 1:  # recall of each corruption (share labelled NS) and of supported claims
        rows["recall_by_kind"] = {k: float((pred[v] == y[v]).mean()) for k, v in sorted(by_kind.items())}
    print(f"{name}: n={len(pairs)} accuracy={rows['accuracy']:.3f} ece={rows['ece']:.3f} "
          f"majority={rows['majority']:.3f}", flush=True)
    return rows


# --------------------------------------------------------------------------- training


def _capped_evals(evals: dict[str, list[Pair]], per_set: int, xnli_per_lang: int) -> dict[str, list[Pair]]:
    if per_set:
        for k in list(evals):
            if len(evals[k]) > per_set and k != "xnli_heldout":
                evals[k] = random.Random(1).sample(evals[k], per_set)
    if xnli_per_lang:
        keep = []
        seen: dict[str, int] = defaultdict(int)
        for p in evals["xnli_heldout"]:
            if seen[p.lang_claim] < xnli_per_lang:
                keep.append(p)
                seen[p.lang_claim] += 1
        evals["xnli_heldout"] = keep
    return evals


def _batches(train_pairs: list[Pair], batch: int, rng: random.Random) -> list[int]:
    """One epoch's order: shuffled, bucketed by passage length within chunks so a batch pads little."""
    fresh = list(range(len(train_pairs)))
    rng.shuffle(fresh)
    chunks = [sorted(fresh[i:i + batch * 50], key=lambda k: len(train_pairs[k].evidence))
              for i in range(0, len(fresh), batch * 50)]
    batches = [c[i:i + batch] for c in chunks for i in range(0, len(c), batch)]
    rng.shuffle(batches)
    return [k for b in batches for k in b]


def _fit(model, cache: StateCache, train_pairs: list[Pair], val_pairs: list[Pair], args, rng) -> None:
    """AdamW over the upper layers, segment vectors and head; linear warm-up and decay (on the
    cache's device)."""
    device = cache.device
    params = [p for n, p in model.named_parameters()
              if n.startswith(("seg", "head.")) or (n.startswith("enc.layers.") and int(n.split(".")[2]) >= args.split)]
    for _n, p in model.named_parameters():
        p.requires_grad = any(p is q for q in params)
    head_params = [p for n, p in model.named_parameters() if n.startswith(("seg", "head."))]
    body_params = [p for p in params if not any(p is q for q in head_params)]
    opt = torch.optim.AdamW([{"params": body_params, "lr": args.lr},
                             {"params": head_params, "lr": args.lr * 10}], weight_decay=0.01)
    steps = args.steps
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.02, 1 - s / steps))
    lossf = torch.nn.BCEWithLogitsLoss()
    order: list[int] = []
    t0 = time.time()
    model.train()
    for step in range(steps):
        if len(order) < args.batch:
            order += _batches(train_pairs, args.batch, rng)
        idx, order = order[:args.batch], order[args.batch:]
        batch = [train_pairs[k] for k in idx]
        y = torch.tensor([float(p.y) for p in batch], device=device)
        loss = lossf(model.upper(*cache.batch(batch)), y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        if (step + 1) % args.log_every == 0 or step + 1 == steps:
            rate = (step + 1) / (time.time() - t0)
            print(f"step {step + 1}/{steps} loss {loss.item():.3f} ({rate:.2f} steps/s, "
                  f"eta {(steps - step - 1) / rate / 60:.0f} min)", flush=True)
        if args.eval_every and (step + 1) % args.eval_every == 0 and step + 1 < steps:
            vl = logits_of(model, cache, val_pairs)
            report("  validation", val_pairs, 1 / (1 + np.exp(-vl)))
            model.train()
    model.eval()


def _evaluate(model, cache: StateCache, val_pairs: list[Pair], evals: dict[str, list[Pair]]) -> tuple[float, dict]:
    """Fit the temperature on the validation part; report every set with it."""
    vl = logits_of(model, cache, val_pairs)
    temp = fit_temperature(vl, np.array([p.y for p in val_pairs]))
    print(f"temperature {temp:.3f}", flush=True)
    results = {"validation": report("validation", val_pairs, 1 / (1 + np.exp(-vl / temp)))}
    for k, v in evals.items():
        results[k] = report(k, v, 1 / (1 + np.exp(-logits_of(model, cache, v) / temp)))
    return temp, results


def train(args) -> int:
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    t_start = time.time()
    data = Path(args.data)
    train_pairs, val_pairs, evals = build_data(data, rng, args.small)
    print(f"data: {len(train_pairs)} train, {len(val_pairs)} validation; "
          + ", ".join(f"{k} {len(v)}" for k, v in evals.items()), flush=True)
    evals = _capped_evals(evals, args.eval_per_set, args.xnli_eval_per_lang)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    model, tok = new_model(args.split)
    model.to(device)
    model.enc.word.blocks = model.enc.word.blocks.to(device)
    cache = StateCache(model, tok, device)
    for label, pairs in [("train", train_pairs), ("validation", val_pairs), *evals.items()]:
        fill_cache(cache, pairs, label)
    print(f"states cached in {time.time() - t_start:.0f} s", flush=True)
    _fit(model, cache, train_pairs, val_pairs, args, rng)
    temp, results = _evaluate(model, cache, val_pairs, evals)
    meta = {
        "version": args.version,
        "temperature": temp,
        "threshold": 0.5,
        "split": args.split,
        "train_pairs": len(train_pairs),
        "steps": args.steps,
        "batch": args.batch,
        "lr": args.lr,
        "seed": args.seed,
        "command": "python -m mfact.core.training.train_cross "
        + " ".join(sys.argv[1:] if args.argv is None else args.argv),
        "data_sha256": data_hashes(data),
        "train_langs": TRAIN_LANGS,
        "heldout_langs": HELDOUT_LANGS,
        "seconds": round(time.time() - t_start),
        "results": results,
        "train_mix": dict(sorted(_count(train_pairs).items())),
    }
    model.to("cpu")
    digest = save_weights(model, Path(args.out), meta)
    print(f"wrote {args.out} (sha256 {digest[:16]}, {Path(args.out).stat().st_size / 1e6:.1f} MB) "
          f"in {time.time() - t_start:.0f} s", flush=True)
    return 0


def _count(pairs: list[Pair]) -> dict[str, int]:
    c: dict[str, int] = defaultdict(int)
    for p in pairs:
        c[p.source] += 1
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mfact.core.training.train_cross",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2].parent / "shared" / "data"))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--split", type=int, default=6, help="layers below this are frozen and cached")
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--device", default="", help="cpu or cuda (default: cuda when available); --split 0 "
                                                 "trains all 12 layers (a full cross-encoder), for a GPU")
    ap.add_argument("--small", action="store_true", help="a small sample of every source (tests)")
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--eval-per-set", type=int, default=0, help="cap each evaluation set (0: all)")
    ap.add_argument("--xnli-eval-per-lang", type=int, default=0, help="cap held-out XNLI per language")
    ap.add_argument("--version", default="cross-1")
    args = ap.parse_args(argv)
    args.argv = argv
    return train(args)


if __name__ == "__main__":
    sys.exit(main())
