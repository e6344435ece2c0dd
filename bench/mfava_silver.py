"""mFAVA silver: token-level F1 of the words mfact marks against GPT-4's hallucination tags.

    python bench/mfava_silver.py [--data DIR] [--per-lang 40] [--langs fr,ko,yue] [--verifiers offline,lite]

Data: mFAVA silver (Islam et al. 2025, github.com/WorldHellow/mHallucinations-LLM,
datasets/hallucination_detection/silver/<Language>/silver_<language>.json; licence unstated, so
evaluation only: never train on it, never commit it). The files lie flat in one folder: `--data DIR`,
else `$MFACT_MFAVA_SILVER`, else `mfava-silver/` in mfact's cache dir. Each item is a reference
article, an answer (`generated_text`) and the same answer with tags (`silver_annotations`:
<entity> <relation> <contradictory> <invented> <subjective> <unverifiable>).

Method (Islam et al., binary task): every sampled answer goes through the real CLI, `mfact run
--texts FILE --offline --verifier V` with its reference as the only evidence, in a temporary
MFACT_HOME per verifier; `mfact export --all --format spans` gives the characters mfact marks.
Tokens are whitespace-separated words (each CJK character on its own for zh, ja and yue); a token
is tagged when any of its characters lies inside a tag, marked when any lies inside a span.
Subjective tags are left out: a token tagged only subjective is not scored (`--with-subjective`
counts it as hallucinated, as the paper's binary task does). F1 of the hallucinated class, pooled
over a language's tokens, next to marking every token and to the paper's silver F1 (Table 10).
The last line is `silver_token_f1_mean: X`, the mean over languages of the first verifier's F1 (%).

A verifier's run is cached (`mfava-silver-runs/` in mfact's cache dir) under the digest of every
file in core/, the verifier (with the content of a weights file it names) and the answers: comparing
a candidate with the default reruns only the candidate. `--fresh` runs everything again.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

SOURCE = ("github.com/WorldHellow/mHallucinations-LLM, datasets/hallucination_detection/silver/<Language>/"
          "silver_<language>.json")
ENV = "MFACT_MFAVA_SILVER"

# file stem -> (mfact language code, the paper's silver token F1 in %; None where Table 10 has none)
LANGUAGES: dict[str, tuple[str, float | None]] = {
    "basque": ("eu", 79.80), "cantonese": ("yue", 56.12), "catalan": ("ca", 90.85), "czech": ("cs", 89.00),
    "esperanto": ("eo", 90.05), "finnish": ("fi", 85.15), "french": ("fr", 90.31), "hebrew": ("he", 44.19),
    "hungarian": ("hu", 81.93), "indonesian": ("id", 88.72), "italian": ("it", 90.28), "korean": ("ko", 82.31),
    "latina": ("la", None), "lithuanian": ("lt", 81.81), "malay": ("ms", 75.73), "persian": ("fa", None),
    "polish": ("pl", None), "portuguese": ("pt", 90.94), "romanian": ("ro", None), "serbian": ("sr", 79.91),
    "sindhi": ("sd", 74.36), "spanish": ("es", 90.14), "urdu": ("ur", 79.39), "vietnamese": ("vi", 86.71),
}
OPTIONAL = {"hindi": ("hi", 66.77)}       # in the repository, but not in every snapshot of it
SEED = 20
CHAR_TOKEN_LANGS = {"zh", "ja", "yue"}

# --------------------------------------------------------------------------- the data folder


def default_data_dir() -> Path:
    """$MFACT_MFAVA_SILVER, else mfava-silver/ in mfact's cache dir (MFACT_HOME honoured), not created."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser()
    from mfact.core.paths import home_override
    home = home_override()
    if home is not None:
        return home / "cache" / "mfava-silver"
    import platformdirs
    return Path(platformdirs.user_cache_dir("mfact", appauthor=False)) / "mfava-silver"


