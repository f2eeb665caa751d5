"""Noise by meaning: a small classifier over the embedding and the phone's own category.

The rule triage (`filters.py`) knows the shapes of noise in a few languages. This model
knows noise by what a notification means, in any language the embedding model reads:
a logistic regression over the notification's embedding (title, subtitle and body, as
the store embeds a memory's sources), the category the phone gave it (ANCS
CategoryID names and Android notification categories, mapped onto `GROUPS`), and a few
marks of its shape that read alike in every script (`SHAPE`: a clock time, a day, how
many digits and emoji, its length, a question, a link or a percentage).

Its weights (`data/noise_model.json`) are trained by `bench/train_noise_model.py` on a
labelled multilingual training set (`bench/data/triage_train/`: 1,100 notifications
in 21 languages written for training only, apart from every evaluation corpus), and
its thresholds are chosen there by cross-validation so that few notifications worth
keeping are dropped, fewer still on the channels where people write (`PERSON_GROUPS`).
The file names the embedding model it was trained for; with any other model the
classifier is not used. Texts of fewer than `MIN_WORDS` words are left to the rules.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
import numpy.typing as npt
import orjson

from companion_memory.agent.notifications.dates import has_day_word
from companion_memory.agent.notifications.filters import word_count
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.embedding import Embedder

GROUPS = (
    "message", "email", "schedule", "news", "promotion", "status", "finance", "health",
    "travel", "call", "entertainment", "other",
)
"""What the phone's category says, across platforms."""

_GROUP_OF = {
    "social": "message", "msg": "message", "message": "message",
    "email": "email",
    "schedule": "schedule", "event": "schedule", "reminder": "schedule", "alarm": "schedule",
    "news": "news",
    "promo": "promotion", "promotion": "promotion", "recommendation": "promotion",
    "status": "status", "sys": "status", "service": "status", "progress": "status",
    "err": "status",
    "business_and_finance": "finance", "finance": "finance",
    "health_and_fitness": "health", "health": "health", "workout": "health",
    "location": "travel", "navigation": "travel", "transport": "travel", "travel": "travel",
    "incoming_call": "call", "missed_call": "call", "voicemail": "call", "call": "call",
    "entertainment": "entertainment",
}
"""ANCS CategoryID names (as `ble.ancs.normalize` writes them), Android notification
categories, and the names a host may use; anything else is "other"."""

MODEL_FILE = "noise_model.json"

MIN_WORDS = 5
"""Shorter texts are left to the rule triage: an embedding of two or three words says too
little about what they mean ("Bring the wine" and "Sale ends soon" look alike to it), and
the rules know the short shapes of noise (reactions, thanks, emoji, acknowledgements)."""

PERSON_GROUPS = frozenset({"message", "email", "call"})
"""Channels where a person usually wrote the text: they get their own, higher threshold
(dropping a person's words costs more than keeping an ad)."""


def category_group(category: str) -> str:
    return _GROUP_OF.get(category.strip().casefold(), "other")


def text_of(event: NotificationEvent) -> str:
    """What is embedded for a notification: its title, subtitle and body."""
    return "\n".join(part for part in (event.title, event.subtitle, event.body) if part)


SHAPE = ("clock_time", "day", "digits", "emoji", "length", "question", "link_or_percent")
"""The shape marks beside the embedding, in this order (`shape`)."""

_CLOCK = re.compile(
    r"(?<!\d)\d{1,2}[:.h]\d{2}(?!\d)|(?<!\d)\d{1,2}\s?(?:am|pm)\b|\d{1,2}\s?[時点시]",
    re.IGNORECASE,
)
_LINK_OR_PERCENT = re.compile(r"%|https?://|\bwww\.", re.IGNORECASE)


