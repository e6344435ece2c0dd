"""Fit the claim combiner (`core/checking/verify/claim_combiner.py`) on XNLI dev's training premises.

    python -m mfact.core.training.train_combiner [--xnli DIR] [--out FILE] [--per-lang N] [--heldout]

Each (premise, hypothesis) pair of the training premises (index % 5 != 0, as every training script
here) in the nine training languages (or `--fit-langs`) is checked by the default verifier with the
combiner off, the hypothesis read alone as `mfact verify-pairs` reads a claim; its 50 fact features,
the pair reader's logit (`core/checking/neural/pair_reader.py`; left out with `--no-reader`) and its label
(entailment = supported) are the data. A logistic model (features standardised, L2 penalty chosen by
5-fold cross-validation over premises) is fitted; its temperature is fitted (log-loss) on training
premises of the six languages neither the detector nor the fit saw (`--calibrate` pairs each; the
detector's confidence on its own training premises is higher than on new text). The shipped reader
was trained on the nine languages' training premises, so the shipped combiner is fitted on those of
the six never-trained languages instead (`--fit-langs bg,el,sw,th,tr,ur`), with no temperature;
languages whose training premises the reader learnt (its weights file says) are refused. It
is written with the detector, the fact basis and the pair reader it read, the command, the data's
SHA-256 and the figures. `--heldout` also scores the held-out premises (index % 5 == 0) in all 15
languages, as `bench/verify_xnli.py` does: the verifier before and after.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from ..checking.verify.claim_combiner import ClaimCombiner, CombinerOrigin, default_path
from ..checking.verify.offline import OfflineVerifier, reader_logits
from . import detector_data as dd
from .train_cross import ALL_LANGS, HELDOUT_LANGS, fit_temperature
from .train_verifier import fit_logistic

REPO = Path(__file__).resolve().parents[2]
DEFAULT_XNLI = REPO.parent / "shared" / "data" / "xnli-dev"
CALIBRATION_LANGS = HELDOUT_LANGS       # never seen by the detector or the fit
LAMBDAS = (0.001, 0.01, 0.1, 1.0)


class FittingVerifier(OfflineVerifier):
    """The default with the combiner off and each claim still read alone for its features: the
    verdicts are the feature model's, the features what the combiner will read. With a pair reader
    (`reader`), each claim's reader logit is kept too (`pair_logits`, by item of the last batch)."""

    use_combiner = False
    claim_features = True

    def __init__(self, *a, reader: bool = False, **kw):
        super().__init__(*a, **kw)
        self.with_reader = reader
        self.pair_logits: dict[int, float] = {}

    def _pair_inputs(self, claims, read):
        reader = self.pair_reader() if self.with_reader else None
        self.pair_logits = reader_logits(reader, claims, read) if reader is not None else {}
        return {}


