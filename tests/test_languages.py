"""What a language is (core/languages.py), and a language with no word tables checked end to end
(docs/languages.md: how to add a language and a rule)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mfact.core.languages import GENERIC, LANGUAGES, RULE_TABLES, get_language

ROOT = Path(__file__).resolve().parents[1]


def test_each_offered_language_lists_the_tables_it_has():
    tables = {lang.code: lang.rule_tables for lang in LANGUAGES + GENERIC}
    assert tables["en"] == tuple(RULE_TABLES)                   # English has every table
    assert "relations" in tables["eu"] and "occupation" not in tables["eu"]
    assert all("relations" in tables[lang.code] for lang in LANGUAGES)   # a table language reads relations
    assert tables["sv"] == () and tables["da"] == ()             # generic: no table of their own
    print("\n".join(f"{code}: {', '.join(t) or '(generic)'}" for code, t in sorted(tables.items())))


def test_the_traits_are_one_place_for_what_the_stages_read():
    from mfact.core.checking.slots.check import _CJK_LANGS
    from mfact.core.checking.text.cldr import _BABEL
    from mfact.core.checking.text.textutil import HAN_LANGS, SPACELESS
    from mfact.core.knowledge.base import NO_SPACE_LANGS
    assert SPACELESS == {c.code for c in LANGUAGES if c.by_character} == {"zh", "yue", "ja"}
    assert NO_SPACE_LANGS == {c.code for c in LANGUAGES + GENERIC if c.spaceless} | {"bo"}
    assert HAN_LANGS == {"zh", "yue"} and _CJK_LANGS == {"zh", "ja", "ko", "yue"}
    assert get_language("sr").cldr_locales == _BABEL["sr"] == ("sr", "sr_Latn")
    assert get_language("da").cldr_locales == ("da",) and not get_language("da").tables


def test_a_language_without_tables_checks_a_text_end_to_end(tmp_path):
    """Danish has no word tables: the generic path reads its CLDR dates and checks the text."""
    (tmp_path / "t.txt").write_text("Karen Blixen blev født den 17. april 1886 i Rungsted. "
                                    "Hun døde den 7. september 1950.\n", encoding="utf-8")
    ev = {"text": "Karen Blixen (født 17. april 1885 i Rungsted, død 7. september 1962 samme sted) var en "
                  "dansk forfatter.", "title": "Karen Blixen"}
    (tmp_path / "e.jsonl").write_text(json.dumps(ev, ensure_ascii=False) + "\n", encoding="utf-8")
    env = {**os.environ, "MFACT_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-m", "mfact.core.cli", "check", "--offline", "--lang", "da",
                          "--entity", "Karen Blixen", "--text-file", str(tmp_path / "t.txt"),
                          "--evidence", str(tmp_path / "e.jsonl"), "--json"],
                         capture_output=True, text=True, env=env, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("has no word tables of its own") == 1
    facts = json.loads(out.stdout)["facts"]
    labels = {f["text"]: f["auto"]["label"] for f in facts}
    born = [t for t in labels if "1886" in t]
    died = [t for t in labels if "1950" in t]
    assert born and died, labels
    assert labels[born[0]] == "NS" and labels[died[0]] == "NS", labels   # 1886 vs 1885, 1950 vs 1962
