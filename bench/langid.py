"""Language ID per language on the XNLI dev premises: langid (py3langid) vs polyglot (CLD2).

    .venv/bin/python bench/langid.py [--shared ../shared] [--limit N]

For each of XNLI's 15 languages, the unique premises of dev-<lang>.tsv are identified by:
langid over all its 97 languages, langid restricted to mfact's languages, polyglot/CLD2 restricted
the same way, and mfact's combined `detect` (which follows `PREFERRED`). Prints a Markdown table
(accuracy in %, mean microseconds per text), the per-language choice (the better detector when it
wins by at least 0.5 points), and last the combined accuracy as `name: value`.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def premises(path: Path, limit: int | None) -> list[str]:
    seen: dict[str, None] = {}
    with path.open(encoding="utf-8", newline="") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row and row[0].strip():
                seen.setdefault(row[0].strip(), None)
    out = list(seen)
    return out[:limit] if limit else out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"))
    ap.add_argument("--limit", type=int, default=None, help="premises per language")
    args = ap.parse_args()
    from mfact.core import langid

    data = Path(args.shared) / "data" / "xnli-dev"
    files = sorted(data.glob("dev-*.tsv"))
    if not files:
        print(f"no XNLI dev files in {data}", file=sys.stderr)
        return 1
    have_polyglot = langid.polyglot_available()
    detectors = {
        "langid-all": lambda t: langid.langid_detect(t, restricted=False)[0],
        "langid": lambda t: langid.langid_detect(t)[0],
    }
    if have_polyglot:
        detectors["polyglot"] = lambda t: langid.polyglot_detect(t)[0]
    detectors["mfact detect"] = lambda t: langid.detect(t)[0]
    for f in detectors.values():        # load models before timing
        f("warm up")
    rows = []
    totals = {name: [0, 0] for name in detectors}
    times = {name: 0.0 for name in detectors}
    for path in files:
        lang = path.stem.split("-", 1)[1]
        texts = premises(path, args.limit)
        row = {"lang": lang, "n": len(texts)}
        for name, fn in detectors.items():
            t0 = time.perf_counter()
            ok = sum(fn(t) == lang for t in texts)
            times[name] += time.perf_counter() - t0
            row[name] = 100.0 * ok / len(texts)
            totals[name][0] += ok
            totals[name][1] += len(texts)
        rows.append(row)
    names = list(detectors)
    print("| language | premises | " + " | ".join(names) + " | choice |")
    print("|---|---:|" + "---:|" * len(names) + "---|")
    choice = {}
    for row in rows:
        pick = "langid"
        if have_polyglot and row["polyglot"] >= row["langid"] + 0.5:
            pick = "polyglot"
        choice[row["lang"]] = pick
        print(f"| {row['lang']} | {row['n']} | " + " | ".join(f"{row[n]:.1f}" for n in names) + f" | {pick} |")
    n_all = max(totals["langid"][1], 1)
    print("| all | " + str(n_all) + " | "
          + " | ".join(f"{100.0 * totals[n][0] / max(totals[n][1], 1):.1f}" for n in names) + " | |")
    print("| µs per text | | " + " | ".join(f"{1e6 * times[n] / n_all:.0f}" for n in names) + " | |")
    if not have_polyglot:
        print("(polyglot/CLD2 not installed: pip install 'mfact[polyglot]')")
    print("PREFERRED = " + repr({k: v for k, v in choice.items() if v != "langid"}))
    print(f"langid_detect_accuracy: {100.0 * totals['mfact detect'][0] / n_all:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
