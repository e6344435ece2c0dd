"""Synthetic contrastive claims for training and testing the cross-encoder verifier.

Two generators, both seeded and deterministic:

- `template_pairs`: invented people described by a short biography passage in one language (birth
  date and place, death place, nationality, profession) and claims in another language (en, es, fr,
  de). A claim is supported when it repeats a value of the passage and not supported when one value
  is swapped (the date, year, birth place, the death place given as birth place, nationality,
  profession) or negated.
- `lead_pairs`: claims made from the bundled Wikipedia leads (en/es/fr): the lead sentence or one of
  its clauses is supported; the same sentence with a swapped year, number, place or person, with a
  negation, or a sentence about another person is not.

Every pair carries its `kind` (the corruption) so a dev set can report recall per kind.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

LANGS = ("en", "es", "fr", "de")

CITIES = [  # en, es, fr, de
    ("Warsaw", "Varsovia", "Varsovie", "Warschau"), ("Paris", "París", "Paris", "Paris"),
    ("London", "Londres", "Londres", "London"), ("Vienna", "Viena", "Vienne", "Wien"),
    ("Rome", "Roma", "Rome", "Rom"), ("Moscow", "Moscú", "Moscou", "Moskau"),
    ("Munich", "Múnich", "Munich", "München"), ("Lisbon", "Lisboa", "Lisbonne", "Lissabon"),
    ("Prague", "Praga", "Prague", "Prag"), ("Berlin", "Berlín", "Berlin", "Berlin"),
    ("Madrid", "Madrid", "Madrid", "Madrid"), ("Athens", "Atenas", "Athènes", "Athen"),
    ("Cairo", "El Cairo", "Le Caire", "Kairo"), ("Venice", "Venecia", "Venise", "Venedig"),
    ("Florence", "Florencia", "Florence", "Florenz"), ("Naples", "Nápoles", "Naples", "Neapel"),
    ("Cologne", "Colonia", "Cologne", "Köln"), ("Geneva", "Ginebra", "Genève", "Genf"),
    ("Brussels", "Bruselas", "Bruxelles", "Brüssel"), ("Copenhagen", "Copenhague", "Copenhague", "Kopenhagen"),
    ("Stockholm", "Estocolmo", "Stockholm", "Stockholm"),
    ("Saint Petersburg", "San Petersburgo", "Saint-Pétersbourg", "Sankt Petersburg"),
    ("Barcelona", "Barcelona", "Barcelone", "Barcelona"), ("Seville", "Sevilla", "Séville", "Sevilla"),
    ("Lyon", "Lyon", "Lyon", "Lyon"), ("Milan", "Milán", "Milan", "Mailand"),
    ("Krakow", "Cracovia", "Cracovie", "Krakau"), ("Budapest", "Budapest", "Budapest", "Budapest"),
    ("Dublin", "Dublín", "Dublin", "Dublin"), ("Edinburgh", "Edimburgo", "Édimbourg", "Edinburgh"),
    ("New York", "Nueva York", "New York", "New York"), ("Boston", "Boston", "Boston", "Boston"),
    ("Tokyo", "Tokio", "Tokyo", "Tokio"), ("Beijing", "Pekín", "Pékin", "Peking"),
    ("Mexico City", "Ciudad de México", "Mexico", "Mexiko-Stadt"),
    ("Buenos Aires", "Buenos Aires", "Buenos Aires", "Buenos Aires"), ("Lima", "Lima", "Lima", "Lima"),
    ("Havana", "La Habana", "La Havane", "Havanna"), ("Istanbul", "Estambul", "Istanbul", "Istanbul"),
    ("Hamburg", "Hamburgo", "Hambourg", "Hamburg"), ("Zurich", "Zúrich", "Zurich", "Zürich"),
    ("Marseille", "Marsella", "Marseille", "Marseille"), ("Turin", "Turín", "Turin", "Turin"),
]

def month_name(lang: str, m: int) -> str:
    """The month's name as a date writes it in `lang` (CLDR through Babel)."""
    from babel.dates import get_month_names
    return str(get_month_names("wide", context="format", locale=lang)[m])

