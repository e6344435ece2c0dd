""""Check a text" from the start screen, driven with Pilot: paste (or open a file), name the topic,
the language detected and changeable, then the check screen fills in as for a generated text."""
from __future__ import annotations

import functools

import _pilot
import pytest
from textual import events
from textual.widgets import Input, Label, Select, TextArea

from mfact.core.config import Config
from mfact.core.fake import fake_pipeline
from mfact.core.store import Store
from mfact.tui.app import MfactApp, Services
from mfact.tui.screens.check import CheckScreen
from mfact.tui.screens.start import StartScreen
from mfact.tui.screens.text_input import TextCheckScreen

pytestmark = pytest.mark.anyio
SIZE = (160, 40)
PASTED = ("La Torre Eiffel es una estructura de hierro situada en París. Fue construida por Gustave "
          "Eiffel entre 1887 y 1889 para la Exposición Universal.")
PASSAGES = ["La torre Eiffel es una estructura de hierro de París construida para la Exposición Universal "
            "de 1889 por Gustave Eiffel."]


@pytest.fixture
def anyio_backend():
    return "asyncio"


def make_app(**kw) -> MfactApp:
    def factory(cfg, on_progress=None):
        # a real pipeline with the real rules extractor over a fake retriever and verifier
        from mfact.core.checking.extract.rules import RuleExtractor
        p = fake_pipeline(passages=PASSAGES, cfg=cfg)
        p.extractor = RuleExtractor()
        return p
    return MfactApp(Config(workers=1), services=Services(
        pipeline_factory=factory, suggest=lambda prefix, lang, cfg, limit: [],
        resolve=lambda name, lang, cfg: None, suggest_delay=0.01), **kw)


wait_for = functools.partial(_pilot.wait_for, timeout=15.0)


async def test_paste_a_text_and_check_it():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, StartScreen)
        await pilot.click("#start-text")
        await wait_for(pilot, lambda: isinstance(app.screen, TextCheckScreen))
        dialog = app.screen
        area = dialog.query_one("#text-area", TextArea)
        assert area.has_focus
        app.post_message(events.Paste(PASTED))      # what the terminal sends on paste: to the focus
        await wait_for(pilot, lambda: area.text == PASTED)
        # the language follows the text: Spanish, although English was selected on the start screen
        await wait_for(pilot, lambda: dialog.query_one("#text-lang", Select).value == "es")
        assert "Spanish" in str(dialog.query_one("#text-status", Label).render())
        # no topic yet: a one-line message, nothing starts
        await pilot.click("#text-ok")
        assert isinstance(app.screen, TextCheckScreen)
        assert "who or what" in str(dialog.query_one("#text-status", Label).render())
        await pilot.click("#text-entity")
        await pilot.press(*"Torre Eiffel")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        scr: CheckScreen = app.screen
        # the text is there at once; facts and verdicts fill in
        assert scr.session.text == PASTED or scr.session.text.strip() == PASTED
        await wait_for(pilot, lambda: not scr.running and scr.session.facts
                       and all(f.auto is not None for f in scr.session.facts))
        s = scr.session
        assert s.language == "es" and s.entity.name == "Torre Eiffel"
        assert {f.auto.label for f in s.facts} <= {"S", "NS", "IR"} and len(s.facts) >= 3
        assert s.config["text_source"] == "user" and s.generator.backend == "none"
        stored = Store().get_session(s.id)
        assert stored.text == s.text and stored.config["text_source"] == "user"


