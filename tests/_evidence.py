"""Large given evidence made of real text, for the tests and bench/given_evidence.py: passages cut
from the bundled English Wikipedia leads (about 10,000 of them, 4.9 M characters), each passage
different, with the entity's own lead among them."""
from __future__ import annotations

import json
import random

TEXT = ("Marie Curie was a Polish and naturalised-French physicist and chemist. She was born in Warsaw. "
        "She won the Nobel Prize in Physics in 1903 with Pierre Curie. She won the Nobel Prize in Chemistry "
        "in 1911. She discovered the elements radium and polonium. She was born in Lisbon.")


def _leads() -> dict[str, str]:
    from mfact.core.knowledge.vital import data_files

    raw = json.loads(data_files()["en"].read_text(encoding="utf-8"))
    return {t: d["extract"] for t, d in raw.items() if isinstance(d, dict) and d.get("extract")}


def passages(n: int, chars: int = 1000, seed: int = 5, own: str = "Marie Curie") -> list[str]:
    """`n` different passages of about `chars` characters (cut at a space): the leads joined in a
    shuffled order and cut, each further pass in another order. `own`'s lead is passage n // 2, whole."""
    leads = _leads()
    mine = leads.pop(own)
    out: list[str] = []
    rng = random.Random(seed)
    while len(out) < n - 1:
        titles = sorted(leads)
        rng.shuffle(titles)
        stream = " ".join(leads[t] for t in titles)
        start = 0
        while len(out) < n - 1 and start + chars < len(stream):
            end = stream.rfind(" ", start, start + chars)
            end = end if end > start else start + chars
            out.append(stream[start:end].strip())
            start = end
    out.insert(n // 2, mine)
    return out


def text_line(n: int, chars: int = 1000, ident: str = "big", text_chars: int = 0) -> dict:
    """A `run --texts` line about Marie Curie whose evidence is `passages(n, chars)`; its text is
    `TEXT`, or with `text_chars` that many characters of the passages themselves (many facts, most
    of them found in the evidence)."""
    ev = passages(n, chars)
    text = TEXT
    if text_chars:
        text = " ".join(ev[:1 + text_chars // max(1, chars)])[:text_chars].rsplit(". ", 1)[0] + "."
    return {"id": ident, "lang": "en", "entity": "Marie Curie", "text": text, "evidence": ev}
