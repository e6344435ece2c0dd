"""One session as a self-contained web page (`mfact export SESSION --format html`), and a folder of
them with an index (`--all`).

The page holds, in this order: a header with the figures (FActScore both ways and with the length
penalty, semantic drift and its point, CaLMScore's checks, the corrected hallucination rate) and
the flags (wrong language, repetition, how the run ended); the text with each fact coloured by its
label (a glyph after it too), the hallucinated words bold and underlined and the drift point
marked; a card per fact (automatic verdict, confidence and reason, the human label where it
differs, the wrong words, and its evidence in a `<details>` with the fact's words highlighted and
the source linked); the evidence passages in full; the generator, verifier and versions.

Every string from the session goes through core/htmlkit.py (`esc`, `link`). The page fetches
nothing and needs no script; a small inline one opens a fact's evidence when its card is the
target and opens everything before printing. A session with many facts gets cards in text order
until the page reaches `PAGE_BUDGET` bytes (at least `MIN_CARDS` of them), and says so.
"""
from __future__ import annotations

import json
import bisect
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import metrics as M
from .highlight import match_terms, term_pattern
from .htmlkit import GLYPHS, LABEL_CLASS, LABEL_NAMES, esc, link, page
from .figures import Metrics
from .session import Evidence, Fact, Session

PAGE_BUDGET = 1_950_000        # bytes: cards stop here (the text and the header are always whole)
MIN_CARDS = 50
EXCERPT = 480                  # characters of a passage shown in a fact's card
P_VALUE_MAX_FACTS = 2_000      # the drift permutation test above this is left out (as in the TUI)

SESSION_CSS = """
header.top .sub{color:var(--muted)}
.figs{display:flex;flex-wrap:wrap;gap:.5rem;margin:.6rem 0}
.fig{background:var(--panel);border-radius:4px;padding:.3rem .6rem;min-width:9rem}
.fig b{display:block;font-size:1.25rem}.fig span{color:var(--muted);font-size:.85rem}
.legend span{margin-right:1rem}
.text{white-space:pre-wrap;line-height:1.75;font-size:1.05rem;\
border:1px solid var(--line);border-radius:4px;padding:.6rem .8rem}
.question{margin:.2rem 0 .6rem}.question b{color:var(--muted);font-weight:600;margin-right:.4rem}
.text a{text-decoration:none}
.s,.text .s{color:var(--s)}.n,.text .n{color:var(--n)}.i,.text .i{color:var(--i)}\
.p,.text .p{color:var(--p);font-style:italic}
.text .s{background:#e8f1f8}.text .n{background:#fbece3}.text .i{background:#efefef}
u{text-decoration:underline 2px;font-weight:bold;text-underline-offset:2px}
.drift{display:inline-block;background:var(--drift);color:#000;font-weight:bold;font-size:.8rem;\
padding:0 .3rem;border-radius:3px;margin-right:.2rem;white-space:nowrap}
ol.cards{list-style:none;padding:0}
.card{border:1px solid var(--line);border-left:5px solid var(--p);border-radius:4px;padding:.4rem .7rem;margin:.5rem 0}
.card.s{border-left-color:var(--s)}.card.n{border-left-color:var(--n)}.card.i{border-left-color:var(--i)}
.card{color:var(--fg)}.card:target{outline:3px solid var(--drift)}
.card p{margin:.15rem 0}.card .num{color:var(--muted);margin-right:.4rem}
.lab{font-weight:bold;white-space:nowrap}
mark{background:var(--match);color:#000}mark.x{background:var(--n);color:#fff}
details{margin:.3rem 0}summary{cursor:pointer;color:#0b58a8}
.ev{margin:.4rem 0 .4rem 1rem}.ev blockquote,.passage{margin:.2rem 0;padding:.3rem .6rem;\
background:var(--panel);border-radius:3px;white-space:pre-line}
article.psg{margin:.8rem 0}
pre{white-space:pre-wrap;background:var(--panel);padding:.5rem;border-radius:3px}
@media print{.text{border:0;padding:0}.text .s,.text .n,.text .i{background:none}
details>summary{color:inherit}details::details-content{content-visibility:visible;display:block}}
"""

