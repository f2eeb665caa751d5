"""Secret forms that a second blind corpus showed leaking (bench/data/secrets/blind2.jsonl,
docs/benchmarks.md "A second blind secret corpus"): identity numbers after the word that
names them, passwords named by everyday words in more languages, a recovery phrase with
no word for it, a card's security code, a key after the word "API key", a Polish account
number, a code announced by a colon after an amount, a code right before its word; and
the discount codes that must stay. Each positive leaked before this change; the
examples here are written for the test, not taken from the corpus."""

from __future__ import annotations

import pytest

from companion_memory.memory.secrets import REDACTED, redact, secret_spans

FOUND = [
    # an identity number after the word that names it
    ("Sigorta için TC kimlik no 12345678950 lazım", "12345678950", "secret_identity"),
    ("Wpisz mój PESEL 90010112345 do formularza", "90010112345", "secret_identity"),
    ("マイナンバー、2345 6789 0123 です", "2345 6789 0123", "secret_identity"),
    ("我的身分證字號是 A123456789，謝謝", "A123456789", "secret_identity"),
    ("мой СНИЛС 112-233-445 95, впиши", "112-233-445 95", "secret_identity"),
    ("CCCD của con là 079204001234 nhé", "079204001234", "secret_identity"),
    ("NIK aku 3201011505900001 ya", "3201011505900001", "secret_identity"),
    ("رقم هويتي 1098765432 للحجز", "1098765432", "secret_identity"),
    # a password named by an everyday word
    ("와이파이 비번 mango2024! 이야", "mango2024!", "secret_password"),
    ("Yeni parolaniz: Kx82mq!z lutfen degistirin", "Kx82mq!z", "secret_password"),
    ("pass wifi quán: hoaxuan88", "hoaxuan88", "secret_password"),
    ("รหัสไวไฟ maew1234 นะ", "maew1234", "secret_password"),
    # a card's security code, and a key after its word
    ("カード番号は別送、セキュリティコード 456 です", "456", "secret_card"),
    ("kartın güvenlik kodu 789", "789", "secret_card"),
    ("APIキー共有します → 9f8e7d6c5b4a39281706f5e4d3c2b1a0 / 秘密で",
     "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "secret_api_key"),
    # a Polish account number: an IBAN without "PL"
    ("Przelew na konto do wynajmu: 61 1090 1014 0000 0712 1981 2874.",
     "61 1090 1014 0000 0712 1981 2874", "secret_iban"),
    # a code announced by a colon after an amount and a payee
    ("Mã OTP cho giao dịch 2.000.000 VND tới NGUYEN B: 552 913. Hiệu lực 2 phút.",
     "552 913", "secret_code"),
    # a code right before its word, in a message that marks it one-time
    ("Ekrana 48 27 19 kodunu girin. Kod 3 dakika geçerlidir.", "48 27 19", "secret_code"),
]


@pytest.mark.parametrize(("text", "value", "reason"), FOUND)
def test_the_form_is_found_and_redacted(text: str, value: str, reason: str) -> None:
    found = [(text[start:end], why) for start, end, why in secret_spans(text)]
    assert (value, reason) in found or any(value in part for part, _ in found), found
    assert value not in redact(text)
    assert REDACTED in redact(text)


def test_a_recovery_phrase_alone_on_its_line_is_found_by_its_shape() -> None:
    phrase = "orbit velvet canyon thunder pilot mango ribbon glance harvest tissue ladder frozen"
    text = f"cüzdan yedek kelimeleri (kimseye gösterme)\n{phrase}"
    assert redact(text) == f"cüzdan yedek kelimeleri (kimseye gösterme)\n{REDACTED}"
    # a sentence of that many words has function words: it stays
    sentence = "we will meet at the station and then walk over to the old market"
    assert secret_spans(sentence) == []


NOT_SECRET = [
    # discount codes beside a percentage
    "Tylko do niedzieli -30% na wszystko z kodem JESIEN30!",
    "Pakai kode HEMAT15 buat diskon 15% sampai Minggu!",
    "Penerbangan XJ 612 09:15, kode booking KX7P2Q.",
    # an identity word without a number after it, or with a date
    "Kimlik numaranızla giriş yapabilirsiniz.",
    "PESEL i data urodzenia 12.03.1990",
    # a CPF that fails its check digits
    "CPF 111.111.111-11 inválido",
    # a 26-digit number that is no Polish account number
    "Numer referencyjny 61 1090 1014 0000 0712 1981 2875",
    # a code word after a number in a message that marks nothing one-time
    "Masa 4821 kodu ile rezerve edildi",
]


@pytest.mark.parametrize("text", NOT_SECRET)
def test_ordinary_text_keeps_its_numbers(text: str) -> None:
    assert secret_spans(text) == [], [text[a:b] for a, b, _ in secret_spans(text)]


def test_a_code_of_letters_and_digits_without_a_percentage_is_still_a_secret() -> None:
    assert "AB12CD" not in redact("Twój kod: AB12CD")
