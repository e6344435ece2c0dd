"""The detector's evaluation during training: word-level F1 per kind and language on the dev set, the
threshold that the exported weights carry."""
from __future__ import annotations

from collections import defaultdict
import numpy as np
import torch
from ..checking.neural.detector import (MAX_SENT_TOKENS, DetectorModel, LowerCache, prepare, word_units)
from . import detector_data as dd


@torch.no_grad()
def predict_units(model: DetectorModel, cache: LowerCache, tokens, exs: list[dd.Example], device: str,
                  batch: int = 32) -> list[list[float]]:
    """p(hallucinated) per unit (word_units) of each example's sentence."""
    model.eval()
    out: list[list[float]] = [[] for _ in exs]
    order = sorted(range(len(exs)), key=lambda i: len(exs[i].sentence))
    for b in range(0, len(order), batch):
        idx = order[b:b + batch]
        sents, spans_l = [], []
        for i in idx:
            ids, spans = tokens.sentence(exs[i].sentence, MAX_SENT_TOKENS)
            sents.append((ids, exs[i].sentence))
            spans_l.append(spans)
        s, sm, e, em = prepare(cache, sents, [exs[i].evidence for i in idx], device)
        p = torch.sigmoid(model.upper(s, sm, e, em)).cpu().numpy()
        for r, i in enumerate(idx):
            ps = []
            for a, b_ in word_units(exs[i].sentence):
                q = [p[r, t + 1] for t, (x, y) in enumerate(spans_l[r]) if x < b_ and a < y]
                ps.append(float(max(q)) if q else 0.0)
            out[i] = ps
    model.train()
    return out


def evaluate(exs: list[dd.Example], probs: list[list[float]], thr: float = 0.5) -> dict:
    tp = fp = fn = 0
    by_kind: dict[str, list[int]] = defaultdict(list)
    by_lang: dict[str, dict] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0, "det": [], "clean": []})
    unit_rec: dict[str, list[float]] = defaultdict(list)
    for ex, ps in zip(exs, probs):
        if ex.spans == dd.BAG:            # which words are wrong is unknown: detection only, apart
            by_kind[ex.kind + " (any word flagged)"].append(int(any(p >= thr for p in ps)))
            continue
        gold = dd.unit_labels(ex.sentence, ex.spans)
        pred = [int(p >= thr) for p in ps]
        a = sum(1 for g, q in zip(gold, pred) if g and q)
        b = sum(1 for g, q in zip(gold, pred) if q and not g)
        c = sum(1 for g, q in zip(gold, pred) if g and not q)
        tp, fp, fn = tp + a, fp + b, fn + c
        L = by_lang[_table_key(ex)]
        L["tp"] += a
        L["fp"] += b
        L["fn"] += c
        if any(gold):
            hit = int(a > 0)
            by_kind[ex.kind].append(hit)
            L["det"].append(hit)
            unit_rec[ex.kind].append(a / max(1, sum(gold)))
        else:
            clean = int(not any(pred))
            by_kind[
                "kept"
                if ex.kind in ("kept", "clause")
                else ex.kind + (" (entailed: none flagged)" if ex.kind in ("xnli", "xnli-x") else " (none flagged)")
            ].append(clean)
            L["clean"].append(clean)

    def f1(t, p_, n):
        return 2 * t / max(1, 2 * t + p_ + n)
    kinds = {k: float(np.mean(v)) for k, v in sorted(by_kind.items())}
    corrupt = [v for k, v in kinds.items() if k in dd.KINDS and k not in ("kept", "clause")]
    res = {
        "n": len(exs), "word_f1": f1(tp, fp, fn), "precision": tp / max(1, tp + fp), "recall": tp / max(1, tp + fn),
        "kinds": kinds, "unit_recall": {k: float(np.mean(v)) for k, v in sorted(unit_rec.items())},
        "kept_clean": kinds.get("kept", 0.0), "mean_kind_recall": float(np.mean(corrupt)) if corrupt else 0.0,
        "langs": {k: {"f1": f1(v["tp"], v["fp"], v["fn"]),
                      "detect": float(np.mean(v["det"])) if v["det"] else None,
                      "clean": float(np.mean(v["clean"])) if v["clean"] else None}
                  for k, v in sorted(by_lang.items())},
    }
    res["score"] = (res["word_f1"] + res["mean_kind_recall"] + res["kept_clean"]) / 3
    return res


def _table_key(ex: dd.Example) -> str:
    """The row of the per-language table an example counts in: its language pair, or its sentence-
    pair set (XNLI, PAWS-X), same language or cross-lingual."""
    for name in ("xnli", "pawsx"):
        if ex.kind.startswith(name):
            return name + ("-x" if ex.kind.startswith(name + "-x") else "")
    return ex.lang if ex.lang == ex.ev_lang else f"{ex.lang}<-{ex.ev_lang}"


def summary(res: dict) -> str:
    k = " ".join(f"{a}={b:.2f}" for a, b in res["kinds"].items())
    return (f"dev score {res['score']:.3f} word_f1 {res['word_f1']:.3f} (P {res['precision']:.2f} "
            f"R {res['recall']:.2f}) kept_clean {res['kept_clean']:.2f} kinds: {k}")
