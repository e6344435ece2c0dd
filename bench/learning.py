"""Learning from labels, simulated: how much better the verdicts on the facts not yet labelled get
as a user relabels n = 0, 25, 50, 100, 200 facts, in the "next uncertain" order and at random.

    python bench/learning.py [--silver-langs es,fr,it,pt,ko,ca,cs,pl] [--per-lang 30] [--seeds 5]
                             [--factscore ChatGPT,PerplexityAI] [--png learning.png]

Data (facts that already carry labels; each pool is one "language"):
- FActScore's human-labelled ChatGPT and PerplexityAI biographies (`../shared/data/factscore`, en):
  imported into a temporary store (`mfact import`), judged through the CLI with the offline
  verifier against the bundled evidence (`mfact rejudge --all --retrieve --offline --adapt off`;
  the bundled leads cover few of these people, so most facts are judged without evidence);
- mFAVA silver (`bench/mfava_silver.py`'s data folder; a fixed-seed sample of answers per language):
  each answer checked through `mfact run --texts` with its reference as the only evidence, as
  mfava_silver.py does; a fact is NS when its span holds a hallucination-tagged character, S when it
  holds no tag, left out when only a subjective tag. The simulation adapts in memory: nothing learnt
  from silver is written anywhere but the temporary store (and the row cache below, in mfact's cache
  dir, outside the repository).

The simulated user labels facts of one pool in batches of 25 (the TUI refits after every 25 new
labels): in the "next uncertain" order one fact at a time as the TUI's key picks it
(`core/adapt/order.py`'s `LabelOrder.next`: nearest 0.5, every third of the first 25 labels at the
next quantile of p), from p(supported) under the current adaptation; or at random (`--seeds` orders,
averaged). After
each batch the adaptation is learnt as `mfact learn` does (core/adapt: cross-validation over the
labels so far, adopted only when it beats the verifier on them). Measured after each step: the
agreement of the adapted verdicts with the labels of the facts not yet labelled ("rest"), beside
the unadapted verifier's on the same facts. The verdicts (the expensive part) are cached per pool,
sample and verifier version under mfact's cache dir (`learning-bench/`); `--fresh` recomputes them.

Tables per pool and order, a chart in the terminal (`--png FILE` also writes a PNG when matplotlib
is installed). The last line is `gain_at_100_points: X`: the accuracy on the rest after 100 labels
in the "next uncertain" order minus the accuracy before any label (n = 0, all facts), mean over
pools, in points. Part of that gain is the order's own doing (the facts it takes away are those the
verifier is least sure of); the adaptation's share, adapted minus unadapted on the same rest, is
printed beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STEPS = (0, 25, 50, 100, 200)
BATCH = 25
DEFAULT_SILVER = "es,fr,it,pt,ko,ca,cs,pl"
SHARED = HERE.parent.parent / "shared" / "data" / "factscore"


def _mfact(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, MFACT_HOME=str(home), MFACT_ADAPT="off", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    p = subprocess.run([sys.executable, "-m", "mfact.core.cli", *args], capture_output=True, text=True, env=env)
    if p.returncode:
        raise SystemExit(f"mfact {' '.join(args)} failed: {p.stderr.strip()[-500:]}")
    return p


def _rows_json(rows) -> list:
    return [[list(r.key), r.lang, r.human, r.label, r.p, [float(v) for v in r.x],
             None if r.phi is None else [float(v) for v in r.phi]] for r in rows]


def _rows_of(raw: list):
    from mfact.core.adapt.features import Row, phi_of
    return [Row(tuple(k), lang, h, lab, p, np.asarray(x, dtype=np.float64), phi_of(rest[0] if rest else None))
            for k, lang, h, lab, p, x, *rest in raw]


def cached(name: str, fresh: bool, make):
    """Rows from the cache file `name` in mfact's cache dir, else made (and cached)."""
    from mfact.core.paths import cache_dir
    path = cache_dir() / "learning-bench" / f"{name}.json"
    if path.exists() and not fresh:
        return _rows_of(json.loads(path.read_text(encoding="utf-8")))
    rows = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_rows_json(rows)), encoding="utf-8")
    return rows


