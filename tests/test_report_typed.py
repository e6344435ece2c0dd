"""Typed report figures (core/report.py): every output of `mfact report` and the TUI report screen
is the same byte for byte as when the figures were plain dicts, and a reader with a mistyped
figure name fails at once instead of reading None.

The files under tests/golden/report/ were written by this module on main before the figures were
typed (commit 033ee4e), from the sessions built here and the FActScore data in ../shared. Rewrite
them only for an intended change of the output: `REPORT_GOLDEN_WRITE=1 pytest tests/test_report_typed.py`.
"""
from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from mfact.core.formats import read_sessions
from mfact.core.report import build_report, render_csv, render_json, render_markdown, render_table
from mfact.core.session import Entity, Fact, GeneratorInfo, HumanLabel, Session, Verdict

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def anyio_backend():
    return "asyncio"

GOLDEN = Path(__file__).resolve().parent / "golden" / "report"
WRITE = os.environ.get("REPORT_GOLDEN_WRITE") == "1"      # read before conftest clears the env

EN = "Marie Curie was a Polish physicist and chemist. She won the Nobel Prize twice in her life."
ES = "Marie Curie fue una física y química polaca. Ganó el premio Nobel dos veces en su vida."
DE = "Marie Curie war eine polnische Physikerin und Chemikerin. Sie gewann zweimal den Nobelpreis."
LONG = ("Ada Lovelace was an English mathematician and writer. She worked on the Analytical Engine of "
        "Charles Babbage. She published the first algorithm meant for such a machine. She was the "
        "daughter of the poet Lord Byron. She died in London in 1852 at the age of thirty-six.")
REPEAT = " ".join(["He was born in Warsaw and studied physics at the Sorbonne."] * 6)