# en (m, f), es (m, f), fr (m, f), de (m, f)
PROFESSIONS = [
    (("physicist", "physicist"), ("físico", "física"), ("physicien", "physicienne"), ("Physiker", "Physikerin")),
    (("chemist", "chemist"), ("químico", "química"), ("chimiste", "chimiste"), ("Chemiker", "Chemikerin")),
    (("painter", "painter"), ("pintor", "pintora"), ("peintre", "peintre"), ("Maler", "Malerin")),
    (("composer", "composer"), ("compositor", "compositora"), ("compositeur", "compositrice"),
     ("Komponist", "Komponistin")),
    (("writer", "writer"), ("escritor", "escritora"), ("écrivain", "écrivaine"),
     ("Schriftsteller", "Schriftstellerin")),
    (("actor", "actress"), ("actor", "actriz"), ("acteur", "actrice"), ("Schauspieler", "Schauspielerin")),
    (("mathematician", "mathematician"), ("matemático", "matemática"), ("mathématicien", "mathématicienne"),
     ("Mathematiker", "Mathematikerin")),
    (("philosopher", "philosopher"), ("filósofo", "filósofa"), ("philosophe", "philosophe"),
     ("Philosoph", "Philosophin")),
    (("singer", "singer"), ("cantante", "cantante"), ("chanteur", "chanteuse"), ("Sänger", "Sängerin")),
    (("architect", "architect"), ("arquitecto", "arquitecta"), ("architecte", "architecte"),
     ("Architekt", "Architektin")),
    (("poet", "poet"), ("poeta", "poetisa"), ("poète", "poétesse"), ("Dichter", "Dichterin")),
    (("astronomer", "astronomer"), ("astrónomo", "astrónoma"), ("astronome", "astronome"),
     ("Astronom", "Astronomin")),
    (("biologist", "biologist"), ("biólogo", "bióloga"), ("biologiste", "biologiste"), ("Biologe", "Biologin")),
    (("engineer", "engineer"), ("ingeniero", "ingeniera"), ("ingénieur", "ingénieure"),
     ("Ingenieur", "Ingenieurin")),
    (("football player", "football player"), ("futbolista", "futbolista"), ("footballeur", "footballeuse"),
     ("Fußballspieler", "Fußballspielerin")),
]

# en, es (m, f), fr (m, f), de stem (+er / +e)
NATIONALITIES = [
    ("Polish", ("polaco", "polaca"), ("polonais", "polonaise"), "polnisch"),
    ("French", ("francés", "francesa"), ("français", "française"), "französisch"),
    ("German", ("alemán", "alemana"), ("allemand", "allemande"), "deutsch"),
    ("Italian", ("italiano", "italiana"), ("italien", "italienne"), "italienisch"),
    ("Spanish", ("español", "española"), ("espagnol", "espagnole"), "spanisch"),
    ("Russian", ("ruso", "rusa"), ("russe", "russe"), "russisch"),
    ("British", ("británico", "británica"), ("britannique", "britannique"), "britisch"),
    ("American", ("estadounidense", "estadounidense"), ("américain", "américaine"), "amerikanisch"),
    ("Austrian", ("austriaco", "austriaca"), ("autrichien", "autrichienne"), "österreichisch"),
    ("Dutch", ("neerlandés", "neerlandesa"), ("néerlandais", "néerlandaise"), "niederländisch"),
    ("Swedish", ("sueco", "sueca"), ("suédois", "suédoise"), "schwedisch"),
    ("Hungarian", ("húngaro", "húngara"), ("hongrois", "hongroise"), "ungarisch"),
    ("Greek", ("griego", "griega"), ("grec", "grecque"), "griechisch"),
    ("Mexican", ("mexicano", "mexicana"), ("mexicain", "mexicaine"), "mexikanisch"),
    ("Irish", ("irlandés", "irlandesa"), ("irlandais", "irlandaise"), "irisch"),
]

FIRST = {"m": "Jan Pierre Karl Luis Marco Ivan Tomás Henrik Johann Antonio Paul Emil Carlos Jacques Stefan "
              "Andrei Louis Hugo Otto Felipe Mateo Viktor Anton Pablo Lucas".split(),
         "f": "Maria Anna Sofia Clara Elena Marta Lucía Irene Helena Rosa Julia Agnes Camille Laura Ines "
              "Olga Eva Teresa Alice Vera Margot Isabel Nadia Ada Greta".split()}
