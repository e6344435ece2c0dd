"""Mu-SHROOM validation: mfact's marks on real answers of small open models to questions, scored as
the shared task scores them (character IoU of hard labels, Spearman rho of soft labels).

    python bench/mushroom.py [--data DIR] [--per-lang N] [--langs de,fr] [--settings pages,context]
                             [--tuning-sample | --half reported|tuning|all] [--fresh] [--keep DIR]

Data (evaluation only, never committed: the Mu-SHROOM repository states no licence), read from
`--data DIR`, else `$MFACT_MUSHROOM`, laid out as:

    val/mushroom.<lang>-val.v2.extra.jsonl        Helsinki-NLP/mu-shroom, splits/val/v2/ (499 answers:
                                                   ar de en es fi fr hi it sv zh)
    url-pages/<lang>.tar.gz                        the same repository, data/url-pages/ (the task's
                                                   Wikipedia pages, HTML; de es fi fr hi it sv)
    context/<lang>-val.v2_perplexity-sonar-pro/    nlp-ucsc/semeval-2025-task3 (Apache-2.0),
                                                   data/context/ (<id>.context.txt, every language)
    iou_rankings.md                                Helsinki-NLP/shroom, 2025/iou_rankings.md (the task's
                                                   published team figures, on the test split)

To build it: `git clone` the three repositories (or `git show HEAD:PATH > FILE` from bare copies) and
copy mu-shroom's `splits/val/v2/*.jsonl` into `val/`, its `data/url-pages/*.tar.gz` into `url-pages/`,
semeval-2025-task3's `data/context/*-val.v2_perplexity-sonar-pro/` folders into `context/`, and
shroom's `2025/iou_rankings.md` beside them. Never read the held-out parts: `splits/test_labeled/`,
`splits/test_unlabeled/`, and `data/` other than `data/url-pages/`.

Method: every answer goes through the real CLI, `mfact run --texts FILE --offline`, with its question
(`model_input`, the line's "question") and its evidence (the line's "evidence"), in a temporary
MFACT_HOME per setting: `pages`, the task's Wikipedia page of the answer (matched by the page's
canonical URL `<link rel="canonical">` against the answer's `wikipedia_url`, percent-encoding and
mobile hosts normalised, or by the title a moved page was redirected from; read as text by the knowledge layer's \
HTML reader,
`core/knowledge/htmltext.py`); `context`, the web-search context of the answer. `mfact export --all
--format spans` gives the marked characters, each `[start, end, "NS", p]` with its p(hallucinated).
A setting's run is cached (`mushroom-runs/` in mfact's cache dir) under the digest of every file in
core/ and the answers with their evidence; `--fresh` runs it again.

The answers are split by a digest of their id (a fixed seed) into a tuning half and a reported half:
choose constants on `--tuning-sample` only. Scoring as the task's scorer defines it: per answer the
IoU of the hard labels' characters (1.0 when neither side marks anything) and the Spearman rho of
the per-character probabilities (where either side is constant: 1.0 if both are, else 0.0); the
mean over a language's answers. Beside mfact: marking everything, marking nothing, and the task's
median team and best team (the team ranked first by IoU) read from `iou_rankings.md` at run time
(test-split figures: they compare only roughly). Then 95% bootstrap intervals (answers resampled
within each language) of mfact's mean IoU and of its paired differences from marking everything and
between the settings. A language mfact refuses is reported as skipped on its own line.

The last two lines are `mushroom_val_below_median: N` (languages whose IoU is below the median team
in either setting) and `mushroom_val_iou_mean: X` (the mean IoU over every language and setting of
the table).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
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


def data_dir(given: str | None) -> Path | None:
    """--data, else $MFACT_MUSHROOM; None when neither is given."""
    where = given or os.environ.get(ENV, "")
    return Path(where).expanduser() if where.strip() else None


def half_of(answer_id: str) -> str:
    """The fixed half of an answer: 'tuning' or 'reported', by a digest of its id."""
    return "tuning" if hashlib.sha256(f"{SEED}:{answer_id}".encode()).digest()[0] % 2 == 0 else "reported"


def _norm_url(url: str) -> str:
    u = urllib.parse.unquote(url.strip()).replace(".m.wikipedia.org", ".wikipedia.org")
    u = re.sub(r"^https?://", "", u).rstrip("/")
    return u.replace(" ", "_").casefold()


_LINK = re.compile(r"<link\b[^>]*>", re.I)
_ATTR = re.compile(r"""\b(rel|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)


