"""Train the pair reader (`core/checking/neural/pair_reader.py`), resumably.

    python -m mfact.core.training.train_pair --xnli-test DIR [--steps N] [--batch 32] [--resume]
        [--ckpt-dir DIR] [--export FILE]

Data: labelled XNLI test pairs (5,010 a language, parallel over the 15 languages; the folder holds
`test-<lang>.tsv` with premise, hypothesis and label, as XNLI dev's files). Only the nine training
languages of every script here are read (bg el sw th tr ur stay unseen), and XNLI dev is not read at
all: its training premises fit the claim combiner on top of this reader, and its held-out premises
are what `bench/verify_xnli.py` scores. Each step draws pairs afresh: a row, the hypothesis in one
training language, the premise in the same language (half the time) or another. Rows whose premise
index % 10 == 0 are the run's validation set (monolingual pairs), scored every `--eval-every`
steps; `best.pt` keeps the best.
With XNLI dev, each validation also scores a probe: dev's training premises in the XNLI languages
the run leaves out of `--langs` (logged, never selected on). `--vitaminc DIR` adds VitaminC's
training pages as English rows, and `--nli LANG:FILE` (repeatable) the labelled pairs of other NLI
sets (SNLI, MultiNLI and its translations, OCNLI, IndoNLI) in their language, together
`--extra-share` of each batch. `--classes 3` trains the head on
XNLI's three labels (entailment, neutral, contradiction) instead of entailment against the rest;
the reader's logit is then log p(entailment) - log p(the other two).

The reader starts as the committed detector's upper layers and segment vectors (the lower layers
are the detector's, frozen; every text's lower states are computed once and kept in memory).
Every `--ckpt-minutes` the weights, optimizer, schedule, step and RNG state go to
`<ckpt-dir>/last.pt`; `--resume` goes on from there. `--export FILE` writes the weights file from
best.pt with the command, seed, data hashes and the run's log.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..checking.neural.detector import MAX_SENT_TOKENS, default_weights, model_of, stack
from ..checking.neural.pair_reader import PairModel, binary_logit, reader_state, save_reader, shared_layers, tie
from ..paths import cache_dir
from .examples import XNLI_TRAIN_LANGS
from .pair_data import nli_labels


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S ") + msg, flush=True)


def load_rows(folder: Path, langs=XNLI_TRAIN_LANGS) -> list[dict]:
    """Parallel labelled rows: {"item", "y" (1 entailment), "y3" (0 entailment, 1 neutral, 2
    contradiction), "text": {lang: (premise, hypothesis)}}."""
    data = {}
    for lang in langs:
        p = Path(folder) / f"test-{lang}.tsv"
        if not p.is_file():
            raise FileNotFoundError(f"train_pair: no {p.name} in {folder}")
        data[lang] = [ln.split("\t") for ln in p.read_text(encoding="utf-8").rstrip("\n").split("\n")]
    n = min(len(v) for v in data.values())
    rows = []
    for j in range(n):
        parts = {lang: r[j] for lang, r in data.items() if len(r[j]) == 3}
        if len(parts) != len(data):
            continue
        rows.append({"item": j // 3, **nli_labels(next(iter(parts.values()))[2]),
                     "text": {lang: (r[0], r[1]) for lang, r in parts.items()}})
    return rows


_ODD_BREAKS = str.maketrans({c: " " for c in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"})


def build_test_files(texts: Path, labels: Path, out: Path, langs=None) -> dict[str, int]:
    """Labelled XNLI test files from two public copies: `texts` holds `test-<lang>.tsv` (premise,
    hypothesis; no labels: XTREME's copy, e.g. GautamGupta17/MESH `data/xnli/`), `labels` is
    XGLUE's German test file (premise, hypothesis, label; e.g. LSX-UniWue/SuperGLEBer
    `data/XGlue/NLI/test.txt`). The 15 languages' files are parallel row by row, so the German
    labels label every language, once every German row is found to be the same pair. Lines are split
    at newlines only (some texts hold other line separators, written as spaces). {lang: rows}."""
    lab = [ln.split("\t") for ln in Path(labels).read_text(encoding="utf-8").rstrip("\n").split("\n")]
    de = [ln.split("\t") for ln in (Path(texts) / "test-de.tsv").read_text(encoding="utf-8").rstrip("\n").split("\n")]
    if len(lab) != len(de) or any(len(a) != 3 or [x.strip() for x in a[:2]] != [x.strip() for x in b[:2]]
                                  for a, b in zip(lab, de)):
        raise ValueError("the labels' German pairs are not the German test file's, row by row")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    got = {}
    for p in sorted(Path(texts).glob("test-*.tsv")):
        lang = p.stem.split("-", 1)[1]
        if langs and lang not in langs:
            continue
        rows = [r.translate(_ODD_BREAKS) for r in p.read_text(encoding="utf-8").rstrip("\n").split("\n")]
        if len(rows) != len(lab) or any(r.count("\t") != 1 for r in rows):
            raise ValueError(f"{p.name}: not {len(lab)} rows of premise and hypothesis")
        (out / p.name).write_text("".join(f"{r}\t{y[2].strip()}\n" for r, y in zip(rows, lab)), encoding="utf-8")
        got[lang] = len(rows)
    return got


class States:
    """Lower states of every text (fp16), computed once: hypotheses as the detector reads a
    sentence, premises as one evidence window."""

    def __init__(self, det_model, tokens):
        self.m, self.tk = det_model, tokens
        self.s: dict[str, torch.Tensor] = {}
        self.w: dict[str, torch.Tensor] = {}

    def fill(self, rows: list[dict], langs) -> None:
        texts = [t for r in rows for lg, t in r["text"].items() if lg in langs]
        hyps = {t[1] for t in texts} - set(self.s)
        prems = {t[0] for t in texts} - set(self.w)
        bos, eos = self.tk.tok.bos, self.tk.tok.eos
        self._run(self.s, {h: [bos, *self.tk.sentence(h, MAX_SENT_TOKENS)[0], eos] for h in hyps})
        self._run(self.w, {p: self.tk.window(p) for p in prems})

    @torch.no_grad()
    def _run(self, into: dict, seqs: dict[str, list[int]]) -> None:
        from ..checking.neural.e5torch import pad_batch
        order = sorted(seqs, key=lambda t: len(seqs[t]))
        t0 = time.time()
        for a in range(0, len(order), 64):
            part = order[a:a + 64]
            ids, mask = pad_batch([seqs[t] for t in part], self.tk.tok.pad)
            st = self.m.lower(ids, mask)
            for r, t in enumerate(part):
                into[t] = st[r, :len(seqs[t])].to(torch.float16)
            if a // 64 % 100 == 0:
                log(f"  lower states {a + len(part)}/{len(order)} ({time.time() - t0:.0f} s)")

    def batch(self, pairs: list[tuple[str, str]]):
        s, sm = stack([self.s[h] for _p, h in pairs], "cpu")
        e, em = stack([self.w[p] for p, _h in pairs], "cpu")
        return s, sm, e, em


@dataclass(frozen=True)
class Pool:
    """The training rows, and `extra` rows (in fewer languages, e.g. VitaminC's English) that a drawn
    pair comes from with probability `extra_share`."""
    rows: list[dict]
    extra: list[dict] | None = None
    extra_share: float = 0.0


def draw(pool: Pool, rng: random.Random, n: int, langs, cross: float,
         key: str = "y") -> tuple[list[tuple[str, str]], list[int]]:
    """n (premise, hypothesis) pairs and labels (`key`: "y" binary, "y3" three classes): a row, the
    hypothesis in one of its languages, the premise in the same language or (share `cross`) another.
    With the pool's `extra` rows, each pair comes from there with probability `extra_share`."""
    pairs, ys = [], []
    for _ in range(n):
        r = (rng.choice(pool.extra) if pool.extra and rng.random() < pool.extra_share
             else rng.choice(pool.rows))
        have = [lg for lg in langs if lg in r["text"]] or list(r["text"])    # an --nli row: its own language
        pairs.append(_reading(r, rng.choice(have), have, rng, cross))
        ys.append(r[key])
    return pairs, ys


def _reading(r: dict, lh: str, have: list[str], rng: random.Random, cross: float) -> tuple[str, str]:
    """Row `r` as (premise, hypothesis): the hypothesis in `lh`, the premise in the same language or
    (share `cross`) one of `have`."""
    lp = lh if rng.random() >= cross else rng.choice(have)
    return r["text"][lp][0], r["text"][lh][1]


def draw_pairs(rows: list[dict], rng: random.Random, n: int, langs, cross: float,
               key: str = "y") -> tuple[list[tuple[str, str]], list[int]]:
    """n pairs as n // 2 rows read twice: the two readings of a row are in two different languages
    (each drawn as `draw` draws, premise and hypothesis in one language or, share `cross`, in two), so
    pair 2i and pair 2i + 1 are translations of each other with one label (`--consistency`)."""
    pairs, ys = [], []
    for _ in range(n // 2):
        r = rng.choice(rows)
        have = [lg for lg in langs if lg in r["text"]]
        first = rng.choice(have)
        second = rng.choice([lg for lg in have if lg != first] or have)
        for lh in (first, second):
            pairs.append(_reading(r, lh, have, rng, cross))
            ys.append(r[key])
    return pairs, ys


def consistency(z: torch.Tensor) -> torch.Tensor:
    """The symmetric KL divergence between the verdicts (Bernoulli, binary logits `z`) of pairs 2i and
    2i + 1, mean over the pairs of readings: translations of one pair should be judged alike."""
    a, b = z[0::2], z[1::2]
    # KL(p||q) + KL(q||p) for Bernoulli p, q is (p - q)(logit p - logit q)
    return ((torch.sigmoid(a) - torch.sigmoid(b)) * (a - b)).mean() / 2


@torch.no_grad()
def evaluate(model: PairModel, states: States, rows: list[dict], langs) -> dict:
    model.eval()
    per = {}
    for lg in langs:
        pairs = [(r["text"][lg][0], r["text"][lg][1]) for r in rows]
        right = 0
        for a in range(0, len(pairs), 64):
            z = model(*states.batch(pairs[a:a + 64]))
            right += int(((z >= 0).long() == torch.tensor([r["y"] for r in rows[a:a + 64]])).sum())
        per[lg] = round(right / max(1, len(pairs)), 4)
    model.train()
    return {"per_lang": per, "mean": round(float(np.mean(list(per.values()))), 4)}


def _save(path: Path, blob: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    torch.save(blob, tmp)
    tmp.replace(path)


def _resume(path: Path, model, opt, sched, rng: random.Random) -> tuple[int, float, list]:
    st = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(st["model"])
    opt.load_state_dict(st["opt"])
    sched.load_state_dict(st["sched"])
    rng.setstate(st["py_rng"])
    torch.set_rng_state(st["torch_rng"])
    log(f"resumed at step {st['step']} (best {st['best']:.4f})")
    return st["step"], st["best"], st["history"]


def _loss(model: PairModel, batch, ys: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(binary logits, binary labels, loss): binary cross-entropy for one output, cross-entropy over
    XNLI's three labels (`ys` as 0 entailment, 1 neutral, 2 contradiction) for three."""
    out = model.scores(*batch)
    if model.classes == 3:
        y = torch.tensor([float(v == 0) for v in ys])
        return binary_logit(out), y, torch.nn.functional.cross_entropy(out, torch.tensor(ys))
    z, y = out.squeeze(-1), torch.tensor(ys, dtype=torch.float32)
    return z, y, torch.nn.functional.binary_cross_entropy_with_logits(z, y)


def _step_loss(model: PairModel, states: States, pool: Pool, rng: random.Random,
               langs, args) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """One batch's (binary logits, labels, loss); with --consistency C the batch is rows read in two
    languages, and C times the divergence between the two readings is added to the loss."""
    key = "y3" if args.classes == 3 else "y"
    if not args.consistency:
        pairs, ys = draw(pool, rng, args.batch, langs, args.cross, key)
        return _loss(model, states.batch(pairs), ys)
    pairs, ys = draw_pairs(pool.rows, rng, args.batch, langs, args.cross, key)
    z, y, loss = _loss(model, states.batch(pairs), ys)
    return z, y, loss + args.consistency * consistency(z)


def _schedule(step: int, warmup: int, total: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    return max(0.05, 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warmup) / max(1, total - warmup)))))


def _detector(args):
    """The detector model the reader starts from, and its file's bytes."""
    import io
    det_path = Path(args.detector) if args.detector else default_weights()
    if det_path is None:
        raise SystemExit("no detector weights: pass --detector FILE")
    det_bytes = det_path.read_bytes()
    det_model, tokens = model_of(torch.load(io.BytesIO(det_bytes), map_location="cpu", weights_only=True))
    det_model.eval()
    return det_model, tokens, det_bytes


def _data(args, langs) -> tuple[list[dict], list[dict]]:
    """(training rows, validation rows): test rows by premise index (% 10 == 0 validates), and with
    --xnli-dev XNLI dev's training premises too (index % 5 != 0; never its held-out ones)."""
    try:
        rows = load_rows(Path(args.xnli_test), langs)
    except FileNotFoundError as e:
        sys.exit(str(e))
    if args.small:
        rows = rows[:args.small]
    val = [r for r in rows if r["item"] % 10 == 0][:args.val_rows]
    train_rows = [r for r in rows if r["item"] % 10 != 0]
    if args.xnli_dev:
        from .pair_data import load_xnli_rows
        dev = [r for r in load_xnli_rows(Path(args.xnli_dev), langs=langs) if len(r["text"]) == len(langs)]
        train_rows += [{**r, "item": -1 - r["item"]} for r in dev]
    return train_rows, val


def _extra(args) -> list[dict]:
    """VitaminC's training pages (claim, evidence, supported) as English rows, with --vitaminc, and the
    rows of every --nli file in its language."""
    rows: list[dict] = []
    if args.vitaminc:
        from .pair_data import load_vitaminc
        got = load_vitaminc(Path(args.vitaminc))
        if not got:
            sys.exit(f"train_pair: no VitaminC zip in {args.vitaminc}")
        rows += [{"item": -10**6 - i, "y": y, "text": {"en": (ev, claim)}} for i, (claim, ev, y) in enumerate(got)]
    for spec in args.nli:
        lang, path = nli_spec(spec)
        try:
            pairs = load_nli_file(path, lang)
        except (OSError, ValueError) as e:
            sys.exit(f"train_pair: --nli {spec}: {e}")
        rows += [{**r, "item": -2 * 10**6 - len(rows) - i} for i, r in enumerate(pairs)]
    return rows


NLI_LABELS = {"e": "entailment", "entailment": "entailment", "n": "neutral", "neutral": "neutral",
              "c": "contradiction", "contradiction": "contradiction"}


def nli_spec(spec: str) -> tuple[str, Path]:
    """`LANG:FILE` of --nli as (language, path)."""
    lang, sep, path = spec.partition(":")
    if not sep or not lang or not path:
        sys.exit(f"train_pair: --nli wants LANG:FILE, not {spec!r}")
    return lang, Path(path)


def load_nli_file(path: Path, lang: str) -> list[dict]:
    """Labelled NLI pairs of one language from a JSON-lines file, as rows like XNLI's: SNLI's and
    MultiNLI's fields (sentence1, sentence2, gold_label), OCNLI's (sentence1, sentence2, label) or
    IndoNLI's (premise, hypothesis, label e/n/c). Pairs without an agreed label ("-") are left out."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {n} is not JSON ({e.msg})") from None
        prem, hyp = d.get("premise", d.get("sentence1")), d.get("hypothesis", d.get("sentence2"))
        label = NLI_LABELS.get(str(d.get("gold_label", d.get("label", ""))).strip().lower())
        if not isinstance(prem, str) or not isinstance(hyp, str):
            raise ValueError(f"line {n} has no premise and hypothesis (premise/hypothesis or sentence1/sentence2)")
        if label and prem.strip() and hyp.strip():
            rows.append({"item": -n, **nli_labels(label), "text": {lang: (prem.strip(), hyp.strip())}})
    if not rows:
        raise ValueError("no labelled pair in the file")
    return rows


def _probe(args) -> tuple[list[dict], tuple[str, ...]]:
    """XNLI dev's training premises in the XNLI languages the run does not train on (by default bg el
    sw th tr ur, which no script here trains on), `--probe-rows` a language: scored beside
    validation, never selected on (the claim combiner is fitted on them)."""
    if not args.xnli_dev or not args.probe_rows:
        return [], ()
    from .pair_data import load_xnli_rows
    from .train_cross import ALL_LANGS
    langs = tuple(lg for lg in ALL_LANGS if lg not in args.langs.split(","))
    rows = [r for r in load_xnli_rows(Path(args.xnli_dev), langs=langs) if len(r["text"]) == len(langs)]
    return rows[:args.probe_rows], langs


def _optimiser(model: PairModel, args):
    """AdamW over the head and the layers not frozen (the first --freeze stay the detector's), with
    warm-up and a cosine schedule."""
    for lay in model.layers[:args.freeze]:       # kept as the detector's: fewer weights to fit
        lay.requires_grad_(False)
    if args.freeze:         # and so are the segment vectors: the reader then starts from the detector's states
        model.seg.requires_grad_(False)             # after those layers (pair_reader.PairReader.side)
    head = [p for n, p in model.named_parameters() if n.startswith("head.")]
    body = [p for n, p in model.named_parameters() if not n.startswith("head.") and p.requires_grad]
    opt = torch.optim.AdamW([{"params": body, "lr": args.lr}, {"params": head, "lr": args.head_lr}], weight_decay=0.01)
    return opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda s: _schedule(s, args.warmup, args.steps))


def _validate(model: PairModel, states: States, sets: list, step: int, run_loss: float) -> dict:
    """The history entry of one validation: `sets` is [(key, what, rows, langs)]."""
    entry: dict = {"step": step, "loss": round(run_loss, 4)}
    for key, what, rows, langs in sets:
        if rows:
            entry[key] = ev = evaluate(model, states, rows, langs)
            log(f"step {step} {what} {ev['mean']:.4f} {ev['per_lang']}")
    return entry


def _extra_kind(args) -> str:
    return ", ".join(["VitaminC"] * bool(args.vitaminc) + [f"NLI {nli_spec(x)[0]}" for x in args.nli]) or "none"


def train(args) -> int:
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    det_model, tokens, _b = _detector(args)
    langs = list(args.langs.split(","))
    train_rows, val = _data(args, langs)
    extra = _extra(args)
    probe, probe_langs = _probe(args)
    log(f"train_pair: {len(train_rows)} training rows, {len(extra)} extra ({_extra_kind(args)}), {len(val)} validation "
        f"rows, {len(probe)} probe rows, languages {','.join(langs)}")
    states = States(det_model, tokens)
    states.fill(train_rows + val, langs)
    states.fill(extra, sorted({lg for r in extra for lg in r["text"]}))
    states.fill(probe, probe_langs)
    model = PairModel.from_detector(det_model, args.classes, args.freeze)
    model.drop = args.layer_dropout
    opt, sched = _optimiser(model, args)
    ck = Path(args.ckpt_dir)
    step, best = 0, -1.0
    history: list[dict] = []
    rng = random.Random(args.seed)
    if args.resume and (ck / "last.pt").is_file():
        step, best, history = _resume(ck / "last.pt", model, opt, sched, rng)
    model.train()
    t_ck, t0, run_loss, run_acc = time.time(), time.time(), 0.0, 0.0
    while step < args.steps:
        if args.max_minutes and time.time() - t0 > args.max_minutes * 60:
            break
        z, y, loss = _step_loss(model, states, Pool(train_rows, extra, args.extra_share), rng, langs, args)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        step += 1
        run_loss = 0.98 * run_loss + 0.02 * float(loss.detach())
        run_acc = 0.98 * run_acc + 0.02 * float(((z.detach() >= 0).float() == y).float().mean())
        if step % 50 == 0:
            log(f"step {step} loss {run_loss:.3f} acc {run_acc:.3f} ({(time.time() - t0) / 60:.1f} min)")
        last = step == args.steps or (args.max_minutes and time.time() - t0 > args.max_minutes * 60)
        if step % args.eval_every == 0 or last:
            sets = [("val", "validation", val, langs), ("probe", "probe (never-trained languages)", probe, probe_langs)]
            history.append(_validate(model, states, sets, step, run_loss))
            ev = history[-1]["val"]
            if args.keep_evals:         # every validated step's weights, to choose among them later
                _save(
                    ck / f"step-{step}.pt", {"model": model.state_dict(), "step": step, "val": ev, "args": vars(args)}
                )
            if ev["mean"] > best:
                best = ev["mean"]
                _save(ck / "best.pt", {"model": model.state_dict(), "step": step, "val": ev, "args": vars(args)})
        if time.time() - t_ck >= args.ckpt_minutes * 60 or last:
            _save(ck / "last.pt", {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                                   "step": step, "best": best, "history": history, "args": vars(args),
                                   "py_rng": rng.getstate(), "torch_rng": torch.get_rng_state()})
            t_ck = time.time()
    (ck / "history.json").write_text(json.dumps(history, indent=1), encoding="utf-8")
    log(f"train_pair: stopped at step {step}, best validation {best:.4f}")
    return 0


def export(args) -> int:
    ck = Path(args.ckpt_dir)
    src = ck / "best.pt" if (ck / "best.pt").is_file() else ck / "last.pt"
    if args.from_step:
        src = ck / f"step-{args.from_step}.pt"
    st = torch.load(src, map_location="cpu", weights_only=False)
    det_model, _tk, det_bytes = _detector(args)
    model = PairModel.from_detector(det_model, int(st["args"].get("classes", 1)))
    model.load_state_dict(st["model"])
    model.shared = shared_layers(model, det_model) if st["args"].get("freeze") else 0
    folder = Path(st["args"]["xnli_test"])
    dev = Path(st["args"]["xnli_dev"]) if st["args"].get("xnli_dev") else None
    hist = ck / "history.json"
    meta = {
        "detector_sha256": hashlib.sha256(det_bytes).hexdigest(),
        "step": st.get("step"),
        "validation": st.get("val"),
        "run_args": st.get("args"),
        "command": "python -m mfact.core.training.train_pair " + " ".join(sys.argv[1:]),
        "data": {
            **{
                f"xnli-test/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.glob("test-*.tsv"))
            },
            **(
                {
                    f"xnli-dev/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest()
                    for p in sorted(dev.glob("dev-*.tsv"))
                }
                if dev
                else {}
            ),
            **{
                f"nli/{spec}": hashlib.sha256(nli_spec(spec)[1].read_bytes()).hexdigest()
                for spec in st["args"].get("nli") or []
                if nli_spec(spec)[1].is_file()
            },
        },
        "history": json.loads(hist.read_text(encoding="utf-8")) if hist.is_file() else [],
    }
    digest = save_reader(model, Path(args.export), meta, det_model)
    log(f"train_pair: {src} -> {args.export} (sha256 {digest[:16]})")
    return 0


def tie_file(args, src: Path, out: Path) -> int:
    """`--tie`: the reader in `src` with the detector's segment vectors, sharing its unchanged first
    layers (`pair_reader.tie`), written to `out` with the same record and a note of the change."""
    det_model, _tk, det_bytes = _detector(args)
    try:
        blob = torch.load(src, map_location="cpu", weights_only=True)
        if blob.get("kind") != "pair-reader":
            raise ValueError(f"{src} is not a pair reader's weights")
        model = PairModel.from_detector(det_model, int(blob.get("classes", 1)))
        model.load_state_dict(reader_state(blob, det_model))
    except (OSError, ValueError, RuntimeError, KeyError) as e:
        sys.exit(f"train_pair: {e}")
    meta = dict(blob.get("meta", {}))
    if meta.get("detector_sha256") != hashlib.sha256(det_bytes).hexdigest():
        sys.exit(f"train_pair: {src} was trained on other detector weights")
    moved = float((model.seg.data - det_model.seg.data).abs().max())
    n = tie(model, det_model)
    meta["tied"] = {"shared_layers": n, "segment_vectors_moved_by": round(moved, 6), "from_sha256":
                    hashlib.sha256(src.read_bytes()).hexdigest(), "command": "python -m mfact.core.training.train_pair "
                    + " ".join(sys.argv[1:])}
    digest = save_reader(model, out, meta, det_model)
    log(f"train_pair: {src} -> {out}: {n} layers shared with the detector (segment vectors moved by {moved:.4f}), "
        f"sha256 {digest[:16]}")
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xnli-test", default=str(cache_dir() / "xnli-test-labelled"))
    ap.add_argument("--langs", default=",".join(XNLI_TRAIN_LANGS))
    ap.add_argument(
        "--xnli-dev", default="", help="also train on XNLI dev's training premises (index %% 5 != 0) in this folder"
    )
    ap.add_argument("--vitaminc", default="", help="also train on VitaminC's training pages (English) from this folder")
    ap.add_argument("--nli", action="append", default=[], metavar="LANG:FILE",
                    help="also train on the labelled NLI pairs of FILE (JSON lines: SNLI/MultiNLI, OCNLI or IndoNLI "
                         "fields), in language LANG; repeatable")
    ap.add_argument("--extra-share", type=float, default=0.3,
                    help="share of each batch drawn from the --vitaminc and --nli rows")
    ap.add_argument("--probe-rows", type=int, default=400,
                    help="with --xnli-dev, score this many of its training premises in each XNLI language left out of "
                         "--langs at each validation")
    ap.add_argument("--classes", type=int, choices=(1, 3), default=1,
                    help="1: one logit, trained on entailment vs the rest; 3: XNLI's three labels (entailment, "
                         "neutral, contradiction), read as entailment vs the other two")
    ap.add_argument("--consistency", type=float, default=0.0,
                    help="read each row of a batch in two languages and add this weight times the divergence "
                         "between the two verdicts to the loss (0: off)")
    ap.add_argument("--layer-dropout", type=float, default=0.0,
                    help="dropout on each reader layer's output while training (0: none, as the committed reader)")
    ap.add_argument("--freeze", type=int, default=0, help="keep the first N of the reader's layers and the segment "
                    "vectors as the detector's (the reader then goes on from the detector's states after them)")
    ap.add_argument("--detector", default="", help="detector weights (default: the committed ones)")
    ap.add_argument("--ckpt-dir", default=str(cache_dir() / "pair"))
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--head-lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument(
        "--cross", type=float, default=0.5, help="share of pairs with premise and hypothesis in two languages"
    )
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--val-rows", type=int, default=300)
    ap.add_argument("--ckpt-minutes", type=float, default=10.0)
    ap.add_argument("--max-minutes", type=float, default=0.0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--small", type=int, default=0, help="only the first N rows (a smoke run)")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--keep-evals", action="store_true", help="keep the weights of every validated step "
                    "(<ckpt-dir>/step-N.pt; --export FILE --from-step N exports one of them)")
    ap.add_argument("--export", default="")
    ap.add_argument("--from-step", type=int, default=0, help="with --export: the weights kept at this step "
                    "(--keep-evals) instead of the best on validation")
    ap.add_argument("--build-test", nargs=2, metavar=("TEXTS_DIR", "GERMAN_LABELS"),
                    help="write the labelled test files into --xnli-test from the unlabelled test-<lang>.tsv "
                         "files and XGLUE's German test file, then exit")
    ap.add_argument("--tie", nargs=2, metavar=("WEIGHTS", "OUT"),
                    help="write WEIGHTS again as OUT sharing the detector's unchanged layers: the detector's "
                         "segment vectors, those layers left out of the file (a reader trained before --freeze "
                         "froze the segment vectors too), then exit")
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.tie:
        return tie_file(args, Path(args.tie[0]), Path(args.tie[1]))
    if args.build_test:
        try:
            got = build_test_files(Path(args.build_test[0]), Path(args.build_test[1]), Path(args.xnli_test))
        except (OSError, ValueError) as e:
            sys.exit(f"train_pair: {e}")
        log(f"train_pair: {len(got)} labelled test files ({sum(got.values())} rows) in {args.xnli_test}")
        return 0
    if args.consistency and args.nli:
        sys.exit("train_pair: --consistency reads each row in two languages; --nli rows are in one (leave out --nli)")
    if args.classes == 3 and args.vitaminc:
        sys.exit("train_pair: --classes 3 needs XNLI's three labels; VitaminC's rows have two (leave out --vitaminc)")
    if args.consistency and args.vitaminc:
        sys.exit("train_pair: --consistency reads each row in two languages; VitaminC's rows are English only "
                 "(leave out --vitaminc)")
    if args.consistency < 0 or args.consistency and args.batch % 2:
        sys.exit("train_pair: --consistency needs a weight >= 0 and an even --batch")
    return export(args) if args.export else train(args)


if __name__ == "__main__":
    sys.exit(main())