LAST = ("Kowalski Moreau Weber Rossi García Ivanov Novak Lindqvist Horvath Dubois Fischer Costa Santos "
        "Petrov Schneider Bianchi Navarro Lambert Keller Jansen Kovács Nowak Ferrari Morel Wagner Ortega "
        "Berg Varga Sokolov Duarte Leclerc Brandt Romano Castillo Vidal Meyer Nilsson Marín Fontaine").split()


@dataclass
class Pair:
    claim: str
    evidence: str
    y: int          # 1 supported, 0 not supported
    kind: str       # "support" or the corruption
    lang_claim: str
    lang_evidence: str
    group: str      # split key (the invented person or the article)
    source: str


def _li(lang: str) -> int:
    return LANGS.index(lang)


def _date(lang: str, d: int, m: int, y: int, rng: random.Random) -> str:
    month = month_name(lang, m)
    if lang == "en":
        return f"{month} {d}, {y}" if rng.random() < 0.5 else f"{d} {month} {y}"
    if lang == "es":
        return f"{d} de {month} de {y}"
    if lang == "de":
        return f"{d}. {month} {y}"
    return f"{'1er' if d == 1 else d} {month} {y}"


@dataclass
class Person:
    name: str
    g: str              # m | f
    born: tuple[int, int, int]
    city: int
    death_city: int
    death_year: int
    prof: int
    nat: int


def _person(rng: random.Random) -> Person:
    g = rng.choice("mf")
    name = f"{rng.choice(FIRST[g])} {rng.choice(LAST)}"
    y = rng.randint(1700, 1990)
    c, dc = rng.sample(range(len(CITIES)), 2)
    return Person(name, g, (rng.randint(1, 28), rng.randint(1, 12), y), c, dc, y + rng.randint(30, 90),
                  rng.randrange(len(PROFESSIONS)), rng.randrange(len(NATIONALITIES)))


def _prof(p: Person, lang: str, idx: int | None = None) -> str:
    return PROFESSIONS[p.prof if idx is None else idx][_li(lang)][0 if p.g == "m" else 1]


def _nat(p: Person, lang: str, idx: int | None = None) -> str:
    n = NATIONALITIES[p.nat if idx is None else idx]
    if lang == "en":
        return n[0]
    if lang == "de":
        return n[3] + ("er" if p.g == "m" else "e")
    return n[_li(lang)][0 if p.g == "m" else 1]


def passage(p: Person, lang: str, rng: random.Random) -> str:
    d, m, y = p.born
    date = _date(lang, d, m, y, rng)
    city, dcity = CITIES[p.city][_li(lang)], CITIES[p.death_city][_li(lang)]
    prof, nat = _prof(p, lang), _nat(p, lang)
    v = rng.randrange(2)
    if lang == "en":
        return (f"{p.name} (born {date} in {city}; died {p.death_year} in {dcity}) was a {nat} {prof}." if v
                else f"{p.name} was a {nat} {prof}. {'He' if p.g == 'm' else 'She'} was born in {city} on "
                     f"{date} and died in {dcity} in {p.death_year}.")
    if lang == "es":
        art = "un" if p.g == "m" else "una"
        return (f"{p.name} ({city}, {date} - {dcity}, {p.death_year}) fue {art} {prof} {nat}." if v
                else f"{p.name} nació el {date} en {city} y murió en {dcity} en {p.death_year}. Fue {art} "
                     f"{prof} {nat}.")
    if lang == "fr":
        ne, art = ("né", "un") if p.g == "m" else ("née", "une")
        mort = "mort" if p.g == "m" else "morte"
        return (f"{p.name}, {ne} le {date} à {city} et {mort} en {p.death_year} à {dcity}, est {art} {prof} "
                f"{nat}." if v else f"{p.name} est {art} {prof} {nat}, {ne} à {city} le {date}.")
    art = "ein" if p.g == "m" else "eine"
    return (f"{p.name} (* {date} in {city}; † {p.death_year} in {dcity}) war {art} {nat} {prof}." if v
            else f"{p.name} war {art} {nat} {prof}. {'Er' if p.g == 'm' else 'Sie'} wurde am {date} in {city} "
                 f"geboren und starb {p.death_year} in {dcity}.")


