"""Mu-SHROOM validation: mfact's marks on real answers of small open models to questions, scored as
the shared task scores them (character IoU of hard labels, Spearman rho of soft labels).

    python bench/mushroom.py [--data DIR] [--half reported|tuning|all] [--per-lang N] [--langs de,fr]
                             [--settings pages,context] [--fresh]

Data (evaluation only, never committed: the repository states no licence), read from `--data DIR`,
else `$MFACT_MUSHROOM`, laid out as:

    val/mushroom.<lang>-val.v2.extra.jsonl        Helsinki-NLP/mu-shroom, splits/val/v2/ (499 answers:
                                                   ar de en es fi fr hi it sv zh)
    url-pages/<lang>.tar.gz                        the same repository, data/url-pages/ (HTML; de es fi fr
                                                   hi it sv)
    context/<lang>-val.v2_perplexity-sonar-pro/    nlp-ucsc/semeval-2025-task3 (Apache-2.0),
                                                   data/context/ (<id>.context.txt, every language)
    iou_rankings.md                                Helsinki-NLP/shroom, 2025/iou_rankings.md (the task's
                                                   published team figures, on the test split)

Build it from the three repositories (git clone, or `git show HEAD:PATH > FILE` from a bare copy).
Never read the held-out parts: `splits/test_labeled/`, `splits/test_unlabeled/`, `data/` other than
`data/url-pages/`.

Method: every answer goes through the real CLI, `mfact run --texts FILE --offline`, with its question
(`model_input`) and its evidence, in a temporary MFACT_HOME per setting: `pages`, the task's Wikipedia
page of the answer (matched by the page's canonical URL, read as text by the knowledge layer's HTML
reader, `core/knowledge/htmltext.py`); `context`, the web-search context of the answer. `mfact export
--all --format spans` gives the marked characters, each with its p(hallucinated) where the export
carries one (1.0 otherwise). The answers are split by id into a fixed tuning half and a fixed reported
half (choose constants on the tuning half only). Per language: mean IoU and rho over answers, next to
marking everything, marking nothing, and the task's median and best team (test-split figures: they
compare only roughly). The last two lines are `mushroom_val_below_median: N` (languages whose IoU is
below the median team in either setting) and `mushroom_val_iou_mean: X`.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import re
import statistics
import sys
import tarfile
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

# bench/html.py would stand for the standard library's html (the HTML reader needs html.parser): the
# silver bench's runner is loaded from its file instead of from bench/ on the path
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
_spec = importlib.util.spec_from_file_location("mfava_silver", _HERE / "mfava_silver.py")
assert _spec is not None and _spec.loader is not None
_silver = importlib.util.module_from_spec(_spec)
sys.modules["mfava_silver"] = _silver
_spec.loader.exec_module(_silver)
RunResult, run_verifier = _silver.RunResult, _silver.run_verifier

ENV = "MFACT_MUSHROOM"
LANGS = ("ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh")
CONTEXT = "context/{lang}-val.v2_perplexity-sonar-pro"
SEED = "mushroom-val-1"
MAX_PAGE_CHARS = 200_000
SOURCES = ("Helsinki-NLP/mu-shroom (splits/val/v2/, data/url-pages/), nlp-ucsc/semeval-2025-task3 "
           "(data/context/, Apache-2.0), Helsinki-NLP/shroom (2025/iou_rankings.md)")


@dataclass
class Answer:
    id: str
    lang: str
    question: str
    text: str
    hard: list[tuple[int, int]]
    soft: list[dict]
    url: str
    evidence: dict[str, str] = field(default_factory=dict)     # setting -> evidence text


# --------------------------------------------------------------------------- data


def data_dir(given: str | None) -> Path:
    return Path(given or os.environ.get(ENV, "")).expanduser()


def half_of(answer_id: str) -> str:
    """The fixed half of an answer: 'tuning' or 'reported', by a digest of its id."""
    return "tuning" if hashlib.sha256(f"{SEED}:{answer_id}".encode()).digest()[0] % 2 == 0 else "reported"


def _norm_url(url: str) -> str:
    u = urllib.parse.unquote(url.strip()).replace(".m.wikipedia.org", ".wikipedia.org")
    u = re.sub(r"^https?://", "", u).rstrip("/")
    return u.replace(" ", "_").casefold()


def read_pages(folder: Path, lang: str) -> dict[str, str]:
    """canonical URL (normalised) -> the page read as text, from url-pages/<lang>.tar.gz."""
    from mfact.core.knowledge.htmltext import html_to_text
    path = folder / "url-pages" / f"{lang}.tar.gz"
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    with tarfile.open(path, "r:gz") as tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".html"):
                continue
            f = tar.extractfile(member)
            if f is None:
                continue
            html = io.TextIOWrapper(f, encoding="utf-8", errors="replace").read()
            m = re.search(r'<link rel="canonical" href="([^"]+)"', html)
            if not m:
                continue
            title, sections, _dis, _links = html_to_text(html)
            body = "\n\n".join(f"{t}\n{x}" if t else x for t, x in sections)
            out[_norm_url(m.group(1))] = body[:MAX_PAGE_CHARS]
    return out


def load_answers(folder: Path, langs: list[str]) -> dict[str, list[Answer]]:
    out: dict[str, list[Answer]] = {}
    for lang in langs:
        path = folder / "val" / f"mushroom.{lang}-val.v2.extra.jsonl"
        if not path.is_file():
            continue
        pages = read_pages(folder, lang)
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            r = json.loads(line)
            a = Answer(r["id"], lang, r["model_input"], r["model_output_text"],
                       [(int(s), int(e)) for s, e in r.get("hard_labels", [])], r.get("soft_labels", []),
                       r.get("wikipedia_url", ""))
            page = pages.get(_norm_url(a.url))
            if page:
                a.evidence["pages"] = page
            ctx = folder / CONTEXT.format(lang=lang) / f"{a.id}.context.txt"
            if ctx.is_file():
                a.evidence["context"] = ctx.read_text(encoding="utf-8", errors="replace")
            rows.append(a)
        out[lang] = rows
    return out


def missing_message(folder: Path) -> str:
    return (f"Mu-SHROOM data missing: no val/mushroom.<lang>-val.v2.extra.jsonl in {folder or '(unset)'}. "
            f"Set {ENV} or pass --data DIR, laid out as this bench's docstring says, from {SOURCES}; "
            "evaluate only, never commit them.")


# --------------------------------------------------------------------------- scoring (the task's definitions)


def _chars(spans) -> set[int]:
    return {i for s, e in spans for i in range(int(s), int(e))}


def iou(gold: list[tuple[int, int]], pred: list[tuple[int, int]]) -> float:
    """Character IoU of hard labels; 1.0 when neither marks anything."""
    g, p = _chars(gold), _chars(pred)
    if not g and not p:
        return 1.0
    return len(g & p) / len(g | p)


def _ranks(xs: list[float]) -> list[float]:
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den else 0.0


def rho(n: int, gold_soft: list[dict], pred_soft: list[tuple[int, int, float]]) -> float:
    """Spearman rho of per-character probabilities; where either side is constant, 1.0 if both are
    and 0.0 otherwise (as the task's scorer)."""
    g, p = [0.0] * n, [0.0] * n
    for s in gold_soft:
        for i in range(int(s["start"]), min(n, int(s["end"]))):
            g[i] = float(s["prob"])
    for a, b, prob in pred_soft:
        for i in range(a, min(n, b)):
            p[i] = prob
    cg, cp = len({round(x, 8) for x in g}), len({round(x, 8) for x in p})
    if cg == 1 or cp == 1:
        return float(cg == cp)
    return spearman(g, p)


def medians(folder: Path) -> dict[str, tuple[float, float]]:
    """lang -> (median team IoU, best team IoU) from iou_rankings.md (teams only, no baselines)."""
    path = folder / "iou_rankings.md"
    out: dict[str, tuple[float, float]] = {}
    if not path.is_file():
        return out
    for sec in path.read_text(encoding="utf-8").split("\n## ")[1:]:
        lang = sec.split("\n", 1)[0].strip().lower()
        vals = [float(m.group(1)) for m in re.finditer(r"^\|\s*\d+\s*\|[^|]*\|\s*([\d.]+)\s*\|", sec, re.M)]
        if vals:
            out[lang] = (statistics.median(vals), max(vals))
    return out


# --------------------------------------------------------------------------- runs


def _line(setting: str):
    def line(a: Answer) -> dict:
        return {"id": a.id, "lang": a.lang, "question": a.question, "text": a.text,
                "evidence": [{"title": a.id, "text": a.evidence[setting]}]}
    return line


def read_soft(home: Path) -> dict[str, list[tuple[int, int, float]]]:
    """The exported spans with their p (1.0 where the export has none), by answer id."""
    names = {s["id"]: s.get("name") or s["id"]
             for s in json.loads((home / "sessions.json").read_text(encoding="utf-8")).get("sessions", [])}
    out: dict[str, list[tuple[int, int, float]]] = {}
    for line in (home / "spans.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out[names.get(d["id"], d["id"])] = [
                (int(sp[0]), int(sp[1]), float(sp[3]) if len(sp) > 3 else 1.0) for sp in d.get("spans", [])]
    return out


def run_setting(answers: list[Answer], setting: str, work: Path) -> tuple[RunResult, dict]:
    home = work / setting
    res = run_verifier(answers, "offline", home, line=_line(setting))
    soft = read_soft(home) if not res.error else {}
    return res, soft


# --------------------------------------------------------------------------- report


def score(answers: list[Answer], soft: dict) -> tuple[float, float, float, float]:
    """(IoU, rho, mark-all IoU, mark-nothing IoU), means over the answers."""
    ious, rhos, alls, nones = [], [], [], []
    for a in answers:
        pred = soft.get(a.id, [])
        ious.append(iou(a.hard, [(s, e) for s, e, _p in pred]))
        rhos.append(rho(len(a.text), a.soft, pred))
        alls.append(iou(a.hard, [(0, len(a.text))]))
        nones.append(iou(a.hard, []))
    return (statistics.fmean(ious), statistics.fmean(rhos), statistics.fmean(alls), statistics.fmean(nones))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help=f"the data folder (default: ${ENV})")
    ap.add_argument("--half", choices=("reported", "tuning", "all"), default="reported")
    ap.add_argument("--per-lang", type=int, default=0, help="at most N answers per language (0: all)")
    ap.add_argument("--langs", default="", help="comma-separated (default: all ten)")
    ap.add_argument("--settings", default="pages,context")
    ap.add_argument("--keep", help="keep each setting's MFACT_HOME, texts and exports under this folder")
    args = ap.parse_args(argv)
    folder = data_dir(args.data)
    langs = [x.strip() for x in args.langs.split(",") if x.strip()] or list(LANGS)
    answers = load_answers(folder, langs) if str(folder) not in ("", ".") else {}
    if not answers:
        print(missing_message(folder), file=sys.stderr)
        return 2
    for rows in answers.values():
        rows[:] = [a for a in rows if args.half == "all" or half_of(a.id) == args.half]
        if args.per_lang:
            rows[:] = rows[:args.per_lang]
    teams = medians(folder)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mfact-mushroom-"))
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    table: dict[str, dict[str, tuple]] = {}
    for setting in settings:
        pool = [a for rows in answers.values() for a in rows if setting in a.evidence]
        print(f"Mu-SHROOM val ({args.half} half), {setting}: {len(pool)} answers", file=sys.stderr, flush=True)
        if not pool:
            continue
        res, soft = run_setting(pool, setting, work)
        if res.error:
            print(f"  {setting}: {res.error}", file=sys.stderr)
            continue
        for lang in answers:
            rows = [a for a in answers[lang] if setting in a.evidence]
            if rows:
                table.setdefault(lang, {})[setting] = (len(rows), *score(rows, soft))
    print("| lang | setting | answers | IoU | rho | mark-all IoU | mark-nothing IoU | median team | best team |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    below, ious = 0, []
    for lang in sorted(table):
        med, best = teams.get(lang, (float("nan"), float("nan")))
        low = False
        for setting, (n, i, r, a, z) in table[lang].items():
            print(f"| {lang} | {setting} | {n} | {i:.3f} | {r:.3f} | {a:.3f} | {z:.3f} | {med:.3f} | {best:.3f} |")
            ious.append(i)
            low |= i < med
        below += low
    print(f"mushroom_val_below_median: {below}")
    print(f"mushroom_val_iou_mean: {statistics.fmean(ious) if ious else 0.0:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
