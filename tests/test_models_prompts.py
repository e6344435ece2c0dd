"""Biography prompts: every offered language, both styles, names dropped in unchanged."""
from __future__ import annotations

import pytest

from mfact.core.languages import UnknownLanguage, table_codes
from mfact.core.models.prompts import CHAT, COMPLETION, build_prompt

REQUIRED = ["en", "es", "fr", "de", "ru", "zh", "vi", "ar", "hi", "bn", "sw", "tr"]


def test_tables_cover_every_offered_language():
    assert set(REQUIRED) <= set(table_codes())
    assert set(COMPLETION) == set(CHAT) == set(table_codes())


@pytest.mark.parametrize("lang", table_codes())
def test_prompts_in_each_language(lang):
    name = "Ngũgĩ wa Thiong'o"
    completion = build_prompt(name, lang, "completion")
    chat = build_prompt(name, lang, "chat")
    assert completion.endswith(name) and completion.count(name) == 2     # the model continues the name
    assert chat.count(name) == 1 and "{entity}" not in chat + completion
    if lang != "en":
        assert completion != build_prompt(name, "en", "completion")
        assert chat != build_prompt(name, "en", "chat")


def test_reference_prompts():
    assert build_prompt("Marie Curie", "en") == "This is a Wikipedia article about Marie Curie. Marie Curie"
    assert build_prompt("Marie Curie", "en", "chat") == "Tell me a bio of Marie Curie."
    assert build_prompt("Marie Curie", "pt-BR", "chat") == "Conte-me a biografia de Marie Curie."


def test_names_are_one_line_and_braces_are_literal():
    assert build_prompt("Marie\n Curie", "es", "chat") == "Cuéntame la biografía de Marie Curie."
    assert build_prompt("{entity} {0}", "en", "chat") == "Tell me a bio of {entity} {0}."


def test_bad_language_and_style():
    with pytest.raises(UnknownLanguage):
        build_prompt("Marie Curie", "xx")
    with pytest.raises(ValueError):
        build_prompt("Marie Curie", "es", "poem")


def test_a_generic_language_gets_the_english_prompt_asking_for_it():
    assert build_prompt("Greta Garbo", "sv", "chat") == "Tell me a bio of Greta Garbo. Write it in Swedish."
    completion = build_prompt("Greta Garbo", "nb")
    assert "Norwegian" in completion and completion.endswith("Greta Garbo")
