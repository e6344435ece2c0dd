"""HTML to plain text for evidence: section titles kept, infobox rows as `key: value` lines, references,
scripts, styles and navigation dropped. Page HTML is untrusted: this only ever extracts text from it."""
from __future__ import annotations

import re
from html.parser import HTMLParser

_DROP = {"script", "style", "noscript", "template", "svg", "math", "nav", "footer", "form", "button"}
_BLOCK = {"p", "div", "li", "dd", "dt", "br", "blockquote", "pre", "figcaption", "caption", "ul", "ol", "dl",
          "section", "article", "main", "header", "h1", "h5", "h6"}
_HEADINGS = {"h2": 1, "h3": 2, "h4": 3}
_DROP_CLASSES = ("reference", "mw-editsection", "navbox", "noprint", "metadata", "mw-references", "reflist",
                 "hatnote", "sidebar", "mw-jump-link", "printfooter", "catlinks", "toc")
_VOID = {"br", "img", "hr", "meta", "link", "input", "wbr", "col", "area", "base", "source", "track", "embed"}


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, list[str]]] = [("", [])]
        self.path: list[str] = []
        self.buf: list[str] = []
        self.skip: list[str] = []          # stack of tags whose content is dropped
        self.heading: tuple[str, list[str]] | None = None
        self.infobox_depth = 0
        self.row: list[list[str]] | None = None
        self.cell: list[str] | None = None
        self.title = ""
        self.in_title = False
        self.disambiguation = False
        self.links: list[str] = []

    # -- helpers
    def _flush(self) -> None:
        text = " ".join("".join(self.buf).split())
        if text:
            self.sections[-1][1].append(text)
        self.buf = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "")
        if self.skip:
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if "disambig" in cls or a.get("id") in ("disambigbox", "disambig"):
            self.disambiguation = True
        if tag in _DROP or any(c in cls.split() or c == a.get("id") for c in _DROP_CLASSES) or \
                (tag == "table" and ("navbox" in cls or "metadata" in cls)):
            if tag not in _VOID:
                self.skip.append(tag)
            return
        if tag == "title":
            self.in_title = True
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in _HEADINGS:
            self._flush()
            self.heading = (tag, [])
            return
        if tag == "table" and ("infobox" in cls or self.infobox_depth):
            self._flush()
            self.infobox_depth += 1
            return
        if self.infobox_depth:
            if tag == "tr":
                self.row = []
            elif tag in ("th", "td") and self.row is not None:
                self.cell = []
            elif tag in ("br", "li") and self.cell is not None:
                self.cell.append(", ")
            return
        if tag in _BLOCK:
            self._flush()

    def handle_endtag(self, tag):
        if self.skip:
            if self.skip[-1] == tag:
                self.skip.pop()
            elif tag in self.skip:
                while self.skip and self.skip.pop() != tag:
                    pass
            return
        if tag == "title":
            self.in_title = False
        if self.heading and tag == self.heading[0]:
            name = " ".join("".join(self.heading[1]).split())
            level = _HEADINGS[tag]
            self.path = self.path[:level - 1] + [name]
            self.sections.append((" / ".join(self.path), []))
            self.heading = None
            return
        if self.infobox_depth:
            if tag in ("th", "td") and self.cell is not None and self.row is not None:
                self.row.append(self.cell)
                self.cell = None
            elif tag == "tr" and self.row is not None:
                cells = [" ".join("".join(c).strip(" ,").split()) for c in self.row]
                cells = [c for c in cells if c]
                if len(cells) >= 2:
                    self.sections[-1][1].append(f"{cells[0]}: {'; '.join(cells[1:])}")
                elif len(cells) == 1:
                    self.sections[-1][1].append(cells[0])
                self.row = None
            elif tag == "table":
                self.infobox_depth -= 1
            return
        if tag in _BLOCK:
            self._flush()

    def handle_data(self, data):
        if self.skip:
            return
        if self.in_title:
            self.title += data
            return
        if self.heading:
            self.heading[1].append(data)
        elif self.infobox_depth:
            if self.cell is not None:
                self.cell.append(data)
        else:
            self.buf.append(data)


_CITE = re.compile(r"\[\s*(?:\d+|[a-z]|citation needed|nota \d+)\s*\]")


def html_to_text(html: str) -> tuple[str, list[tuple[str, str]], bool, list[str]]:
    """(document title, [(section title, text)], is a disambiguation page, link targets)."""
    p = _Extractor()
    try:
        p.feed(html)
        p.close()
    except Exception:  # noqa: BLE001 - malformed markup: keep whatever was read
        pass
    p._flush()
    sections = []
    for title, paras in p.sections:
        body = "\n".join(_CITE.sub("", x).strip() for x in paras if x.strip())
        if body.strip():
            sections.append((title, body))
    return " ".join(p.title.split()), sections, p.disambiguation, p.links
