"""`mfact report --html`: the per-language tables with bootstrap intervals and the matplotlib charts as
inline SVG, on FActScore's real labelled data and on made-up sessions with hostile group names."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

from test_html_export import Tree

from mfact.core.charts import BINS, chart_data
from mfact.core.html_report import report_page
from mfact.core.metrics import bootstrap_ci, mean
from mfact.core.session import Entity, Fact, Session, Verdict

MFACT = Path(sys.executable).with_name("mfact")


def test_bootstrap_interval_is_seeded_and_holds_the_mean():
    vals = [0.2, 0.4, 0.5, 0.9, 0.1, 0.6, 0.55]
    lo, hi = bootstrap_ci(vals)
    assert lo < mean(vals) < hi and 0 <= lo and hi <= 1
    assert bootstrap_ci(vals) == (lo, hi)                      # the same resamples every time
    narrow = bootstrap_ci(vals * 20)                            # more texts, a narrower interval
    assert narrow[1] - narrow[0] < (hi - lo) / 2
    assert bootstrap_ci([0.5]) is None and bootstrap_ci([None, 0.3]) is None


def made_up(lang: str, i: int, rng: random.Random, p_supported: float, **attributes) -> Session:
    n = rng.randint(6, 14)
    text = " ".join(f"Fact {j} about person {i}." for j in range(n))
    facts, pos = [], 0
    for j in range(n):
        sent = f"Fact {j} about person {i}."
        drift = p_supported * (1.0 - 0.6 * j / n)             # supported early, less later
        label = "S" if rng.random() < drift else rng.choice(["NS", "NS", "IR"])
        facts.append(Fact(id=f"f{j}", text=sent, sentence=j, span=(pos, pos + len(sent)),
                          auto=Verdict(label=label, confidence=0.7)))
        pos += len(sent) + 1
    return Session(language=lang, entity=Entity(f"Person {i}", attributes=attributes), id=f"{lang}-{i}",
                   text=text, facts=facts, stop_reason="eos")


def sessions(hostile: bool = False) -> list[Session]:
    rng = random.Random(7)
    out = []
    rarities = ["very freq", "freq", "rare"] + (["<script>pwned('g')</script>", "$\\frac{$ x"] if hostile else [])
    for lang, p in (("en", 0.8), ("es", 0.6), ("fr", 0.5)):
        for i in range(12):
            out.append(made_up(lang, i, rng, p, rarity=rarities[i % len(rarities)],
                               region=["Europe", "Asia"][i % 2]))
    return out


def _svgs(page: str) -> list[str]:
    return re.findall(r"<svg.*?</svg>", page, re.S)


def test_report_page_has_tables_intervals_and_five_charts():
    ss = sessions()
    page = report_page(ss, p_value=False)
    tree = Tree(page)
    assert not tree.find("script") and "default-src 'none'; script-src 'none'" in page
    heads = re.findall(r"<h2>([^<]+)</h2>", page)
    assert heads == ["Per language", "Charts", "By rarity", "By region"]
    data = chart_data(ss)
    for lang in ("en", "es", "fr"):
        lo, hi = data.languages[lang].ci
        assert f"<td>{lang}</td>" in page and f"{100 * lo:.1f}–{100 * hi:.1f}" in page
    svgs = _svgs(page)
    ids = [re.search(r'id="chart-([\w-]+)"', s).group(1) for s in svgs]
    assert ids == ["factscore", "hallucination", "by-rarity", "by-region", "drift"]
    for svg in svgs:
        # drawn by matplotlib, text as paths: no font, no external reference, no script
        assert "matplotlib" in svg and "<text" not in svg and "<script" not in svg and "@font-face" not in svg
        assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', svg))
    # no two charts share an element id (their clip paths would cross)
    all_ids = re.findall(r'\sid="([^"]+)"', "".join(svgs))
    assert len(all_ids) == len(set(all_ids))
    # the drift curve falls: supported early, less late (as made up)
    en = data.positions["en"]
    assert en[0][0] / en[0][1] > en[BINS - 1][0] / en[BINS - 1][1]
    assert _svgs(report_page(ss, p_value=False)) == svgs          # the same data, the same bytes


def test_hostile_group_names_are_escaped_and_drawn():
    page = report_page(sessions(hostile=True), p_value=False)
    tree = Tree(page)
    assert not tree.find("script") and not [t for t, a in tree.tags for k in a if k.startswith("on")]
    assert "en/<script>pwned('g')</script>" in tree.text()
    assert len(_svgs(page)) == 5


def test_empty_store_gives_a_page_that_says_so():
    page = report_page([], p_value=False)
    assert "No sessions" in page and "nothing to chart" in page and not _svgs(page)


def _run(home: Path, *args: str) -> subprocess.CompletedProcess:
    exe = [str(MFACT)] if MFACT.exists() else [sys.executable, "-m", "mfact.core.cli"]
    env = dict(os.environ, MFACT_HOME=str(home), NO_COLOR="1")
    return subprocess.run(exe + list(args), capture_output=True, text=True, env=env, timeout=600)


def test_cli_report_html_on_instructgpt_shows_the_rarity_figures(shared_dir, tmp_path):
    """FActScore's human labels of InstructGPT: by rarity 72.0, 64.9, 43.0, 24.9, 11.5 (the README)."""
    home = tmp_path / "home"
    p = _run(home, "import", str(shared_dir / "data" / "factscore" / "InstructGPT.jsonl"))
    assert p.returncode == 0, p.stderr
    out = tmp_path / "report.html"
    p = _run(home, "report", "--html", "--no-p-value", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert out.resolve().as_uri() in p.stdout
    page = out.read_text(encoding="utf-8")
    rarity = page.split("<h2>By rarity</h2>", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr><td>en/([^<]+)</td><td>[^<]*</td>(?:<td>[^<]*</td>){3}<td>([\d.]+)</td>", rarity)
    assert rows[:5] == [("very freq", "72.0"), ("freq", "64.9"), ("medium", "43.0"), ("rare", "24.9"),
                        ("very rare", "11.5")]
    assert len(_svgs(page)) == 5
