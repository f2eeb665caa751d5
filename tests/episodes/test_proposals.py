"""Per-item validation of the model's answer, the staged form and the deterministic fallback."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from companion_memory.agent.episodes import (
    Episode,
    derived_memory_id,
    episode_fallback,
    validate_answer,
)
from companion_memory.agent.episodes.proposals import intents_for, staged_json
from companion_memory.memory.records import (
    Authority,
    IntentOp,
    Kind,
    MemoryRecord,
    SourceKind,
    SourceRef,
    Tier,
)
from tests.episodes.helpers import episode

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def record(memory_id: str = "dev-old", revision: int = 2,
           authority: Authority = Authority.AGENT_CONCLUSION) -> MemoryRecord:
    return MemoryRecord(
        memory_id=memory_id, revision=revision, tier=Tier.DEVICE,
        kind=Kind.DEVICE_LOCATION, text="Wi-Fi is under Settings > Network",
        authority=authority, sources=(SourceRef(SourceKind.EPISODE, "ep-0"),),
        created_at=T0, updated_at=T0, expires_at=None,
    )


def item(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "episode_id": "ep-1", "goal_result": "achieved", "action": "add",
        "kind": "device_location", "text": "Wi-Fi is under Settings > Connections",
        "evidence": ["e1"],
    }
    base.update(kw)
    return base


BATCH = {
    "ep-1": Episode.from_dict(episode("ep-1")),
    "ep-2": Episode.from_dict(episode("ep-2", goal_result="not_achieved")),
}
RELATED = {
    "dev-old": record(),
    "dev-user": record("dev-user", 1, Authority.DIRECT_USER_STATEMENT),
}


def test_good_item_is_staged() -> None:
    result = validate_answer({"items": [item()]}, BATCH, RELATED)
    assert result.failed("ep-1") is None
    assert result.staged["ep-1"][0]["kind"] == "device_location"
    assert result.failed("ep-2") == "no_item_for_episode"


@pytest.mark.parametrize(
    ("bad", "code"),
    [
        (item(goal_result="partial"), "goal_result_mismatch"),
        (item(action="overwrite"), "invalid_action"),
        (item(kind="preference"), "kind_not_allowed"),
        (item(kind=None), "kind_not_allowed"),
        (item(evidence=[]), "missing_evidence"),
        (item(evidence=["e1", "e7"]), "evidence_not_in_trace"),
        (item(text="  "), "missing_text"),
        (item(text="x" * 501), "text_too_long"),
        (item(text="the wifi password: hunter2hunter2"), "secret_in_text"),
        (item(action="update", memory_id="dev-unknown", revision=1), "unknown_memory"),
        (item(action="update", memory_id="dev-old", revision=1), "stale_revision"),
        (item(action="update", memory_id="dev-old"), "missing_revision"),
        (item(action="conflict", memory_id="dev-user", revision=1), "authority_too_low"),
        (item(episode_id="ep-2", goal_result="not_achieved", kind="device_procedure"),
         "procedure_from_failed_goal"),
    ],
)
def test_each_rejection_reason(bad: dict[str, Any], code: str) -> None:
    from companion_memory.memory.secrets import contains_secret

    eid = bad["episode_id"]
    other = "ep-2" if eid == "ep-1" else "ep-1"
    good = item(episode_id=other, goal_result=BATCH[other].goal_result.value,
                kind="device_quirk")
    result = validate_answer({"items": [bad, good]}, BATCH, RELATED,
                             secret_check=contains_secret)
    assert result.failed(eid) == code
    assert result.failed(other) is None  # the other episode's good item survives
    assert len(result.staged[other]) == 1


def test_items_for_episodes_outside_the_batch_are_rejected() -> None:
    result = validate_answer(
        {"items": [item(episode_id="ep-999"), "junk", item()]}, BATCH, RELATED
    )
    assert result.stray == ["unknown_episode", "item_not_an_object"]
    assert "ep-999" not in result.staged and result.failed("ep-1") is None


def test_answer_without_items_fails_every_episode() -> None:
    result = validate_answer({"answer": 1}, BATCH, RELATED)
    assert result.failed("ep-1") == "answer_not_an_item_list"
    assert result.failed("ep-2") == "answer_not_an_item_list"


def test_duplicate_target_and_duplicate_text() -> None:
    upd = item(action="update", memory_id="dev-old", revision=2)
    result = validate_answer({"items": [upd, dict(upd, text="other")]}, BATCH, RELATED)
    assert result.failed("ep-1") == "duplicate_target"
    result = validate_answer({"items": [item(), item()]}, BATCH, RELATED)
    assert result.failed("ep-1") is None and len(result.staged["ep-1"]) == 1


def test_conflict_creates_then_supersedes_with_derived_ids() -> None:
    conflict = item(action="conflict", memory_id="dev-old", revision=2, text="Wi-Fi moved")
    result = validate_answer({"items": [item(kind="device_quirk"), conflict]}, BATCH, RELATED)
    staged = staged_json("ep-1", result.staged["ep-1"])


    intents = intents_for(orjson.loads(staged))
    assert [i.op for i in intents] == [IntentOp.CREATE, IntentOp.CREATE, IntentOp.SUPERSEDE]
    assert intents[0].memory_id == derived_memory_id("ep-1", 0)
    assert intents[1].memory_id == derived_memory_id("ep-1", 1)
    assert intents[2].memory_id == "dev-old" and intents[2].expected_revision == 2
    assert intents[2].superseded_by == derived_memory_id("ep-1", 1)
    assert all(i.sources == (SourceRef(SourceKind.EPISODE, "ep-1"),) for i in intents)
    assert derived_memory_id("ep-1", 0) != derived_memory_id("ep-2", 0)


def test_fallback_procedure_requirement_quirk_and_ignore() -> None:
    fixed = episode(
        "ep-fix", goal="open camera",
        steps=[
            {"n": 1, "action": "open", "target": "Camera", "evidence": ["err"]},
            {"n": 2, "action": "grant", "target": "storage permission", "evidence": ["ok"]},
            {"n": 3, "action": "open", "target": "Camera"},
        ],
        evidence=[{"id": "err", "kind": "error", "detail": "Storage permission required"},
                  {"id": "ok", "kind": "setting", "detail": "storage=granted"}],
    )
    failed = episode("ep-bad", goal_result="not_achieved", evidence=[
        {"id": "x", "kind": "error", "detail": "Bluetooth crashed"}],
        steps=[{"n": 1, "action": "tap", "target": "Bluetooth", "evidence": ["x"]}])
    nothing = episode("ep-none", goal_result="not_achieved")
    payload = {"episodes": [fixed, failed, nothing], "related": []}
    answer = episode_fallback(payload)
    kinds = [(i["episode_id"], i["action"], i.get("kind")) for i in answer["items"]]
    assert kinds == [
        ("ep-fix", "add", "device_procedure"),
        ("ep-fix", "add", "device_requirement"),
        ("ep-bad", "add", "device_quirk"),
        ("ep-none", "ignore", None),
    ]
    requirement = answer["items"][1]
    assert "grant storage permission" in requirement["text"]
    assert requirement["evidence"] == ["err", "ok"]
    batch = {e["episode_id"]: Episode.from_dict(e) for e in (fixed, failed, nothing)}
    result = validate_answer(answer, batch, {})
    assert all(result.failed(eid) is None for eid in batch)  # the fallback passes validation


def test_fallback_conflicts_with_a_changed_procedure_and_ignores_the_same() -> None:
    first = episode_fallback({"episodes": [episode()], "related": []})["items"][0]
    same = {"memory_id": "dev-a", "revision": 1, "kind": first["kind"],
            "subject": first["subject"], "text": first["text"]}
    again = episode_fallback({"episodes": [episode("ep-2")], "related": [same]})
    assert again["items"][0]["action"] == "ignore"
    changed = dict(same, text="To turn on wifi: swipe down")
    answer = episode_fallback({"episodes": [episode("ep-2")], "related": [changed]})
    assert answer["items"][0]["action"] == "conflict"
    assert answer["items"][0]["memory_id"] == "dev-a"
