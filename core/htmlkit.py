"""Self-contained HTML pages that hold untrusted text (the session page, the report page).

Model output, Wikipedia passages, entity names and URLs come from outside: every one enters a page
through `esc` (text and attribute values) or `link` (a URL), never by formatting it into markup.

    esc(text)        HTML-escaped text; control and bidi characters shown as visible codes
                     (an RTL override reads as "⟨U+202E⟩" and reorders nothing), lone surrogates
                     as U+FFFD
    safe_url(url)    the URL when it is plain http(s), else None (no javascript:, data:, file:)
    link(url, html)  an <a> to a safe URL (no referrer, a new tab), else the text alone
    page(...)        the whole document: inline CSS, a Content-Security-Policy meta tag that lets
                     only the page's own inline script run (by its hash) and fetch nothing at all

The palette is the colour-blind-safe one of themes/palette.json (Okabe-Ito), dark shades on white.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from .textsafe import BIDI

_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}\u2028\u2029\ud800-\udfff]")
MAX_URL = 2048
_NOT_IN_URL = set('"<>\\`')                # never in a well-formed URL (RFC 3986)
LABEL_CLASS = {"S": "s", "NS": "n", "IR": "i", None: "p"}
GLYPHS = {"S": "✓", "NS": "✗", "IR": "○", None: "…"}
LABEL_NAMES = {"S": "supported", "NS": "not supported", "IR": "irrelevant", None: "pending"}


def _visible(m: re.Match) -> str:
    ch = m.group()
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if code < 0x20:
        return chr(0x2400 + code)            # the control pictures: ␀ … ␟
    if code == 0x7F:
        return "\u2421"                      # ␡
    return f"⟨U+{code:04X}⟩"


def visible(text: object) -> str:
    """`text` with control, bidi and separator characters (newline and tab kept) as visible codes."""
    return _CONTROL.sub(_visible, "" if text is None else str(text))


_PLAIN = re.compile(f"[&<>\"'\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}\u2028\u2029\ud800-\udfff]")


def esc(text: object) -> str:
    """Untrusted text as HTML text or an attribute value (quotes escaped): it reads literally."""
    s = "" if text is None else str(text)
    if _PLAIN.search(s) is None:          # most pieces of text: nothing to change
        return s
    return html.escape(visible(s), quote=True)


def safe_url(url: object) -> str | None:
    """The URL when it is an absolute http(s) URL without spaces, control characters, quotes or
    angle brackets, else None."""
    if not isinstance(url, str):
        return None
    u = url.strip()
    if not u or len(u) > MAX_URL or _CONTROL.search(u) or any(c.isspace() or c in _NOT_IN_URL for c in u):
        return None
    try:
        parts = urlsplit(u)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return u


def link(url: object, inner_html: str) -> str:
    """`inner_html` (already escaped) as a link to `url` when it is safe, else alone."""
    u = safe_url(url)
    if u is None:
        return inner_html
    return f'<a href="{esc(u)}" rel="noopener noreferrer nofollow" target="_blank">{inner_html}</a>'


@lru_cache(maxsize=1)
def palette() -> dict[str, dict[str, str]]:
    """themes/palette.json (beside core/ in a checkout and in the installed package alike)."""
    path = Path(__file__).resolve().parent.parent / "themes" / "palette.json"
    return json.loads(path.read_text(encoding="utf-8"))


def label_colour(label: str | None) -> str:
    """The colour of a label on a white page (`None`: pending)."""
    return palette()["on_light"]["pending" if label is None else label]


def script_hash(script: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def csp(script: str = "") -> str:
    """The page's Content-Security-Policy: nothing is fetched (no scripts, styles, fonts or images
    from anywhere), inline CSS applies, and the only script that runs is the page's own (its hash)."""
    scripts = f"'{script_hash(script)}'" if script else "'none'"
    return (f"default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


BASE_CSS = """
:root{--fg:#1b1d22;--muted:#5d6270;--line:#d9dce3;--bg:#fff;--panel:#f4f5f8}
*{box-sizing:border-box}
html{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;\
color:var(--fg);background:var(--bg)}
body{margin:0 auto;max-width:70rem;padding:1rem 1.25rem 3rem;overflow-wrap:anywhere}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.6rem 0 .5rem;border-bottom:1px solid var(--line)}
a{color:#0b58a8}code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:.2rem .5rem;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}th{background:var(--panel)}
.muted{color:var(--muted)}.note{color:var(--muted);font-size:.88rem}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.5rem 0}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
.flag{display:inline-block;border:1px solid var(--n);color:var(--n);border-radius:3px;\
padding:0 .4rem;margin:.1rem .3rem .1rem 0;font-size:.9rem}
.flag.ok{border-color:var(--line);color:var(--muted)}
@media print{body{max-width:none;padding:0;font-size:11pt}a{color:inherit;text-decoration:none}
h2{break-after:avoid}tr,li,figure{break-inside:avoid}.noprint{display:none}}
"""


def _colour_vars() -> str:
    c = palette()["on_light"]
    return (f":root{{--s:{c['S']};--n:{c['NS']};--i:{c['IR']};--p:{c['pending']};"
            f"--drift:{c['drift']};--match:{c['match']}}}")


def page(title: str, body: str, *, css: str = "", script: str = "") -> str:
    """The whole HTML document (`title`: untrusted text; `body`, `css`, `script`: the page's own).
    The page's own words are English; a block of text in another language says so itself."""
    from . import __version__

    script_tag = f"<script>{script}</script>\n" if script else ""
    return ('<!DOCTYPE html>\n<html lang="en" dir="ltr">\n'
            f'<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{csp(script)}">\n'
            '<meta name="referrer" content="no-referrer">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="mfact {esc(__version__)}">\n'
            f"<title>{esc(title)}</title>\n<style>{_colour_vars()}{BASE_CSS}{css}</style>\n</head>\n"
            f"<body>\n{body}\n{script_tag}</body>\n</html>\n")
