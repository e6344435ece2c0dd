"""`mfact kb list|add|prune|stats` on a real cache file."""
from __future__ import annotations

import json
import time

from mfact.core.cli import main
from mfact.core.knowledge.base import Page
from mfact.core.knowledge.cache import open_cache


def test_kb_add_list_stats_prune(capsys):
    assert main(["kb", "add", "--entity", "Marie Curie", "--lang", "es", "--offline"]) == 0
    assert "Marie Curie: 3 pages cached" in capsys.readouterr().out
    assert main(["kb", "list", "--json"]) == 0
    pages = json.loads(capsys.readouterr().out)["pages"]
    assert {(p["source"], p["lang"], p["title"]) for p in pages} == {
        ("offline-vital", l, "Marie Curie") for l in ("es", "en", "fr")}
    old = Page("wikipedia", "en", "Old page \x1b[2J", [("", "Stale text.")], fetched_at=time.time() - 90 * 86400)
    open_cache().put_page(old)
    assert main(["kb", "list"]) == 0
    out = capsys.readouterr().out
    assert "Old page" in out and "\x1b" not in out
    assert main(["kb", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["pages"] == 4 and stats["passages"] == 4
    assert main(["kb", "prune", "--older-than", "30"]) == 0
    assert "deleted 1 page" in capsys.readouterr().out
    assert main(["kb", "prune", "--all"]) == 0
    assert "deleted 3 pages" in capsys.readouterr().out
    assert main(["kb", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pages"] == 0


def test_kb_add_unknown_person_fails_but_keeps_the_others(capsys):
    assert main(["kb", "add", "--entity", "Zzyzx Qwerty", "--entity", "Pierre Curie", "--lang", "fr",
                 "--offline"]) == 1
    cap = capsys.readouterr()
    assert "Pierre Curie: 3 pages cached" in cap.out and "no page about 'Zzyzx Qwerty'" in cap.err
