"""The deterministic noise and secret filters: precise on both sides."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.secrets import contains_secret, find_secret, iban_valid, luhn_valid

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def ev(body: str, *, title: str = "", kind: str = "added", category: str = "") -> NotificationEvent:
    return NotificationEvent.create(
        kind=kind, key="k1", app_id="com.example.app", posted_at=T0, title=title, body=body,
        category=category,
    )


@pytest.mark.parametrize(
    ("title", "body", "reason"),
    [
        ("Bank", "Your verification code is 482913. Do not share it.", "verification_code"),
        ("", "Use 551 204 to verify your account", "verification_code"),
        ("Google", "G-482913 is your Google verification code.", "verification_code"),
        ("", "Your OTP for login is 9921", "otp"),
        ("Uber", "Your Uber code: 4821. Never share this code.", "otp"),
        ("", "483920 is your Instagram code", "otp"),
        ("Steam", "Your login code is 77E-9Q1", "otp"),
        ("", "Your one-time passcode is 12345678", "otp"),
        ("Bank", "Use 771045 to confirm your transfer of 250.00 EUR. Do not share it.", "otp"),
        ("", "Enter 402913 to approve the payment", "otp"),
        ("Bank", "183204: approve your purchase? Never share this.", "otp"),
        ("Shop", "FLASH SALE! 40% off everything, use code SPRING at checkout", "marketing"),
        ("", "Last chance: deals end tonight. Don't miss our sale", "marketing"),
        ("", "Reply STOP to unsubscribe from these messages", "marketing"),
        ("Your order", "Customers who bought this also bought... see recommendations",
         "marketing"),
        ("New arrivals", "Spring collection is here", "marketing"),
        ("Newsletter", "This week's top 10 productivity tips - click to read more", "marketing"),
        ("Admin", "The new wifi password is hunter2-blue", "secret_password"),
        ("", "password: Tr0ub4dor&3", "secret_password"),
        ("", "card 4111 1111 1111 1111 exp 12/27", "secret_card"),
        ("", "Amex 3782-822463-10005 charged", "secret_card"),
        ("Rent", "Please transfer to DE89 3704 0044 0532 0130 00 by Friday", "secret_iban"),
        ("", "IBAN GB82WEST12345698765432", "secret_iban"),
        ("CI", "deploy key sk-proj-abcdefghijklmnopqrstuvwxyz012345", "secret_api_key"),
        ("", "token ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ12", "secret_api_key"),
        ("", "AKIAIOSFODNN7EXAMPLE leaked", "secret_api_key"),
        ("", "api_key=9f8e7d6c5b4a39281726354aabbccdd", "secret_api_key"),
        ("", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=", "secret_private_key"),
        ("", "-----BEGIN RSA PRIVATE KEY-----", "secret_private_key"),
    ],
)
def test_noise_and_secrets_are_classified(title: str, body: str, reason: str) -> None:
    assert NoiseFilter().classify(ev(body, title=title)) == reason


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Anna", "Team meeting at 10:30 in room 4012, bring the slides"),
        ("Shop", "Your order 12345 has shipped and arrives Thursday"),
        ("Bank", "You paid 1250.00 EUR to Stadtwerke"),
        ("Calendar", "Dentist appointment on 2026-03-14 at 08:15"),
        ("Mum", "Call me back at +49 170 1234567 when you land"),
        ("Mail", "Password reset requested? Ignore this if it was not you."),
        ("Mail", "Your password was changed yesterday"),
        ("Tracking", "Parcel 1Z999AA10123456784 is out for delivery"),
        ("Tom", "The house sale closes Friday, lawyer needs the papers"),
        ("Flights", "Flight LH 4410 boards at gate B12 at 14:05"),
        ("Bob", "Can you review PR 4821 before lunch?"),
        ("Shop", "Your order code is ready at the counter"),
        ("Bank", "Salary 4300 received"),
        ("Anna", "Use 2 eggs for the cake, I'll bring 3 more"),
        ("Gym", "Use locker 1204 for your bag today"),
        ("Ben", "I'll send you the newsletter draft tonight"),
        ("Mia", "Any tips for the museum trip?"),
    ],
)
def test_ordinary_notifications_pass(title: str, body: str) -> None:
    assert NoiseFilter().classify(ev(body, title=title)) is None


def test_removed_and_empty_and_marketing_category() -> None:
    f = NoiseFilter()
    assert f.classify(ev("", kind="removed")) == "removed"
    assert f.classify(ev("   ")) == "empty"
    assert f.classify(ev("New spring collection", category="promotion")) == "marketing"


def test_secret_anywhere_wins_over_other_reasons() -> None:
    # a marketing text that also carries a card number is a secret first
    assert NoiseFilter().classify(ev("50% off! pay with 4111111111111111")) == "secret_card"
    assert NoiseFilter().classify(ev("hello", title="pwd: s3cretV4lue")) == "secret_password"


def test_checksums() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert iban_valid("DE89 3704 0044 0532 0130 00")
    assert not iban_valid("DE89 3704 0044 0532 0130 01")
    # a Luhn-failing 16-digit number with a card prefix is not a card
    assert find_secret("ref 4111 1111 1111 1112") is None
    assert contains_secret("IBAN: FR14 2004 1010 0505 0001 3M02 606")
    assert not contains_secret("Ticket FR14 2004 1010 0505")
