"""Sentence-pair data sets the detector also trains on: XNLI, VitaminC and PAWS-X rows read as examples."""
from __future__ import annotations

import csv
import random
import re
from pathlib import Path
from .examples import BAG, Example, XNLI_TRAIN_LANGS, _norm, diff_spans, h32, units
from .corruptions import Pools, _entity_swap


NLI_CLASSES = {"entailment": 0, "neutral": 1, "contradiction": 2}


def nli_labels(label: str) -> dict[str, int]:
    """An XNLI label as a row's fields: y (1 entailment, else 0) and y3 (0 entailment, 1 neutral,
    2 contradiction)."""
    label = label.strip()
    return {"y": int(label == "entailment"), "y3": NLI_CLASSES.get(label, 1)}


def load_xnli_rows(folder: Path, langs=XNLI_TRAIN_LANGS, heldout: bool = False) -> list[dict]:
    """Parallel XNLI dev items: {lang: (premise, hypothesis)}, y (1 entailment), y3 (0 entailment,
    1 neutral, 2 contradiction). Training premises
    are index % 5 != 0 (as train_cross.py); `heldout` gives the % 5 == 0 ones."""
    data = {}
    for lang in langs:
        p = Path(folder) / f"dev-{lang}.tsv"
        if p.exists():
            data[lang] = [ln.split("\t") for ln in p.read_text(encoding="utf-8").splitlines()]
    if not data:
        return []
    n = min(len(v) for v in data.values())
    out = []
    for j in range(n):
        if ((j // 3) % 5 == 0) != heldout:
            continue
        parts = {lang: rows[j] for lang, rows in data.items() if len(rows[j]) == 3}
        if len(parts) != len(data):
            continue
        out.append({**nli_labels(next(iter(parts.values()))[2]), "item": j // 3,
                    "text": {lang: (r[0], r[1]) for lang, r in parts.items()}})
    return out


def xnli_example(rows: list[dict], rng: random.Random, pools: Pools) -> Example:
    row = rng.choice(rows)
    langs = sorted(row["text"])
    lp = rng.choice(langs)
    lh = lp if rng.random() < 0.4 else rng.choice(langs)
    premise, hyp = row["text"][lp][0], row["text"][lh][1]
    kind = "xnli" if lp == lh else "xnli-x"
    if row["y"] == 1 and rng.random() < 0.35:
        new = _entity_swap(hyp, lh, pools, premise, rng)
        if new and new != hyp:
            spans = diff_spans(hyp, new)
            if spans:
                return Example(new, spans, [premise], kind + "-entity", lh, lp, f"xnli-{row['item']}")
    spans = [] if row["y"] == 1 else units(hyp)
    return Example(hyp, spans, [premise], kind, lh, lp, f"xnli-{row['item']}")


def premise_example(rows: list[dict], rng: random.Random, pools: Pools) -> Example:
    """A premise against its translation (XNLI dev is parallel) among other premises of the
    evidence language: supported as written, or with a swapped number or name (that word)."""
    row = rng.choice(rows)
    langs = sorted(row["text"])
    lt = rng.choice(langs)
    le = rng.choice([x for x in langs if x != lt] or langs)
    sent, ev = row["text"][lt][0], row["text"][le][0]
    others = [rng.choice(rows)["text"][le][0] for _ in range(rng.randint(0, 2))]
    windows = [ev] + [o for o in others if o != ev]
    rng.shuffle(windows)
    if rng.random() < 0.5:
        new = _entity_swap(sent, lt, pools, " ".join(windows), rng)
        if new and new != sent:
            spans = diff_spans(sent, new)
            if spans:
                return Example(new, spans, windows, "xnli-p-entity", lt, le, f"xnli-{row['item']}")
    return Example(sent, [], windows, "xnli-p", lt, le, f"xnli-{row['item']}")


def load_vitaminc(folder: Path) -> list[tuple[str, str, int]]:
    """(claim, evidence, supported) of the VitaminC real and synthetic test sets, training pages only
    (the pages whose hash % 10 == 0 are held out, as in train_cross.py)."""
    from .train_cross import _zip_jsonl
    out = []
    for name in ("vitaminc_real", "vitaminc_synthetic"):
        zpath = Path(folder) / f"{name}.zip"
        if not zpath.exists():
            continue
        for d in _zip_jsonl(zpath, f"{name}/test.jsonl"):
            page = d.get("page") or d.get("case_id", "")
            if h32(page) % 10 == 0 or not d.get("claim") or not d.get("evidence"):
                continue
            out.append((_detokenise(d["claim"]), _detokenise(d["evidence"]), int(d["label"] == "SUPPORTS")))
    return out


def _detokenise(text: str) -> str:
    """VitaminC's tokenised text with its punctuation attached again ("Westlife .", "( BPI )")."""
    return re.sub(r"\s+([.,;:!?)])", r"\1", text).replace("( ", "(").strip()


def vitc_example(rows: list[tuple[str, str, int]], rng: random.Random) -> Example:
    claim, ev, y = rng.choice(rows)
    return Example(claim, [] if y else list(BAG), [ev], "vitc" if y else "vitc-bag", "en")


PAWSX_LANGS = ("en", "de", "es", "fr", "ja", "ko", "zh")
# labelled files of MESH's data/pawsx/tsv_files/ (PAWS-X ids; the test labels that test-<lang>.tsv
# lacks), aligned row by row with every language's file of the split
PAWSX_LABELLED = {"dev": ("tsv_files/validation-00000-of-00001.tsv",),
                  "test": ("tsv_files/test-00000-of-00001.tsv", "tsv_files/test-de.tsv")}
PAWSX_POSITIVE = 0.6      # share of paraphrase pairs (supported) among PAWS-X examples; the rest: bags
PAWSX_CROSS = 0.4         # share of cross-lingual PAWS-X examples (claim and evidence in two languages)


def _tsv_rows(path: Path) -> list[list[str]]:
    """The rows of a tab-separated file as pandas writes it (a field with a quote is quoted)."""
    with path.open(encoding="utf-8", newline="") as fh:
        return [r for r in csv.reader(fh, delimiter="\t") if any(x.strip() for x in r)]


def _paws_ok(s: str) -> bool:
    """A sentence that is there: PAWS-X marks a translation the translators did not supply "NS" (and
    labels that pair 0 in that language)."""
    return len(s.strip()) >= 10


def _paws_text(s: str, lang: str) -> str:
    """PAWS-X's English is tokenised ("Cook Pond , also known as `` X '' ."): joined again; its
    quote marks (some translations kept them) made plain."""
    s = re.sub(r"\s*''", '"', re.sub(r"``\s*", '"', s)) if "``" in s else s
    if lang != "en":
        return s.strip()
    return _detokenise(re.sub(r" (?='s\b|n't\b)", "", s))


def pawsx_files(folder: Path, langs=PAWSX_LANGS) -> dict[str, Path]:
    """The PAWS-X files `load_pawsx` reads, keyed "pawsx/<path in the folder>"."""
    names = [f"{split}-{lang}.tsv" for split in ("dev", "test") for lang in langs]
    names += [n for v in PAWSX_LABELLED.values() for n in v]
    return {f"pawsx/{n}": Path(folder) / n for n in names if (Path(folder) / n).exists()}


def _pawsx_labels(folder: Path, split: str, n: int) -> tuple[list[str], list[list[int]]]:
    """Per row of a split: its PAWS-X id and its labels in the labelled files (rows with a missing
    translation left out); a labelled file with another row count is not aligned: unused."""
    ids = [f"{split}-{i}" for i in range(n)]
    labs: list[list[int]] = [[] for _ in range(n)]
    for name in PAWSX_LABELLED.get(split, ()):
        p = folder / name
        rows = _tsv_rows(p) if p.exists() else []
        rows = rows[1:] if rows and rows[0][:1] == ["id"] else rows
        if len(rows) != n:
            continue
        for i, r in enumerate(rows):
            if len(r) == 4 and r[3].strip() in ("0", "1"):
                ids[i] = r[0].strip()
                if _paws_ok(r[1]) and _paws_ok(r[2]):
                    labs[i].append(int(r[3]))
    return ids, labs


def _pawsx_split(folder: Path, split: str, langs) -> list[dict]:
    """One split's pairs {id, y, text: {lang: (sentence1, sentence2)}}: the files of every language
    are parallel (row i is the same pair); a language whose translation is missing is left out of
    that pair; a pair whose labels disagree is dropped."""
    per = {lang: _tsv_rows(folder / f"{split}-{lang}.tsv") for lang in langs
           if (folder / f"{split}-{lang}.tsv").exists()}
    if not per:
        return []
    n = min(len(v) for v in per.values())
    ids, labs = _pawsx_labels(folder, split, n)
    out = []
    for i in range(n):
        text, ys = {}, list(labs[i])
        for lang, rows in per.items():
            r = rows[i]
            if len(r) >= 2 and _paws_ok(r[0]) and _paws_ok(r[1]):
                text[lang] = (_paws_text(r[0], lang), _paws_text(r[1], lang))
                if len(r) >= 3 and r[2].strip() in ("0", "1"):
                    ys.append(int(r[2]))
        if text and ys and len(set(ys)) == 1:
            out.append({"id": ids[i], "y": ys[0], "text": text})
    return out


def _pawsx_groups(rows: list[dict]) -> None:
    """Each pair's `group`: PAWS-X makes several pairs from one source sentence (word swaps and back
    translations of it); pairs that share a sentence (its words, in any order) get one group, so a
    held-out pair shares no sentence with a training pair."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    keys = []
    for r in rows:
        lang = "en" if "en" in r["text"] else min(r["text"])
        ka, kb = (lang + ":" + " ".join(sorted(_norm(s).split())) for s in r["text"][lang])
        ra, rb = find(ka), find(kb)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
        keys.append(ka)
    for r, k in zip(rows, keys):
        r["group"] = find(k)


def load_pawsx(folder: Path, langs=PAWSX_LANGS, heldout: bool = False) -> list[dict]:
    """PAWS-X dev and test pairs (as MESH's data/pawsx/ holds them): {id, y (1 paraphrase), text:
    {lang: (sentence1, sentence2)}, group}. Groups whose hash % 10 == 0 are held out (`heldout`
    gives them: the dev set only)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    rows = [r for split in ("dev", "test") for r in _pawsx_split(folder, split, langs)]
    _pawsx_groups(rows)
    return [r for r in rows if (h32(f"pawsx:{r['group']}") % 10 == 0) == heldout]


def pawsx_by_label(rows: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {0: [], 1: []}
    for r in rows:
        out[r["y"]].append(r)
    return out


def pawsx_example(by_y: dict[int, list[dict]], rng: random.Random, positive: float = PAWSX_POSITIVE) -> Example:
    """A PAWS-X pair: a paraphrase (label 1) is supported, nothing hallucinated; a pair with the
    same words in an order that changes the meaning (label 0) is a bag (some word is wrong, which
    one unknown). The claim is one sentence, the evidence the other, in the same language or
    (PAWSX_CROSS) in another (PAWS-X is parallel); 0-2 sentences of other groups' pairs in the
    evidence language are further windows. `positive`: the share of paraphrases (1: no bags)."""
    y = int(rng.random() < positive) if by_y[0] and by_y[1] else int(bool(by_y[1]))
    row = rng.choice(by_y[y])
    langs = sorted(row["text"])
    lc = rng.choice(langs)
    others = [x for x in langs if x != lc]
    le = rng.choice(others) if others and rng.random() < PAWSX_CROSS else lc
    i = rng.randrange(2)
    claim, windows = row["text"][lc][i], [row["text"][le][1 - i]]
    for _ in range(rng.randint(0, 2)):
        o = rng.choice(by_y[rng.randrange(2)] or by_y[y])
        if o["group"] != row["group"] and le in o["text"]:
            windows.append(o["text"][le][rng.randrange(2)])
    rng.shuffle(windows)
    kind = "pawsx" + ("-x" if le != lc else "") + ("" if y else "-bag")
    return Example(claim, [] if y else list(BAG), windows, kind, lc, le, f"pawsx-{row['id']}")
