"""Verifier throughput on 2 cores, the default cross-encoder next to `lite`, side by side in one run.

    python bench/verify_speed.py [--claims 40] [--facts 80] [--verifiers offline,lite]

1. `mfact verify-pairs` (the real CLI, model load included) on claims that each bring 4 passages of
   about 1,000 characters (bundled English Wikipedia leads; every claim has its own passages, so
   nothing is shared between claims): claims/s.
2. In-process, as the pipeline verifies a biography: facts of one person against the same k = 8
   passages (the person's lead cut into passages plus other leads), in batches of 8 facts:
   facts/s after the model is loaded.
The last line is `facts_per_s_k8: X` (the first verifier).
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


def leads() -> dict[str, str]:
    from mfact.core.knowledge.vital import data_files
    raw = json.loads(data_files()["en"].read_text(encoding="utf-8"))
    return {t: d["extract"] for t, d in raw.items() if isinstance(d, dict) and len(d.get("extract", "")) > 1200}


def cut(text: str, n: int = 1000) -> str:
    return text[:n].rsplit(" ", 1)[0]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--claims", type=int, default=40)
    ap.add_argument("--facts", type=int, default=80)
    ap.add_argument("--verifiers", default="offline,lite")
    args = ap.parse_args(argv)
    os.environ.setdefault("MFACT_HOME", tempfile.mkdtemp(prefix="mfact-bench-"))
    rng = random.Random(7)
    pages = leads()
    titles = sorted(pages)
    rng.shuffle(titles)
    rows = []
    for i in range(args.claims):
        own = pages[titles[i]]
        sents = [s for s in own.split(". ") if len(s) > 30]
        claim = rng.choice(sents[:4]).strip().rstrip(".") + "."
        others = [cut(pages[titles[(i + 1 + k * 7) % len(titles)]]) for k in range(3)]
        rows.append({"id": i, "lang": "en", "claim": claim, "entity": titles[i], "evidence": [cut(own)] + others})
    path = Path(tempfile.mkdtemp()) / "claims.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    verifiers = args.verifiers.split(",")
    results = {}
    for v in verifiers:
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-m", "mfact.core.cli", "verify-pairs", str(path), "--json",
                               "--verifier", v], capture_output=True, text=True)
        dt = time.time() - t0
        if proc.returncode != 0:
            sys.exit(proc.stderr)
        results[v] = {"claims_per_s": len(rows) / dt}

    from mfact.core.checking import build_verifier
    from mfact.core.checking.text.segment import split_sentences
    from mfact.core.config import Config
    from mfact.core.session import Evidence

    person = titles[0]
    own = pages[person]
    passages = [own[i:i + 700] for i in range(0, min(len(own), 2800), 700)]
    passages += [cut(pages[t], 700) for t in titles[1:1 + 8 - len(passages)]]
    ev = [Evidence(id=f"p{i}", source="offline-vital", lang="en", title=person, text=t) for i, t in enumerate(passages)]
    sents = [s.text for t in titles[:40] for s in split_sentences(pages[t], "en")][:args.facts]
    for v in verifiers:
        ver = build_verifier(Config(verifier=v))
        ver.verify_batch([(sents[0], person, "en", ev)])             # load the model
        t0 = time.time()
        for i in range(0, len(sents), 8):
            ver.verify_batch([(s, person, "en", ev) for s in sents[i:i + 8]])
        results[v]["facts_per_s_k8"] = len(sents) / (time.time() - t0)
    print("| verifier | verify-pairs claims/s (4 x 1,000 chars, CLI incl. load) | facts/s, k = 8 shared passages |")
    print("|---|---|---|")
    for v in verifiers:
        print(f"| {v} | {results[v]['claims_per_s']:.2f} | {results[v]['facts_per_s_k8']:.1f} |")
    print(f"claims_per_s: {results[verifiers[0]]['claims_per_s']:.2f}")
    print(f"facts_per_s_k8: {results[verifiers[0]]['facts_per_s_k8']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
