"""Large given evidence (issue 25, F5): one `mfact run --texts` line whose evidence is N passages, this
checkout and another side by side in one run.

The passages are cut from the bundled English Wikipedia leads (tests/_evidence.py: all different,
Marie Curie's own lead among them); the text is six sentences about her, one of them wrong (or,
in the last case, 20,000 characters of the passages themselves: the cost per fact). Each
case runs in a fresh process and MFACT_HOME (nothing cached), `--offline`, without a terminal (so
progress comes as lines). A run is stopped past --kill-s seconds or --kill-mb of memory.

    .venv/bin/python bench/given_evidence.py --against /tmp/mfact-old      # git archive OLD | tar -x -C ...

Prints per case and checkout: seconds, CPU seconds (all threads), peak memory, progress lines, facts, the labels, \
and whether
her own lead is among the evidence of the facts it states; then the label agreement of the two
checkouts per case, and `given_evidence_5000_s: X` (this checkout, 5,000 passages of 1 KB).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from _common import measure, shim  # noqa: E402
from _evidence import text_line  # noqa: E402

# passages, their characters, and the text's characters (0: six sentences)
CASES = {"200 x 1 KB": (200, 1000, 0), "5,000 x 1 KB": (5000, 1000, 0),
         "5,000 x 2 KB (10 M, the limit)": (5000, 2000, 0), "20 KB text, 5,000 x 1 KB": (5000, 1000, 20_000)}


def session_of(home: str, pythonpath: str | None) -> dict | None:
    env = dict(os.environ, MFACT_HOME=home)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    r = subprocess.run([sys.executable, "-m", "mfact.core.cli", "export", "--all", "-o", "-"], capture_output=True,
                       env=env)
    try:
        return json.loads(r.stdout)["sessions"][0]
    except (ValueError, KeyError, IndexError):
        return None


def summary(s: dict | None, own_title: str) -> tuple[list[str], str]:
    """(the facts' labels in order, `k/n` facts stating her lead's content that have it as evidence)."""
    if s is None:
        return [], "-"
    own = {e["id"] for e in s["evidence"] if e["title"] == own_title}
    labels = [(f["auto"] or {}).get("label", "?") for f in s["facts"]]
    lead_facts = [f for f in s["facts"] if any(w in f["text"] for w in ("Nobel", "physicist", "radium"))]
    hit = sum(1 for f in lead_facts if own & set((f["auto"] or {}).get("evidence", [])))
    return labels, f"{hit}/{len(lead_facts)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", type=Path, help="another checkout (e.g. the previous main), measured the same way")
    ap.add_argument("--only", choices=sorted(CASES), action="append", help="these cases only")
    ap.add_argument("--kill-mb", type=float, default=4096)
    ap.add_argument("--kill-s", type=float, default=600)
    args = ap.parse_args()
    sides = [("this", None)] + ([(args.against.name, str(shim(args.against)))] if args.against else [])
    work = Path(tempfile.mkdtemp(prefix="mfact-bench-given-"))
    print(f"{'case':32s} {'checkout':10s} {'rc':>3s} {'seconds':>8s} {'CPU s':>7s} {'peak MB':>8s} {'progress':>8s}"
          f" {'facts':>5s}  {'lead found':>10s}  labels / how it ended")
    figures: dict[str, float] = {}
    for case in args.only or list(CASES):
        n, chars, text_chars = CASES[case]
        texts = work / f"{n}-{chars}-{text_chars}.jsonl"
        texts.write_text(json.dumps(text_line(n, chars, ident="big", text_chars=text_chars), ensure_ascii=False)
                         + "\n", encoding="utf-8")
        labels = {}
        for side, path in sides:
            home = tempfile.mkdtemp(prefix="mfact-bench-home-", dir=work)
            r = measure(["run", "--texts", str(texts), "--offline"], path, args.kill_mb, args.kill_s, home=home)
            s = None if r["killed"] or r["rc"] else session_of(home, path)
            labels[side], lead = summary(s, f"passage {n // 2 + 1}")
            progress = sum(1 for ln in r["err"].splitlines() if ln.startswith("progress:"))
            how = r["killed"] or (" ".join(labels[side]) if s else r["last"])
            print(f"{case:32s} {side:10s} {r['rc']:3d} {r['s']:8.1f} {r['cpu']:7.1f} {r['mb']:8.0f} {progress:8d}"
                  f" {len(labels[side]):5d}  {lead:>10s}  {how[:80]}", flush=True)
            if side == "this":
                figures[case] = r["s"]
        if len(sides) == 2 and all(labels.values()):
            a, b = labels.values()
            same = sum(x == y for x, y in zip(a, b))
            print(f"{case:32s} labels the same in both: {same}/{max(len(a), len(b))}")
    if "5,000 x 1 KB" in figures:
        print(f"given_evidence_5000_s: {figures['5,000 x 1 KB']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