def verifier_version() -> str:
    """The default verifier's version and the extractor's (a pool's facts are extracted again when
    the extractor changes: the cached rows name both)."""
    from mfact.core.checking import build_extractor, build_verifier
    from mfact.core.config import Config
    ext = build_extractor(Config())
    return f"{build_verifier(Config()).version}-x{ext.name}{ext.version}"


# --------------------------------------------------------------------------- pools


def factscore_rows(files: list[str], work: Path) -> list:
    """FActScore's labelled facts judged by the offline verifier through the CLI."""
    from mfact.core.adapt.learn import rows_from_store
    from mfact.core.store import Store

    home = work / "factscore"
    for f in files:
        _mfact(home, "import", str(SHARED / f"{f}.jsonl"))
    t0 = time.perf_counter()
    _mfact(home, "rejudge", "--all", "--retrieve", "--offline", "--adapt", "off")
    print(f"  factscore: judged in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    with Store(home / "data" / "sessions.sqlite3") as st:
        return [r for r in rows_from_store(st, "offline")]


def silver_rows(stem: str, code: str, per_lang: int, folder: Path, work: Path) -> list:
    """One silver language's facts, labelled from the hallucination tags, judged through the CLI."""
    import mfava_silver as MS
    from mfact.core.adapt.features import row_of
    from mfact.core.store import Store

    items = {it.id: it for it in MS.load_items(folder, stem, code, per_lang)}
    res = MS.run_verifier(list(items.values()), "offline", work / code, progress=False)
    if res.error:
        raise SystemExit(f"silver {code}: {res.error}")
    rows = []
    with Store(work / code / "home" / "data" / "sessions.sqlite3") as st:
        for s in st.iter_sessions():
            it = items.get(s.name)
            if it is None:
                continue
            labels = MS.align_labels(it.text, it.labels, s.text)      # the text as mfact checked it
            for f in s.facts:
                gold = silver_label(labels, s.text, f.span)
                r = row_of((s.id, f.id), code, gold, f.auto) if gold else None
                if r is not None:
                    rows.append(r)
    return rows


def silver_label(labels: list[int], text: str, span: tuple[int, int]) -> str | None:
    """NS when a non-space character of the span is tagged hallucinated, S when none is tagged,
    None (left out) when only subjective tags touch it."""
    import mfava_silver as MS
    tags = {labels[i] for i in range(span[0], min(span[1], len(labels))) if not text[i].isspace()}
    if MS.HALLU in tags:
        return "NS"
    return None if MS.SUBJ in tags else "S"


# --------------------------------------------------------------------------- the simulation


def adopted(rows: list) -> object | None:
    """What `mfact learn` would adopt from these labels (its `LangResult`; None: not adopted)."""
    from mfact.core.adapt.learn import learn
    if not rows:
        return None
    res = learn(rows)
    r = next(iter(res.languages.values()))
    return r if r.adopted else None


def agreement(human: list[str], labels: list[str]) -> float:
    return sum(1 for h, a in zip(human, labels) if h == a) / max(1, len(human))


def simulate(rows: list, order: str, seed: int = 0, steps=STEPS) -> list[tuple[int, float, float, bool]]:
    """(n, adapted accuracy on the rest, unadapted accuracy on the rest, adopted) after each step.
    The "next uncertain" order picks one fact at a time as the TUI's key does (`LabelOrder.next`,
    core/adapt/order.py), from p(supported) under the adaptation refitted after each batch; the
    seed salts its tie-break (facts of equal p: a user meets them in any order)."""
    from mfact.core.adapt.learn import Data, predict_rows
    from mfact.core.adapt.order import LabelOrder
    data = Data.of(rows)
    p0 = np.array([r.p for r in rows])
    done = np.zeros(len(rows), dtype=bool)
    perm = list(range(len(rows)))
    random.Random(seed).shuffle(perm)
    chooser = LabelOrder(["\x1f".join(r.key) for r in rows], salt=str(seed))
    labelled: list[int] = []
    cal = None
    out = []
    for target in steps:
        while len(labelled) < target and not done.all():
            k = min(BATCH, target - len(labelled))
            if order == "random":
                pick = [i for i in perm if not done[i]][:k]
                done[pick] = True
            else:
                probs = predict_rows(cal, data.x, data.phi) if cal is not None else p0
                pick = []
                for _ in range(k):
                    i = chooser.next(probs, done)
                    if i is None:
                        break
                    pick.append(i)
                    done[i] = True
            labelled += pick
            cal = adopted([rows[i] for i in labelled])
        idx = np.flatnonzero(~done)
        probs = (predict_rows(cal, data.x[idx], None if data.phi is None else data.phi[idx])
                 if cal is not None else p0[idx])
        human = [data.human[i] for i in idx]
        ad = ["S" if v >= 0.5 else "NS" for v in probs]
        out.append((target, agreement(human, ad), agreement(human, [data.label[i] for i in idx]), cal is not None))
    return out


def mean_runs(runs: list) -> list:
    return [(n, float(np.mean([r[j][1] for r in runs])), float(np.mean([r[j][2] for r in runs])),
             sum(r[j][3] for r in runs) / len(runs)) for j, (n, *_x) in enumerate(runs[0])]


def run_pool(rows: list, seeds: int) -> dict:
    """Both orders, each the mean of `seeds` runs (the seed orders the random picks, and the facts
    of equal p(supported) in the "next uncertain" order), at the steps that leave at least a batch
    of facts unlabelled."""
    steps = [n for n in STEPS if n <= len(rows) - BATCH]
    return {order: mean_runs([simulate(rows, order, seed, steps) for seed in range(seeds)])
            for order in ("uncertain", "random")}


# --------------------------------------------------------------------------- report


def table(pools: dict[str, list], results: dict[str, dict]) -> None:
    head = " | ".join(f"n={n}" for n in STEPS)
    print(f"accuracy % on the facts not yet labelled: adapted (unadapted verifier on the same facts), mean of"
          f" {ARGS.seeds} runs; * adopted in every run, + in some")
    print(f"| pool | facts | S share | order | {head} |")
    print("|---|---|---|---|" + "---|" * len(STEPS))
    for name, res in results.items():
        rows = pools[name]
        share = 100 * sum(1 for r in rows if r.human == "S") / len(rows)
        for order in ("uncertain", "random"):
            cells = [f"{100 * a:.1f} ({100 * u:.1f}){'*' if ad == 1 else '+' if ad else ''}"
                     for _n, a, u, ad in res[order]]
            cells += ["—"] * (len(STEPS) - len(cells))
            label = '"next uncertain"' if order == "uncertain" else "random"
            print(f"| {name} | {len(rows)} | {share:.0f} | {label} | " + " | ".join(cells) + " |")


def at(res: dict, order: str, n: int) -> tuple | None:
    return next((x for x in res[order] if x[0] == n), None)


def gain(res: dict, order: str, n: int = 100) -> float | None:
    """The issue's measure: accuracy on the rest after n labels minus before any (n = 0), points."""
    x = at(res, order, n)
    return None if x is None else 100 * (x[1] - res[order][0][1])


def adaptation_gain(res: dict, order: str, n: int = 100) -> float | None:
    """The adaptation's own share: adapted minus unadapted accuracy on the same rest, points."""
    x = at(res, order, n)
    return None if x is None else 100 * (x[1] - x[2])


def chart(results: dict[str, dict]) -> None:
    print("\naccuracy gain on the rest after 100 labels, points (rest at 100 minus at 0):"
          " U \"next uncertain\", R random")
    vals = [abs(v) for r in results.values() for o in ("uncertain", "random") for v in [gain(r, o)] if v is not None]
    top = max(vals + [1.0])
    for name, res in results.items():
        for order, tag in (("uncertain", "U"), ("random", "R")):
            g = gain(res, order)
            if g is None:
                continue
            bar = "█" * int(round(40 * abs(g) / top))
            print(f"{name:>14} {tag} {'-' if g < 0 else ' '}|{bar:<40}| {g:+.1f}"
                  f"  (adaptation's share {adaptation_gain(res, order):+.1f})")


def png(path: str, results: dict[str, dict]) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no PNG: matplotlib is not installed; the chart above is the plot)")
        return
    fig, axes = plt.subplots(1, len(results), figsize=(3 * len(results), 3), sharey=True, squeeze=False)
    for ax, (name, res) in zip(axes[0], results.items()):
        for order, style in (("uncertain", "-o"), ("random", "--s")):
            ax.plot([x[0] for x in res[order]], [100 * x[1] for x in res[order]], style, label=order)
        ax.plot([x[0] for x in res["uncertain"]], [100 * x[2] for x in res["uncertain"]], ":", color="grey",
                label="unadapted (uncertain)")
        ax.set_title(name)
        ax.set_xlabel("labels")
    axes[0][0].set_ylabel("accuracy on the rest, %")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"PNG written to {path}")


