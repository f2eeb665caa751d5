"""Codes found by structure (issue 25): a code joined to its word, a code before its
word, a code in any script, split and alphanumeric codes, a message that is nothing but
a code; and the ordinary numbers that must survive (dates, times, prices, order, phone,
flight and street numbers, postcodes). Each form in `NEW_FORMS` leaked before the
structural finder (`memory.secret_codes`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_memory.memory import auth_words
from companion_memory.memory.secrets import (
    REDACTED,
    find_secret,
    normalize_digits,
    redact,
    secret_spans,
)

NEW_FORMS = [
    # joined to its word: camel case, a colon or full-width colon, no space
    ("VerifyCode:736136", "736136"),
    ("AuthCode:90 41 77", "90 41 77"),
    ("code:4821", "4821"),
    ("PIN:7304", "7304"),
    ("OTP:558120", "558120"),
    ("CodiceVerifica:218840", "218840"),
    ("BestätigungsCode:884213", "884213"),
    ("Kod:5521 do logowania", "5521"),
    ("Код:552190", "552190"),
    ("Κωδικός:661204", "661204"),
    ("Verifieringskod:583921", "583921"),
    ("Doğrulama kodu:338120", "338120"),
    ("รหัส:7719", "7719"),
    ("رمز التحقق:4821", "4821"),
    ("लॉगिन कोड:4821", "4821"),
    ("Mã OTP:4821", "4821"),
    ("Kode verifikasi:6021", "6021"),
    # before its word, in every script
    ("445210 Getir doğrulama kodunuzdur", "445210"),
    ("583920 是您的验证码", "583920"),
    ("583920は認証コードです", "583920"),
    ("583920은 카카오 인증번호입니다", "583920"),
    ("583920 คือรหัสยืนยันของคุณ", "583920"),
    ("583920 هو رمز الدخول الخاص بك", "583920"),
    ("583920 आपका सत्यापन कोड है", "583920"),
    ("583920 là mã xác minh của bạn", "583920"),
    ("583920 adalah kode OTP Anda", "583920"),
    ("583920 είναι ο κωδικός σας", "583920"),
    # after its word, a few words later, in scripts the word lists did not cover
    ("رمز التحقق الخاص بك هو 583920", "583920"),
    ("קוד האימות שלך הוא 583920", "583920"),
    ("Ο κωδικός επαλήθευσης είναι 583920", "583920"),
    ("รหัสยืนยันของคุณคือ 4821", "4821"),
    ("您的登录码为 7Q4K2P", "7Q4K2P"),
    # nothing but a code
    ("858 781", "858 781"),
    ("[Kraken] 858781", "858781"),
    ("Your sign-in code\n\n602-448\n\nIf you didn't ask for it, ignore this.", "602-448"),
]

STILL_FOUND = [
    ("認証コード：583920", "583920"),
    ("验证码:4821", "4821"),
    ("인증코드:4821", "4821"),
    ("0013 is your verification code for HQ Trivia", "0013"),
    ("8831 - your Tinder code", "8831"),
    ("4417 ist dein Lieferando-Code", "4417"),
    ("5529 es tu código de Rappi", "5529"),
    ("771204 — ваш код для входу", "771204"),
    ("Tu código Cabify: 44 18 20", "44 18 20"),
    ("Dein Code für die Sixt App: 7K4-2QP", "7K4-2QP"),
    ("Votre code Lydia : QX7-2PM", "QX7-2PM"),
    ("Il tuo codice Trenitalia è 55-19-02", "55-19-02"),
    ("Lyft code: 8 1 2 4", "8 1 2 4"),
]

NOT_SECRETS = [
    "Order 58213 confirmed, delivery on 14.05.2026 between 10:00 and 12:00",
    "Bestellung 448213 versandt, Lieferung am 14.05.",
    "Commande 583920 expédiée, livraison le 14/05/2026",
    "Zamówienie nr 448213 zostało wysłane",
    "Ваш заказ 583920 доставлен в пункт выдачи",
    "您的订单 583920 已发货",
    "注文番号 4821-5539 の商品を発送しました",
    "주문번호 20260514-0012 배송이 시작되었습니다",
    "طلبك رقم 58213 في الطريق",
    "Flight LH 1234 departs 14:35 from gate B12",
    "ICE 1234 nach Hamburg fährt um 14:35 von Gleis 7",
    "TK 1980 uçuşunuz 14:35'te kalkacak",
    "KE 5839편 14:35 출발",
    "G1234次列车 14:35 发车",
    "Total 4821,50 € paid",
    "Сумма 5839 руб. списана",
    "Pagamento di 1.250,00 EUR ricevuto",
    "आपका बिल ₹4821 है",
    "Paid $4821 at Apple Store",
    "Call us at 0800 123 4567",
    "Ring me on +49 30 1234567",
    "Tel. (202) 555-0144",
    "Postcode 10435 Berlin",
    "Keizersgracht 412, 1016 GC Amsterdam",
    "Storgatan 14, 114 55 Stockholm",
    "〒150-0002 東京都渋谷区",
    "1600 Amphitheatre Parkway, Mountain View",
    "Meeting moved to 14:30 in room 4821",
    "See you on 2026-05-14 at 09:30",
    "New sign-in from iPhone near 10435 Berlin on 14 May",
    "Two-factor authentication is on since 2026",
    "Your code review for PR 4821 is ready",
    "Error code 4021: the payment was declined",
    "Promo code SUMMER26 gives 20% off",
    "code freeze starts Thursday, release 9021 goes out Monday",
    "Your booking reference is 4KX72P, seat 14C",
    "Receipt 4821-5539 for your trip",
    "Dienstreise 2026-0311 angelegt",
    "Rechnung 2026-0412 über 58,90 €",
    "Your verification is complete. Welcome!",
    "Der Code ist 15 Minuten gültig",
]


def hidden(text: str, value: str) -> bool:
    out = redact(text)
    return value not in out and normalize_digits(value) not in normalize_digits(out) \
        and REDACTED in out


@pytest.mark.parametrize(("text", "value"), NEW_FORMS)
def test_a_new_form_of_code_is_found_and_redacted(text: str, value: str) -> None:
    assert find_secret(text) is not None
    assert hidden(text, value)


@pytest.mark.parametrize(("text", "value"), STILL_FOUND)
def test_the_forms_found_before_are_still_found(text: str, value: str) -> None:
    assert find_secret(text) is not None
    assert hidden(text, value)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_numbers_survive(text: str) -> None:
    assert secret_spans(text) == []
    assert find_secret(text) is None
    assert redact(text) == text


def test_a_redacted_code_keeps_the_words_around_it() -> None:
    text = "Hotel Adler: room 212, 14-16 May. Door PIN 4821, check-in from 15:00."
    assert redact(text) == f"Hotel Adler: room 212, 14-16 May. Door PIN {REDACTED}, " \
        "check-in from 15:00."


# -- properties ------------------------------------------------------------------------------

def _plain(entry: str) -> str:
    return " ".join(part.strip("*") for part in entry.split())


CODE_WORDS = sorted({_plain(w) for words in auth_words.CODE_WORDS.values() for w in words})
codes = st.integers(100_000, 999_999).map(str)
short_codes = st.integers(1000, 9999).map(str).filter(lambda v: v[:2] not in ("19", "20"))


@settings(max_examples=150, deadline=None)
@given(word=st.sampled_from(CODE_WORDS), sep=st.sampled_from([":", "：", "=", ": ", " ", " : "]),
       value=st.one_of(codes, short_codes))
def test_every_code_word_joined_to_a_value_hides_it(word: str, sep: str, value: str) -> None:
    assert hidden(f"{word}{sep}{value}", value)


@settings(max_examples=150, deadline=None)
@given(word=st.sampled_from(CODE_WORDS), value=codes,
       opener=st.sampled_from(["", "[Acme] ", "Acme: ", "【Acme】"]))
def test_every_code_word_after_its_value_hides_it(word: str, value: str, opener: str) -> None:
    assert hidden(f"{opener}{value} {word}", value)


@st.composite
def ordinary(draw: st.DrawFn) -> str:
    day, month = draw(st.integers(1, 28)), draw(st.integers(1, 12))
    year = draw(st.integers(2020, 2030))
    hour, minute = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    number = draw(st.integers(1000, 99_999_999))
    amount = draw(st.integers(1, 99_999))
    cents = draw(st.integers(0, 99))
    phone = draw(st.integers(100_000_000, 9_999_999_999))
    carrier = draw(st.sampled_from(["LH", "BA", "ICE", "TK", "IB", "KE"]))
    templates = [
        f"Order {number} shipped on {day:02d}.{month:02d}.{year}",
        f"Bestellung {number} kommt am {day}.{month}. um {hour:02d}:{minute:02d} Uhr",
        f"Delivery on {year}-{month:02d}-{day:02d} at {hour:02d}:{minute:02d}",
        f"Paid {amount},{cents:02d} € at the bakery",
        f"Total: ${amount}.{cents:02d}",
        f"Сумма {amount} руб. за заказ {number}",
        f"您的订单 {number} 已发货，金额 {amount} 元",
        f"Call us on +{phone}",
        f"Flight {carrier} {number % 10_000} leaves at {hour:02d}:{minute:02d}",
        f"New sign-in on {day:02d}/{month:02d}/{year} at {hour:02d}:{minute:02d}",
        f"Invoice {year}-{number % 10_000:04d} is due on {day:02d}.{month:02d}.{year}",
        f"Meet at {hour:02d}:{minute:02d}, room {number % 1000}",
    ]
    return draw(st.sampled_from(templates))


@settings(max_examples=300, deadline=None)
@given(text=ordinary())
def test_dates_times_prices_orders_phones_and_flights_are_never_redacted(text: str) -> None:
    assert redact(text) == text


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_spans_are_ordered_disjoint_and_inside_any_text(text: str) -> None:
    spans = secret_spans(text)
    last = 0
    for start, end, reason in spans:
        assert last <= start < end <= len(text) and reason.startswith("secret_")
        last = end
