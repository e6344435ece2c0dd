"""The research report: per language and model, --by groups, every figure or null with a reason,
and the four renderings."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from rich.console import Console

from mfact.core import metrics as M
from mfact.core.formats import read_sessions
from mfact.core.report import build_report, render_csv, render_json, render_markdown, render_table
from mfact.core.session import Entity, Fact, GeneratorInfo, HumanLabel, Session, Verdict

EN = "Marie Curie was a Polish physicist and chemist. She won the Nobel Prize twice in her life."
ES = "Marie Curie fue una física y química polaca. Ganó el premio Nobel dos veces en su vida."


def spans_for(text: str, k: int) -> list[tuple[int, int]]:
    """k consecutive spans over the text's words (facts of a text each carry their own words)."""
    words = [m.span() for m in re.finditer(r"\S+", text)]
    if k > len(words):
        return [(i * len(text) // k, (i + 1) * len(text) // k) for i in range(k)]
    out = []
    for i in range(k):
        group = words[i * len(words) // k:(i + 1) * len(words) // k]
        out.append((group[0][0], group[-1][1]))
    return out


def session(labels, lang="en", text=EN, model="m1", human=None, rarity=None):
    facts = []
    spans = spans_for(text, len(labels))
    for i, lab in enumerate(labels):
        h = HumanLabel(label=human[i]) if human and human[i] else None
        facts.append(Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=spans[i],
                          auto=Verdict(label=lab, verifier="v") if lab else None, human=h))
    attrs = {"rarity": rarity} if rarity else {}
    return Session(language=lang, entity=Entity("Marie Curie", attributes=attrs), text=text, facts=facts,
                   generator=GeneratorInfo(backend="x", model=model))


def test_languages_and_models():
    ss = [session(["S", "S", "NS", "IR"]), session(["S", "NS"], model="m2"), session([]),
          session(["S"] * 6 + ["NS"] * 6, lang="es", text=ES)]
    r = build_report(ss, p_value=True)
    en, es = r["languages"]["en"], r["languages"]["es"]
    assert en["sessions"] == 3 and en["abstentions"] == 1 and en["facts"] == 6
    assert en["factscore"] == pytest.approx((0.5 + 0.5) / 2)
    assert en["factscore_relevant_only"] == pytest.approx((2 / 3 + 0.5) / 2)
    assert en["factscore_gamma"] == pytest.approx((0.5 * M.gamma_penalty(4) + 0.5 * M.gamma_penalty(2)) / 2)
    assert en["facts_per_text"] == 3.0
    assert set(en["models"]) == {"m1", "m2"}
    assert en["models"]["m2"]["factscore"] == 0.5
    assert en["semantic_drift"] is None and "6 labelled facts" in en["reasons"]["semantic_drift"]
    assert es["semantic_drift"] == 1.0 and es["drifting_share"] == 1.0
    assert 0 < es["drifting_p_value"] < 0.02
    assert es["drift_position"] == 0.5
    assert es["calm"]["language_ok"] == 1.0
    # automatic labels, no relabels: HR not computable, with the reason
    assert en["hallucination_rate"] is None
    assert "not enough relabels" in en["reasons"]["hallucination_rate"]
    assert en["agreement"]["accuracy"] is None and en["reasons"]["agreement"]
    for fig in (en, es, en["models"]["m1"], en["models"]["m2"]):
        for key, value in fig.items():
            if value is None:
                assert fig["reasons"].get(key), key


def test_pending_and_empty_texts_have_reasons():
    pending = session([None, None, None])
    empty = session([], text="")
    r = build_report([pending, empty])["languages"]["en"]
    assert r["factscore"] is None and r["reasons"]["factscore"] == "no labelled fact yet"
    assert r["facts_per_text"] == 3.0
    for key, value in r.items():
        if value is None:
            assert r["reasons"].get(key), key


def test_calm_shares():
    ss = [session(["S"]), session(["S"], text=ES), session([], text=""),
          session(["S"], text=" ".join(["He was born in Warsaw and studied physics at the Sorbonne."] * 6))]
    calm = build_report(ss)["languages"]["en"]["calm"]
    assert calm["non_empty"] == 0.75
    assert calm["language_ok"] == 0.5
    assert calm["not_repetitive"] == 0.75
    assert calm["calmscore"] == 0.25


def test_hallucination_rate_calibrated_by_relabels():
    # 40 relabelled facts: verifier NS precision 0.8, recall 0.5 against the person
    auto = ["NS"] * 10 + ["S"] * 30
    human = ["NS"] * 8 + ["S"] * 2 + ["NS"] * 8 + ["S"] * 22
    relabelled = session(auto, human=human, text=" ".join(f"word{i}" for i in range(40)))
    other = session(["NS", "S", "S", "S"])        # not relabelled: effective = automatic labels
    r = build_report([relabelled, other])["languages"]["en"]
    assert r["hallucination_precision"] == pytest.approx(0.8)
    assert r["hallucination_recall"] == pytest.approx(0.5)
    assert r["relabelled_facts"] == 40
    h1, n1 = M.hallucinated_tokens(relabelled.text, [(f.span, f.label) for f in relabelled.facts])
    h2, n2 = M.hallucinated_tokens(other.text, [(f.span, f.label) for f in other.facts])
    assert r["hallucination_rate"] == pytest.approx(0.8 * (h1 + h2) / (0.5 * (n1 + n2)))
    ag = r["agreement"]
    assert ag["n"] == 40 and ag["accuracy"] == pytest.approx(30 / 40)
    assert ag["kappa"] is not None


def test_by_rarity_groups_and_order():
    ss = [session(["NS", "NS"], rarity="very rare"), session(["S", "S"], rarity="very freq"),
          session(["S", "NS"], rarity="medium"), session(["S"]), session(["S"], lang="es", text=ES,
                                                                           rarity="freq")]
    r = build_report(ss, by="rarity")
    assert r["by"] == "rarity"
    assert list(r["groups"]) == ["en/very freq", "en/medium", "en/very rare", "en/unknown", "es/freq"]
    assert r["groups"]["en/very freq"]["factscore"] == 1.0
    assert r["groups"]["en/very rare"]["factscore"] == 0.0
    with pytest.raises(Exception):
        build_report(ss, by="height")


def test_instructgpt_by_rarity_falls(shared_dir):
    ss = read_sessions(shared_dir / "data" / "factscore" / "InstructGPT.jsonl")
    g = build_report(ss, by="rarity", p_value=False)["groups"]
    order = ["en/very freq", "en/freq", "en/medium", "en/rare", "en/very rare"]
    assert list(g) == order
    fs = [g[k]["factscore"] for k in order]
    assert fs == sorted(fs, reverse=True)
    assert fs[0] > 0.6 and fs[-1] < 0.2
    # every abstention lands in a group
    assert sum(g[k]["abstentions"] for k in order) == 2


def test_chatgpt_reproduces_published_factscore(shared_dir):
    ss = read_sessions(shared_dir / "data" / "factscore" / "ChatGPT.jsonl")
    en = build_report(ss, p_value=False)["languages"]["en"]
    assert round(100 * en["factscore"], 1) == 58.3
    assert round(100 * en["factscore_relevant_only"], 1) == 62.3
    assert en["sessions"] == 183 and en["abstentions"] == 26
    assert en["hallucination_rate"] is not None      # human labels: no calibration needed


def test_renderings_are_literal():
    evil = "[b]x[/b]\x1b[31m"
    ss = [session(["S", "NS"], model=evil), session(["S"], model="=cmd|'/c calc'!A1")]
    r = build_report(ss)
    buf = io.StringIO()
    render_table(r, Console(file=buf, width=140, color_system=None))
    table = buf.getvalue()
    # markup stays literal; the escape sequence goes whole (core/textsafe.py)
    assert "[b]x[/b]" in table and "\x1b" not in table and "[31m" not in table
    md = render_markdown(r)
    assert md.splitlines()[0].startswith("| group | model |")
    rows = list(csv.DictReader(io.StringIO(render_csv(r))))
    assert rows[0]["group"] == "en" and rows[0]["model"] == "all" and rows[0]["sessions"] == "2"
    assert any(row["model"].startswith("'=") for row in rows)     # no formula injection
    assert float(rows[0]["factscore"]) == pytest.approx(0.75)
    back = json.loads(render_json(r))
    assert back["languages"]["en"]["sessions"] == 2


def test_empty_report():
    assert build_report([]) == {"languages": {}}
    buf = io.StringIO()
    render_table({"languages": {}}, Console(file=buf, width=100))
    assert "No sessions" in buf.getvalue()
