"""A message that fixes a number in an earlier memory corrects that memory in place."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion_memory.agent.notifications.corrections import correction
from companion_memory.memory.records import Status
from tests.notifications.harness import event, pipeline

ADDRESS_TEXT = "Nina's new address is Lindenweg 41, 10437 Berlin"
PARTY_TEXT = "Jo on WhatsApp: the party starts at 19:00 on Sat 5 Dec"
TRAIN_TEXT = "DB: ICE 1003 leaves from platform 5 at 08:12"
ADDRESS: dict[str, Any] = {"id": "m1", "rev": 1, "text": ADDRESS_TEXT}
PARTY: dict[str, Any] = {"id": "m2", "rev": 3, "text": PARTY_TEXT}
TRAIN: dict[str, Any] = {"id": "m3", "rev": 1, "text": TRAIN_TEXT}


@pytest.mark.parametrize(
    ("body", "related", "expected"),
    [
        ("sorry, die Hausnummer ist 14, nicht 41!", [ADDRESS, PARTY],
         ("m1", "Nina's new address is Lindenweg 14, 10437 Berlin")),
        ("oops, it's 20:00 not 19:00", [PARTY], ("m2", PARTY_TEXT.replace("19:00", "20:00"))),
        ("c'est le quai 7, pas le 5", [TRAIN], ("m3", TRAIN_TEXT.replace("5", "7"))),
        ("binario 7, non 5", [TRAIN], ("m3", TRAIN_TEXT.replace("5", "7"))),
        ("perron 7 in plaats van 5", [TRAIN], ("m3", TRAIN_TEXT.replace("5", "7"))),
    ],
)
def test_the_corrected_value_replaces_the_old_one(
    body: str, related: list[dict[str, Any]], expected: tuple[str, str]
) -> None:
    found = correction(body, related)
    assert found is not None
    assert (found[0]["id"], found[1]) == expected


@pytest.mark.parametrize(
    ("body", "related"),
    [
        ("die Hausnummer ist 14, nicht 41", []),  # nothing to correct
        ("es ist 14, nicht 99", [ADDRESS]),  # the old value is not in any memory
        ("Tuesday, not Monday", [PARTY]),  # a word alone is not corrected
        ("make it 7, not 5", [TRAIN, {"id": "m4", "rev": 1, "text": "Gate 5 closes at 9"}]),
        ("see you at 8, not before", [PARTY]),
    ],
)
def test_nothing_is_corrected_without_one_clear_target(
    body: str, related: list[dict[str, Any]]
) -> None:
    assert correction(body, related) is None


async def test_a_correction_message_updates_the_memory_it_fixes(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        p.publish(event("Unsere neue Adresse ist Lindenweg 41, 10437 Berlin", title="Nina"))
        assert (await p.processor.run_batch()).report.error is None
        p.publish(event("Korrektur: die Hausnummer ist 14, nicht 41 🙈", title="Nina",
                        minutes=5))
        outcome = await p.processor.run_batch()
        assert outcome.report.error is None
        live = [r for r in await p.memories() if r.status is Status.ACTIVE]
    assert [r.text for r in live] == ["Nina's new address is Lindenweg 14, 10437 Berlin"]
    assert live[0].revision == 2 and len(live[0].sources) == 2
