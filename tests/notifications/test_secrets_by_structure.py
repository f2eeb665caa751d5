"""Issue 25 through the notification pipeline: a secret inside a useful notification is
redacted and the rest reaches the model and the memory (a booking keeps its dates, room
and check-in time); a notification that is nothing but a one-time code is dropped; codes
in forms the word lists did not know never reach a prompt or a memory; ordinary numbers
(orders, flights, prices, phone numbers) reach the model untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.memory.secrets import REDACTED
from companion_memory.memory.store import MemoryStore
from tests.notifications.harness import all_prompt_text, contract_step, event, pipeline

BOOKINGS = [
    ("Hotel Adler", "Booking confirmation: 14-16 May, 2 nights, room 212. Door PIN 4821, "
     "check-in from 15:00.", "4821", ("14-16 May", "room 212", "15:00")),
    ("Seaview Apartments", "Booking confirmation for 22 June: flat 4, key box code 7391, left "
     "of the blue door.", "7391", ("22 June", "flat 4", "blue door")),
    ("Casa Mia", "Conferma prenotazione: 12-14 giugno, camera 3. Codice accesso portone 3391, "
     "check-in dalle 15:00.", "3391", ("12-14 giugno", "camera 3", "15:00")),
]
CODE_ONLY = [
    ("HQ Trivia", "0013 is your HQ Trivia code", "0013"),
    ("AcmeBank", "VerifyCode:736136", "736136"),
    ("Kraken", "858 781", "858 781"),
    ("京东", "583920 是您的验证码，请勿泄露。", "583920"),
    ("Careem", "583920 هو رمز الدخول الخاص بك", "583920"),
    ("Paytm", "आपका OTP 583920 है। इसे किसी के साथ साझा न करें।", "583920"),
]
ORDINARY = [
    ("Lufthansa", "Flight LH 1234 to Lisbon departs 14:35 from gate B12, booking 774120.",
     ("LH 1234", "14:35", "774120")),
    ("Shop", "Order 58213 confirmed, 49,90 € charged, delivery on 14.05.2026.",
     ("58213", "49,90 €", "14.05.2026")),
    ("Ozon", "Ваш заказ 672045 доставлен, звоните +7 495 123 45 67.",
     ("672045", "+7 495 123 45 67")),
]


async def stored_text(store: MemoryStore) -> str:
    rows = await store.read(lambda conn: conn.execute(
        "SELECT text, detail, COALESCE(subject, '') FROM memories").fetchall())
    return "\n".join("\n".join(row) for row in rows)


@pytest.mark.parametrize(("title", "body", "secret", "facts"), BOOKINGS)
def test_triage_redacts_a_booking_and_keeps_its_facts(
    title: str, body: str, secret: str, facts: tuple[str, ...]
) -> None:
    triage = NoiseFilter().triage(event(body, title=title, category="other"))
    assert triage.reason is None and triage.redacted is not None
    assert secret not in triage.event.body and REDACTED in triage.event.body
    assert all(fact in triage.event.body for fact in facts)


@pytest.mark.parametrize(("title", "body", "secret"), CODE_ONLY)
def test_triage_drops_a_message_that_is_nothing_but_a_code(
    title: str, body: str, secret: str
) -> None:
    triage = NoiseFilter().triage(event(body, title=title, category="other"))
    assert triage.reason is not None


@pytest.mark.parametrize(("title", "body", "numbers"), ORDINARY)
def test_triage_leaves_ordinary_numbers_alone(
    title: str, body: str, numbers: tuple[str, ...]
) -> None:
    triage = NoiseFilter().triage(event(body, title=title, category="other"))
    assert triage.reason is None and triage.redacted is None and triage.event.body == body


async def test_the_pipeline_remembers_the_booking_without_its_code(tmp_path: Path) -> None:
    async with pipeline(tmp_path, [contract_step], repeat_last=True) as p:
        p.publish(*(event(body, title=title, category="other", app="com.booking")
                    for title, body, _, _ in BOOKINGS))
        p.publish(*(event(body, title=title, category="other", app="com.sms")
                    for title, body, _ in CODE_ONLY))
        p.publish(*(event(body, title=title, category="other", app="com.shop")
                    for title, body, _ in ORDINARY))
        while (await p.processor.run_batch()).report.applied:
            pass
        sent = all_prompt_text(p.provider)
        kept = await stored_text(p.store)
    for _, _, secret, facts in BOOKINGS:
        assert secret not in sent and secret not in kept
        for fact in facts:
            assert fact in sent and fact in kept, fact
    for title, _, secret in CODE_ONLY:
        assert secret not in sent and secret not in kept
        assert title not in sent  # (dropped whole: not even a memory that a code came)
    for _, _, numbers in ORDINARY:
        assert all(number in sent for number in numbers)
