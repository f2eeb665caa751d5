"""The word tables of the structural code finder (`memory.auth_words`) and how their
notation is read (`memory.secret_codes.WordTable`): every language has every kind of
word, no word is both a secret's name and an ordinary one, every entry is found where
it stands, and the code words of every language drive the detector (no pattern lists
them)."""

from __future__ import annotations

import pytest

from companion_memory.memory import auth_words as W
from companion_memory.memory.secret_codes import (
    AUTH_WORD,
    CODE_WORD,
    NOT_SECRET,
    WARNING,
    WordTable,
    code_only,
)
from companion_memory.memory.secrets import REDACTED, redact, secret_spans

TABLES = {"CODE_WORDS": W.CODE_WORDS, "AUTH_WORDS": W.AUTH_WORDS, "WARNINGS": W.WARNINGS,
          "NOT_SECRET": W.NOT_SECRET}
MATCHERS = {"CODE_WORDS": CODE_WORD, "AUTH_WORDS": AUTH_WORD, "WARNINGS": WARNING,
            "NOT_SECRET": NOT_SECRET}


def entries(table: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    return [(lang, entry) for lang, words in table.items() for entry in words]


def plain(entry: str) -> str:
    return " ".join(part.strip("*") for part in entry.split())


def test_every_language_has_every_kind_of_word() -> None:
    languages = set(W.CODE_WORDS)
    assert len(languages) >= 25
    for name, table in TABLES.items():
        assert set(table) == languages, name
        assert all(table[lang] for lang in languages), name


@pytest.mark.parametrize("name", [*TABLES, "DURATION_UNITS", "CURRENCIES"])
def test_entries_are_written_in_the_notation(name: str) -> None:
    table = getattr(W, name)
    flat = [e for _, e in entries(table)] if isinstance(table, dict) else list(table)
    for entry in flat:
        assert entry == entry.strip() and "  " not in entry, entry
        assert entry == entry.lower(), entry
        for part in entry.split():
            word = part.strip("*")
            assert word and "*" not in word, entry  # a star only at a word's ends
    if isinstance(table, dict):
        for lang, words in table.items():
            assert len(set(words)) == len(words), (name, lang)


def test_no_word_is_both_a_secret_name_and_an_ordinary_one() -> None:
    ordinary = {plain(e) for _, e in entries(W.NOT_SECRET)}
    for name in ("CODE_WORDS", "AUTH_WORDS"):
        named = {plain(e) for _, e in entries(TABLES[name])}
        assert not named & ordinary, (name, named & ordinary)


@pytest.mark.parametrize("name", list(TABLES))
def test_every_entry_is_found_where_it_stands(name: str) -> None:
    for lang, entry in entries(TABLES[name]):
        word = plain(entry)
        text = f"xx {word} yy"
        hit = MATCHERS[name].search(text)
        assert hit is not None and text[hit.start:hit.end] == word, (lang, entry)


def test_the_notation() -> None:
    table = WordTable(["pin", "kod*", "*code", "sign in", "验证码"])

    def found(text: str) -> list[str]:
        return [text[h.start:h.end] for h in table.hits(text)]

    assert found("PIN 1") == ["PIN"] and found("ping pink") == []
    assert found("kodunuz") == ["kodunuz"] and found("kodunuzdakiler") == []
    assert found("Abholcode") == ["Abholcode"] and found("encode") == []
    assert found("VerifyCode") == ["VerifyCode"]
    assert found("sign-in, Sign In, signin") == ["sign-in", "Sign In", "signin"]
    assert found("您的验证码是") == ["验证码"]
    assert found("CodeVerify") == ["Code"]  # (a camel-case part on its own)
    assert found("Barcode") == ["Barcode"]  # (found here; `NOT_SECRET` rules it out)
    camel = WordTable(["codice*"])
    assert [(h.start, h.end) for h in camel.hits("CodiceVerifica")] == [(0, 6)]


@pytest.mark.parametrize(("lang", "entry"), entries(W.CODE_WORDS))
def test_every_code_word_names_a_code_joined_to_it(lang: str, entry: str) -> None:
    for text in (f"{plain(entry)}:731962", f"{plain(entry)} 731962", f"731962 {plain(entry)}"):
        out = redact(text)
        assert "731962" not in out and REDACTED in out, (lang, text)


@pytest.mark.parametrize(("lang", "entry"), [
    (lang, e) for lang, e in entries(W.NOT_SECRET)
    if " " not in e and plain(e).isascii() and len(plain(e)) > 2
])
def test_an_ordinary_word_before_code_keeps_the_number(lang: str, entry: str) -> None:
    text = f"{plain(entry)} code 731962"
    assert secret_spans(text) == [], (lang, text)


@pytest.mark.parametrize(("lang", "entry"), entries(W.AUTH_WORDS) + entries(W.WARNINGS))
def test_an_authentication_word_makes_a_bare_code_message_code_only(lang: str,
                                                                    entry: str) -> None:
    body = f"{plain(entry)}: code 731962"
    assert code_only(body, "Acme", secret_spans(body)), (lang, body)
    booking = f"{plain(entry)}: code 731962, room 212 on 14.05."
    assert not code_only(booking, "Acme", secret_spans(booking)), (lang, booking)