def spans_for(text: str, k: int) -> list[tuple[int, int]]:
    words = [m.span() for m in re.finditer(r"\S+", text)]
    if k > len(words):
        return [(i * len(text) // k, (i + 1) * len(text) // k) for i in range(k)]
    return [(words[i * len(words) // k][0], words[(i + 1) * len(words) // k - 1][1]) for i in range(k)]


_N = [0]


def session(labels, lang="en", text=EN, model="m1", human=None, **attrs) -> Session:
    """A session with these automatic labels (None: pending) and these human ones, fixed id and time."""
    _N[0] += 1
    spans = spans_for(text, len(labels))
    facts = [Fact(id=f"f{i}", text=f"fact {i}", sentence=0, span=spans[i],
                  auto=Verdict(label=lab, verifier="v") if lab else None,
                  human=HumanLabel(label=human[i]) if human and human[i] else None)
             for i, lab in enumerate(labels)]
    return Session(language=lang, entity=Entity("Marie Curie", attributes=attrs), text=text, facts=facts,
                   generator=GeneratorInfo(backend="x", model=model), id=f"s{_N[0]:03d}",
                   created_at=f"2026-01-01T00:00:{_N[0] % 60:02d}+00:00")


def built_sessions() -> list[Session]:
    """Every branch of the figures: several languages and models, abstentions, pending labels,
    empty and repetitive texts, drift with p-values, relabels that calibrate the hallucination
    rate, a language labelled only by people, groups with an unknown attribute, hostile names."""
    _N[0] = 0
    auto = ["NS"] * 10 + ["S"] * 30
    human = ["NS"] * 8 + ["S"] * 2 + ["NS"] * 8 + ["S"] * 22
    drift = ["S"] * 6 + ["NS"] * 6
    return [
        session(["S", "S", "NS", "IR"], rarity="very freq", region="Europe"),
        session(["S", "NS"], model="m2", rarity="medium", region="Europe"),
        session([], rarity="very rare"),
        session([None, None, None], model="m2", region="Asia"),
        session(auto, human=human, text=" ".join(f"word{i}" for i in range(40)), model="m2",
                rarity="freq", region=""),
        session(drift, text=LONG, rarity="very freq", region="Europe"),
        session(["S", "IR", "IR"], text=REPEAT, model="[b]x[/b]\x1b[31m", rarity="rare"),
        session(["NS", "NS"], text=ES, model="=cmd|'/c calc'!A1", rarity="very rare"),
        session(["IR", "IR"], model="-1", region="North America"),
        session(drift, lang="es", text=ES, human=drift, rarity="freq"),
        session(["S", "NS", "S"], lang="es", text=ES, human=["S", "NS", "S"], model="m2"),
        session([None, None], lang="de", text=DE, rarity="rare"),
        session([], lang="de", text=DE),
        session([], lang="fr", text=""),
    ]


def factscore_sessions(shared: Path) -> list[Session]:
    d = shared / "data" / "factscore"
    return [s for name in ("ChatGPT", "InstructGPT", "PerplexityAI") for s in read_sessions(d / f"{name}.jsonl")]


def renderings(report) -> dict[str, str]:
    buf = io.StringIO()
    render_table(report, Console(file=buf, width=120, color_system=None))
    narrow = io.StringIO()
    render_table(report, Console(file=narrow, width=100, color_system="truecolor", force_terminal=True))
    return {"json": render_json(report) + "\n", "csv": render_csv(report), "md": render_markdown(report),
            "txt": buf.getvalue(), "ansi": narrow.getvalue()}


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    want = path.read_bytes().decode("utf-8")
    assert text == want, f"{name} differs from the output before the typed figures"


@pytest.mark.parametrize("by", [None, "rarity", "region"])
def test_built_sessions_report_byte_for_byte(by):
    report = build_report(built_sessions(), by=by)
    for ext, text in renderings(report).items():
        check(f"built-{by or 'lang'}.{ext}", text)


def test_languages_filter_and_no_p_value_byte_for_byte():
    report = build_report(built_sessions(), languages=["es", "de"], p_value=False)
    for ext, text in renderings(report).items():
        check(f"built-es-de.{ext}", text)
    for ext, text in renderings(build_report([])).items():
        check(f"empty.{ext}", text)


@pytest.mark.parametrize("by", [None, "rarity", "region"])
def test_factscore_data_report_byte_for_byte(by, shared_dir):
    report = build_report(factscore_sessions(shared_dir), by=by)
    for ext, text in renderings(report).items():
        check(f"factscore-{by or 'lang'}.{ext}", text)


def store_built_sessions() -> None:
    """The built sessions into the test's store (MFACT_HOME), as `mfact import` would leave them."""
    from mfact.core.store import Store

    with Store() as store:
        for s in built_sessions():
            store.save_session(s)


def test_the_cli_writes_the_same_files(tmp_path, capsys):
    from mfact.core.cli import main
    store_built_sessions()
    for args, name in ((["--json"], "json"), (["--csv"], "csv"), (["--markdown"], "md"), ([], "txt"),
                       (["--by", "rarity", "--json"], "rarity.json"),
                       (["--lang", "es,de", "--no-p-value", "--csv"], "es-de.csv")):
        out = tmp_path / f"report.{name}"
        assert main(["report", *args, "-o", str(out)]) == 0
        check(f"cli.{name}", out.read_bytes().decode("utf-8"))
    assert main(["report", "--json"]) == 0
    check("cli.stdout.json", capsys.readouterr().out)


@pytest.mark.anyio
async def test_the_tui_report_screen_shows_the_same_cells():
    from mfact.core.config import Config
    from mfact.tui.app import MfactApp, Services
    from mfact.tui.screens.report import ReportScreen
    from _pilot import wait_for

    store_built_sessions()
    app = MfactApp(Config(workers=1), services=Services(suggest=lambda prefix, lang, c, n: [],
                                                        resolve=lambda name, lang, c: None, suggest_delay=0.0))
    app.animation_level = "none"
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("ctrl+r")
        assert isinstance(app.screen, ReportScreen)
        await wait_for(pilot, lambda: app.screen.report is not None)
        await pilot.pause()

        def cell(c) -> list:
            if isinstance(c, str):
                return [c]
            return [c.plain, str(c.style), [[sp.start, sp.end, str(sp.style)] for sp in c.spans]]

        lines = ["chart " + json.dumps(cell(app.screen.query_one("#report-chart").content), ensure_ascii=False)]
        for table in ("report-table", "agreement-table"):
            t = app.screen.query_one(f"#{table}")
            lines.append(table + " " + json.dumps([str(col.label) for col in t.ordered_columns],
                                                  ensure_ascii=False))
            lines += [table + " " + json.dumps([cell(c) for c in t.get_row_at(i)], ensure_ascii=False)
                      for i in range(t.row_count)]
    check("tui.txt", "\n".join(lines) + "\n")


# --------------------------------------------------------------------------- typed, and loud on a typo


def test_a_mistyped_figure_name_fails_loudly():
    from mfact.core.report import Figures, Report

    report = build_report(built_sessions())
    assert isinstance(report, Report) and isinstance(report.languages["en"], Figures)
    en = report.languages["en"]
    assert en.factscore == en["factscore"] and en.models["m2"].agreement.n == 40
    assert en.reasons.semantic_drift is None and report.languages["de"].reasons.factscore
    for read in (lambda: en.factscroe, lambda: en.calm.calmscor, lambda: en.agreement.kapa,
                 lambda: en.reasons.factscroe, lambda: report.language):
        with pytest.raises(AttributeError, match="factscroe|calmscor|kapa|language"):
            read()
    with pytest.raises(AttributeError, match="Figures has no field 'factscroe'"):
        en.factscroe = 0.5
    with pytest.raises(AttributeError, match="Reasons has no field 'semantic_drfit'"):
        en.reasons.semantic_drfit = "why"
    with pytest.raises(KeyError, match="factscroe"):
        en.get("factscroe")                  # the Mapping view: no silent None either
    with pytest.raises(KeyError, match="semantic_drfit"):
        en.reasons.get("semantic_drfit")
    with pytest.raises(TypeError):
        Figures(factscroe=0.5)
    assert en.reasons.get("semantic_drift") is None       # a real name whose reason is not given


# the readers of the report's figures, which must read them by attribute
READERS = ("core/report.py", "core/commands/report.py", "tui/screens/report.py")
_STRING_KEY = re.compile(r"[\w)\]]\[[\"']|\.get\([\"']|\bdict\((f|fig|figures|report)\)")


def test_the_readers_read_the_figures_by_attribute():
    root = Path(__file__).resolve().parents[1]
    found = [f"{name}:{n}: {line.strip()}" for name in READERS
             for n, line in enumerate((root / name).read_text(encoding="utf-8").splitlines(), 1)
             if _STRING_KEY.search(line)]
    assert not found, "\n".join(found)
    assert _STRING_KEY.search('x = f["factscore"]') and _STRING_KEY.search("ag.get('kappa')")


def test_every_figure_has_its_reason_field():
    from dataclasses import fields

    from mfact.core.report import Figures, Reasons

    figure_names = [f.name for f in fields(Figures) if f.name not in ("reasons", "models", "extra")]
    assert [f.name for f in fields(Reasons) if f.name != "extra"] == figure_names
    assert Reasons().to_dict() == {} and Reasons._OPTIONAL == frozenset(figure_names)


@pytest.mark.parametrize("name", ["built-lang", "built-rarity", "built-es-de", "empty", "factscore-region"])
def test_a_report_read_back_from_its_json_renders_the_same(name):
    from mfact.core.report import Report

    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    back = Report.from_dict(json.loads(text), "report")
    assert render_json(back) + "\n" == text
    assert render_csv(back) == (GOLDEN / f"{name}.csv").read_text(encoding="utf-8")
    assert render_markdown(back) == (GOLDEN / f"{name}.md").read_text(encoding="utf-8")
    assert renderings(json.loads(text))["txt"] == (GOLDEN / f"{name}.txt").read_text(encoding="utf-8")


def test_a_bad_report_json_names_the_field():
    from mfact.core.report import Report
    from mfact.core.session import SessionFormatError

    d = json.loads((GOLDEN / "built-lang.json").read_text(encoding="utf-8"))
    d["languages"]["es"]["models"]["m2"]["calm"]["calmscore"] = "high"
    with pytest.raises(SessionFormatError, match=r"^report\.languages\.es\.models\.m2\.calm\.calmscore: "
                                                  r"must be a number or null, got a string"):
        Report.from_dict(d, "report")


# --------------------------------------------------------------------------- property: any report JSON round-trips

_json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.text(max_size=4)),
                           lambda inner: st.lists(inner, max_size=2), max_leaves=4)
_num = st.one_of(st.none(), st.integers(0, 100), st.floats(0, 1))
_int = st.one_of(st.none(), st.integers(0, 10**6))
_str = st.one_of(st.none(), st.text(max_size=8))


def _obj(known: dict) -> st.SearchStrategy:
    """Some of the known keys (valid values) and unknown ones, in any order."""
    @st.composite
    def build(draw):
        items = [(k, draw(known[k])) for k in draw(st.lists(st.sampled_from(sorted(known)), unique=True))]
        items += [(k, draw(_json_value)) for k in draw(st.lists(
            st.text(max_size=5).filter(lambda k: k not in known), unique=True, max_size=2))]
        return dict(draw(st.permutations(items)))
    return build()


_FIG = {"sessions": _int, "factscore": _num, "drift_texts": _int, "semantic_drift": _num,
        "calm": _obj({"non_empty": _num, "calmscore": _num}), "agreement": _obj({"n": _int, "kappa": _num}),
        "reasons": _obj({"factscore": _str, "calm": _str, "hallucination_rate": _str})}
_FIGURES = _obj({**_FIG, "models": st.dictionaries(st.text(max_size=4), _obj(_FIG), max_size=2)})


@settings(max_examples=100, deadline=None)
@given(report=st.one_of(_obj({"languages": st.dictionaries(st.text(max_size=3), _FIGURES, max_size=2)}),
                        _obj({"by": _str, "groups": st.dictionaries(st.text(max_size=6), _FIGURES, max_size=2)})))
def test_any_report_json_round_trips_byte_for_byte(report):
    from mfact.core.report import Report

    back = Report.from_dict(report, "report")
    assert render_json(back) == json.dumps(report, ensure_ascii=False, indent=2)
    assert list(back) == list(report)