def canonical_url(html: str) -> str:
    """The href of the page's `<link rel="canonical">` (attributes in any order and quoting), "" if none."""
    head = html[:200_000]
    for m in _LINK.finditer(head):
        attrs = {a.group(1).lower(): a.group(2) or a.group(3) or a.group(4) or "" for a in _ATTR.finditer(m.group(0))}
        if attrs.get("rel", "").lower() == "canonical" and attrs.get("href"):
            # the standard library's html (bench/html.py would stand for it where bench/ is on the path)
            return importlib.import_module("html").unescape(attrs["href"])
    return ""


def read_pages(folder: Path, lang: str) -> dict[str, str]:
    """canonical URL (normalised) -> the page read as text, from url-pages/<lang>.tar.gz."""
    from mfact.core.knowledge.htmltext import html_to_text
    path = folder / "url-pages" / f"{lang}.tar.gz"
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    aliases: dict[str, str] = {}
    try:
        tar = tarfile.open(path, "r:gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        print(f"{path}: not a readable .tar.gz ({exc}; an empty file or a Git LFS pointer is what a clone without "
              f"LFS gives): the {lang} answers are run without the pages setting", file=sys.stderr)
        return {}
    with tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".html"):
                continue
            f = tar.extractfile(member)
            if f is None:
                continue
            html = io.TextIOWrapper(f, encoding="utf-8", errors="replace").read()
            url = canonical_url(html)
            if not url:
                continue
            title, sections, _dis, _links = html_to_text(html)
            body = "\n\n".join(f"{t}\n{x}" if t else x for t, x in sections)
            first, *moved = page_keys(url, html)
            out[first] = body[:MAX_PAGE_CHARS]
            aliases.update({k: body[:MAX_PAGE_CHARS] for k in moved})
    return {**aliases, **out}          # a page's own canonical URL wins over another's old title


_REDIRECTED = re.compile(r'"wgRedirectedFrom"\s*:\s*"((?:[^"\\]|\\.)+)"')


def page_keys(url: str, html: str) -> list[str]:
    """The normalised URLs a page answers to: its canonical one, and the title it was redirected from
    (MediaWiki's `wgRedirectedFrom`: the page was fetched by the answer's URL and moved since)."""
    keys = [_norm_url(url)]
    m = _REDIRECTED.search(html)
    if m and "/wiki/" in url:
        try:
            title = json.loads(f'"{m.group(1)}"')
        except ValueError:
            return keys
        keys.append(_norm_url(url.split("/wiki/", 1)[0] + "/wiki/" + title))
    return keys


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


def missing_message(folder: Path | None) -> str:
    """The one line that says where the data goes and how to build it."""
    where = str(folder) if folder is not None else f"(none: set ${ENV} or pass --data DIR)"
    return (f"Mu-SHROOM data missing: no val/mushroom.<lang>-val.v2.extra.jsonl in {where}. Build the folder "
            "from git clones: val/ <- Helsinki-NLP/mu-shroom splits/val/v2/*.jsonl, url-pages/ <- its "
            "data/url-pages/*.tar.gz, context/ <- nlp-ucsc/semeval-2025-task3 (Apache-2.0) "
            "data/context/<lang>-val.v2_perplexity-sonar-pro/, iou_rankings.md <- Helsinki-NLP/shroom "
            "2025/iou_rankings.md (bench/mushroom.py's docstring has the layout); the Mu-SHROOM files state no "
            "licence: evaluate only, never commit them, and never read its test splits.")


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


@dataclass(frozen=True)
class Teams:
    """A language's published team figures: the median team's IoU and rho (each the median over the
    teams, baselines left out) and those of the best team (the one ranked first by IoU)."""
    median_iou: float
    median_rho: float
    best_iou: float
    best_rho: float


_TEAM_ROW = re.compile(r"^\|\s*(\d+)\s*\|[^|]*\|\s*([-\d.eE]+)\s*\|\s*([-\d.eE]+)\s*\|", re.M)


