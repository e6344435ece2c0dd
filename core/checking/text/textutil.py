"""Small multilingual text helpers shared by the extractors and the offline verifier.

Words are runs of letters/digits (with inner apostrophes and hyphens); scripts written without
spaces (Chinese, Japanese, Thai) are tokenised per character so overlap still means something.
Digits of every script are normalised to ASCII (Arabic-Indic, Persian, Devanagari, Bengali, ...).
"""
from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources
from typing import Any

from ...languages import BY_CHARACTER, HAN

def _mark_class() -> str:
    """A regex class of the combining marks of the BMP (Devanagari vowel signs, Arabic harakat...)."""
    ranges: list[list[int]] = []
    for cp in range(0x300, 0x10000):
        if unicodedata.category(chr(cp)).startswith("M"):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return "".join(f"\\u{a:04x}-\\u{b:04x}" if a != b else f"\\u{a:04x}" for a, b in ranges)


# the combining marks as the body of a regex class: a word keeps them, it is not cut at them
COMBINING_MARKS = _mark_class()
# a word's letters with their combining marks (Devanagari vowel signs, Arabic harakat), and a word of
# them with the inner dots, commas, apostrophes and hyphens of "1.005", "d'argent", "Mayen-Koblenz"
WORD_PART = rf"(?:[^\W_][{COMBINING_MARKS}]*)+"
MARKED_WORD = re.compile(rf"{WORD_PART}(?:[.,'’\-]{WORD_PART})*")
_W = r"[\w" + COMBINING_MARKS + r"]"
_WORD = re.compile(_W + r"+(?:['’\-]" + _W + r"+)*", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f\uac00-\ud7af]")

# very frequent function words (not content) in the languages mfact offers
STOPWORDS: set[str] = set("""
a an the of in on at to for from by with as and or but is are was were be been being has have had do
does did it its this that these those he she they him her his hers them their there which who whom
whose what when where how also into after before during about over under than then not no
el la los las lo un una unos unas de del al y e o u en con por para que se su sus es fue era son
fueron ha han como más pero sin sobre entre también le les des du et ou en dans par pour sur au aux
est été était sont ont a qui ne pas il elle ils elles ce cette ces son sa ses leur leurs der die
das den dem des ein eine einer eines einem und oder in im am an auf mit von zu zum zur für bei ist
war wurde wurden sind hat hatte er sie es sein seine ihr ihre nicht auch als il lo gli i di da
nel nella con per tra fra che è era sono fu ha o um uma os as do da dos das no na nos nas em com
por para que é foi era são um ele ela eles elas seu sua и в во не на с со по к ко из у о об от до
за для что как а но он она они его ее её их это был была были быть также bir ve ile bu da de için
olarak olan ise gibi daha çok en o onun ve và của là có được trong những các một cho với người này
đã và không từ na ya wa la kwa katika ni cha za vya kuwa pia yeye au و في من على إلى عن مع هو هي
كان كانت التي الذي أن ما لا قد هذا هذه ثم أو کے کی کا میں اور سے کو نے ہے تھا تھی ہیں پر یہ وہ بھی
का की के में और से को ने है था थी हैं पर यह वह भी एक तथा এবং ও এর এ এই করে তিনি হয় ছিল থেকে
και το του της τα η ο οι των με σε για από που είναι ήταν να δεν и на за от с се е са да по
""".split())

NEGATIONS: set[str] = set("""
not no never none nobody nothing neither nor cannot n't without didn't doesn't don't wasn't
weren't isn't aren't hasn't haven't hadn't won't wouldn't couldn't
no nunca jamás ningún ninguna ni tampoco sin ne pas jamais aucun aucune sans nicht kein keine
keinen keiner nie niemals ohne non mai nessun nessuna senza não nunca nenhum nenhuma sem не нет
никогда ни без değil yok hiç asla không chưa chẳng hề si hapana bila لا لم لن ليس ليست بدون غير
نہیں نہ کبھی نہیں बिना नहीं न कभी ना না নয় নেই কখনো δεν μην ποτέ χωρίς не няма никога без
""".split()) | {"不", "没", "沒", "无", "無", "未", "非", "别", "ไม่", "ไม่ได้", "ない", "않", "안", "못"}