SESSION_SCRIPT = """(function(){
function openCard(){var id=location.hash.slice(1),el=id&&document.getElementById(id);
if(el&&el.classList.contains('card')){var d=el.querySelector('details');if(d)d.open=true;}}
addEventListener('hashchange',openCard);openCard();
var shut=[];
addEventListener('beforeprint',function(){shut=[].slice.call(document.querySelectorAll('details:not([open])'));
shut.forEach(function(d){d.open=true;});});
addEventListener('afterprint',function(){shut.forEach(function(d){d.open=false;});shut=[];});
})();"""


@dataclass
class _Plan:
    """What the page shows: the facts in text order, the drift fact, the hallucination spans."""
    facts: list[Fact]
    drift: int | None = None
    under: list[tuple[int, int]] = field(default_factory=list)     # the hallucination spans


def page_metrics(s: Session):
    """The session's figures from its effective labels (stored ones may predate relabels)."""
    return M.session_metrics(s, p_value=len(s.facts) <= P_VALUE_MAX_FACTS)


def session_page(session: Session, budget: int = PAGE_BUDGET, metrics=None) -> str:
    """The whole page of one session (`metrics`: `page_metrics(session)`, computed when None)."""
    s = session
    metrics = metrics or page_metrics(s)
    plan = _Plan(facts=sorted(s.facts, key=lambda f: f.text_order))
    plan.drift = _drift_index(plan.facts, metrics.drift_point)
    plan.under = [(a, b) for a, b, _ in M.ns_spans(s.text, M.span_items(s.text, plan.facts))]
    head = _header(s, metrics) + _legend()
    repro = _repro(s)
    fixed = sum(len(x.encode("utf-8")) for x in (head, repro)) + 8_000
    text, cards, passages, shown = _text_and_cards(s, plan, budget - fixed)
    body = (f'<header class="top">{head}</header>\n<main>\n{text}\n'
            f'{_cards_section(cards, shown, len(plan.facts), s)}\n{_evidence_section(passages, s)}\n'
            f"{repro}\n</main>\n<footer class=\"note\">Written by mfact. Colours: the Okabe-Ito "
            "colour-blind-safe palette; every label also has its glyph.</footer>")
    return page(f"{s.entity.name} ({s.language}): mfact session {s.id}", body, css=SESSION_CSS,
                script=SESSION_SCRIPT)


DRIFT_MARK = '<b class="drift" title="the drift point">▼ drift</b>'
LINK_COST = 40          # bytes a fact's link to its card adds to the text at most (` href=#c19999 id=t19999`)


def _text_and_cards(s: Session, plan: _Plan, budget: int) -> tuple[str, list[str], "_Passages", int]:
    """The text section, the cards, the passages they cite and how many cards, within `budget`
    bytes: every card if all fit with the text, else the first ones that fit beside the text
    without links, each paying for its link too (the text's other facts are not linked)."""
    text = _text_section(s, plan)
    cards, passages, shown = _cards(s, plan.facts, budget - len(text.encode("utf-8")))
    if shown < len(plan.facts):
        unlinked = len(_uncard(text, 0).encode("utf-8"))
        cards, passages, shown = _cards(s, plan.facts, budget - unlinked, LINK_COST)
        text = _uncard(text, shown)
    return text, cards, passages, shown


def _drift_index(facts: list[Fact], k: int | None) -> int | None:
    """Where in `facts` (text order) the drift point k falls: the k-th labelled fact."""
    if k is None or k <= 0:
        return None
    seen = 0
    for i, f in enumerate(facts):
        if f.label is not None:
            if seen == k:
                return i
            seen += 1
    return None


# --------------------------------------------------------------------------- header


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}"


def _fig(value: str, name: str, note: str = "") -> str:
    extra = f"<br><span>{esc(note)}</span>" if note else ""
    return f'<div class="fig"><b>{esc(value)}</b><span>{esc(name)}</span>{extra}</div>'


