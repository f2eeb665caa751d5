"""The text the FTS index holds for a memory.

Since migration `0004_memory_detail_stems` the index holds `search_document(text,
detail)`: every word of the memory's text and of its `detail` (the words of the
notifications it came from) as its English and German Snowball stems, folded to
plain letters (accents and umlauts removed, ß as ss), plus the glossary words of the
other language (`memory.lexicon`). Queries go through `query_terms`, which stems the
same way, so "researching" finds "research", "Termine" finds "Termin", and
"platform" finds "Gleis". The stems are computed here rather than by FTS5's `porter`
tokenizer because recall reads document counts from `memories_vocab` by term, and
German needs a stemmer of its own.

The earlier form, still used by migration 0003 before 0004 replaces it:

FTS5's `unicode61` tokenizer splits "Wi-Fi" into `wi` and `fi`, so a query for
`wifi` would never find it (nor `email` a memory saying "e-mail"). The index
therefore holds `search_text(text)`: the text itself and, on a line of its own,
every hyphenated word with its hyphens removed ("Wi-Fi" -> "WiFi"). Texts without
a hyphenated word are indexed unchanged. Query side, `memory.recall.query_terms`
adds the joined form of a hyphenated query word, so `wi-fi` also finds "WiFi".

Chinese, Japanese and Korean (since migration `0010_memory_fts_cjk_tokens`): these
scripts do not put spaces between words, so to `unicode61` a whole run of kanji, kana,
hanzi or hangul is one token, and no word inside it could be found ("歯医者" in
"明日10時に歯医者の予約があります", "치과" in "치과에"). The index and the query hold
every such run as its overlapping character bigrams instead ("歯医者" -> `歯医`, `医者`),
a run of a single character as that character (`words_of`): a word of two or more
characters inside a run is then found by the bigrams it is made of, whatever the
particles or words around it, with no dictionary. The runs are NFKC-normalized
(half-width katakana as full-width) and never stemmed or accent-folded (folding would
take the voicing marks off kana and split hangul into jamo).

The SQL triggers call this as `cm_search_text(text)` (registered on every store
connection by `register`), both to insert and to delete index entries, so it must
stay deterministic; changing what it returns needs a new migration that rebuilds
the index (as `0003_memory_search_text` does).
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from functools import lru_cache

import snowballstemmer

from companion_memory.memory.lexicon import GLOSS

SQL_NAME = "cm_search_text"

COMPOUND = re.compile(r"[^\W_]+(?:[-\u2010\u2011][^\W_]+)+")
"""Letters/digits joined by hyphens (ASCII hyphen-minus, U+2010 hyphen, U+2011
non-breaking hyphen), the same word characters the tokenizer keeps."""

_HYPHENS = re.compile(r"[-\u2010\u2011]")


def joined_forms(text: str) -> list[str]:
    """Each hyphenated word of `text` with its hyphens removed, in order, unique."""
    return list(dict.fromkeys(_HYPHENS.sub("", m) for m in COMPOUND.findall(text)))


def search_text(text: str) -> str:
    """What the FTS index holds for `text` (see the module docstring)."""
    if not isinstance(text, str):
        return text
    if "-" not in text and "\u2010" not in text and "\u2011" not in text:
        return text
    joined = joined_forms(text)
    return f"{text}\n{' '.join(joined)}" if joined else text


DOC_SQL_NAME = "cm_search_doc"
DETAIL_LIMIT_BYTES = 4096 * 2
"""At most this much detail (UTF-8) is indexed: a 4 KiB body plus title and subtitle."""

TOKEN = re.compile(r"[^\W_]+")
"""A word, as FTS5's unicode61 tokenizer splits them (letters and digits)."""

CJK_CHARS = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005-\u3007\u303b"  # 々 〆 〇 〻
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f\u3130-\u318f"  # Bopomofo, Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf\u4e00-\u9fff"  # CJK Unified Ideographs (and extension A)
    "\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"  # Hangul syllables and Jamo extensions
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0003134f"  # CJK Unified Ideographs extensions B-H, compatibility supplement
)
"""The characters of scripts written without spaces between words (Han, kana, hangul),
all of them letters to `unicode61` and to `TOKEN`."""

