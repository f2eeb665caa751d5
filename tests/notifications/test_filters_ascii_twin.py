"""The ASCII fast path of the noise filter and the secret detector decides exactly like the
IGNORECASE patterns. (Passwords have no ASCII twin: their detector reads the original text
only, so there is nothing to compare.)"""

from __future__ import annotations

import random

from companion_memory.agent.notifications import filters as F
from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.memory import secrets as S
from companion_memory.memory.secrets import _lowered as lowered

FRAGMENTS = [
    "Your verification code is", "CODE", "code:", "Code is", "use", "ENTER", "type", "to",
    "for", "as", "is your login code", "OTP", "One-Time PassCode", "PIN", "tan", "Do Not Share",
    "to confirm your transfer", "Verify", "Confirmation", "activate your", "order code",
    "PROMO CODE", "Flash Sale", "50% off", "Up to 40%", "sale", "DEALS", "save", "Newsletter",
    "Hurry", "ends tonight", "password", "Password is", "PASSWORD reset", "pwd=", "Wifi Key",
    "hunter22!", "api_key=", "Bearer", "sk-", "SK_LIVE_", "AKIA", "ghp_", "xoxb-", "eyJhbGciOi",
    "4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00", "123456", "123-456", "G-123456",
    "AB1-CD2", "10:30", "order 12345", "$12.50", "Anna", "dinner on Friday", "can you",
    "confirm by tonight?", "-", ":", "=", ".", "\n", "'", '"',
]


def random_text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 9)):
        part = rng.choice(FRAGMENTS)
        if rng.random() < 0.3:
            part = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in part)
        if rng.random() < 0.2:
            part += "".join(rng.choice("ABCdef0123456789_-") for _ in range(rng.randint(4, 44)))
        parts.append(part)
    return rng.choice([" ", "", "  "]).join(parts)


def slow_classify(text: str) -> tuple[object, ...]:
    """Every decision through the original (IGNORECASE) patterns only."""
    return (
        bool(S._API_KEY.search(text)),
        S._is_one_time_code(text, None),
        F._is_marketing(text, "social", None),
    )


def fast_classify(text: str) -> tuple[object, ...]:
    low = lowered(text)
    assert low is not None
    return (
        bool(S._API_KEY_LC.search(low)),
        S._is_one_time_code(text, low),
        F._is_marketing(text, "social", low),
    )


def test_ascii_twins_agree_with_ignorecase_patterns_on_random_text() -> None:
    rng = random.Random(20261130)
    hits = [0, 0, 0]
    for _ in range(6000):
        text = random_text(rng)
        slow, fast = slow_classify(text), fast_classify(text)
        assert fast == slow, text
        for i, value in enumerate(slow):
            hits[i] += bool(value)
    assert all(h > 50 for h in hits), hits  # every decision was exercised both ways
    assert all(h < 5500 for h in hits), hits


def test_non_ascii_text_takes_the_original_patterns() -> None:
    assert lowered("Passwort für WLAN: Sommer2026") is None
    event = NotificationEvent.create(
        kind="added", key="k", app_id="com.x", title="Bank",
        body="Ihr Bestätigungscode lautet 482913", posted_at=FakeClock().now(),
    )
    assert F.NoiseFilter().classify(event) == "otp"
    assert S.find_secret("WLAN für Gäste, Passwort: Sommer2026") == "secret_password"