def _claim(p: Person, lang: str, kind: str, value) -> str:
    n = p.name
    fem = p.g == "f"
    if kind == "place":
        city = CITIES[value][_li(lang)]
        return {"en": f"{n} was born in {city}.", "es": f"{n} nació en {city}.",
                "fr": f"{n} est {'née' if fem else 'né'} à {city}.", "de": f"{n} wurde in {city} geboren."}[lang]
    if kind == "neg_place":
        city = CITIES[value][_li(lang)]
        return {"en": f"{n} was not born in {city}.", "es": f"{n} no nació en {city}.",
                "fr": f"{n} n'est pas {'née' if fem else 'né'} à {city}.",
                "de": f"{n} wurde nicht in {city} geboren."}[lang]
    if kind == "year":
        return {"en": f"{n} was born in {value}.", "es": f"{n} nació en {value}.",
                "fr": f"{n} est {'née' if fem else 'né'} en {value}.", "de": f"{n} wurde {value} geboren."}[lang]
    if kind == "date":
        d, m, y = value
        date = _date(lang, d, m, y, random.Random(d * 100 + m))
        return {"en": f"{n} was born on {date}.", "es": f"{n} nació el {date}.",
                "fr": f"{n} est {'née' if fem else 'né'} le {date}.", "de": f"{n} wurde am {date} geboren."}[lang]
    if kind == "death_place":
        city = CITIES[value][_li(lang)]
        return {"en": f"{n} died in {city}.", "es": f"{n} murió en {city}.",
                "fr": f"{n} est {'morte' if fem else 'mort'} à {city}.", "de": f"{n} starb in {city}."}[lang]
    if kind == "profession":
        prof = _prof(p, lang, value)
        return {"en": f"{n} was a {prof}.", "es": f"{n} fue {prof}.", "fr": f"{n} était {prof}.",
                "de": f"{n} war {prof}."}[lang]
    if kind == "nationality":
        if lang == "de":
            return f"{n} war {'ein' if not fem else 'eine'} {_nat(p, lang, value)} {_prof(p, lang)}."
        nat = _nat(p, lang, value)
        return {"en": f"{n} was {nat}.", "es": f"{n} era {nat}.", "fr": f"{n} était {nat}."}[lang]
    raise ValueError(kind)


def template_pairs(n: int, seed: int = 0, langs=LANGS) -> list[Pair]:
    """n (claim, passage) pairs about invented people, half supported, passage and claim languages
    drawn independently."""
    rng = random.Random(seed)
    out: list[Pair] = []
    while len(out) < n:
        p = _person(rng)
        le, lc = rng.choice(langs), rng.choice(langs)
        ev = passage(p, le, rng)
        kind = rng.choice(["place", "year", "date", "death_place", "profession", "nationality", "place"])
        support = rng.random() < 0.5
        if kind == "place":
            if support:
                c, k = _claim(p, lc, "place", p.city), "support"
            elif rng.random() < 0.4:
                c, k = _claim(p, lc, "place", p.death_city), "death_place_as_birth"
            elif rng.random() < 0.3:
                c, k = _claim(p, lc, "neg_place", p.city), "negation"
            else:
                other = rng.choice([i for i in range(len(CITIES)) if i not in (p.city, p.death_city)])
                c, k = _claim(p, lc, "place", other), "place"
        elif kind == "year":
            y = p.born[2] if support else p.born[2] + rng.choice([-1, 1]) * rng.randint(1, 40)
            c, k = _claim(p, lc, "year", y), "support" if support else "year"
        elif kind == "date":
            d, m, y = p.born
            if not support:
                if rng.random() < 0.5:
                    d = (d % 28) + rng.randint(1, 20)
                    d = 1 + (d - 1) % 28
                else:
                    m = 1 + (m + rng.randint(0, 10)) % 12
                if (d, m) == p.born[:2]:
                    m = 1 + m % 12
            c, k = _claim(p, lc, "date", (d, m, y)), "support" if support else "date"
        elif kind == "death_place":
            city = p.death_city if support else rng.choice(
                [i for i in range(len(CITIES)) if i not in (p.death_city,)])
            c, k = _claim(p, lc, "death_place", city), "support" if support else "place"
        elif kind == "profession":
            idx = p.prof if support else rng.choice([i for i in range(len(PROFESSIONS)) if i != p.prof])
            c, k = _claim(p, lc, "profession", idx), "support" if support else "profession"
        else:
            idx = p.nat if support else rng.choice([i for i in range(len(NATIONALITIES)) if i != p.nat])
            c, k = _claim(p, lc, "nationality", idx), "support" if support else "nationality"
        out.append(Pair(c, ev, int(k == "support"), k, lc, le, p.name, "template"))
    return out


