"""A generator of realistic short memory statements and a labeled query set.

Each statement comes from a template with structured fields; a query names the
fields of one target statement in different words (with stopwords and filler),
and its expected ids are every statement of the same template with the same key
fields, so labels stay correct however large the corpus.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

FIRST = [
    "Anna",
    "Ben",
    "Carla",
    "David",
    "Elena",
    "Felix",
    "Greta",
    "Hugo",
    "Ines",
    "Jonas",
    "Karin",
    "Leo",
    "Maria",
    "Nils",
    "Olga",
    "Paul",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
    "Ulrich",
    "Vera",
    "Walter",
    "Xenia",
    "Yusuf",
    "Zoe",
    "Amir",
    "Bianca",
    "Chen",
    "Dmitri",
    "Emma",
    "Farid",
    "Gina",
    "Hannah",
    "Ivan",
    "Julia",
    "Kofi",
    "Lena",
    "Marco",
    "Nadia",
    "Oscar",
    "Priya",
    "Rafael",
    "Sara",
    "Tomas",
    "Uma",
    "Viktor",
    "Wanda",
    "Yara",
    "Zaid",
    "Alice",
    "Bruno",
    "Clara",
    "Dario",
    "Eva",
    "Fabio",
    "Hana",
    "Igor",
    "Jana",
    "Kai",
    "Lucia",
    "Mateo",
    "Noor",
    "Omar",
    "Petra",
    "Ruth",
    "Simon",
    "Theo",
    "Ursula",
    "Vince",
    "Wiebke",
    "Yvonne",
    "Zeno",
]
LAST = [
    "Lee",
    "Novak",
    "Schmidt",
    "Garcia",
    "Rossi",
    "Kowalski",
    "Jensen",
    "Dubois",
    "Silva",
    "Tanaka",
    "Okafor",
    "Nguyen",
    "Kim",
    "Haddad",
    "Petrov",
    "Larsen",
    "Moreau",
    "Bauer",
    "Costa",
    "Fischer",
    "Hansen",
    "Ivanova",
    "Janssen",
    "Keller",
    "Lopez",
    "Meyer",
    "Nielsen",
    "Olsen",
    "Park",
    "Quist",
    "Richter",
    "Sato",
    "Torres",
    "Umarov",
    "Vogel",
    "Weber",
    "Young",
    "Zimmer",
    "Berg",
    "Cruz",
]
SPECIALISTS = [
    "dentist",
    "dermatologist",
    "physiotherapist",
    "optician",
    "cardiologist",
    "pediatrician",
    "orthodontist",
    "allergist",
    "podiatrist",
    "therapist",
    "hairdresser",
    "vet",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TIMES = ["8am", "9:30am", "10am", "11:15am", "noon", "1pm", "2:30pm", "3pm", "4:45pm", "6pm"]
SHOPS = [
    "Zalando",
    "Amazon",
    "IKEA",
    "Decathlon",
    "Zara",
    "Otto",
    "MediaMarkt",
    "Apple",
    "Lidl",
    "Etsy",
    "Uniqlo",
    "Thomann",
    "Bookshop",
    "Fairphone",
    "Patagonia",
    "Muji",
    "Lego",
    "Nespresso",
    "Dyson",
    "Garmin",
]
CARRIERS = ["DHL", "UPS", "FedEx", "Hermes", "DPD", "GLS", "PostNL"]
ITEMS = [
    "shoes",
    "sofa",
    "headphones",
    "jacket",
    "lamp",
    "books",
    "guitar",
    "strings",
    "phone",
    "case",
    "blender",
    "backpack",
    "tent",
    "kettle",
    "monitor",
    "keyboard",
    "rug",
    "plant",
    "pot",
    "coffee",
    "beans",
    "vacuum",
    "filter",
    "watch",
    "strap",
]
FOODS = [
    "oat",
    "milk",
    "sushi",
    "ramen",
    "tacos",
    "falafel",
    "espresso",
    "matcha",
    "pho",
    "dumplings",
    "paella",
    "croissants",
    "kimchi",
    "tiramisu",
    "hummus",
    "pierogi",
    "curry",
    "bagels",
    "gelato",
]
CITIES = [
    "Berlin",
    "Hamburg",
    "Munich",
    "Vienna",
    "Zurich",
    "Lisbon",
    "Porto",
    "Madrid",
    "Lyon",
    "Prague",
    "Krakow",
    "Oslo",
    "Copenhagen",
    "Utrecht",
    "Ghent",
    "Turin",
    "Bologna",
    "Seville",
    "Tallinn",
    "Riga",
]
STREETS = [
    "Maple",
    "Linden",
    "Harbor",
    "Station",
    "Mill",
    "Church",
    "Garden",
    "Bridge",
    "Castle",
    "River",
    "Oak",
    "Market",
]
TOPICS = [
    "budget",
    "roadmap",
    "hiring",
    "offsite",
    "migration",
    "launch",
    "contract",
    "invoice",
    "onboarding",
    "security",
    "audit",
    "pricing",
    "design",
    "review",
    "quarterly",
    "planning",
    "retro",
    "partnership",
]
BILLS = [
    "electricity",
    "water",
    "internet",
    "phone",
    "insurance",
    "rent",
    "gym",
    "parking",
    "tax",
    "council",
]
RELATIONS = [
    "sister",
    "brother",
    "mother",
    "father",
    "cousin",
    "neighbour",
    "colleague",
    "friend",
    "aunt",
    "uncle",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


@dataclass(frozen=True, slots=True)
class Memory:
    memory_id: str
    text: str
    template: str
    key: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    template: str
    key: tuple[str, ...]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _memory(rng: random.Random, n: int) -> tuple[str, str, tuple[str, ...]]:
    kind = rng.randrange(8)
    if kind == 0:
        spec, doc, day, time = (
            rng.choice(SPECIALISTS),
            rng.choice(LAST),
            rng.choice(DAYS),
            rng.choice(TIMES),
        )
        return (
            "appointment",
            f"{spec.capitalize()} appointment with Dr {doc} on {day} at {time}",
            (spec, doc),
        )
    if kind == 1:
        carrier, shop, item, day = (
            rng.choice(CARRIERS),
            rng.choice(SHOPS),
            rng.choice(ITEMS),
            rng.choice(DAYS),
        )
        return (
            "delivery",
            f"{carrier} parcel from {shop} with the {item} arrives on {day}",
            (shop, item),
        )
    if kind == 2:
        person, month, date = _person(rng), rng.choice(MONTHS), rng.randint(1, 28)
        return "birthday", f"{person}'s birthday is on {month} {date}", (person,)
    if kind == 3:
        person, food = _person(rng), rng.choice(FOODS)
        return "preference", f"{person} loves {food} and dislikes loud restaurants", (person, food)
    if kind == 4:
        person, street, city = _person(rng), rng.choice(STREETS), rng.choice(CITIES)
        return (
            "address",
            f"{person} moved to {street} Street {rng.randint(1, 99)} in {city}",
            (person, city),
        )
    if kind == 5:
        person, topic, day = _person(rng), rng.choice(TOPICS), rng.choice(DAYS)
        return (
            "meeting",
            f"Meeting with {person} about the {topic} on {day} in room {n % 40}",
            (person, topic),
        )
    if kind == 6:
        bill, date = rng.choice(BILLS), rng.randint(1, 28)
        amount = rng.randint(20, 400)
        return (
            "bill",
            f"The {bill} bill of {amount} euros is due on the {date}th",
            (bill, str(amount)),
        )
    person, relation = _person(rng), rng.choice(RELATIONS)
    return (
        "relation",
        f"{person} is the owner's {relation} and lives in {rng.choice(CITIES)}",
        (person, relation),
    )


def _query(template: str, key: tuple[str, ...], rng: random.Random) -> str:
    if template == "appointment":
        spec, doc = key
        return rng.choice(
            [f"when do I see Dr {doc} at the {spec}?", f"what time is my {spec} visit with {doc}"]
        )
    if template == "delivery":
        shop, item = key
        return rng.choice(
            [
                f"when will the {item} from {shop} be delivered",
                f"where is my {shop} order with the {item}?",
            ]
        )
    if template == "birthday":
        return rng.choice([f"when is {key[0]}'s birthday?", f"birthday of {key[0]}"])
    if template == "preference":
        return f"does {key[0]} like {key[1]}?"
    if template == "address":
        return rng.choice([f"where does {key[0]} live in {key[1]}", f"{key[0]} address {key[1]}"])
    if template == "meeting":
        return f"what was the {key[1]} meeting with {key[0]} about"
    if template == "bill":
        return f"when is the {key[0]} bill of {key[1]} euros due?"
    return f"who is {key[0]}, my {key[1]}?"


def generate(count: int, seed: int = 7) -> list[Memory]:
    rng = random.Random(seed)
    out: list[Memory] = []
    for n in range(count):
        template, text, key = _memory(rng, n)
        out.append(Memory(f"m{n:06d}", text, template, key))
    return out


def queries(corpus: list[Memory], count: int, seed: int = 11) -> list[tuple[Query, set[str]]]:
    """`count` queries about random corpus members, each with its expected ids."""
    rng = random.Random(seed)
    index: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for m in corpus:
        index.setdefault((m.template, m.key), set()).add(m.memory_id)
    out: list[tuple[Query, set[str]]] = []
    for target in rng.sample(corpus, min(count, len(corpus))):
        text = _query(target.template, target.key, rng)
        out.append((Query(text, target.template, target.key), index[(target.template, target.key)]))
    return out


def _hard_query(m: Memory, rng: random.Random) -> tuple[str, str] | None:
    """A harder query: a partial name or one specific word next to a very common one.

    Returns (query, label field) or None for templates without such a form; the
    label field is matched against every statement of the same template.
    """
    if m.template in ("birthday", "preference", "address", "relation", "meeting"):
        first = m.key[0].split()[0]
        common = {"birthday": "birthday", "preference": "loves", "address": "moved",
                  "relation": "owner", "meeting": "meeting"}[m.template]
        return rng.choice([f"{first} {common}", f"{common} {first}"]), first
    if m.template == "appointment":
        return f"Dr {m.key[1]} appointment", m.key[1]
    return None


def hard_queries(
    corpus: list[Memory], count: int, seed: int = 13
) -> list[tuple[Query, set[str]]]:
    """Two-word queries (a first name or surname plus a word in ~1/8 of all statements).

    Expected: every statement of the target's template that holds that name, so
    many rows tie on the rare word and the common word must rank them.
    """
    rng = random.Random(seed)
    out: list[tuple[Query, set[str]]] = []
    for target in rng.sample(corpus, min(count * 3, len(corpus))):
        made = _hard_query(target, rng)
        if made is None:
            continue
        text, name = made
        expected = {
            m.memory_id for m in corpus
            if (m.template == target.template and name in m.text.split(" "))
            or (m.template == target.template and f"{name}'s" in m.text.split(" "))
        }
        out.append((Query(text, target.template, target.key), expected))
        if len(out) == count:
            break
    return out