def missing_message(folder: Path, missing: list[str]) -> str:
    """The one line that says where the files go and where they come from."""
    names = ", ".join(f"silver_{m}.json" for m in missing[:3]) + (
        f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    )
    return (f"mFAVA silver data missing: no {names} in {folder}. Copy the silver_<language>.json files of "
            f"{SOURCE} flat into that folder (or pass --data DIR, or set {ENV}); their licence is unstated: "
            "evaluate only, never commit them.")


# --------------------------------------------------------------------------- annotations -> labels

KINDS = ("entity", "relation", "contradictory", "invented", "subjective", "unverifiable")
# <name>, </name>, and the malformed ones GPT-4 wrote: <\\name>, <--name>, </name-->
_TAG = re.compile(r"<\s*([/\\]?)-*\s*([A-Za-z][A-Za-z_]*)-*\s*/?>")
NONE, HALLU, SUBJ = 0, 1, 2


def tag_kind(name: str) -> str | None:
    """The hallucination kind a tag names, typos included (<aentity>, <unverificabile>,
    <contraidictorio>); None for other markup (<i>, <deleted>, <insert>)."""
    name = name.lower()
    if name in KINDS:
        return name
    close = difflib.get_close_matches(name, KINDS, n=1, cutoff=0.75)
    return close[0] if close else None


def parse_annotations(annotated: str) -> tuple[str, list[int]]:
    """(the text without tags, a label per character: NONE, HALLU or SUBJ). A character inside any
    non-subjective tag is HALLU; inside only subjective tags SUBJ. Tags of other names are dropped
    as markup; an angle bracket that is no ASCII tag (Korean <정글북> titles) stays text."""
    out: list[str] = []
    labels: list[int] = []
    open_: dict[str, int] = {k: 0 for k in KINDS}
    pos = 0
    for m in _TAG.finditer(annotated):
        chunk = annotated[pos:m.start()]
        hallu = any(v > 0 for k, v in open_.items() if k != "subjective")
        lab = HALLU if hallu else SUBJ if open_["subjective"] > 0 else NONE
        out.append(chunk)
        labels.extend([lab] * len(chunk))
        kind = tag_kind(m.group(2))
        if kind is not None:
            if m.group(1):
                open_[kind] = max(0, open_[kind] - 1)
            else:
                open_[kind] += 1
        pos = m.end()
    chunk = annotated[pos:]
    hallu = any(v > 0 for k, v in open_.items() if k != "subjective")
    lab = HALLU if hallu else SUBJ if open_["subjective"] > 0 else NONE
    out.append(chunk)
    labels.extend([lab] * len(chunk))
    return "".join(out), labels


def align_labels(plain: str, labels: list[int], target: str) -> list[int]:
    """Carry per-character labels of `plain` over to `target`, the text mfact checks, by a character
    alignment (difflib): equal runs copy, a replaced run takes the strongest label of what it
    replaces, an inserted run is labelled when the labels on both sides agree."""
    if plain == target:
        return list(labels)
    out = [NONE] * len(target)
    sm = difflib.SequenceMatcher(None, plain, target, autojunk=False)
    for op, a0, a1, b0, b1 in sm.get_opcodes():
        if op == "equal":
            out[b0:b1] = labels[a0:a1]
        elif op == "replace":
            lab = HALLU if HALLU in labels[a0:a1] else max(labels[a0:a1])
            out[b0:b1] = [lab] * (b1 - b0)
        elif op == "insert":
            left = labels[a0 - 1] if a0 > 0 else NONE
            right = labels[a0] if a0 < len(labels) else NONE
            if left == right:
                out[b0:b1] = [left] * (b1 - b0)
    return out


_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
                  r"\U00020000-\U0003ffff]")