async def test_open_a_file_and_choose_the_language(tmp_path):
    md = tmp_path / "answer.md"
    md.write_text("# Gustave Eiffel\n\nGustave Eiffel was a French civil engineer. He was born in Dijon "
                  "in 1832.\n", encoding="utf-8")
    pdf = tmp_path / "answer.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, TextCheckScreen))
        dialog = app.screen
        status = dialog.query_one("#text-status", Label)
        # a file that is not text: one line, nothing loaded
        dialog.query_one("#text-file", Input).value = str(pdf)
        await pilot.click("#text-open")
        assert "not a .txt or .md file" in str(status.render())
        assert dialog.query_one("#text-area", TextArea).text == ""
        dialog.query_one("#text-file", Input).value = str(tmp_path / "missing.txt")
        await pilot.click("#text-file")
        await pilot.press("enter")                         # Enter in the path field opens it too
        assert "not found" in str(status.render())
        dialog.query_one("#text-file", Input).value = str(md)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "civil engineer" in dialog.query_one("#text-area", TextArea).text)
        await wait_for(pilot, lambda: dialog.query_one("#text-lang", Select).value == "en")
        # the user picks French: detection no longer overrides it
        dialog.query_one("#text-lang", Select).value = "fr"
        await pilot.pause(0.05)
        dialog.query_one("#text-area", TextArea).insert(" He designed the tower in Paris.")
        await pilot.pause(0.1)
        assert dialog.query_one("#text-lang", Select).value == "fr"
        # escape cancels and goes back to the start screen
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))


QUESTION = "Who designed the Eiffel Tower? [b]Tell me[/b] <i>now</i>"


async def test_a_question_is_taken_kept_and_shown_and_swedish_is_picked_by_typing():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#start-text")
        await wait_for(pilot, lambda: isinstance(app.screen, TextCheckScreen))
        dialog = app.screen
        area = dialog.query_one("#text-area", TextArea)
        app.post_message(events.Paste("Gustave Eiffel ritade tornet i Paris. Det byggdes 1889."))
        await wait_for(pilot, lambda: area.text.startswith("Gustave"))
        # the language picker lists every language: typing part of a name in the open list finds it
        lang = dialog.query_one("#text-lang", Select)
        assert {"sv", "da", "no", "en"} <= {v for _p, v in lang._options}
        lang.value = "de"                                  # the user's pick: detection leaves it
        await pilot.pause(0.05)
        lang.focus()
        await pilot.press("enter")
        await pilot.press(*"swed")
        await pilot.press("enter")
        await wait_for(pilot, lambda: lang.value == "sv")
        # the question, and no entity: the topic is read from the question
        await pilot.click("#text-question")
        await pilot.press(*QUESTION)
        assert dialog.query_one("#text-entity", Input).value == ""
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen))
        scr: CheckScreen = app.screen
        await wait_for(pilot, lambda: not scr.running and scr.session.facts)
        s = scr.session
        assert s.question == QUESTION and s.language == "sv" and s.entity.name == "Eiffel Tower"
        assert Store().get_session(s.id).question == QUESTION
        # the header shows it, literally, on a line of its own; the generic rules are said once
        from mfact.tui.widgets.metrics_bar import MetricsBar
        bar = scr.query_one(MetricsBar)
        assert f"question {QUESTION}" in bar.render().plain.splitlines()[-1] and bar.size.height == 3
        said = [n.message for n in app._notifications if "no word tables" in n.message]
        assert len(said) == 1 and "Swedish (sv)" in said[0]
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, StartScreen))
        app.start_check("Greta Garbo", "sv", text="Greta Garbo var en svensk skådespelerska.")
        await wait_for(pilot, lambda: isinstance(app.screen, CheckScreen) and app.screen is not scr)
        assert len([n for n in app._notifications if "no word tables" in n.message]) <= 1
        assert app.generic_said == {"sv"}


async def test_the_start_screen_lists_every_language_and_filters_the_generic_ones():
    from mfact.core.languages import ALL_LANGUAGES
    from mfact.tui.widgets.start_tables import LanguageTable

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(LanguageTable)
        await wait_for(pilot, lambda: table.row_count == len(ALL_LANGUAGES))
        table.fill("swedish")
        assert table.row_count == 1 and table.get_row_at(0)[0] == "sv" and "generic" in table.get_row_at(0)[3]
        table.fill("generic")
        assert table.row_count == len(ALL_LANGUAGES) - 37