def fit_standardised(x: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """L2-penalised logistic regression on standardised features, mean log-loss + lam/2 |w|^2 (the
    bias not penalised; train_verifier's Newton fit, whose loss is summed): (mu, sd, w, b)."""
    x = np.asarray(x, np.float64)
    mu = x.mean(0)
    sd = x.std(0)
    sd[sd < 1e-6] = 1.0
    w, b = fit_logistic((x - mu) / sd, np.asarray(y, np.float64), lam * len(x), iters=50)
    return mu, sd, w.astype(np.float64), b


def choose_lambda(x: np.ndarray, y: np.ndarray, groups, folds: int = 5,
                  lambdas=LAMBDAS) -> tuple[float, dict[float, float]]:
    """The penalty with the best accuracy over `folds` folds split by group (an XNLI premise's pairs
    stay together): (lambda, {lambda: accuracy})."""
    g = np.asarray([int(v) % folds for v in groups])
    acc: dict[float, float] = {}
    for lam in lambdas:
        right = 0
        for f in range(folds):
            tr, te = g != f, g == f
            if not te.any() or not tr.any():
                continue
            mu, sd, w, b = fit_standardised(x[tr], y[tr], lam)
            right += int((((((x[te] - mu) / sd) @ w + b) >= 0) == (y[te] > 0.5)).sum())
        acc[lam] = right / len(y)
    best = max(lambdas, key=lambda lam: (acc[lam], lam))
    return best, acc


def pairs_of(folder: Path, langs, heldout: bool, per_lang: int, seed: int) -> list[tuple[str, str, str, int, int]]:
    """(lang, premise, hypothesis, y, premise item) for every language of every row; `per_lang` > 0
    takes that many pairs per language (a seeded sample)."""
    rows = dd.load_xnli_rows(folder, langs=langs, heldout=heldout)
    out = []
    for lang in langs:
        got = [(lang, r["text"][lang][0], r["text"][lang][1], r["y"], r["item"]) for r in rows if lang in r["text"]]
        if 0 < per_lang < len(got):
            rng = np.random.default_rng(seed + sum(map(ord, lang)))
            got = [got[j] for j in sorted(rng.choice(len(got), per_lang, replace=False))]
        out.extend(got)
    return out


def check(verifier, pairs, log=None) -> list[tuple[list[float] | None, str]]:
    """Each pair as verify-pairs checks it: (fact features, label); with a pair reader, its logit
    after the features (None when the reader did not read the claim)."""
    from ..session import Evidence
    out: list[tuple[list[float] | None, str]] = []
    t0 = time.time()
    reader = getattr(verifier, "with_reader", False)
    for s in range(0, len(pairs), 32):
        part = pairs[s:s + 32]
        items = [(h, "", lang, [Evidence(id=f"x{s + j}", source="input", lang=lang, title="", text=p)])
                 for j, (lang, p, h, _y, _g) in enumerate(part)]
        got = verifier.verify_batch(items)
        zs = dict(verifier.pair_logits) if reader else {}
        out.extend(((v.features + [zs[j]] if j in zs else None) if reader and v.features is not None
                    else v.features, v.label) for j, v in enumerate(got))
        if log and (s // 32) % 40 == 0:
            log(f"  {s + len(part)}/{len(pairs)} pairs, {time.time() - t0:.0f} s")
    return out


def accuracy_by_lang(pairs, labels) -> dict[str, float]:
    per: dict[str, list[int]] = defaultdict(list)
    for (lang, _p, _h, y, _g), lab in zip(pairs, labels):
        per[lang].append(int((lab == "S") == bool(y)))
    return {lang: float(np.mean(v)) for lang, v in per.items()}


def heldout_figures(verifier, comb: ClaimCombiner, held, log) -> dict:
    """Accuracy per language on the held-out pairs, the verifier without and with `comb`."""
    log(f"train_combiner: {len(held)} held-out pairs in {len(ALL_LANGS)} languages")
    before = accuracy_by_lang(held, [lab for _f, lab in check(verifier, held, log)])
    with_comb = OfflineVerifier()
    with_comb.combiner = comb                 # as the verifier will load it from --out
    after = accuracy_by_lang(held, [lab for _f, lab in check(with_comb, held, log)])
    out = {"before": {k: round(v, 4) for k, v in before.items()}, "after": {k: round(v, 4) for k, v in after.items()},
           "mean_before": round(float(np.mean(list(before.values()))), 4),
           "mean_after": round(float(np.mean(list(after.values()))), 4)}
    log(f"held-out XNLI, mean of {len(after)} languages: {out['mean_before']:.3f} -> {out['mean_after']:.3f}")
    return out


def _arguments(argv) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xnli", default=str(DEFAULT_XNLI))
    ap.add_argument("--out", default=str(default_path()))
    ap.add_argument("--per-lang", type=int, default=0, help="training pairs per language (0: all)")
    ap.add_argument("--heldout", action="store_true", help="score the held-out premises before and after")
    ap.add_argument("--heldout-per-lang", type=int, default=0)
    ap.add_argument("--calibrate", type=int, default=400,
                    help="training-premise pairs per never-trained language for the temperature (0: none)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--fit-langs", default="",
                    help="fit on these languages' training premises (default: the nine the detector trained on; "
                         "a pair reader trained on those premises too needs others, e.g. the six never trained on; "
                         "no temperature is then fitted: a logistic fit is calibrated on its own data)")
    ap.add_argument("--no-reader", action="store_true",
                    help="fit on the fact features alone (without the pair reader's logit)")
    return ap.parse_args(argv)


def reader_seen(reader) -> set[str]:
    """The languages whose XNLI dev training premises the pair reader was trained on (its weights
    file's run arguments), which the combiner must not be fitted on."""
    run = (reader.meta.get("run_args") or {}) if reader is not None else {}
    return set(str(run.get("langs", "")).split(",")) - {""} if run.get("xnli_dev") else set()


def main(argv=None) -> int:
    args = _arguments(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    folder = Path(args.xnli)
    if not (folder / "dev-en.tsv").is_file():
        sys.exit(f"train_combiner: no XNLI dev files in {folder} (dev-<lang>.tsv)")
    verifier = FittingVerifier(reader=not args.no_reader)
    det = verifier.detector()
    if det is None or verifier.basis is None:
        sys.exit("train_combiner: the detector's weights and the fact basis are needed (core/checking/data)")
    reader = verifier.pair_reader() if not args.no_reader else None
    if not args.no_reader and reader is None:
        sys.exit("train_combiner: no pair reader trained on this detector (core/checking/data/pair-reader.pt); "
                 "--no-reader fits the combiner on the fact features alone")
    verifier.with_reader = reader is not None
    rdigest = reader.digest if reader is not None else ""
    fit_langs = tuple(args.fit_langs.split(",")) if args.fit_langs else dd.XNLI_TRAIN_LANGS
    seen = reader_seen(reader) & set(fit_langs)
    if seen:
        sys.exit(f"train_combiner: the pair reader was trained on XNLI dev's training premises in"
                 f" {', '.join(sorted(seen))}: "
                 f"its logits there are those of pairs it learnt; fit on other languages (--fit-langs) or --no-reader")
    pairs = pairs_of(folder, fit_langs, False, args.per_lang, args.seed)
    log(f"train_combiner: {len(pairs)} training pairs in {len(fit_langs)} languages")
    got = check(verifier, pairs, log)
    keep = [k for k, (f, _l) in enumerate(got) if f is not None]
    x = np.array([got[k][0] for k in keep], np.float64)
    y = np.array([pairs[k][3] for k in keep], np.float64)
    groups = [pairs[k][4] for k in keep]
    lam, cv = choose_lambda(x, y, groups)
    mu, sd, w, b = fit_standardised(x, y, lam)
    meta = {"command": "python -m mfact.core.training.train_combiner "
                       + " ".join(argv if argv is not None else sys.argv[1:]),
            "seed": args.seed, "pairs": len(pairs), "with_features": len(keep), "lambda": lam,
            "cv_accuracy": {str(k): round(v, 4) for k, v in cv.items()},
            "verifier": f"{verifier.name}/{verifier.version}",
            "data": {f"xnli-dev/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest()
                     for p in sorted(folder.glob("dev-*.tsv"))}}
    origin = CombinerOrigin(det.digest, verifier.basis.digest, rdigest, meta)
    comb = ClaimCombiner(mu, sd, w, b, origin)
    if args.calibrate > 0 and not set(fit_langs) & set(CALIBRATION_LANGS):
        cal = pairs_of(folder, CALIBRATION_LANGS, False, args.calibrate, args.seed)
        log(f"train_combiner: {len(cal)} calibration pairs (training premises of {', '.join(CALIBRATION_LANGS)})")
        cg = [(f, y) for (f, _lab), (_l, _p, _h, y, _g) in zip(check(verifier, cal, log), cal) if f is not None]
        t = fit_temperature(np.array([comb.logit(f) for f, _y in cg]), np.array([y for _f, y in cg]))
        meta.update(temperature=t, calibration_pairs=len(cg))
        comb = ClaimCombiner(mu, sd, w, b, origin, temperature=t)
    if args.heldout:
        meta["heldout"] = heldout_figures(verifier, comb, pairs_of(folder, ALL_LANGS, True, args.heldout_per_lang,
                                                                   args.seed), log)
    Path(args.out).write_text(json.dumps(comb.to_json(), indent=1) + "\n", encoding="utf-8")
    log(f"train_combiner: lambda {lam} (cv {cv[lam]:.3f}), {len(keep)} of {len(pairs)} pairs with features"
        f" -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