# Serbian is written in Cyrillic and in Latin letters, one to one (Wikipedia's articles mostly in
# Cyrillic, people often in Latin): the lexical features compare words in the Latin spelling.
# The mapping is Serbian's official one (Cyrillic letters of other languages keep theirs).
SERBIAN_LATIN = str.maketrans({
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "ђ": "đ", "е": "e", "ж": "ž", "з": "z", "и": "i",
    "ј": "j", "к": "k", "л": "l", "љ": "lj", "м": "m", "н": "n", "њ": "nj", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "ћ": "ć", "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "č", "џ": "dž", "ш": "š"})


def lowered(word: str) -> str:
    """A word in lower case, composed (NFC), Turkish "İ" lowered to "i" (Python gives "i" and a
    combining dot: "İki" would not be "iki", nor "İstanbul" "istanbul")."""
    return unicodedata.normalize("NFC", word.lower()).replace("i\u0307", "i")


def lower_in_place(text: str) -> str:
    """Lower case letter by letter, so that offsets stay the text's ("İ" lowered is two characters and
    stays as written)."""
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


def fold_accents(word: str) -> str:
    """Lower case without accents ("Française" -> "francaise", "Jána" -> "jana")."""
    w = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in w if not unicodedata.combining(c))


@functools.lru_cache(maxsize=16)
def data_json(name: str) -> Any:
    """A JSON data file of the checking package (`core/checking/data/NAME`), read once."""
    return json.loads(resources.files("mfact.core").joinpath("checking", "data", name).read_text("utf-8"))


# languages read a character at a time (Han and kana), and Chinese and Cantonese (core/languages.py)
SPACELESS = BY_CHARACTER
HAN_LANGS = HAN

# possessives and object pronouns that refer back to the subject of a text
POSSESSIVES = frozenset("""his her him hers su sus son sa ses sein seine ihr ihre lui suo sua seu его её
ее""".split())


def by_languages(table: dict[str, dict[str, Any]], langs: tuple[str, ...]) -> dict[str, Any]:
    """One word table from per-language ones: `langs` then English, the first language that has a
    word deciding what it means."""
    out: dict[str, Any] = {}
    for lg in dict.fromkeys((*langs, "en")):
        for w, v in table.get(lg, {}).items():
            out.setdefault(w, v)
    return out


def fold_script(word: str) -> str:
    """A lower-case word in the Latin spelling where it is Serbian Cyrillic ("београд" ->
    "beograd"); words with letters Serbian does not use (Russian ы, я, й...) stay as they are."""
    if not word or word.isascii():
        return word
    folded = word.translate(SERBIAN_LATIN)
    return word if has_cyrillic(folded) else folded


@functools.lru_cache(maxsize=1)
def _t2s_table() -> dict[int, str]:
    """Traditional -> simplified Chinese, one character for one (OpenCC's TSCharacters table, its
    first candidate; phrases and one-to-many entries left out so that offsets stay valid); empty
    when the table is not installed (then nothing is folded)."""
    try:
        table = resources.files("opencc").joinpath("dictionary", "TSCharacters.txt").read_text("utf-8")
    except (ImportError, OSError, ValueError):
        return {}
    out: dict[int, str] = {}
    for line in table.splitlines():
        trad, _tab, simp = line.partition("\t")
        simp = simp.split(" ")[0]
        if len(trad) == 1 and len(simp) == 1 and trad != simp:
            out[ord(trad)] = simp
    return out


def han_simplified(text: str) -> str:
    """Chinese text with traditional characters written simplified, one for one: the same length and
    offsets ("羅莎·帕克斯" -> "罗莎·帕克斯"). Chinese Wikipedia writes articles in either script and
    mixes them; an answer in the other script reads as other words to E5 and the detector."""
    table = _t2s_table()
    return text.translate(table) if table else text


_OTHER_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_SERBIAN_LATIN_TEXT = {**SERBIAN_LATIN, **{ord(chr(k).upper()): v[0].upper() + v[1:] for k, v in SERBIAN_LATIN.items()}}


def serbian_latin(text: str) -> str:
    """Text in Serbian's Latin spelling, case kept ("Београд" -> "Beograd", "Љубљана" -> "Ljubljana");
    letters Serbian does not use stay as they are."""
    return text.translate(_SERBIAN_LATIN_TEXT)


def has_cyrillic(text: str) -> bool:
    """Whether the text has a Cyrillic letter (after `fold_script`: one Serbian does not use)."""
    return _OTHER_CYRILLIC.search(text) is not None


def normalise_digits(text: str) -> str:
    """Replace digits of any script (Arabic-Indic ٣, Bengali ৩, Devanagari ३, ...) by ASCII digits."""
    out = []
    for ch in text:
        if ch.isdigit() and not ("0" <= ch <= "9"):
            try:
                out.append(str(unicodedata.digit(ch)))
                continue
            except (TypeError, ValueError):
                pass
        out.append(ch)
    return "".join(out)


def is_cjk_char(ch: str) -> bool:
    return bool(_CJK.match(ch))


def words_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for each word; characters of spaceless scripts are words of their own."""
    out: list[tuple[str, int, int]] = []
    for m in _WORD.finditer(text):
        w = m.group(0)
        if _CJK.search(w):
            # split into per-character tokens for CJK/Thai, keeping runs of other characters whole
            run_start = None
            for off, ch in enumerate(w):
                pos = m.start() + off
                if is_cjk_char(ch):
                    if run_start is not None:
                        out.append((text[run_start:pos], run_start, pos))
                        run_start = None
                    out.append((ch, pos, pos + 1))
                elif run_start is None:
                    run_start = pos
            if run_start is not None:
                out.append((text[run_start:m.end()], run_start, m.end()))
        else:
            out.append((w, m.start(), m.end()))
    return out


def tokens(text: str) -> list[str]:
    return [fold_script(normalise_digits(w.lower())) for w, _s, _e in words_with_offsets(text)]


def content_tokens(text: str) -> list[str]:
    """`tokens` without the function words (recognised as written: "со" is Russian's, "so" is not)."""
    out = []
    for w, _s, _e in words_with_offsets(text):
        raw = normalise_digits(w.lower())
        if raw in STOPWORDS:
            continue
        t = fold_script(raw)
        if len(t) > 1 or is_cjk_char(t) or t.isdigit():
            out.append(t)
    return out


def has_negation(text: str) -> bool:
    """Whether a word of the text is a negation (as written, before any spelling is folded)."""
    return any(normalise_digits(w.lower()) in NEGATIONS for w, _s, _e in words_with_offsets(text))


def numbers(text: str) -> set[str]:
    """Numbers in the text (digits of any script normalised; "1,867" and "1.867" kept as written)."""
    t = normalise_digits(text)
    return {m.group(0).replace(",", "").lstrip("0") or "0"
            for m in re.finditer(r"\d+(?:[.,]\d+)*", t)}


def proper_nouns(text: str) -> set[str]:
    """Capitalised words that do not start the text (names, places), lower-cased."""
    out = set()
    for idx, (w, s, _e) in enumerate(words_with_offsets(text)):
        if idx == 0 and s < 3:
            continue
        if w[:1].isupper() and w.lower() not in STOPWORDS and len(w) > 1:
            out.add(fold_script(w.lower()))
    return out


def char_ngrams(text: str, n: int = 3) -> set[str]:
    t = " ".join(tokens(text))
    return {t[i:i + n] for i in range(max(0, len(t) - n + 1))}


def _stem_match(a: str, b: str) -> bool:
    """Loose match of two lower-cased tokens: equal, or sharing a prefix of 5+ characters."""
    if a == b:
        return True
    if len(a) >= 5 and len(b) >= 5:
        m = min(len(a), len(b))
        p = 0
        while p < m and a[p] == b[p]:
            p += 1
        return p >= 5 or (p >= 4 and p >= m - 2)
    return False


def locate_span(fact: str, sent_start: int, sent_text: str) -> tuple[int, int]:
    """The smallest part of the sentence that covers the fact's content words (absolute offsets).

    Falls back to the whole sentence when fewer than half of the content words are found.
    """
    whole = (sent_start, sent_start + len(sent_text))
    fact_words = list(dict.fromkeys(content_tokens(fact)))
    if not fact_words:
        return whole
    sent_words = [(normalise_digits(w.lower()), s, e) for w, s, e in words_with_offsets(sent_text)]
    positions: dict[str, list[int]] = {}
    for fw in fact_words:
        hits = [i for i, (sw, _s, _e) in enumerate(sent_words) if _stem_match(fw, sw)]
        if hits:
            positions[fw] = hits
    if not positions or len(positions) * 2 < len(fact_words):
        return whole
    # minimal window over token indices containing one occurrence of every found word
    events = sorted((i, fw) for fw, hits in positions.items() for i in hits)
    need = len(positions)
    best: tuple[int, int] | None = None
    counts: dict[str, int] = {}
    have = 0
    left = 0
    for right in range(len(events)):
        w = events[right][1]
        counts[w] = counts.get(w, 0) + 1
        if counts[w] == 1:
            have += 1
        while have == need:
            lo, hi = events[left][0], events[right][0]
            if best is None or hi - lo < best[1] - best[0]:
                best = (lo, hi)
            lw = events[left][1]
            counts[lw] -= 1
            if counts[lw] == 0:
                have -= 1
            left += 1
    assert best is not None
    s = sent_words[best[0]][1]
    e = sent_words[best[1]][2]
    return sent_start + s, sent_start + e


def word_units(text: str) -> list[tuple[int, int]]:
    """Whitespace words, except that a word with CJK characters is split into its characters (each
    CJK character is a unit; runs of other letters or digits inside it stay whole): the units the
    token-level detector labels and scores."""
    out: list[tuple[int, int]] = []
    for m in re.finditer(r"\S+", text):
        w, s = m.group(0), m.start()
        if not any(is_cjk_char(c) for c in w):
            out.append((s, m.end()))
            continue
        run = None
        for k, c in enumerate(w):
            if is_cjk_char(c) or not c.isalnum():
                if run is not None:
                    out.append((s + run, s + k))
                    run = None
                out.append((s + k, s + k + 1))
            elif run is None:
                run = k
        if run is not None:
            out.append((s + run, m.end()))
    return out


def scripts_of(text: str) -> frozenset[str]:
    """The scripts of a text's letters, as Unicode names them ("LATIN", "CYRILLIC", "CJK", ...)."""
    return frozenset(unicodedata.name(c, "").split(" ")[0] for c in text if c.isalpha())