def shape(text: str) -> list[float]:
    """The marks of a notification's shape, each in 0..1: whether it names a clock time
    ("18:40", "9am", "10時") or a day (`dates.has_day_word`), how many digits and emoji
    it holds, how long it is (log of its words), whether it asks something, whether it
    holds a link or a percentage. What a plan looks like (a time, a day, a question) and
    what an advert or a chat reaction looks like (percentages, links, emoji) in any
    language the phone shows."""
    words = max(1, word_count(text))
    digits = sum(ch.isdigit() for ch in text)
    emoji = sum(unicodedata.category(ch) == "So" for ch in text)
    return [
        1.0 if _CLOCK.search(text) else 0.0,
        1.0 if has_day_word(text) else 0.0,
        min(1.0, digits / 6),
        min(1.0, emoji / 3),
        math.log(words) / 4,
        1.0 if "?" in text or "？" in text else 0.0,
        1.0 if _LINK_OR_PERCENT.search(text) else 0.0,
    ]


def features(
    vectors: npt.NDArray[np.float32], categories: Sequence[str], texts: Sequence[str]
) -> npt.NDArray[np.float32]:
    """The classifier's input rows: each embedding, its category's one-hot, and the
    shape marks of its text (`text_of`)."""
    onehot = np.zeros((len(categories), len(GROUPS)), dtype=np.float32)
    for row, category in enumerate(categories):
        onehot[row, GROUPS.index(category_group(category))] = 1.0
    marks = np.array([shape(text) for text in texts], dtype=np.float32).reshape(
        len(texts), len(SHAPE))
    return np.hstack([np.asarray(vectors, dtype=np.float32), onehot, marks])


@dataclass(frozen=True, slots=True)
class NoiseWeights:
    model: str
    weights: npt.NDArray[np.float32]
    bias: float
    threshold: float
    """A notification whose noise probability is at least this is dropped."""
    person_threshold: float
    """The same for the person-to-person channels (`PERSON_GROUPS`)."""

    @classmethod
    def load(cls) -> NoiseWeights:
        raw = orjson.loads(
            resources.files("companion_memory.agent.notifications")
            .joinpath("data", MODEL_FILE).read_bytes()
        )
        weights = np.asarray(raw["weights"], dtype=np.float32)
        return cls(str(raw["model"]), weights, float(raw["bias"]), float(raw["threshold"]),
                   float(raw["person_threshold"]))

    def threshold_for(self, category: str) -> float:
        return self.person_threshold if category_group(category) in PERSON_GROUPS \
            else self.threshold

    def probabilities(self, rows: npt.NDArray[np.float32]) -> list[float]:
        logits = rows @ self.weights + self.bias
        return [1.0 / (1.0 + math.exp(-float(z))) for z in logits]


class NoiseModel:
    """`noise(events)`: each event's noise probability, from one embedding call."""

    def __init__(self, embedder: Embedder, weights: NoiseWeights | None = None) -> None:
        self._embedder = embedder
        self._weights = weights if weights is not None else NoiseWeights.load()
        self.usable = self._weights.model == embedder.name and \
            self._weights.weights.size == embedder.dim + len(GROUPS) + len(SHAPE)
        """False when the weights were trained for another embedding model."""

    def threshold_for(self, category: str) -> float:
        """The noise probability at which a notification of this category is dropped."""
        return self._weights.threshold_for(category)

    def noise(self, events: Sequence[NotificationEvent]) -> list[float]:
        """Noise probability per event (blocking: call it off the event loop); 0 for an
        event whose subtitle and body hold fewer than MIN_WORDS words."""
        judged = [i for i, e in enumerate(events)
                  if word_count(f"{e.subtitle} {e.body}") >= MIN_WORDS]
        out = [0.0 for _ in events]
        if not judged or not self.usable:
            return out
        picked = [events[i] for i in judged]
        texts = [text_of(e) for e in picked]
        vectors = self._embedder.documents(texts)
        scores = self._weights.probabilities(
            features(vectors, [e.category for e in picked], texts))
        for i, score in zip(judged, scores, strict=True):
            out[i] = score
        return out
