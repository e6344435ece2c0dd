"""Sessions for the HTML page tests: a hostile one (markup, event handlers, javascript: and data:
links, bidi overrides, control characters, 1 MB lines in the text, the evidence and the names)
and a small ordinary one with every label."""
from __future__ import annotations

from mfact.core.session import Entity, Evidence, Fact, GeneratorInfo, HumanLabel, Session, Verdict

# each payload calls pwned(...) if it ever runs: the browser test binds that name and fails on a call
PAYLOADS = [
    "<script>pwned('script')</script>",
    "<img src=x onerror=\"pwned('img')\">",
    "<svg onload=pwned('svg')></svg>",
    "\"><script>pwned('attr')</script>",
    "'><a href=javascript:pwned('a')>x</a>",
    "<iframe srcdoc=\"<script>parent.pwned('iframe')</script>\"></iframe>",
    "</textarea></style></title><script>pwned('close')</script>",
    "<style>*{display:none}</style>",
    "\u202eevil\u202c \u2067rtl\u2069 \x1b[31mred\x1b[0m \x00nul \ud800",
    "&lt;script&gt;pwned('entity')&lt;/script&gt;",
]
HOSTILE_URLS = ["javascript:pwned('url')", "JaVaScRiPt:pwned('url2')", " javascript:pwned('url3')",
                "data:text/html,<script>pwned('data')</script>", "vbscript:msgbox(1)",
                "file:///etc/passwd", "https://example.org/\"><script>pwned('href')</script>"]
BIG_LINE = "x" * 1_000_000                    # one line of 1 MB, no space


def hostile_session(big: bool = True, surrogate: bool = True) -> Session:
    """`surrogate=False`: without the lone surrogate, which `mfact import` refuses (it is not text)."""
    payloads = PAYLOADS if surrogate else [p.replace("\ud800", "") for p in PAYLOADS]
    sentences = [f"{p} is fact {i}." for i, p in enumerate(payloads)]
    if big:
        sentences.append(BIG_LINE)
    text = "\n".join(sentences)
    facts, pos = [], 0
    ev = [Evidence(id=f"e{i}\"><script>pwned('id')</script>", source=f"src{payloads[i % len(payloads)]}",
                   lang="en", title=payloads[i % len(payloads)], section=payloads[(i + 1) % len(payloads)],
                   url=u, text=" ".join(payloads) + (" " + BIG_LINE if big and i == 0 else ""), score=0.5)
          for i, u in enumerate(HOSTILE_URLS)]
    for i, sent in enumerate(sentences):
        label = ("S", "NS", "IR")[i % 3]
        marks = [(0, min(8, len(sent)))] if label == "NS" else []
        facts.append(Fact(
            id=f"f{i}<script>pwned('fid')</script>", text=sent, sentence=i, span=(pos, pos + len(sent)),
            auto=Verdict(label=label, confidence=0.7, verifier=payloads[i % len(payloads)],
                         evidence=[ev[i % len(ev)].id], reason=payloads[(i + 2) % len(payloads)],
                         marks=marks, evidence_marks=[(ev[i % len(ev)].id, 0, 9)] if marks else []),
            human=HumanLabel(label="S", time="2026-01-01T00:00:00+00:00") if i == 4 else None))
        pos += len(sent) + 1
    name = "<script>pwned('name')</script>\u202eEvil" + ("y" * 400)
    return Session(language="en", entity=Entity(name=name[:500], attributes={"rarity": payloads[0]}),
                   id="../../hostile:<script>", name=payloads[1], text=text, facts=facts, evidence=ev,
                   generator=GeneratorInfo(backend="imported", model=payloads[2], prompt=payloads[3]),
                   stop_reason="eos", config={"verifier": {"name": payloads[4], "version": payloads[5]},
                                              "mfact": payloads[6]})


def ordinary_session() -> Session:
    """Marie Curie in five facts: S, NS (with a wrong word and the evidence word it contradicts), IR,
    S relabelled NS by a person, and one pending; one passage with a plain https link."""
    parts = ["Marie Curie was a physicist", "She was born in Paris in 1867", "She liked cats",
             "She won two Nobel Prizes", "She died in 1934"]
    text = ". ".join(parts) + "."
    ev = [Evidence(id="w1", source="wikipedia", lang="en", title="Marie Curie", section="Life",
                   url="https://en.wikipedia.org/wiki/Marie_Curie",
                   text="Marie Curie was a Polish physicist and chemist, born in Warsaw in 1867. "
                        "She won the Nobel Prize twice and died in 1934.")]
    spans = [(text.index(p), text.index(p) + len(p)) for p in parts]
    labels = ["S", "NS", "IR", "S", None]
    facts = []
    for i, ((a, b), lab) in enumerate(zip(spans, labels)):
        auto = None if lab is None else Verdict(label=lab, confidence=0.8, verifier="offline/3", evidence=["w1"],
                                                reason="slot conflict" if lab == "NS" else None)
        if lab == "NS":
            auto.marks = [(16, 21)]                      # "Paris" in the fact's own text
            auto.evidence_marks = [("w1", 56, 62)]       # "Warsaw" in the passage
        facts.append(Fact(id=f"f{i}", text=text[a:b], sentence=i, span=(a, b), auto=auto))
    facts[3].human = HumanLabel(label="NS", time="2026-01-02T00:00:00+00:00")
    return Session(language="en", entity=Entity("Marie Curie"), id="curie1", text=text, facts=facts,
                   evidence=ev, generator=GeneratorInfo(backend="llamacpp", model="gemma", seed=0),
                   stop_reason="eos", config={"verifier": {"name": "offline", "version": "3"}})