def tokenize(text: str, lang: str) -> list[tuple[int, int]]:
    """[start, end) of each token: whitespace-separated words; in zh, ja and yue every CJK character
    (punctuation included) is a token and a run of other non-space characters one token."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if lang not in CHAR_TOKEN_LANGS:
        return spans
    out: list[tuple[int, int]] = []
    for s, e in spans:
        run = s
        for i in range(s, e):
            if _CJK.match(text[i]):
                if run < i:
                    out.append((run, i))
                out.append((i, i + 1))
                run = i + 1
        if run < e:
            out.append((run, e))
    return out


def token_gold(tokens: list[tuple[int, int]], labels: list[int], with_subjective: bool = False) -> list[int | None]:
    """1 for a token with a hallucinated character, 0 for none, None (not scored) for a token
    tagged only subjective (1 with `with_subjective`)."""
    out: list[int | None] = []
    for s, e in tokens:
        labs = labels[s:e]
        if HALLU in labs or (with_subjective and SUBJ in labs):
            out.append(1)
        elif SUBJ in labs:
            out.append(None)
        else:
            out.append(0)
    return out


def token_marks(tokens: list[tuple[int, int]], spans: list[tuple[int, int]]) -> list[int]:
    """1 for a token that overlaps any marked span [start, end)."""
    spans = sorted(spans)
    out = []
    j = 0
    for s, e in tokens:                  # tokens in order: spans ending before this one never matter again
        while j < len(spans) and spans[j][1] <= s:
            j += 1
        out.append(int(j < len(spans) and spans[j][0] < e))
    return out


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, gold: list[int | None], pred: list[int]) -> "Counts":
        for g, p in zip(gold, pred):
            if g is None:
                continue
            if g and p:
                self.tp += 1
            elif p:
                self.fp += 1
            elif g:
                self.fn += 1
            else:
                self.tn += 1
        return self

    def prf(self) -> tuple[float, float, float]:
        """Precision, recall, F1 of the hallucinated class, in % (0 where undefined)."""
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return 100 * p, 100 * r, 100 * f


# --------------------------------------------------------------------------- items


@dataclass
class Item:
    id: str
    lang: str
    text: str
    reference: str
    labels: list[int]            # per character of `text`
    entity: str = ""


_WORD = re.compile(r"\w[\w'’\-]*")
_SENT = re.compile(r"[^.!?。！？\n]+")


def _cased_entity(sents: list[str], corpus: str, ref: str) -> str:
    """The run of capitalised words whose last word the most sentences mention (then the longer run,
    then the earlier), found in the reference. A sentence's first word counts only when it is also
    capitalised inside a sentence somewhere (a name, not "Algunos" or "Cela")."""
    from mfact.core.checking.text.textutil import STOPWORDS
    best: tuple = ()
    choice = ""
    proper: dict[str, bool] = {}

    def is_proper(word: str) -> bool:
        if word not in proper:
            proper[word] = re.search(rf"[\w,;:)]\s+(?:\w['’])?{re.escape(word)}(?!\w)", corpus) is not None
        return proper[word]

    for si, sent in enumerate(sents):
        runs: list[list[str]] = []
        prev_end = -1
        for k, w in enumerate(_WORD.finditer(sent)):
            word = re.sub(r"^\w['’]", "", w.group(0))              # elision: L'Abarth, d'Alfa
            ok = word[:1].isupper() and word.lower() not in STOPWORDS and (k > 0 or is_proper(word))
            if ok and runs and prev_end >= 0 and not sent[prev_end:w.start()].strip():
                runs[-1].append(word)
            elif ok:
                runs.append([word])
            prev_end = w.end() if ok else -1
        for run in runs:
            for start in range(len(run)):
                name = " ".join(run[start:])
                if len(name) < 3 or name.lower() not in ref:
                    continue
                n = sum(1 for x in sents if re.search(rf"(?<!\w){re.escape(run[-1])}", x))
                key = (n, len(run) - start, -si)
                if key > best:
                    best, choice = key, name
    return choice


def _caseless_entity(sents: list[str], text: str, ref: str, lang: str) -> str:
    """The word (CJK: character) 1-3-gram of the first sentence that the most sentences hold (then
    the longer, then the earlier), found in the reference."""
    from mfact.core.checking.text.textutil import STOPWORDS
    first = sents[0] if sents else text
    if lang in CHAR_TOKEN_LANGS:
        units, joiner, ns = [c for c in first if _CJK.match(c) and c.isalnum()], "", (2, 3, 4)
    else:
        units, joiner, ns = [w.group(0) for w in _WORD.finditer(first)], " ", (1, 2, 3)
    best: tuple = ()
    choice = ""
    for n in ns:
        for i in range(len(units) - n + 1):
            gram = units[i:i + n]
            if all(g.lower() in STOPWORDS or g.isdigit() or len(g) < 3 and joiner for g in gram):
                continue
            name = joiner.join(gram)
            if name.lower() not in ref:
                continue
            count = sum(1 for x in sents if name in x)
            key = (count, n, -i)
            if count > 1 and key > best:
                best, choice = key, name
    return choice


def guess_entity(text: str, reference: str, lang: str) -> str:
    """The answer's topic, for `mfact run` (the data names none; the reference starts with its
    Wikipedia short description, not its title): a name the answer repeats and the reference holds
    (capitalised words in cased scripts, else word or character n-grams); else its first 3 words."""
    sents = [m.group(0) for m in _SENT.finditer(text) if m.group(0).strip()]
    ref = reference.lower()
    choice = ""
    if any(c.isupper() for c in text) and lang not in CHAR_TOKEN_LANGS:
        choice = _cased_entity(sents, text + "\n" + reference, ref)
    return choice or _caseless_entity(sents, text, ref, lang) or " ".join(text.split()[:3])


def sample_indices(n: int, stem: str, per_lang: int, tuning: bool = False) -> list[int]:
    """The fixed-seed sample of one language's `n` answers (`per_lang` 0: all). `tuning`: as many
    answers drawn from those outside that sample, to choose constants on without touching the
    reported figure."""
    idx = list(range(n))
    if not per_lang or per_lang >= n:
        return [] if tuning else idx
    bench = sorted(random.Random(f"{SEED}-{stem}").sample(idx, per_lang))
    if not tuning:
        return bench
    rest = sorted(set(idx) - set(bench))
    return sorted(random.Random(f"{SEED}-tuning-{stem}").sample(rest, min(per_lang, len(rest))))


def load_items(folder: Path, stem: str, lang: str, per_lang: int, tuning: bool = False) -> list[Item]:
    """The fixed-seed sample of one language (`per_lang` 0: every item; `tuning`: a disjoint one)."""
    raw = json.loads((folder / f"silver_{stem}.json").read_text(encoding="utf-8"))
    idx = sample_indices(len(raw), stem, per_lang, tuning)
    items = []
    for i in idx:
        d = raw[i]
        text = d.get("generated_text") or ""
        plain, labels = parse_annotations(d.get("silver_annotations") or "")
        items.append(Item(id=f"{lang}-{i}", lang=lang, text=text, reference=d.get("references") or "",
                          labels=align_labels(plain, labels, text)))
        items[-1].entity = guess_entity(text, items[-1].reference, lang)
    return items


# --------------------------------------------------------------------------- running mfact


@dataclass
class RunResult:
    verifier: str
    seconds: float = 0.0
    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)     # item id -> marked spans
    failed: dict[str, str] = field(default_factory=dict)                      # item id -> reason
    error: str = ""                                                           # the whole run failed
    cached: bool = False                                                      # read from the cache dir


def _mfact(*args: str) -> list[str]:
    return [sys.executable, "-m", "mfact.core.cli", *args]


def silver_line(it: Item) -> dict:
    """The `run --texts` line of a silver answer: its reference article the only evidence."""
    return {"id": it.id, "lang": it.lang, "entity": it.entity, "text": it.text, "evidence": [it.reference]}


def run_verifier(items: list, verifier: str, home: Path, progress: bool = True,
                 line: Callable[[Any], dict] = silver_line) -> RunResult:
    """`mfact run --texts` over every item (each a `run --texts` line by `line`) with this verifier in
    its own MFACT_HOME, then the spans."""
    res = RunResult(verifier)
    home.mkdir(parents=True, exist_ok=True)
    texts = home / "texts.jsonl"
    texts.write_text("".join(json.dumps(line(it), ensure_ascii=False) + "\n" for it in items), encoding="utf-8")
    env = dict(os.environ, MFACT_HOME=str(home / "home"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_DATASETS_OFFLINE="1")
    env.pop("MFACT_VERIFIER", None)
    summary_path = home / "summary.json"
    t0 = time.perf_counter()
    tail: list[str] = []
    with summary_path.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(_mfact("run", "--texts", str(texts), "--offline", "--verifier", verifier,
                                       "--no-progress", "--json"),
                                stdout=out, stderr=subprocess.PIPE, text=True, env=env)
        done = 0
        step = max(1, len(items) // 10)
        assert proc.stderr is not None
        for line in proc.stderr:
            tail = (tail + [line.rstrip()])[-20:]
            if line.startswith(("done:", "failed:", "skipped:")):
                done += 1
                if progress and (done % step == 0 or done == len(items)):
                    print(f"  {verifier}: {done}/{len(items)} answers in {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
        rc = proc.wait()
    res.seconds = time.perf_counter() - t0
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8") or "{}")
    except ValueError:
        summary = {}
    for f in summary.get("failed") or []:
        m = re.search(r"\((.*)\) \[", str(f.get("job", "")))
        res.failed[m.group(1) if m else str(f.get("job"))] = str(f.get("reason", ""))[:300]
    for b in summary.get("bad_lines") or []:
        res.failed[f"line {b}"] = "bad line"
    exported = home / "spans.jsonl"
    names = home / "sessions.json"
    ex1 = subprocess.run(_mfact("export", "--all", "--format", "spans", "-o", str(exported)),
                         capture_output=True, text=True, env=env)
    ex2 = subprocess.run(_mfact("export", "--all", "-o", str(names)), capture_output=True, text=True, env=env)
    if ex1.returncode or ex2.returncode or not exported.exists():
        why = (ex1.stderr or ex2.stderr or "").strip().splitlines()
        res.error = f"mfact run exited {rc}: " + " | ".join(tail[-3:]) + ("; export: " + why[-1] if why else "")
        return res
    by_session = {}
    for s in json.loads(names.read_text(encoding="utf-8")).get("sessions", []):
        by_session[s["id"]] = s.get("name") or ""
    for line in exported.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            res.spans[by_session.get(d["id"], d["id"])] = [(int(a), int(b)) for a, b, *_ in d.get("spans", [])]
    if not res.spans and rc:
        res.error = f"mfact run exited {rc}: " + " | ".join(tail[-3:])
    return res


# --------------------------------------------------------------------------- cached runs

REPO = Path(__file__).resolve().parents[1]


def code_digest(root: Path | None = None) -> str:
    """SHA-256 of every file under core/ (code, tables, weights): what a run's marks depend on
    besides the answers and the verifier named."""
    h = hashlib.sha256()
    base = (root or REPO) / "core"
    for f in sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(str(f.relative_to(base)).encode() + b"\0")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def run_key(items: list[Item], verifier: str, code: str) -> str:
    """The cache key of one verifier's run: mfact's code, the verifier (a weights file it names by
    its content) and the answers with their evidence."""
    h = hashlib.sha256(f"{code}\0{verifier}\0".encode())
    named = Path(verifier.split(":", 1)[1]).expanduser() if ":" in verifier else None
    if named is not None and named.is_file():
        h.update(hashlib.sha256(named.read_bytes()).digest())
    for it in items:
        h.update(json.dumps([it.id, it.lang, it.entity, it.text, it.reference], ensure_ascii=False).encode())
    return h.hexdigest()[:24]


def runs_dir() -> Path:
    """mfava-silver-runs/ in mfact's cache dir (MFACT_HOME honoured)."""
    from mfact.core.paths import cache_dir
    return cache_dir() / "mfava-silver-runs"


