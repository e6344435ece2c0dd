"""A plausible value of the wrong class is NS with its word marked, not supported because it is
shaped like the evidence: an astronomer for a physicist, a chemist for a physicist, a geologist for
a mathematician (the occupation families of core/checking/data/occupation.json)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = [  # id, lang, entity, text, evidence, the word marked
    ("de", "de", "Albert Einstein", "Albert Einstein war Astronom.",
     "Albert Einstein (* 14. März 1879 in Ulm; † 18. April 1955 in Princeton) war ein "
     "schweizerisch-US-amerikanischer theoretischer Physiker deutscher Herkunft.", "Astronom"),
    ("fr", "fr", "Albert Einstein", "Albert Einstein était chimiste.",
     "Albert Einstein, né le 14 mars 1879 à Ulm et mort le 18 avril 1955 à Princeton, est un physicien "
     "théoricien.", "chimiste"),
    ("es", "es", "Niels Bohr", "Niels Bohr fue astrónomo.",
     "Niels Henrik David Bohr (Copenhague, 7 de octubre de 1885 - 18 de noviembre de 1962) fue un físico "
     "danés.", "astrónomo"),
    ("en", "en", "Emmy Noether", "Emmy Noether was a geologist.",
     "Amalie Emmy Noether (23 March 1882 – 14 April 1935) was a German mathematician who made many "
     "important contributions to abstract algebra.", "geologist"),
]


def test_a_value_of_the_wrong_class_is_ns_with_its_word_marked(tmp_path):
    lines = [{"id": i, "lang": lang, "entity": ent, "text": text, "evidence": [{"title": ent, "text": ev}]}
             for i, lang, ent, text, ev, _w in CASES]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                                      encoding="utf-8")
    env = {**os.environ, "MFACT_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    cli = [sys.executable, "-m", "mfact.core.cli"]
    done = subprocess.run(cli + ["run", "--texts", str(tmp_path / "t.jsonl"), "--offline"], env=env,
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(cli + ["export", "--all", "-o", str(tmp_path / "s.json")], env=env,
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    sessions = {s["name"]: s for s in json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["sessions"]}
    for i, _lang, _ent, _text, _ev, word in CASES:
        (fact,) = sessions[i]["facts"]
        auto = fact["auto"]
        marked = [fact["text"][a:b] for a, b in auto.get("marks") or []]
        assert auto["label"] == "NS" and marked == [word], (i, auto)