def main() -> int:
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--silver-langs", default=DEFAULT_SILVER, help="mFAVA silver languages ('' for none)")
    ap.add_argument("--per-lang", type=int, default=30, help="silver answers per language (fixed seed)")
    ap.add_argument("--data", help="the silver folder (default: bench/mfava_silver.py's)")
    ap.add_argument("--factscore", default="ChatGPT,PerplexityAI", help="FActScore files ('' for none)")
    ap.add_argument("--seeds", type=int, default=5, help="random orders averaged")
    ap.add_argument("--png", help="also write the curves as a PNG (matplotlib)")
    ap.add_argument("--fresh", action="store_true", help="judge the facts again (no cached verdicts)")
    ARGS = args = ap.parse_args()
    import mfava_silver as MS

    version = verifier_version()
    work = Path(tempfile.mkdtemp(prefix="mfact-learning-"))
    pools: dict[str, list] = {}
    fs = [f.strip() for f in args.factscore.split(",") if f.strip()]
    if fs:
        pools["en (FActScore)"] = cached(f"factscore-{'-'.join(fs)}-{version}", args.fresh,
                                         lambda: factscore_rows(fs, work))
    folder = Path(args.data).expanduser() if args.data else MS.default_data_dir()
    table_, stems = MS.select_languages(folder, args.silver_langs) if args.silver_langs else ({}, [])
    for stem in stems:
        code = table_[stem][0]
        if not (folder / f"silver_{stem}.json").is_file():
            print(MS.missing_message(folder, [stem]), file=sys.stderr)
            continue
        print(f"  silver {code}: judging {args.per_lang} answers", file=sys.stderr, flush=True)
        pools[f"{code} (silver)"] = cached(f"silver-{code}-{args.per_lang}-{version}", args.fresh,
                                           lambda: silver_rows(stem, code, args.per_lang, folder, work))
    pools = {k: v for k, v in pools.items() if len(v) >= 100 + BATCH}      # 100 labels and a rest
    t0 = time.perf_counter()
    results = {name: run_pool(rows, args.seeds) for name, rows in pools.items()}
    print(f"verifier offline/{version}; simulation {time.perf_counter() - t0:.1f} s")
    table(pools, results)
    chart(results)
    if args.png:
        png(args.png, results)
    print("\ntargets:")
    for name, res in results.items():
        before, g, share = res["uncertain"][0][1], gain(res, "uncertain"), adaptation_gain(res, "uncertain")
        u50, r50 = at(res, "uncertain", 50), at(res, "random", 50)
        better = None if u50 is None or r50 is None else 100 * (u50[1] - r50[1])
        print(
            f"  {name}: after 100 labels {g:+.1f} pts on the rest (before {100 * before:.1f}%; target >= +5 where"
            f" < 80%: {'met' if g >= 5 or before >= 0.8 else 'NOT met'}; the adaptation's share {share:+.1f});"
            f' at 50 labels "next uncertain" vs random {better:+.2f} pts ({"better" if better > 0 else "NOT better"})'
        )
    gains = [gain(r, "uncertain") for r in results.values()]
    print(f"adaptation's share, mean: {float(np.mean([adaptation_gain(r, 'uncertain') for r in results.values()])):.1f}"
          " pts (adapted minus unadapted on the same rest after 100 labels)")
    print(f"gain_at_100_points: {float(np.mean(gains)) if gains else float('nan'):.1f}")
    return 0


ARGS = None

if __name__ == "__main__":
    sys.exit(main())
