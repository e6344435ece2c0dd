"""`export --all --format html`: one page per session, none over `index.html`, none over another
whatever the case (a session with the id `index`, `INDEX`, `Curie` beside `curie`), and the count
it reports is the number of pages in the folder (a real CLI run)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mfact.core.html_session import page_names
from mfact.core.session import Entity, Session

MFACT = str(Path(sys.executable).with_name("mfact"))
IDS = ["index", "INDEX", "Index-1", "curie", "Curie", "a:b", "a-b", "a-b-x"] + [f"s{i}" for i in range(4)]


def _session(sid: str) -> Session:
    return Session(id=sid, language="en", entity=Entity(name=f"Person {sid}"), text=f"{sid} was a physicist.")


def test_page_names_never_collide_ignoring_case():
    names = page_names([_session(i) for i in IDS])
    folded = [n.casefold() for n in names]
    assert len(set(folded)) == len(IDS) and "index.html" not in folded
    assert names[IDS.index("s0")] == "s0.html"          # a plain id keeps its plain name


def test_export_all_html_writes_every_page_and_counts_them(tmp_path):
    env = {**os.environ, "MFACT_HOME": str(tmp_path / "home")}
    src = tmp_path / "sessions.json"
    src.write_text(json.dumps({"sessions": [_session(i).to_dict() for i in IDS]}), encoding="utf-8")
    p = subprocess.run([MFACT, "import", str(src)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    folder = tmp_path / "pages"
    p = subprocess.run([MFACT, "export", "--all", "--format", "html", "-o", str(folder)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    pages = [f for f in folder.iterdir() if f.name != "index.html"]
    assert len(pages) == len(IDS) and f"exported {len(IDS)} session pages" in p.stdout, p.stdout
    assert len({f.name.casefold() for f in pages}) == len(IDS)      # a case-insensitive disk holds them all
    index = (folder / "index.html").read_text(encoding="utf-8")
    assert 'href="./index.html"' not in index and index.count('href="./') == len(IDS)
    for sid in IDS:       # each session's page is its own
        assert sum(f"<title>Person {sid} (en)" in f.read_text(encoding="utf-8") for f in pages) == 1, sid
