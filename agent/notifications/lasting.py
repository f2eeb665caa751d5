"""Lasting facts a person states about themselves in a message, found without a model.

"I'm allergic to hazelnuts", "ich bin seit Januar vegan", "unsere neue Adresse ist
Kopenhagener Str. 41", "je suis allergique aux arachides": such a sentence is worth more
than the message around it, and it does not stop being true next week. `lasting_fact`
turns the first one it finds into a third-person English statement about the sender
("Giulia is allergic to hazelnuts") that the deterministic fallback stores as a
Long-Term fact. The patterns are first-person statements of diet, allergy and a new
address in English, German, French, Italian, Spanish and Dutch, plus a third person
named in English ("Sam is allergic to kiwi"); anything else is left to the event
statement. What the person wrote stays searchable beside the statement.
"""

from __future__ import annotations

import re

FACT_CHARS = 60
"""The longest object kept (an address, what someone is allergic to)."""

# The object of a statement ends at the end of its clause.
_OBJECT = r"([^,.;:!?()\n–—-]{2,80})"
_DIETS = {
    "vegan": "vegan", "veganer": "vegan", "veganerin": "vegan", "veganist": "vegan",
    "végan": "vegan", "végane": "vegan", "vegana": "vegan", "vegano": "vegan",
    "vegetarian": "vegetarian", "vegetarier": "vegetarian", "vegetarierin": "vegetarian",
    "vegetariër": "vegetarian", "végétarien": "vegetarian", "végétarienne": "vegetarian",
    "vegetariana": "vegetarian", "vegetariano": "vegetarian",
    "pescatarian": "pescatarian", "pescetarier": "pescatarian", "pescetarierin": "pescatarian",
    "lactose intolerant": "lactose intolerant", "lactose-intolerant": "lactose intolerant",
    "laktoseintolerant": "lactose intolerant", "gluten-free": "gluten-free",
    "coeliac": "coeliac", "celiac": "coeliac", "zöliakie": "coeliac",
}
_DIET_WORDS = "|".join(sorted((re.escape(w) for w in _DIETS), key=len, reverse=True))
# "I'm", "I am", "I've gone", "ich bin (jetzt|seit Januar)", "je suis", "sono", "soy", "ik ben"
_I_AM = (r"(?:i'?m|i am|i've (?:gone|become|been)|i have (?:gone|become)|ich bin|je suis|"
         r"sono|soy|ik ben)")
_FILLER = r"(?:\s+(?:now|fully|strictly|completely|jetzt|seit \w+|mittlerweile|inzwischen|"
_FILLER += r"maintenant|ormai|ahora|nu|since \w+|totally|actually))*"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b{_I_AM}{_FILLER}\s+({_DIET_WORDS})(?![\w-])", re.I), "diet"),
    (re.compile(rf"\b(?:i'?m|i am)\s+allergic to\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\bich bin\s+(?:\w+\s+)?allergisch gegen\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\bich habe (?:eine\s+)?{_OBJECT}allergie\b", re.I), "allergy_noun"),
    (re.compile(rf"\bje suis allergique (?:(?:à la|aux|au|à)\s+|à l')\s*{_OBJECT}", re.I),
     "allergy"),
    (re.compile(rf"\bsono allergic[oa] (?:(?:alle|agli|alla|ai|al|a)\s+|all')\s*{_OBJECT}",
                re.I),
     "allergy"),
    (re.compile(rf"\bsoy alérgic[oa] (?:a las|a los|a la|al|a)\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\bik ben allergisch voor\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\b(?:my|our) new address is\s+{_OBJECT}", re.I), "address"),
    (re.compile(r"\b(?:meine|unsere) neue adresse (?:ist|lautet)(?:\s+ab sofort)?:?\s+"
                r"([^;!?()\n–—]{4,80})", re.I), "address"),
    (re.compile(r"\b(?:ma|notre) nouvelle adresse (?:est|:)\s*([^;!?()\n–—]{4,80})", re.I),
     "address"),
]
# A third person named in an English sentence: "Sam is allergic to kiwi".
_NAMED_ALLERGY = re.compile(rf"\b([A-Z][a-z]{{1,20}}) is allergic to\s+{_OBJECT}")
_NOT_A_NAME = frozenset({"He", "She", "It", "This", "That", "Everyone", "Nobody", "Who"})
_SENTENCE_END = re.compile(r"(?<!\b[A-Z][a-z])(?<!\b[A-Z][a-z]{2})(?<!\b[A-Z])\.(?=\s|$)")


def _clean(text: str) -> str:
    """The object cut at its sentence's end, trimmed, at most FACT_CHARS (at a word)."""
    text = _SENTENCE_END.split(text, maxsplit=1)[0]
    text = re.sub(r"\s+(?:also|so|aber|mais|quindi|dus|and|und|et|e)$", "", text.strip(),
                  flags=re.I)
    words = text.split()
    out = ""
    for word in words:
        if len(f"{out} {word}".strip()) > FACT_CHARS:
            break
        out = f"{out} {word}".strip()
    return out.strip(" ,")


def lasting_fact(sender: str, body: str) -> str | None:
    """The first lasting fact `sender` states in `body`, as an English statement, or None."""
    named = _NAMED_ALLERGY.search(body)
    if named and named.group(1) not in _NOT_A_NAME:
        thing = _clean(named.group(2))
        if thing:
            return f"{named.group(1)} is allergic to {thing}"
    if not sender:
        return None
    for pattern, kind in _PATTERNS:
        match = pattern.search(body)
        if match is None:
            continue
        thing = _clean(match.group(1))
        if not thing:
            continue
        if kind == "diet":
            return f"{sender} is {_DIETS.get(thing.casefold(), thing.casefold())}"
        if kind in ("allergy", "allergy_noun"):
            return f"{sender} is allergic to {thing}"
        return f"{sender}'s new address is {thing}"
    return None