_CJK_RUN = re.compile(f"([{CJK_CHARS}]+)")


def is_cjk(term: str) -> bool:
    """Whether `term` is a CJK bigram or unigram of `words_of` (it starts with a CJK
    character; the other words hold none)."""
    return _CJK_RUN.match(term) is not None


def cjk_terms(run: str) -> list[str]:
    """The overlapping character bigrams of a CJK run ("歯医者" -> 歯医, 医者), NFKC-normalized;
    a single character is its own term."""
    run = unicodedata.normalize("NFKC", run)
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def words_of(folded: str) -> list[str]:
    """The words of casefolded text in order, as `TOKEN` finds them, except that each run
    of CJK characters becomes its bigrams (`cjk_terms`): "10時に歯医者" -> 10, 時に, に歯,
    歯医, 医者. Text without CJK characters gives exactly `TOKEN.findall(folded)`."""
    words = TOKEN.findall(folded)
    if _CJK_RUN.search(folded) is None:
        return words
    out: list[str] = []
    for word in words:
        if _CJK_RUN.search(word) is None:
            out.append(word)
            continue
        for i, part in enumerate(_CJK_RUN.split(word)):
            if i % 2:  # the split's odd parts are the captured CJK runs
                out += cjk_terms(part)
            elif part:
                out.append(part)
    return out


def joined_words(folded: str) -> list[str]:
    """The joined forms of the hyphenated words of casefolded text ("wi-fi" -> wifi), as
    words: a joined form's CJK part is left out (its bigrams are among `words_of` already)."""
    return [
        part for joined in joined_forms(folded) if TOKEN.fullmatch(joined)
        for part in words_of(joined) if not is_cjk(part)
    ]


_STEMMERS = (snowballstemmer.stemmer("english"), snowballstemmer.stemmer("german"))


def fold(word: str) -> str:
    """Lower case without accents or umlauts ("Tierärztin" -> "tierarztin", ß -> ss)."""
    text = word.casefold().replace("ß", "ss")
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


ENGLISH, GERMAN, BOTH = 1, 2, 3
"""Which stemmers a text's words go through (`language`)."""

_EN_MARKERS = frozenset(
    [
        "the", "and", "is", "are", "to", "of", "for", "with", "on", "at", "you", "your", "we",
        "it", "this", "that", "was", "be", "have", "has", "will", "my", "our", "from", "can",
        "are", "not",
    ]
)
_DE_MARKERS = frozenset(
    [
        "der", "die", "das", "und", "ist", "nicht", "ein", "eine", "einen", "mit", "fur", "auf",
        "im", "am", "zu", "den", "dem", "des", "ich", "sie", "wir", "ihr", "bitte", "heute",
        "morgen", "sind", "wird", "war", "hat", "haben", "bei", "von", "nach", "auch", "noch",
        "schon", "uhr",
    ]
)


def language(words: list[str]) -> int:
    """ENGLISH when the text's function words are more English than German, else BOTH.
    English text is stemmed only as English (a German stemmer would conflate English words
    and names); German and undecided text both ways, since questions about German
    notifications come in English."""
    english = sum(1 for w in words if w in _EN_MARKERS)
    german = sum(1 for w in words if fold(w) in _DE_MARKERS)
    return ENGLISH if english > german else BOTH


@lru_cache(maxsize=65536)
def word_forms(word: str, langs: int = BOTH) -> tuple[str, ...]:
    """The index and query forms of one casefolded word: its English and/or German stems;
    a CJK term of `words_of` stands for itself."""
    if is_cjk(word):
        return (word,)
    forms = [fold(stemmer.stemWord(word)) for flag, stemmer in zip((ENGLISH, GERMAN),
                                                                    _STEMMERS, strict=True)
             if langs & flag]
    return tuple(dict.fromkeys(f for f in forms if f))