def team_figures(folder: Path) -> dict[str, Teams]:
    """lang -> Teams, parsed from iou_rankings.md (`## XX` sections of `| rank | team | IoU | rho |`
    rows; the baselines' rows have no rank and are left out). {} when the file is not there."""
    path = folder / "iou_rankings.md"
    out: dict[str, Teams] = {}
    if not path.is_file():
        return out
    for sec in ("\n" + path.read_text(encoding="utf-8")).split("\n## ")[1:]:
        lang = sec.split("\n", 1)[0].strip().lower()
        rows = sorted((int(m.group(1)), float(m.group(2)), float(m.group(3))) for m in _TEAM_ROW.finditer(sec))
        if rows:
            out[lang] = Teams(statistics.median(r[1] for r in rows), statistics.median(r[2] for r in rows),
                              rows[0][1], rows[0][2])
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


@dataclass
class SettingRun:
    setting: str
    soft: dict[str, list[tuple[int, int, float]]] = field(default_factory=dict)   # answer id -> spans with p
    seconds: float = 0.0
    failed: dict[str, str] = field(default_factory=dict)
    error: str = ""
    cached: bool = False


def run_key(answers: list[Answer], setting: str, code: str) -> str:
    """The cache key of one setting's run: mfact's code and the answers with that setting's evidence."""
    h = hashlib.sha256(f"{code}\0{setting}\0".encode())
    for a in answers:
        h.update(json.dumps([a.id, a.lang, a.question, a.text, a.evidence.get(setting)], ensure_ascii=False).encode())
    return h.hexdigest()[:24]


def runs_dir() -> Path:
    """mushroom-runs/ in mfact's cache dir (MFACT_HOME honoured)."""
    from mfact.core.paths import cache_dir
    return cache_dir() / "mushroom-runs"


def run_setting(answers: list[Answer], setting: str, work: Path) -> SettingRun:
    """`mfact run --texts` over the answers with this setting's evidence, then the spans with p."""
    home = work / setting
    res = run_verifier(answers, "offline", home, line=_line(setting))
    out = SettingRun(setting, seconds=res.seconds, failed=dict(res.failed), error=res.error)
    if not res.error:
        out.soft = read_soft(home)
    return out


def cached_setting(answers: list[Answer], setting: str, work: Path, code: str, fresh: bool = False) -> SettingRun:
    """run_setting, reusing a finished run (none failed) of the same code and answers from the cache
    dir; `fresh` runs again (and caches)."""
    return _silver.cached_result(
        runs_dir() / f"{run_key(answers, setting, code)}.json", setting, fresh,
        lambda d: SettingRun(setting, {k: [(int(a), int(b), float(p)) for a, b, p in v] for k, v in d["soft"].items()},
                             float(d["seconds"]), cached=True),
        lambda: run_setting(answers, setting, work),
        lambda res: {"setting": setting, "soft": res.soft})


# --------------------------------------------------------------------------- report

COLUMNS = ("mfact", "mark-all", "mark-nothing")


def answer_scores(a: Answer, pred: list[tuple[int, int, float]]) -> list[tuple[float, float]]:
    """(IoU, rho) of one answer for mfact's marks, marking everything and marking nothing."""
    whole = [(0, len(a.text), 1.0)] if a.text else []
    out = []
    for marks in (pred, whole, []):
        out.append((iou(a.hard, [(s, e) for s, e, _p in marks]), rho(len(a.text), a.soft, marks)))
    return out


def score(answers: list[Answer], soft: dict) -> tuple[float, float, float, float]:
    """(IoU, rho, mark-all IoU, mark-nothing IoU), means over the answers."""
    rows = [answer_scores(a, soft.get(a.id, [])) for a in answers]
    return (statistics.fmean(r[0][0] for r in rows), statistics.fmean(r[0][1] for r in rows),
            statistics.fmean(r[1][0] for r in rows), statistics.fmean(r[2][0] for r in rows))


BOOTSTRAP = 1000


def _ci(xs: list[float]) -> tuple[float, float]:
    xs = sorted(xs)
    return xs[int(0.025 * len(xs))], xs[min(len(xs) - 1, int(0.975 * len(xs)))]