def cached_result(path: Path, label: str, fresh: bool, load: Callable[[dict], Any], run: Callable[[], Any],
                  dump: Callable[[Any], dict]) -> Any:
    """`run()`, or the finished run kept at `path` (read by `load`); a run with no error and nothing
    failed is kept there (`dump` gives what to keep beside its seconds and time); `fresh` runs again."""
    if path.is_file() and not fresh:
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            res = load(d)
            print(f"  {label}: the run of {d.get('when', '?')} on the same code and answers (cached; --fresh runs it)",
                  file=sys.stderr, flush=True)
            return res
        except (ValueError, KeyError, TypeError):
            pass                                   # a damaged entry: run again, it is rewritten
    res = run()
    if not res.error and not res.failed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**dump(res), "seconds": res.seconds, "when": time.strftime("%Y-%m-%d %H:%M")}),
                        encoding="utf-8")
    return res


def cached_run(items: list[Item], verifier: str, home: Path, code: str, fresh: bool = False) -> RunResult:
    """run_verifier, reusing a finished run of the same code, verifier and answers (none failed)
    from the cache dir; `fresh` runs again (and caches)."""
    return cached_result(
        runs_dir() / f"{run_key(items, verifier, code)}.json", verifier, fresh,
        lambda d: RunResult(verifier, float(d["seconds"]), {k: [(int(a), int(b)) for a, b in v]
                                                            for k, v in d["spans"].items()}, cached=True),
        lambda: run_verifier(items, verifier, home),
        lambda res: {"verifier": verifier, "spans": res.spans})