def _reverse_gloss() -> dict[str, tuple[str, ...]]:
    reverse: dict[str, list[str]] = {}
    for german, english in GLOSS.items():
        for word in english:
            if len(word) > 2:
                reverse.setdefault(word, []).append(german)
    return {key: tuple(dict.fromkeys(value)) for key, value in reverse.items()}


_GLOSS_DE = GLOSS
_GLOSS_DE_STEMS = {
    stem: value for key, value in GLOSS.items() if len(stem := _STEMMERS[1].stemWord(key)) >= 4
}
_GLOSS_EN = _reverse_gloss()
_GLOSS_EN_STEMS = {
    stem: value for key, value in _GLOSS_EN.items() if len(stem := _STEMMERS[0].stemWord(key)) >= 4
}
_COMPOUND_PARTS = sorted((k for k in GLOSS if len(k) >= 4), key=len, reverse=True)
COMPOUND_MIN_CHARS = 8
INNER_PART_CHARS = 5
"""A glossary word inside a compound (not at its start or end) counts from this length:
"Grundsteuerbescheid" holds "steuer"."""


@lru_cache(maxsize=65536)
def gloss_words(word: str) -> tuple[str, ...]:
    """Words of the other language for one casefolded word (see `memory.lexicon`); a long
    German compound is split against the glossary (its first and last known part)."""
    found: list[str] = []
    german = _GLOSS_DE.get(word) or _GLOSS_DE_STEMS.get(_STEMMERS[1].stemWord(word)) or (
        _GLOSS_DE.get(_STEMMERS[0].stemWord(word))
    )
    if german:
        found += german
    english = _GLOSS_EN.get(word) or _GLOSS_EN_STEMS.get(_STEMMERS[0].stemWord(word))
    if english:
        found += english
    if not german and len(word) >= COMPOUND_MIN_CHARS:
        head = next((p for p in _COMPOUND_PARTS if word.startswith(p) and p != word), None)
        tail = next((p for p in _COMPOUND_PARTS if word.endswith(p) and p != word), None)
        inner = next(
            (p for p in _COMPOUND_PARTS if len(p) >= INNER_PART_CHARS and p in word[1:-1]
             and p not in (head or "") and p not in (tail or "")),
            None,
        )
        for part in (head, tail, inner):
            if part is not None:
                found += (part, *GLOSS[part])
    return tuple(dict.fromkeys(w for w in found if w != word))


@lru_cache(maxsize=65536)
def _indexed_forms(word: str, langs: int) -> str:
    if is_cjk(word):
        return word
    forms = list(word_forms(word, langs))
    for other in gloss_words(word):
        for token in TOKEN.findall(other):
            forms.extend(word_forms(token))
    return " ".join(dict.fromkeys(forms))


def document_terms(text: str) -> str:
    """The stems (and glossary stems) of every word of `text`, and the bigrams of its CJK
    runs (`words_of`), space separated."""
    folded = text.casefold()
    words = words_of(folded)
    langs = language(words)
    if "-" in folded or "\u2010" in folded or "\u2011" in folded:
        words += joined_words(folded)
    return " ".join(_indexed_forms(word, langs) for word in words)


def search_document(text: str, detail: str | None) -> str:
    """What the FTS index holds for a memory with `text` and search-only `detail`."""
    if not isinstance(text, str):
        return text
    body = document_terms(text)
    if detail:
        capped = detail.encode("utf-8")[:DETAIL_LIMIT_BYTES].decode("utf-8", errors="ignore")
        body = f"{body}\n{document_terms(capped)}"
    return body


def register(conn: sqlite3.Connection) -> None:
    """Make `cm_search_text` and `cm_search_doc` callable on `conn` (before migrations
    and writes)."""
    conn.create_function(SQL_NAME, 1, search_text, deterministic=True)
    conn.create_function(DOC_SQL_NAME, 2, search_document, deterministic=True)