def _header(s: Session, m) -> str:
    from .languages import get_language

    lang = get_language(s.language)
    c = m.counts
    drift = "—" if m.semantic_drift is None else f"{m.semantic_drift:.3f}"
    point = ""
    if m.drift_point is not None:
        point = f"drifts from fact {m.drift_point + 1} of {m.n_labelled}"
        if m.drift_p_value is not None:
            point += f", p = {m.drift_p_value:.3f}"
    hr_note = ("raw " + _pct(m.hallucination_rate_raw) + " %") if m.hallucination_rate is not None \
        else (m.hallucination_rate_reason or "not computable")
    calm_ok = bool(m.calm and m.calm.non_empty and m.calm.language_ok and not m.calm.repetitive)
    figs = "".join([
        _fig(_pct(m.factscore), "FActScore, S / all facts", "IR counted as not supported"),
        _fig(_pct(m.factscore_relevant_only), "FActScore, S / (S + NS)", "IR left out"),
        _fig(_pct(m.factscore_gamma), "FActScore with γ = 10", "length penalty below 10 facts"),
        _fig(drift, "semantic drift (m = 3)", point or "too few labelled facts"),
        _fig("pass" if calm_ok else "fail", "CaLMScore checks", _calm_note(m.calm)),
        _fig(_pct(m.hallucination_rate), "hallucination rate, corrected", hr_note),
        _fig(f"{c.S} / {c.NS} / {c.IR}", "facts S / NS / IR",
             f"{c.pending} pending" if c.pending else f"{m.n_facts} facts"),
    ])
    title = f"{esc(s.entity.name)} <span class=\"muted\">({esc(lang.name)}, {esc(s.language)})</span>"
    sub = f"session {esc(s.id)} · {esc(s.created_at)}"
    if s.name:
        sub = f"{esc(s.name)} · " + sub
    return (f"<h1>{title}</h1>\n<div class=\"sub\">{sub}</div>\n<div class=\"figs\">{figs}</div>\n"
            f"<div class=\"flags\">{_flags(s)}</div>")


def _calm_note(calm) -> str:
    if calm is None:
        return ""
    parts = [("non-empty", calm.non_empty), ("right language", calm.language_ok),
             ("not repetitive", None if calm.repetitive is None else not calm.repetitive)]
    return ", ".join(f"{'✓' if ok else '✗' if ok is False else '?'} {name}" for name, ok in parts)


def _flags(s: Session) -> str:
    ck = s.checks
    out = []
    if ck.language_ok is False:
        out.append(f"wrong language: detected {ck.detected_language or '?'}, expected {s.language}")
    if ck.repetitive:
        out.append("repetitive: a run of 20 tokens occurs 4 times or more")
    if ck.repeated_sentence is not None:
        out.append("stopped at a repeated sentence")
    if ck.drift_stop is not None:
        out.append(f"stopped at drift after {ck.drift_stop.facts} facts")
    if ck.non_empty is False or not s.text.strip():
        out.append("empty text")
    elif not s.facts:
        out.append("abstained: no fact")
    if ck.error is not None:
        out.append(f"error in {ck.error.stage or '?'}: {ck.error.message or ''}")
    if s.stop_reason in ("user", "max_tokens", "error", "connection_lost"):
        out.append({"user": "stopped by the user", "max_tokens": "cut at the token limit",
                    "error": "ended by an error",
                    "connection_lost": "text incomplete: the model server's connection was lost"}[s.stop_reason])
    flags = "".join(f'<span class="flag">{esc(x)}</span>' for x in out)
    if ck.language_ok and not ck.repetitive:
        flags += (f'<span class="flag ok">language {esc(ck.detected_language or s.language)}: ok</span>'
                  '<span class="flag ok">no repetition</span>')
    return flags


def _legend() -> str:
    items = "".join(f'<span class="{LABEL_CLASS[lab]}"><b>{GLYPHS[lab]}</b> {esc(LABEL_NAMES[lab])}'
                    f"{' (' + lab + ')' if lab else ''}</span>" for lab in ("S", "NS", "IR", None))
    return (f'<p class="legend note">{items}<span><u>underlined</u>: hallucinated words</span>'
            '<span><b class="drift">▼ drift</b> the drift point</span></p>')


# --------------------------------------------------------------------------- the text


