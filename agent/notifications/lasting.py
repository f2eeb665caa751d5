"""Lasting facts a person states about themselves in a message, found without a model.

"I'm allergic to hazelnuts", "ich bin seit Januar vegan", "unsere neue Adresse ist
Kopenhagener Str. 41", "je suis allergique aux arachides": such a sentence is worth more
than the message around it, and it does not stop being true next week. `lasting_fact`
turns the first one it finds into a third-person English statement about the sender
("Giulia is allergic to hazelnuts") that the deterministic fallback stores as a
Long-Term fact. The patterns are first-person statements of diet, allergy and a new
address in English, German, French, Italian, Spanish and Dutch, of an allergy and a
diet in Polish, Portuguese, Turkish, Russian, Ukrainian, Japanese, Chinese, Korean and
Arabic ("Jestem uczulona na orzechy", "我对花生过敏", "そばアレルギーなんだ"), plus a third
person named in English ("Theo is allergic to kiwi"); an "allergy" to a day ("allergic to
Mondays") is a joke, not a fact. Anything else is left to the event statement. What the
person wrote stays searchable beside the statement. Measured on `bench/data/lasting/`
(`bench/lasting_facts.py`): the rules find 18 of the 210 lasting facts of its held-out
part B, none wrongly; diets and allergies are 60 of them.
"""

from __future__ import annotations

import re

from companion_memory.agent.notifications.dates import has_day_word

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
    "weganką": "vegan", "weganinem": "vegan", "wegetarianką": "vegetarian",
    "wegetarianinem": "vegetarian", "веган": "vegan", "веганка": "vegan",
    "вегетарианец": "vegetarian", "вегетарианка": "vegetarian", "вегетаріанець": "vegetarian",
    "вегетаріанка": "vegetarian", "vejetaryen": "vegetarian",
}
_DIET_WORDS = "|".join(sorted((re.escape(w) for w in _DIETS), key=len, reverse=True))
# "I'm", "I am", "I've gone", "ich bin (jetzt|seit Januar)", "je suis", "sono", "soy", "ik ben"
_I_AM = (r"(?:i'?m|i am|i've (?:gone|become|been)|i have (?:gone|become)|ich bin|je suis|"
         r"sono|soy|ik ben|sou|virei|jestem|я|я вже|я уже)")
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
    (re.compile(rf"\bjestem\s+uczulon[ya]\s+na\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\bmam\s+alergi[ęe]\s+na\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\bsou\s+al[ée]rgic[oa]\s+(?:aos|às|ao|à|a)\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"\btenho\s+alergia\s+(?:aos|às|ao|à|a|de)\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(r"(?<![^\W\d_])([^\W\d_]{2,20})\s+alerjim\s+var", re.I), "allergy"),
    (re.compile(rf"(?<![^\W\d_])у\s+меня\s+аллергия\s+на\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(rf"(?<![^\W\d_])у\s+мене\s+алергія\s+на\s+{_OBJECT}", re.I), "allergy"),
    (re.compile(r"عندي\s+حساسية\s+(?:من|ضد|على)\s+([^,.;:!?()\n،؛]{2,40})"), "allergy"),
    (re.compile(r"我[对對]([^，。！？,.!?\s]{1,10}?)[过過]敏"), "allergy"),
    (re.compile(r"([^はがもをにでと、。！？\s]{1,8})アレルギー(?:が|なん|持ち|で|です|だ)"),
     "allergy"),
    (re.compile(r"(?<!\S)([^\s,.!?]{1,10})\s?알레르기(?:가)?\s?있"), "allergy"),
    (re.compile(r"\b(vegan|vejetaryen)(?:ım|im|\s+oldum)(?![^\W\d_])", re.I), "diet"),
    (re.compile(r"(?:私|僕|俺|わたし)[^。！？]{0,12}?(ベジタリアン|ヴィーガン|ビーガン)"),
     "diet_word"),
    (re.compile(r"我(?:现在|現在|已经|已經)?(?:吃素|是素食者|是素食主义者|是素食主義者)"),
     "vegetarian"),
    (re.compile(r"(?:^|\s)나\s+(?:채식|비건)"), "vegetarian"),
    (re.compile(r"أنا\s+(?:صرت\s+)?(?:نباتي|نباتية)"), "vegetarian"),
    (re.compile(rf"\b(?:my|our) new address is\s+{_OBJECT}", re.I), "address"),
    (re.compile(r"\b(?:meine|unsere) neue adresse (?:ist|lautet)(?:\s+ab sofort)?:?\s+"
                r"([^;!?()\n–—]{4,80})", re.I), "address"),
    (re.compile(r"\b(?:ma|notre) nouvelle adresse (?:est|:)\s*([^;!?()\n–—]{4,80})", re.I),
     "address"),
]
# A third person named in an English sentence: "Theo is allergic to kiwi".
_NAMED_ALLERGY = re.compile(rf"\b([A-Z][a-z]{{1,20}}) is allergic to\s+{_OBJECT}")
_NOT_A_NAME = frozenset({"He", "She", "It", "This", "That", "Everyone", "Nobody", "Who"})
_SENTENCE_END = re.compile(r"(?<!\b[A-Z][a-z])(?<!\b[A-Z][a-z]{2})(?<!\b[A-Z])\.(?=\s|$)")


def _sentence_of(text: str) -> str:
    """`text` up to its first full stop that ends a sentence: not one after a capital's
    abbreviation ("Dr.", "St.") or after a short lower-case word ("ul.", "int.", "вул.",
    "кв.": an address's abbreviations)."""
    for match in _SENTENCE_END.finditer(text):
        word = re.search(r"(\w+)$", text[:match.start()])
        if word is not None and len(word.group(1)) <= 3 and word.group(1).islower():
            continue
        return text[:match.start()]
    return text


def _clean(text: str) -> str:
    """The object cut at its sentence's end, trimmed, at most FACT_CHARS (at a word)."""
    text = _sentence_of(text)
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
        if kind == "vegetarian":  # (a phrase that says it whole: 我吃素, 나 채식)
            return f"{sender} is vegetarian"
        thing = _clean(match.group(1))
        if not thing or (kind == "allergy" and has_day_word(thing)):
            continue  # ("allergic to Mondays": a joke about a day, not an allergy)
        if kind == "diet":
            return f"{sender} is {_DIETS.get(thing.casefold(), thing.casefold())}"
        if kind == "diet_word":  # ベジタリアン, ヴィーガン, ビーガン
            return f"{sender} is {'vegetarian' if thing.startswith('ベジ') else 'vegan'}"
        if kind in ("allergy", "allergy_noun"):
            return f"{sender} is allergic to {thing}"
        return f"{sender}'s new address is {thing}"
    return None