# --------------------------------------------------------------------------- report


def _fmt(c: Counts | None) -> str:
    if c is None:
        return "-"
    p, r, f = c.prf()
    return f"{f:.1f} ({p:.0f}/{r:.0f})"


def select_languages(folder: Path, langs: str) -> tuple[dict[str, tuple[str, float | None]], list[str]]:
    """(file stem -> (code, paper F1), the stems to run). `langs`: mfact codes or file stems, "" for
    all (Hindi too when its file is there). ValueError for a language the benchmark does not know."""
    table = dict(LANGUAGES)
    table.update({k: v for k, v in OPTIONAL.items() if (folder / f"silver_{k}.json").is_file()})
    if not langs:
        return table, sorted(table)
    known = {**LANGUAGES, **OPTIONAL}
    by_code = {code: stem for stem, (code, _f) in known.items()}
    stems = []
    for w in (w.strip().lower() for w in langs.split(",") if w.strip()):
        stem = by_code.get(w, w)
        if stem not in known:
            raise ValueError(f"unknown language {w!r}; choose from: " + ", ".join(sorted(by_code)))
        table[stem] = known[stem]
        stems.append(stem)
    return table, stems


def score_language(items: list[Item], code: str, results: list[RunResult],
                   with_subjective: bool) -> tuple[Counts, list[Counts | None]]:
    """Pooled counts of flag-everything and of each verifier (None: no answer of it was checked)."""
    everyone = Counts()
    per_v: list[Counts | None] = [None] * len(results)
    for it in items:
        toks = tokenize(it.text, code)
        gold = token_gold(toks, it.labels, with_subjective)
        everyone.add(gold, [1] * len(toks))
        for k, r in enumerate(results):
            if it.id in r.spans:
                per_v[k] = (per_v[k] or Counts()).add(gold, token_marks(toks, r.spans[it.id]))
    return everyone, per_v


