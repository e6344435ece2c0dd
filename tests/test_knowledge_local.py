"""Offline Wikipedia sources against files built in the test: Kiwix ZIM (libzim's own Creator) and
FActScore's documents(title, text) database."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mfact.core.config import Config
from mfact.core.knowledge import build_retriever, resolve_entity, suggest
from mfact.core.knowledge.factscore_db import SEPARATOR, FactScoreDB
from mfact.core.knowledge.htmltext import html_to_text
from mfact.core.errors import MfactError
from mfact.core.session import Entity

CURIE_ES = """<html><head><title>Marie Curie</title><style>.x{}</style></head><body>
<table class="infobox biography vcard"><tr><th colspan="2">Marie Curie</th></tr>
<tr><th>Nacimiento</th><td>7 de noviembre de 1867<br>Varsovia, Polonia</td></tr>
<tr><th>Fallecimiento</th><td>4 de julio de 1934</td></tr></table>
<p>Maria Salomea Skłodowska-Curie<sup class="reference">[1]</sup> fue una física y química polaca.</p>
<h2>Biografía<span class="mw-editsection">[editar]</span></h2>
<h3>Primeros años</h3><p>Nació en Varsovia, entonces parte del Imperio ruso.</p>
<script>alert("x")</script>
<h2>Premios</h2><ul><li>Premio Nobel de Física (1903)</li><li>Premio Nobel de Química (1911)</li></ul>
<div class="navbox">Navegación: nada que ver</div>
</body></html>"""
MERCURIO = """<html><head><title>Mercurio</title></head><body><div id="disambigbox">Desambiguación</div>
<ul><li><a href="Freddie_Mercury">Freddie Mercury</a>, cantante</li>\
<li><a href="Mercurio_(planeta)">Mercurio (planeta)</a></li></ul>
</body></html>"""


def build_zim(path: Path, lang3: str = "spa") -> Path:
    creator_mod = pytest.importorskip("libzim.writer")
    Creator, Item, StringProvider, Hint = (creator_mod.Creator, creator_mod.Item, creator_mod.StringProvider,
                                           creator_mod.Hint)

    class Article(Item):
        def __init__(self, path, title, html):
            super().__init__()
            self._p, self._t, self._h = path, title, html

        def get_path(self):
            return self._p

        def get_title(self):
            return self._t

        def get_mimetype(self):
            return "text/html"

        def get_contentprovider(self):
            return StringProvider(self._h)

        def get_hints(self):
            return {Hint.FRONT_ARTICLE: True}

    with Creator(str(path)).config_indexing(True, lang3) as c:
        c.set_mainpath("Marie_Curie")
        c.add_item(Article("Marie_Curie", "Marie Curie", CURIE_ES))
        c.add_item(Article("Mercurio", "Mercurio", MERCURIO))
        c.add_item(
            Article(
                "Pierre_Curie", "Pierre Curie", "<html><body><p>Pierre Curie fue un físico francés.</p></body></html>"
            )
        )
        c.add_redirection("Maria_Sklodowska", "Maria Sklodowska", "Marie_Curie", {Hint.FRONT_ARTICLE: False})
        c.add_metadata("Language", lang3)
        c.add_metadata("Title", "Wikipedia test")
    return path


def test_html_to_text_keeps_sections_and_infobox_rows_drops_noise():
    title, sections, disamb, _ = html_to_text(CURIE_ES)
    assert title == "Marie Curie" and not disamb
    names = [s for s, _ in sections]
    assert names == ["", "Biografía / Primeros años", "Premios"]
    lead = sections[0][1]
    assert "Nacimiento: 7 de noviembre de 1867, Varsovia, Polonia" in lead
    assert "Fallecimiento: 4 de julio de 1934" in lead
    assert "[1]" not in lead and "alert" not in "".join(t for _, t in sections)
    assert "editar" not in " ".join(names) and "Navegación" not in "".join(t for _, t in sections)
    assert "Premio Nobel de Química (1911)" in sections[2][1]
    assert html_to_text(MERCURIO)[2] is True
    assert html_to_text("<p>unclosed <b>bold <table class=infobox><tr><td>x")[1]


def test_zim_source_lookup_redirect_suggest_search_and_retrieval(tmp_path):
    zim = build_zim(tmp_path / "wikipedia_es_test.zim")
    cfg = Config(offline=True, zim_files=[str(zim)], sources=["zim"])
    m = resolve_entity("Maria Sklodowska", "es", cfg)          # a redirect
    assert m.entity is not None and m.entity.titles["es"] == "Marie Curie" and m.source == "zim"
    amb = resolve_entity("Mercurio", "es", cfg)
    assert amb.entity is None and "Freddie Mercury" in amb.choices
    assert "Marie Curie" in suggest("Marie", "es", cfg)
    from mfact.core.knowledge.zim import ZimSource
    src = ZimSource([str(zim)])
    assert src.languages() == ["es"]
    assert "Marie Curie" in src.search("Varsovia", "es")
    r = build_retriever(cfg, None)
    ev = r.retrieve(m.entity, "Nació en Varsovia en 1867.", ["es", "en"], k=3)
    assert ev and ev[0].source == "zim" and "Varsovia" in ev[0].text
    assert ev[0].url.startswith("zim://wikipedia_es_test.zim/")


def test_corrupt_or_missing_zim_is_one_error_naming_the_file(tmp_path):
    pytest.importorskip("libzim")
    bad = tmp_path / "broken.zim"
    bad.write_bytes(b"ZIM\x04" + b"\x00" * 500)
    with pytest.raises(MfactError) as exc:
        build_retriever(Config(offline=True, zim_files=[str(bad)], sources=["zim"]), None)
    assert str(bad) in exc.value.message
    with pytest.raises(MfactError, match="does not exist"):
        build_retriever(Config(offline=True, zim_files=[str(tmp_path / "nope.zim")], sources=["zim"]), None)


def build_factscore_db(path: Path) -> Path:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE documents (title PRIMARY KEY, text)")
    db.execute("INSERT INTO documents VALUES (?, ?)", ("Marie Curie", SEPARATOR.join([
        "<s>Marie Curie was a Polish and naturalised-French physicist and chemist.</s>",
        "<s>Maria Skłodowska was born in Warsaw, in the Kingdom of Poland, on 7 November 1867.</s>",
        "<s>She died in 1934 at the Sancellemoz sanatorium in Passy, France.</s>"])))
    db.execute("INSERT INTO documents VALUES (?, ?)", ("Marie Curie Medal", "<s>A medal.</s>"))
    db.commit()
    db.close()
    return path


def test_factscore_db_source(tmp_path):
    path = build_factscore_db(tmp_path / "enwiki-test.db")
    cfg = Config(offline=True, factscore_db=str(path), sources=["factscore-db"])
    m = resolve_entity("marie curie", "en", cfg)
    assert m.entity is not None and m.entity.titles == {"en": "Marie Curie"}
    assert suggest("Marie", "en", cfg) == ["Marie Curie", "Marie Curie Medal"]
    src = FactScoreDB(path)
    page = src.get_page("Marie Curie", "en")
    assert len(page.sections) == 3 and "<s>" not in page.text
    r = build_retriever(cfg, None)
    ev = r.retrieve(Entity("Marie Curie"), "She was born in Warsaw in 1867.", ["en"], k=2)
    assert ev[0].source == "factscore-db" and "Warsaw" in ev[0].text
    assert resolve_entity("Nobody Atall", "en", cfg).entity is None


def test_bad_factscore_db_files_are_named(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(MfactError) as exc:
        FactScoreDB(junk)
    assert str(junk) in exc.value.message
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)")
    with pytest.raises(MfactError, match="no table documents"):
        FactScoreDB(other)