def _text_section(s: Session, plan: _Plan) -> str:
    from .languages import get_language

    direction = get_language(s.language).direction
    body = _coloured_text(s, plan)
    # the question the text answers: untrusted text, read literally
    question = (f'<p class="question" id="question"><b>Question</b> <span lang="{esc(s.language)}" dir="auto">'
                f'{esc(s.question)}</span></p>\n' if s.question else "")
    return (f'<section id="text"><h2>Text</h2>\n{question}<div class="text" lang="{esc(s.language)}" '
            f'dir="{direction}">{body}</div></section>')


def _coloured_text(s: Session, plan: _Plan) -> str:
    """The text with each fact's span in its label's colour (where spans overlap, the fact that
    starts last), the hallucination spans underlined and the drift marker before the drift fact."""
    text, n = s.text, len(s.text)
    spans = [(max(0, min(f.span[0], n)), max(0, min(f.span[1], n))) for f in plan.facts]
    drift_at = spans[plan.drift][0] if plan.drift is not None else None
    if all(a < b for a, b in spans) and all(b <= a for (_, b), (a, _) in zip(spans, spans[1:])):
        return _side_by_side(text, spans, plan, drift_at)
    cuts = {0, n}
    for a, b in spans + plan.under:
        cuts.add(a)
        cuts.add(b)
    if drift_at is not None:
        cuts.add(drift_at)
    w = _TextWriter(text, plan, spans, drift_at)
    under, stack, nxt, ui = plan.under, [], 0, 0
    points = sorted(cuts)
    for p, q in zip(points, points[1:] + [n]):
        w.at(p)
        while nxt < len(spans) and spans[nxt][0] <= p:
            if spans[nxt][1] > spans[nxt][0]:
                stack.append(nxt)
            nxt += 1
        while stack and spans[stack[-1]][1] <= p:
            stack.pop()
        while ui < len(under) and under[ui][1] <= p:
            ui += 1
        if q > p:
            w.segment(stack[-1] if stack else None, p, q, ui < len(under) and under[ui][0] <= p)
    w.close()
    return "".join(w.out)


def _side_by_side(text: str, spans: list[tuple[int, int]], plan: _Plan, drift_at: int | None) -> str:
    """`_coloured_text` when no two facts overlap and none is empty (the usual case): one element
    per fact, in one pass (the same markup as `_TextWriter` writes then, a third of its time)."""
    out: list[str] = []
    pos = ui = 0
    for i, ((a, b), f) in enumerate(zip(spans, plan.facts)):
        ui = _put(out, text, pos, a, plan.under, ui)
        if a == drift_at:
            out.append(DRIFT_MARK)
        out.append(f"<a class={LABEL_CLASS[f.label]} href=#c{i} id=t{i}>")
        ui = _put(out, text, a, b, plan.under, ui)
        out.append(GLYPHS[f.label] + "</a>")
        pos = b
    _put(out, text, pos, len(text), plan.under, ui)
    return "".join(out)


def _put(out: list[str], text: str, p: int, q: int, under: list[tuple[int, int]], ui: int) -> int:
    """text[p:q] escaped, the parts in the hallucination spans `under` (sorted, apart) underlined;
    `ui`: the first span that may reach past p. Returns that for q."""
    while ui < len(under) and under[ui][1] <= p:
        ui += 1
    while p < q:
        if ui < len(under) and under[ui][0] <= p:
            e = min(q, under[ui][1])
            out.append(f"<u>{esc(text[p:e])}</u>")
        else:
            e = min(q, under[ui][0]) if ui < len(under) else q
            out.append(esc(text[p:e]))
        p = e
        while ui < len(under) and under[ui][1] <= p:
            ui += 1
    return ui