# --------------------------------------------------------------------------- bundled leads

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-2][0-9])\b")
_NUM = re.compile(r"\b\d{1,3}(?:[.,]\d+)?\b")
_CAP = re.compile(r"(?<=\s)([A-ZÀ-Ý][\wÀ-ÿ'-]{2,})")
_NEG = {"en": [(" was ", " was not "), (" is ", " is not "), (" has ", " has not ")],
        "es": [(" fue ", " no fue "), (" es ", " no es "), (" era ", " no era ")],
        "fr": [(" est ", " n'est pas "), (" était ", " n'était pas "), (" a été ", " n'a pas été ")]}


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý«\"(])", text.strip())
    return [p.strip() for p in parts if 25 <= len(p.strip()) <= 400]


def _clauses(sent: str) -> list[str]:
    """Clauses of a sentence cut at commas/semicolons that still read as statements (>= 4 words)."""
    out = []
    for c in re.split(r"[;,]\s+", sent.rstrip(".")):
        if len(c.split()) >= 4:
            out.append(c.strip() + ".")
    return out


def lead_pairs(leads: dict[str, dict[str, str]], n_per_lang: int, seed: int = 0,
               keep=lambda title: True) -> list[Pair]:
    """Pairs from bundled leads: `leads[lang][title] = text`; `keep(title)` selects the articles of
    this split (training or dev)."""
    rng = random.Random(seed)
    out: list[Pair] = []
    for lang, pages in leads.items():
        titles = sorted(t for t in pages if keep(t))
        rng.shuffle(titles)
        caps_pool = [m for t in titles[:400] for m in _CAP.findall(pages[t])]
        made = 0
        for ti, title in enumerate(titles):
            if made >= n_per_lang:
                break
            text = pages[title]
            sents = _sentences(text)
            if not sents:
                continue
            ev = text if len(text) <= 900 else text[:900].rsplit(" ", 1)[0]
            sent = rng.choice([s for s in sents if s in ev] or sents[:1])
            choice = rng.random()
            if choice < 0.4:
                cl = rng.choice(_clauses(sent) or [sent])
                out.append(Pair(cl, ev, 1, "support", lang, lang, title, "lead"))
                made += 1
                continue
            years = _YEAR.findall(sent)
            nums = [m for m in _NUM.findall(sent) if m not in years]
            caps = [m for m in _CAP.findall(sent) if m not in title]
            options = []
            if years:
                y = rng.choice(years)
                options.append(("year", sent.replace(y, str(int(y) + rng.choice([-1, 1]) * rng.randint(1, 30)), 1)))
            if nums:
                x = rng.choice(nums)
                digits = re.sub(r"\d", lambda m: str((int(m.group()) + rng.randint(1, 8)) % 10), x, count=1)
                if digits != x:
                    options.append(("number", sent.replace(x, digits, 1)))
            if caps and caps_pool:
                a = rng.choice(caps)
                b = rng.choice(caps_pool)
                if b != a and b not in text:
                    options.append(("entity", sent.replace(a, b, 1)))
            for old, new in _NEG.get(lang, []):
                if old in sent:
                    options.append(("negation", sent.replace(old, new, 1)))
                    break
            other = titles[(ti + 1 + rng.randrange(len(titles) - 1)) % len(titles)] if len(titles) > 1 else None
            if other and rng.random() < 0.2:
                osents = _sentences(pages[other])
                if osents:
                    options.append(("other_person", osents[0]))
            if not options:
                continue
            kind, claim = rng.choice(options)
            out.append(Pair(claim, ev, 0, kind, lang, lang, title, "lead"))
            made += 1
    return out
