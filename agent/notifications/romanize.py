"""Latin-letter forms of the names a phone shows in other scripts.

The phone shows a contact or a chat as it was saved: "王磊", "Олена", "아빠", "たかはし".
Its owner often asks about that person in Latin letters ("What does Wang Lei need?"),
and no word of the question then matches the name. `name_forms` gives each name word
written in another script its transliteration (`anyascii`, one table for every script),
which recall searches with the notification's own words (`processor.source_words`).

Chinese characters are read as pinyin syllables, and a Chinese name is written in Latin
letters as its surname and its given name ("张晓明" -> "Zhang Xiaoming"), so a word of
Han characters gives its first syllable, the rest joined, and the whole joined. A Korean
name is written joined ("지훈" -> "Jihun"), so a word of hangul gives the whole and the
part after the first syllable. Other scripts give the word transliterated. Japanese
kanji get Chinese readings, which do not match a Japanese name as written in Latin
letters ("高橋" is "Takahashi", not "Gao Qiao"): only kana are read as Japanese.

Names only: transliterating the text of a message would turn every Chinese sentence
into single syllables ("lou", "ban", "he") that match English words by accident.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from anyascii import anyascii

_SYLLABLE = re.compile(r"[A-Z][a-z]*|[a-z]+")
"""anyascii writes each Chinese character or hangul syllable capitalized ("WangLei",
"JiHun"); kana and alphabets come out lower case."""

MAX_NAME_WORDS = 6
"""A title longer than this is not a name (a group chat's topic, a subject line)."""


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    if name.startswith("CJK UNIFIED") or name.startswith("CJK COMPATIBILITY IDEOGRAPH"):
        return "han"
    if name.startswith("HANGUL"):
        return "hangul"
    if name.startswith("LATIN"):
        return "latin"
    return "other"


@lru_cache(maxsize=1024)
def _word_forms(word: str) -> tuple[str, ...]:
    letters = [ch for ch in word if ch.isalpha()]
    if not letters:
        return ()
    scripts = {_script(ch) for ch in letters}
    if scripts == {"latin"}:
        return ()  # accents are folded by the index itself
    latin = anyascii(word)
    if scripts == {"han"} or scripts == {"hangul"}:
        syllables = [s.casefold() for s in _SYLLABLE.findall(latin)]
        if not syllables:
            return ()
        whole = "".join(syllables)
        forms = [whole]
        if scripts == {"han"} and len(syllables) >= 2:
            forms = [syllables[0], "".join(syllables[1:]), whole]
        elif len(syllables) >= 3:  # a hangul surname and given name
            forms = [whole, "".join(syllables[1:])]
        return tuple(dict.fromkeys(f for f in forms if f))
    folded = "".join(ch for ch in latin.casefold() if ch.isalnum())
    return (folded,) if folded else ()


def name_forms(name: str) -> list[str]:
    """The Latin-letter forms of the words of `name` written in another script, in
    order, each once; [] for a name in Latin letters, or a title too long to be a name."""
    words = name.split()
    if not words or len(words) > MAX_NAME_WORDS:
        return []
    forms: list[str] = []
    for word in words:
        forms.extend(_word_forms(word))
    return list(dict.fromkeys(forms))