class _TextWriter:
    """Writes the text's segments: one link to the fact's card per run of a fact;
    the element that reaches its fact's end ends with the label's glyph; a fact whose end lies
    under another fact gets a glyph-only link there."""

    def __init__(self, text: str, plan: _Plan, spans: list[tuple[int, int]], drift_at: int | None):
        self.text, self.facts, self.spans = text, plan.facts, spans
        self.starts = [a for a, b in spans if b > a]          # sorted: the facts are in text order
        self.end_list = sorted(b for _, b in spans)
        self.drift_at = drift_at
        self.ends: dict[int, list[int]] = {}
        for i, (_, b) in enumerate(spans):
            self.ends.setdefault(b, []).append(i)
        self.out: list[str] = []
        self.open: int | None = None         # the fact whose element is open
        self.ended: set[int] = set()         # facts whose glyph is written
        self.named: set[int] = set()         # facts whose id is written
        self.glyph = ""                      # written before the open element's closing tag

    def _tag(self, i: int, end: bool) -> str:
        """The opening tag of a piece of fact i (short: there may be 20,000 of them): its label's
        class (`s`, `n`, `i`, `p`), its card, its id the first time. `end`: the label's glyph
        goes before its closing tag (a character: 20,000 CSS pseudo-elements took Chromium 1.5 s)."""
        ident = "" if i in self.named else f" id=t{i}"
        self.named.add(i)
        label = self.facts[i].label
        if end:
            self.ended.add(i)
        self.glyph = GLYPHS[label] if end else ""
        return f"<a class={LABEL_CLASS[label]} href=#c{i}{ident}>"

    def at(self, p: int) -> None:
        """Before the segment at `p`: the drift marker, and glyphs of facts ending here unmarked."""
        ending = self.ends.get(p)
        if ending:
            for i in ending:
                if i not in self.ended:
                    self.close()
                    self.out.append(self._tag(i, True) + self.glyph + "</a>")
                    self.glyph = ""
        if p == self.drift_at:
            self.close()
            self.out.append(DRIFT_MARK)

    def segment(self, fact: int | None, p: int, q: int, underlined: bool) -> None:
        if fact != self.open:
            self.close()
            if fact is not None:
                self.open = fact
                self.out.append(self._tag(fact, self._reaches_end(fact, p)))
        piece = esc(self.text[p:q])
        self.out.append(f"<u>{piece}</u>" if underlined else piece)

    def _reaches_end(self, i: int, p: int) -> bool:
        """Whether the element of fact i opened at `p` surely runs to its end: no other fact starts
        or ends and no drift marker stands inside it (else `at` writes its glyph at its end)."""
        end = self.spans[i][1]
        if i in self.ended or (self.drift_at is not None and p < self.drift_at < end):
            return False
        k = bisect.bisect_right(self.starts, p)
        j = bisect.bisect_right(self.end_list, p)
        return not (k < len(self.starts) and self.starts[k] < end) and not (
            j < len(self.end_list) and self.end_list[j] < end)

    def close(self) -> None:
        if self.open is not None:
            self.out.append(self.glyph + "</a>")
            self.open = None


_LINK = re.compile(r"<a class=(\w+) href=#c(\d+)((?: id=t\d+)?)>(.*?)</a>", re.S)


def _uncard(text_html: str, shown: int) -> str:
    """The text's links to the cards not shown (fact `shown` on) made plain spans without an id
    (nothing links to them; no link nests in another, so each runs to the next `</a>`)."""
    def plain(m: re.Match) -> str:
        if int(m.group(2)) < shown:
            return m.group(0)
        return f"<span class={m.group(1)}>{m.group(4)}</span>"
    return _LINK.sub(plain, text_html)



# --------------------------------------------------------------------------- fact cards


class _Passages:
    """The evidence passages the cards cite, each rendered once for the evidence section."""

    def __init__(self, session: Session):
        self.by_id = session.evidence_by_id()
        self.number: dict[str, int] = {}
        self.html: list[str] = []

    def cite(self, eid: str) -> tuple[int, int]:
        """(the passage's number, the bytes its first citation adds to the page)."""
        if eid in self.number:
            return self.number[eid], 0
        k = len(self.number)
        self.number[eid] = k
        self.html.append(_passage_article(k, self.by_id[eid]))
        return k, len(self.html[-1].encode("utf-8"))