def report(stems: list[str], table: dict, items: dict[str, list[Item]], load_errors: dict[str, str],
           results: list[RunResult], with_subjective: bool) -> list[float]:
    """Print the per-language table and the per-verifier times; the first verifier's F1 per language."""
    head = ["lang", "answers", "tokens", "tagged %"] + [f"{r.verifier} F1 (P/R)" for r in results] + \
        ["flag-all F1", "paper silver F1"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    firsts: list[float] = []
    beats = 0
    for stem in stems:
        code, paper = table[stem]
        if code not in items:
            print(f"| {code} | failed to load: {load_errors.get(code, '?')} |")
            continue
        everyone, per_v = score_language(items[code], code, results, with_subjective)
        n_tok = everyone.tp + everyone.fn + everyone.fp + everyone.tn
        tagged = 100 * (everyone.tp + everyone.fn) / n_tok if n_tok else 0.0
        cells = [code, str(len(items[code])), str(n_tok), f"{tagged:.1f}"] + [_fmt(c) for c in per_v] + \
            [f"{everyone.prf()[2]:.1f}", f"{paper:.1f}" if paper is not None else "-"]
        print("| " + " | ".join(cells) + " |")
        if per_v and per_v[0] is not None:
            firsts.append(per_v[0].prf()[2])
            beats += per_v[0].prf()[2] > everyone.prf()[2]
    everything = [it for its in items.values() for it in its]
    for r in results:
        n_ok = sum(1 for it in everything if it.id in r.spans)
        per = r.seconds / n_ok if n_ok else float("nan")
        print(f"wall time {r.verifier}: {r.seconds:.1f} s for {n_ok} answers ({per:.2f} s per answer)"
              + (f"; {len(everything) - n_ok} not checked" if n_ok < len(everything) else "")
              + (" (a cached run's time)" if r.cached else ""))
        if r.error:
            print(f"  {r.verifier} failed: {r.error}")
        for ident, reason in list(r.failed.items())[:5]:
            print(f"  {r.verifier} failed on {ident}: {reason}")
        if len(r.failed) > 5:
            print(f"  ... and {len(r.failed) - 5} more failed answers")
    if results and firsts:
        print(f"{results[0].verifier} beats flag-everything in {beats} of {len(firsts)} languages")
    return firsts


BOOTSTRAP = 1000      # resamples of the answers, within each language


def _item_counts(items: dict[str, list[Item]], results: list[RunResult],
                 with_subjective: bool) -> dict[str, list[list[Counts | None]]]:
    """language -> per answer, each verifier's counts (None where that verifier did not check it)."""
    out: dict[str, list[list[Counts | None]]] = {}
    for code, its in items.items():
        rows = []
        for it in its:
            toks = tokenize(it.text, code)
            gold = token_gold(toks, it.labels, with_subjective)
            rows.append([Counts().add(gold, token_marks(toks, r.spans[it.id])) if it.id in r.spans else None
                         for r in results])
        out[code] = rows
    return out


def _mean_f1(per_lang: dict[str, list[list[Counts | None]]], picks: dict[str, list[int]], k: int) -> float:
    f1s = []
    for code, rows in per_lang.items():
        tot = Counts()
        for i in picks[code]:
            c = rows[i][k]
            if c is not None:
                tot.tp, tot.fp, tot.fn = tot.tp + c.tp, tot.fp + c.fp, tot.fn + c.fn
        f1s.append(tot.prf()[2])
    return sum(f1s) / len(f1s) if f1s else float("nan")


def intervals(items: dict[str, list[Item]], results: list[RunResult], with_subjective: bool,
              resamples: int = BOOTSTRAP, seed: int = SEED) -> list[str]:
    """How much the mean F1 owes to which answers were drawn: a 95% bootstrap interval of the first
    verifier's mean (answers resampled within each language), and for each other verifier the
    interval of its difference from the first on the same resampled answers (paired). With 8
    answers per language one language's F1 moves by 10 points or more between samples."""
    per_lang = {c: rows for c, rows in _item_counts(items, results, with_subjective).items() if rows}
    if not results or not per_lang:
        return []
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in results]
    for _ in range(resamples):
        picks = {c: [rng.randrange(len(rows)) for _ in rows] for c, rows in per_lang.items()}
        for k in range(len(results)):
            draws[k].append(_mean_f1(per_lang, picks, k))

    def ci(xs: list[float]) -> tuple[float, float]:
        xs = sorted(xs)
        return xs[int(0.025 * len(xs))], xs[min(len(xs) - 1, int(0.975 * len(xs)))]

    lo, hi = ci(draws[0])
    lines = [f"{results[0].verifier}: mean F1 95% interval {lo:.1f} .. {hi:.1f} ({resamples} resamples of the"
             " answers within each language)"]
    for k in range(1, len(results)):
        dlo, dhi = ci([b - a for a, b in zip(draws[0], draws[k])])
        verdict = "better" if dlo > 0 else "worse" if dhi < 0 else "not distinguishable"
        lines.append(f"{results[k].verifier} minus {results[0].verifier}: 95% interval {dlo:+.1f} .. {dhi:+.1f}"
                     f" (paired: {verdict})")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data", help=f"folder of silver_<language>.json (default: ${ENV}, else mfava-silver/ in the cache dir)"
    )
    ap.add_argument("--per-lang", type=int, default=40, help="answers per language, fixed seed (0: all)")
    ap.add_argument("--langs", default="", help="comma-separated mfact codes or file names (default: all)")
    ap.add_argument("--verifiers", default="offline", help="comma-separated, each run as `mfact run --verifier X`")
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="run every verifier again (a run of the same code, verifier and answers is read from the cache dir)",
    )
    ap.add_argument("--tuning-sample", action="store_true",
                    help="score --per-lang other answers, disjoint from the reported sample: for choosing constants")
    ap.add_argument("--with-subjective", action="store_true", help="count subjective tags as hallucinated")
    ap.add_argument("--keep", help="keep each verifier's MFACT_HOME, texts and exports under this folder")
    args = ap.parse_args(argv)

    folder = Path(args.data).expanduser() if args.data else default_data_dir()
    try:
        table, stems = select_languages(folder, args.langs)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    missing = [s for s in stems if not (folder / f"silver_{s}.json").is_file()]
    if missing:
        print(missing_message(folder, missing), file=sys.stderr)
        return 2
    items: dict[str, list[Item]] = {}
    load_errors: dict[str, str] = {}
    for stem in stems:
        code = table[stem][0]
        try:
            items[code] = load_items(folder, stem, code, args.per_lang, args.tuning_sample)
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:     # one bad file: reported
            load_errors[code] = f"{type(exc).__name__}: {exc}"
    everything = [it for its in items.values() for it in its]
    verifiers = [v.strip() for v in args.verifiers.split(",") if v.strip()]
    print(f"mFAVA silver: {len(everything)} answers in {len(items)} languages ({args.per_lang or 'all'} per "
          f"language{'; the tuning sample, not the reported one' if args.tuning_sample else ''}), "
          f"verifiers {', '.join(verifiers)}", file=sys.stderr)

    work = Path(args.keep).expanduser() if args.keep else Path(tempfile.mkdtemp(prefix="mfava-"))
    results: list[RunResult] = []
    code = code_digest()
    try:
        for v in verifiers:
            try:
                results.append(cached_run(everything, v, work / re.sub(r"[^\w.-]", "_", v), code, args.fresh))
            except Exception as exc:  # noqa: BLE001 - one verifier failing is reported, not fatal
                results.append(RunResult(v, error=f"{type(exc).__name__}: {exc}"))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    firsts = report(stems, table, items, load_errors, results, args.with_subjective)
    for line in intervals(items, results, args.with_subjective):
        print(line)
    mean = sum(firsts) / len(firsts) if firsts else float("nan")
    print(f"silver_token_f1_mean: {mean:.1f}")
    return 0 if firsts else 1


if __name__ == "__main__":
    sys.exit(main())