def bootstrap(per_lang: dict[str, list[list[float]]], pairs: list[tuple[int, int]], resamples: int = BOOTSTRAP,
              seed: str = SEED) -> tuple[tuple[float, float], list[tuple[float, float]]]:
    """`per_lang`: language -> one row of figures per answer. The 95% interval of the mean over
    languages of column 0's per-language mean, and for each (i, j) of `pairs` that of column j minus
    column i on the same resampled answers (paired); answers are resampled within each language."""
    rng = random.Random(seed)
    langs = [k for k, rows in per_lang.items() if rows]
    base: list[float] = []
    diffs: list[list[float]] = [[] for _ in pairs]
    for _ in range(resamples):
        means: list[list[float]] = []
        for k in langs:
            rows = per_lang[k]
            picks = [rows[rng.randrange(len(rows))] for _ in rows]
            means.append([statistics.fmean(r[c] for r in picks) for c in range(len(rows[0]))])
        base.append(statistics.fmean(m[0] for m in means))
        for d, (i, j) in zip(diffs, pairs):
            d.append(statistics.fmean(m[j] - m[i] for m in means))
    return _ci(base), [_ci(d) for d in diffs]


def intervals(answers: dict[str, list[Answer]], runs: dict[str, SettingRun], resamples: int = BOOTSTRAP) -> list[str]:
    """Lines: per setting, mfact's mean IoU interval and its paired difference from marking
    everything; with two settings, the second minus the first on the answers that have both."""
    lines = []
    for setting, run in runs.items():
        per_lang = {k: [[answer_scores(a, run.soft.get(a.id, []))[c][0] for c in (0, 1)] for a in rows
                        if setting in a.evidence] for k, rows in answers.items()}
        if not any(per_lang.values()):
            continue
        (lo, hi), [(dlo, dhi)] = bootstrap(per_lang, [(1, 0)], resamples)
        lines.append(f"{setting}: mfact mean IoU 95% interval {lo:.3f} .. {hi:.3f}; mfact minus mark-all "
                     f"{dlo:+.3f} .. {dhi:+.3f} (paired: {_verdict(dlo, dhi)}; {resamples} resamples of the "
                     "answers within each language)")
    names = list(runs)
    if len(names) >= 2:
        s0, s1 = names[0], names[1]
        per_lang = {k: [[iou(a.hard, [(s, e) for s, e, _p in runs[s].soft.get(a.id, [])]) for s in (s0, s1)]
                        for a in rows if s0 in a.evidence and s1 in a.evidence] for k, rows in answers.items()}
        if any(per_lang.values()):
            _base, [(dlo, dhi)] = bootstrap(per_lang, [(0, 1)], resamples)
            lines.append(f"{s1} minus {s0} (answers with both): mean IoU 95% interval {dlo:+.3f} .. {dhi:+.3f} "
                         f"(paired: {_verdict(dlo, dhi)})")
    return lines


def _verdict(lo: float, hi: float) -> str:
    return "better" if lo > 0 else "worse" if hi < 0 else "not distinguishable"


def _cell(iou_: float, rho_: float) -> str:
    return f"{iou_:.3f} / {rho_:.3f}" if iou_ == iou_ else "-"