def _cards(s: Session, facts: list[Fact], budget: int, link_cost: int = 0) -> tuple[list[str], _Passages, int]:
    """The fact cards in text order while they (and the passages they cite, and `link_cost` each)
    fit in `budget` bytes (at least MIN_CARDS), the passages they cite, and how many there are."""
    passages = _Passages(s)
    cards: list[str] = []
    used = 0
    for i, f in enumerate(facts):
        card, added = _card(i, f, passages, s.language)
        used += len(card.encode("utf-8")) + added + link_cost
        if used > budget and i >= MIN_CARDS:
            break
        cards.append(card)
    if len(cards) < len(facts):                 # the passages of the cut card do not count
        keep = {eid for f in facts[:len(cards)] for eid in _cited(f, passages.by_id)}
        kept = [(k, h) for eid, k in passages.number.items() for h in [passages.html[k]] if eid in keep]
        passages.html = [h for _, h in sorted(kept)]
    return cards, passages, len(cards)


def _cited(f: Fact, by_id: dict[str, Evidence]) -> list[str]:
    return [e for e in (f.auto.evidence if f.auto else []) if e in by_id]


def _label_html(label: str | None, extra: str = "") -> str:
    name = label or "pending"
    return f'<span class="lab {LABEL_CLASS[label]}">{GLYPHS[label]} {name}{extra}</span>'


def _card(i: int, f: Fact, passages: _Passages, lang: str) -> tuple[str, int]:
    """One fact's card and the bytes of the passages it cites first."""
    parts = [f'<li class="card {LABEL_CLASS[f.label]}" id="c{i}"><p><a class="num" href="#t{i}">'
             f'#{i + 1}</a>{_label_html(f.label)} <span lang="{esc(lang)}" dir="auto">{esc(f.text)}'
             "</span></p>"]
    a = f.auto
    if a is not None:
        verifier = f" · verifier {esc(a.verifier)}" if a.verifier else ""
        parts.append(f'<p class="muted">automatic: {_label_html(a.label)} · confidence '
                     f"{a.confidence:.2f}{verifier}</p>")
        if a.reason:
            parts.append(f'<p class="muted">reason: <span dir="auto">{esc(a.reason)}</span></p>')
        if a.marks and f.label == "NS":
            words = ", ".join(f"<u>{esc(f.text[x:y])}</u>" for x, y in a.marks if f.text[x:y].strip())
            if words:
                parts.append(f'<p class="muted">wrong words: {words}</p>')
    if f.human is not None and (a is None or f.human.label != a.label):
        parts.append(f'<p>human: {_label_html(f.human.label)} <span class="muted">'
                     f"({esc(f.human.time)}{', differs from the automatic verdict' if a else ''})</span></p>")
    elif f.human is not None:
        parts.append('<p class="muted">confirmed by a person</p>')
    added = 0
    cited = _cited(f, passages.by_id)
    if cited:
        items = []
        for rank, eid in enumerate(cited, 1):
            k, extra = passages.cite(eid)
            added += extra
            items.append(_excerpt(rank, k, passages.by_id[eid], f))
        n = len(cited)
        parts.append(f"<details><summary>evidence: {n} passage{'s' if n != 1 else ''}</summary>"
                     + "".join(items) + "</details>")
    else:
        parts.append('<p class="muted">no evidence cited</p>')
    parts.append("</li>")
    return "".join(parts), added


def _source_line(ev: Evidence) -> str:
    title = esc(ev.title or "(untitled)") + (f" › {esc(ev.section)}" if ev.section else "")
    return (f"{link(ev.url, title)} <span class=\"muted\">· {esc(ev.source)} · {esc(ev.lang or '?')}"
            f" · score {ev.score:.2f}</span>")


def _excerpt(rank: int, k: int, ev: Evidence, f: Fact) -> str:
    """A passage as a fact's card shows it: up to EXCERPT characters around the first conflicting
    or matching word, the fact's words marked, the words that contradict it marked apart."""
    text = ev.text
    marks = _marks(text, f, ev.id)
    a, b = _window(text, marks[0][0] if marks else 0)
    body, pos = [], a
    for x, y, cls in marks:
        x, y = max(x, pos), min(y, b)
        if y <= x:
            continue
        body.append(esc(text[pos:x]))
        body.append(f'<mark class="x">{esc(text[x:y])}</mark>' if cls else f"<mark>{esc(text[x:y])}</mark>")
        pos = y
    body.append(esc(text[pos:b]))
    lead = "…" if a > 0 else ""
    tail = "…" if b < len(text) else ""
    return (f'<div class="ev"><div>{rank}. {_source_line(ev)} · <a href="#e{k}">whole passage</a></div>'
            f'<blockquote lang="{esc(ev.lang)}" dir="auto">{lead}{"".join(body)}{tail}</blockquote></div>')


def _marks(text: str, f: Fact, eid: str) -> list[tuple[int, int, bool]]:
    """(start, end, conflicting) ranges in a passage, sorted and not overlapping: the evidence words
    that contradict an NS fact (the slot checks'), then the fact's words wherever they are free."""
    n = len(text)
    conflicts = []
    if f.auto is not None and f.label == "NS":
        conflicts = [(max(0, x), min(y, n), True) for e, x, y in f.auto.evidence_marks if e == eid and x < n]
    taken = sorted(conflicts)
    out = list(taken)
    pattern = term_pattern(match_terms(f.text))
    if pattern is not None:
        for m in pattern.finditer(text):
            x, y = m.span()
            if not any(x < b and a < y for a, b, _ in taken):
                out.append((x, y, False))
    return sorted(out)


def _window(text: str, centre: int) -> tuple[int, int]:
    """[a, b) of at most EXCERPT characters around `centre`, cut at spaces where there are some."""
    n = len(text)
    if n <= EXCERPT:
        return 0, n
    a = max(0, min(centre - EXCERPT // 3, n - EXCERPT))
    b = min(n, a + EXCERPT)
    if a > 0:
        sp = text.find(" ", a, a + 40)
        a = sp + 1 if sp >= 0 else a
    if b < n:
        sp = text.rfind(" ", b - 40, b)
        b = sp if sp > a else b
    return a, b


def _cards_section(cards: list[str], shown: int, total: int, s: Session) -> str:
    note = ""
    if shown < total:
        note = (f'<p class="note">Cards for the first {shown:,} of {total:,} facts: the page stays under '
                f"{round(PAGE_BUDGET / 1e6)} MB. Every fact is coloured in the text; all verdicts are in "
                f"<code>mfact export {esc(s.id)} -o session.json</code>.</p>")
    elif not total:
        note = '<p class="note">No facts.</p>'
    return (f'<section id="facts"><h2>Facts ({total:,})</h2>{note}\n<ol class="cards">\n'
            + "\n".join(cards) + "\n</ol></section>")


def _passage_article(k: int, ev: Evidence) -> str:
    url = "" if not ev.url else f'<div class="muted">{esc(ev.url)}</div>'
    return (f'<article class="psg" id="e{k}"><div>[{k + 1}] {_source_line(ev)}</div>{url}'
            f'<div class="passage" lang="{esc(ev.lang)}" dir="auto">{esc(ev.text)}</div></article>')


def _evidence_section(passages: _Passages, s: Session) -> str:
    rest = len(s.evidence) - len(passages.html)
    note = (f'<p class="note">{rest:,} other passage{"s" if rest != 1 else ""} retrieved but cited by no '
            "fact shown here are left out.</p>") if rest > 0 else ""
    return (f'<section id="evidence"><h2>Evidence passages ({len(passages.html):,})</h2>{note}\n'
            + "\n".join(passages.html) + "</section>")


# --------------------------------------------------------------------------- reproducibility


def _repro(s: Session) -> str:
    g, cfg = s.generator, s.config or {}
    ver: dict = cfg["verifier"] if isinstance(cfg.get("verifier"), dict) else {}
    ext: dict = cfg["extractor"] if isinstance(cfg.get("extractor"), dict) else {}
    rows = [("generator", f"{g.backend} · {g.model}" if g.model else g.backend),
            ("prompt", g.prompt), ("seed", "" if g.seed is None else str(g.seed)),
            ("decoding", json.dumps(g.params, ensure_ascii=False, sort_keys=True) if g.params else ""),
            ("verifier", " ".join(str(x) for x in (ver.get("name"), ver.get("version")) if x)),
            ("extractor", " ".join(str(x) for x in (ext.get("name"), ext.get("version")) if x)),
            ("mfact", str(cfg.get("mfact", ""))), ("text source", str(cfg.get("text_source", ""))),
            ("tokens", str(s.tokens)), ("stop reason", s.stop_reason or ""), ("status", s.status)]
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows if v)
    config = json.dumps(cfg, ensure_ascii=False, indent=2, sort_keys=True, default=str)
    return (f'<section id="repro"><h2>Generator, verifier and versions</h2><dl class="kv">{dl}</dl>'
            f"<details><summary>the whole configuration</summary><pre>{esc(config)}</pre></details></section>")


# --------------------------------------------------------------------------- a folder of pages


def page_name(s: Session) -> str:
    """A file name for the session's page: its id where that is a plain name, else a plain form
    of it with a hash of the id (ids come from files: `../x` or `a:b` must not become paths or
    URL schemes)."""
    plain = re.sub(r"[^A-Za-z0-9_-]", "-", s.id)[:64].strip("-") or "session"
    if plain != s.id:
        plain += "-" + hashlib.sha1(s.id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return plain + ".html"


def page_names(sessions: list[Session]) -> list[str]:
    """`page_name` of each session, made unique ignoring case (a case-insensitive file system
    holds one of `Curie.html` and `curie.html`) and never `index.html`: a name already taken
    gets the hash of its id, then a number."""
    taken = {"index"}
    names = []
    for s in sessions:
        base = page_name(s)[:-len(".html")]
        if base.casefold() in taken:
            base += "-" + hashlib.sha1(s.id.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem, n = base, 2
        while base.casefold() in taken:
            base, n = f"{stem}-{n}", n + 1
        taken.add(base.casefold())
        names.append(base + ".html")
    return names


def write_pages(sessions: list[Session], folder: str | Path) -> Path:
    """One page per session and `index.html` linking them, in `folder` (made if missing; its parent
    must exist), names from `page_names` (one file per session, none over the index). Each file is
    written atomically. Returns the index's path."""
    from .formats import atomic_write
    from .errors import MfactError

    out = Path(folder)
    if out.exists() and not out.is_dir():
        raise MfactError(f"{out} is not a folder", "with --all, -o names a folder for the pages")
    if not out.exists():
        if not out.parent.is_dir():
            raise MfactError(f"{out}: the folder {out.parent} does not exist")
        out.mkdir()
    rows = []
    for s, name in zip(sessions, page_names(sessions)):
        m = page_metrics(s)
        atomic_write(out / name, session_page(s, metrics=m))
        rows.append((s, m, name))
    return atomic_write(out / "index.html", index_page(rows))


def index_page(rows: list[tuple[Session, Metrics, str]]) -> str:
    """A table of the sessions, each linked to its page."""
    head = ("<tr><th>person</th><th>language</th><th>model</th><th>facts</th><th>FActScore</th>"
            "<th>FS (S/(S+NS))</th><th>drift</th><th>HR</th><th>CaLM</th><th>created</th></tr>")
    body = []
    for s, m, name in rows:
        calm = m.calm
        ok = bool(calm and calm.non_empty and calm.language_ok and not calm.repetitive)
        sd = "—" if m.semantic_drift is None else f"{m.semantic_drift:.3f}"
        body.append(f'<tr><td><a href="./{esc(name)}">{esc(s.entity.name)}</a></td><td>{esc(s.language)}</td>'
                    f"<td>{esc(s.generator.model or s.generator.backend)}</td><td>{len(s.facts)}</td>"
                    f"<td>{_pct(m.factscore)}</td><td>{_pct(m.factscore_relevant_only)}</td><td>{sd}</td>"
                    f"<td>{_pct(m.hallucination_rate)}</td><td>{'pass' if ok else 'fail'}</td>"
                    f"<td>{esc(s.created_at)}</td></tr>")
    n = len(rows)
    html_body = (f"<h1>mfact sessions ({n})</h1><p class=\"note\">FActScore: S / all facts (IR counted as "
                 "not supported); HR: the corrected hallucination rate; percent figures.</p>"
                 f"<table><thead>{head}</thead><tbody>{''.join(body)}</tbody></table>")
    return page(f"mfact sessions ({n})", html_body)