def table(answers: dict[str, list[Answer]], runs: dict[str, SettingRun], teams: dict[str, Teams],
          skipped: dict[str, str]) -> tuple[int, list[float]]:
    """Print the per-language table (IoU / rho of each column); (languages below the median team in
    either setting, every cell's mfact IoU)."""
    print("| lang | setting | answers | mfact IoU / rho | mark-all | mark-nothing | median team | best team |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    below, ious = 0, []
    nan = Teams(*[float("nan")] * 4)
    for lang in sorted(set(answers) | set(skipped)):
        if lang in skipped:
            print(f"| {lang} | skipped: {skipped[lang]} |")
            continue
        t = teams.get(lang, nan)
        low = False
        for setting, run in runs.items():
            rows = [answer_scores(a, run.soft.get(a.id, [])) for a in answers[lang] if setting in a.evidence]
            if not rows:
                continue
            means = [(statistics.fmean(r[c][0] for r in rows), statistics.fmean(r[c][1] for r in rows))
                     for c in range(len(COLUMNS))]
            print(f"| {lang} | {setting} | {len(rows)} | " + " | ".join(_cell(*m) for m in means)
                  + f" | {_cell(t.median_iou, t.median_rho)} | {_cell(t.best_iou, t.best_rho)} |")
            ious.append(means[0][0])
            low |= means[0][0] < t.median_iou
        below += low
    return below, ious


def _runs_summary(runs: dict[str, SettingRun]) -> None:
    for setting, run in runs.items():
        n = len(run.soft)
        print(
            f"wall time {setting}: {run.seconds:.1f} s for {n} answers"
            + (" (a cached run's time)" if run.cached else "")
        )
        if run.error:
            print(f"  {setting} failed: {run.error}")
        for ident, reason in list(run.failed.items())[:5]:
            print(f"  {setting} failed on {ident}: {reason}")
        if len(run.failed) > 5:
            print(f"  ... and {len(run.failed) - 5} more failed answers")


def refused_languages(langs: list[str]) -> dict[str, str]:
    """lang -> why mfact refuses it (it is skipped, on a line of its own)."""
    from mfact.core.languages import UnknownLanguage, get_language
    out = {}
    for lang in langs:
        try:
            get_language(lang)
        except UnknownLanguage as exc:
            out[lang] = f"mfact does not accept {lang!r} ({exc.message})"
    return out


def select(answers: dict[str, list[Answer]], half: str, per_lang: int) -> None:
    """Keep one half (or all) of each language's answers, and at most `per_lang` of them (a fixed-seed
    sample of that half; 0: all)."""
    for lang, rows in answers.items():
        rows[:] = [a for a in rows if half == "all" or half_of(a.id) == half]
        if per_lang and per_lang < len(rows):
            keep = set(random.Random(f"{SEED}-{lang}-{half}").sample(range(len(rows)), per_lang))
            rows[:] = [a for k, a in enumerate(rows) if k in keep]


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", help=f"the data folder (default: ${ENV})")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--half", choices=("reported", "tuning", "all"), default="reported",
                   help="which fixed half of the answers to score (default: the reported one)")
    g.add_argument("--tuning-sample", action="store_true",
                   help="score the tuning half (for choosing constants), not the reported one")
    ap.add_argument("--per-lang", type=int, default=0, help="at most N answers per language, fixed seed (0: all)")
    ap.add_argument("--langs", default="", help="comma-separated (default: all ten)")
    ap.add_argument("--settings", default="pages,context", help="evidence settings: pages, context or both")
    ap.add_argument("--fresh", action="store_true", help="run again (a run of the same code and answers is cached)")
    ap.add_argument("--keep", help="keep each setting's MFACT_HOME, texts and exports under this folder")
    args = ap.parse_args(argv)
    if args.tuning_sample:
        args.half = "tuning"
    return args


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    folder = data_dir(args.data)
    langs = [x.strip().lower() for x in args.langs.split(",") if x.strip()] or list(LANGS)
    settings = [s.strip() for s in args.settings.split(",") if s.strip()]
    bad = [x for x in langs if x not in LANGS] + [s for s in settings if s not in ("pages", "context")]
    if bad:
        print(f"unknown language or setting {bad[0]!r}; languages: {', '.join(LANGS)}; settings: pages, context",
              file=sys.stderr)
        return 2
    answers = load_answers(folder, langs) if folder is not None else {}
    if not answers:
        print(missing_message(folder), file=sys.stderr)
        return 2
    assert folder is not None
    skipped = refused_languages(sorted(answers))
    skipped.update({x: f"no val/mushroom.{x}-val.v2.extra.jsonl in {folder}" for x in langs if x not in answers})
    for lang, why in skipped.items():
        print(f"{lang}: skipped, {why}", file=sys.stderr)
        answers.pop(lang, None)
    select(answers, args.half, args.per_lang)
    teams = team_figures(folder)
    work = Path(args.keep).expanduser() if args.keep else Path(tempfile.mkdtemp(prefix="mfact-mushroom-"))
    code = _silver.code_digest()
    runs: dict[str, SettingRun] = {}
    try:
        for setting in settings:
            pool = [a for rows in answers.values() for a in rows if setting in a.evidence]
            print(f"Mu-SHROOM val ({args.half} half), {setting}: {len(pool)} answers", file=sys.stderr, flush=True)
            if pool:
                runs[setting] = cached_setting(pool, setting, work, code, args.fresh)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    ok = {k: r for k, r in runs.items() if not r.error}
    below, ious = table(answers, ok, teams, skipped)
    _runs_summary(runs)
    for line in intervals(answers, ok):
        print(line)
    print(f"mushroom_val_below_median: {below}")
    print(f"mushroom_val_iou_mean: {statistics.fmean(ious) if ious else 0.0:.3f}")
    return 0 if ious else 1


if __name__ == "__main__":
    sys.exit(main())
