"""The per-batch model contract: every answer the schema allows maps to a valid proposal.

The schema is built from the batch (entries keyed by short index with a constant
anchor, related memories by index, bounded statements), and `read_answer` maps any
schema-valid answer onto the batch. The processor applies contract answers: facts go
Long-Term, events expire after their date, updates land on the related memory, and an
unusable entry gets the deterministic statement on its own.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import orjson

from companion_memory.agent.model.provider import ModelRequest
from companion_memory.agent.model.schema_tools import validate_json
from companion_memory.agent.notifications.contract import (
    STATEMENT_CHARS,
    BatchItem,
    anchor,
    batch_schema,
    output_budget,
    read_answer,
    statement_date,
)
from companion_memory.memory.records import (
    Status,
    Tier,
)
from tests.notifications.contract_items import ITEMS
from tests.notifications.harness import T0, event, pipeline


def answer(**entries: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for index, item in enumerate(ITEMS, 1):
        base = {"about": anchor(item), "a": "skip", "t": "", "k": "event", "r": 0}
        out[str(index)] = {**base, **entries.get(f"e{index}", {})}
    return out


def test_anchors_are_plain_ascii_and_the_schema_pins_them() -> None:
    schema = batch_schema(ITEMS)
    assert list(schema["properties"]) == ["1", "2", "3"]
    assert [anchor(i) for i in ITEMS] == ["Kita Pusteblume Eltern", "Tierarztin Dr Sommer",
                                         "Signal"]
    every_new = {key: {**entry, "a": "new", "t": "Kita outing on Wednesday"}
                 for key, entry in answer().items()}
    assert validate_json(every_new, schema) is None
    wrong = every_new
    wrong["1"]["about"] = "Kita Pusteblume Eltern 🌼"
    assert validate_json(wrong, schema) is not None
    # related targets only from the item's own set; targeted actions only with one
    # and no skip: the triage decided what is kept before the model saw it
    assert schema["properties"]["1"]["properties"]["a"]["enum"] == ["new"]
    assert schema["properties"]["2"]["properties"]["a"]["enum"] == ["new", "same", "update",
                                                                    "cancel"]
    assert validate_json(answer(e1={"a": "skip"}), schema) is not None
    assert schema["properties"]["2"]["properties"]["r"]["enum"] == [0, 1, 2]
    too_long = answer(e1={"a": "new", "t": "x" * (STATEMENT_CHARS + 1)})
    assert validate_json(too_long, schema) is not None
    assert output_budget(ITEMS) >= 3 * (STATEMENT_CHARS + 24)


def test_every_valid_answer_maps_to_a_proposal() -> None:
    mapped = read_answer(answer(
        e1={"a": "new", "t": "Kita outing on Wednesday 4 March"},
        e2={"a": "update", "t": "Vet moved to Friday", "r": 1},
    ), ITEMS)
    assert [m.action if m else None for m in mapped] == ["add", "update", "ignore"]
    assert mapped[0] is not None and mapped[0].when == date(2026, 3, 4)
    assert mapped[1] is not None and mapped[1].target is not None
    assert mapped[1].target.memory_id == "m-1"
    # a targeted action without a target degrades to new, never to an error; a new
    # without a statement is unusable (the processor writes the deterministic one)
    degraded = read_answer(answer(e2={"a": "update", "t": "Vet moved", "r": 0}), ITEMS)
    assert degraded[1] is not None and degraded[1].action == "add"
    cancelled = read_answer(answer(e2={"a": "cancel", "t": "Vet is off", "r": 0}), ITEMS)
    assert cancelled[1] is not None and cancelled[1].action == "add"
    empty = read_answer(answer(e1={"a": "new", "t": ""}, e2={"a": "cancel", "t": "", "r": 0}),
                        ITEMS)
    assert empty[0] is None and empty[1] is None
    # a server that ignores the schema may still say skip: read as ignore
    assert mapped[2] is not None and mapped[2].action == "ignore"
    missing = read_answer({"1": answer()["1"]}, ITEMS)
    assert missing[1] is None and missing[2] is None


def contract_step(entries: dict[str, dict[str, Any]]) -> Any:
    def step(request: ModelRequest) -> str:
        keys = list(request.schema["properties"]) if request.schema else []
        out = {}
        for key in keys:
            about = request.schema["properties"][key]["properties"]["about"]["const"]
            base = {"about": about, "a": "skip", "t": "", "k": "event", "r": 0}
            out[key] = {**base, **entries.get(about, {})}
        return orjson.dumps(out).decode()
    return step


async def test_the_processor_applies_contract_answers(tmp_path: Path) -> None:
    entries = {
        "Tom": {"a": "new", "t": "Max cannot have dairy", "k": "fact"},
        "Anna": {"a": "new", "t": "Dinner with Anna on Friday 6 March at 19:00"},
        "Kessler": {"a": "new", "t": "Your code is 493817 for the login"},
        "Mia": {"a": "new", "t": "Kita party with Mia on 2020-01-01"},  # misread date
    }
    async with pipeline(tmp_path, [contract_step(entries)]) as p:
        p.publish(event("Max verträgt keine Milchprodukte", title="Tom"),
                  event("Dinner Freitag um 7?", title="Anna", minutes=1),
                  event("Your new laptop is ready in room 4.11 on Tuesday", title="Kessler",
                        app="com.microsoft.Office.Outlook", category="email", minutes=2),
                  event("Kitafest am Freitag um 15 Uhr", title="Mia", minutes=3))
        outcome = await p.processor.run_batch()
        report = outcome.report
        assert report.error is None and report.rejected["contains_secret"] == 1
        assert report.extra["fallback_statement"] == 1
        live = {r.text: r for r in await p.memories() if r.status is Status.ACTIVE}
        assert live["Max cannot have dairy"].tier is Tier.LONG_TERM
        dinner = live["Dinner with Anna on Friday 6 March at 19:00"]
        assert dinner.tier is Tier.TEMPORARY and dinner.expires_at is not None
        # the store's Temporary lifetime from the notification, later than the event
        assert dinner.expires_at >= T0 + p.store.ttls[0] > datetime(2026, 3, 7, tzinfo=UTC)
        assert not any("493817" in text for text in live)
        # a date before the notification is a misread one: not an expiry in the past
        party = live["Kita party with Mia on 2020-01-01"]
        assert party.expires_at is not None and party.expires_at > p.clock.now()
        assert any(text.startswith("Kessler by email: ") for text in live)  # deterministic


def test_an_item_at_the_end_of_the_calendar_renders_without_overflow() -> None:
    from zoneinfo import ZoneInfo

    from companion_memory.agent.notifications.contract import render_items

    late = BatchItem(1, datetime(9999, 12, 31, 23, 0, tzinfo=UTC), "Mail", "A", "", "hi", ())
    text = render_items([late], ZoneInfo("Pacific/Kiritimati"))  # UTC+14: past year 9999
    assert "ITEM 1 (Friday 31 December 23:00) Mail, A:" in text


def test_the_event_date_is_read_from_the_statement() -> None:
    today = date(2026, 3, 2)  # a Monday
    cases = {
        "Dinner with Anna on Thursday 5 March at 19:00": date(2026, 3, 5),
        "Vet moved to March 6th at 10:30": date(2026, 3, 6),
        "Parcel arrives on 2026-03-07": date(2026, 3, 7),
        "Termin am 09.03. um 10:30 Uhr": date(2026, 3, 9),
        "Kita closed on 12. März": date(2026, 3, 12),
        "Flight to Lisbon on 5th of May, 2027": date(2027, 5, 5),
        "Bill from 20 February was paid": date(2026, 2, 20),  # a little in the past
        "Advent fair on 10 December": date(2026, 12, 10),  # long past: this year's
        "Christmas dinner on 24 Dec": date(2026, 12, 24),
        "Moved from 4 March to 16 March": date(2026, 3, 16),  # the latest date named
        "Laptop ready in room 4.11 on Tuesday": None,
        "Conference in March 2026": None,  # no day
        "Party on 31 April": None,  # no such day
        "You may 3 times a day": None,  # not a month
    }
    assert {text: statement_date(text, today) for text in cases} == cases


def test_a_statement_date_is_read_from_the_items_local_day() -> None:
    from zoneinfo import ZoneInfo

    late = BatchItem(1, datetime(2026, 3, 1, 23, 30, tzinfo=UTC), "Mail", "A", "", "hi", ())
    entry = {"1": {"about": "A", "a": "new", "t": "Party on 31 December", "k": "event",
                   "r": 0}}
    # 23:30 UTC on 1 March is 2 March in Berlin: 61 days after the last 31 December, so
    # the coming one; in UTC it is 60 days after, still the last one
    berlin = read_answer(entry, [late], ZoneInfo("Europe/Berlin"))[0]
    assert berlin is not None and berlin.when == date(2026, 12, 31)
    utc = read_answer(entry, [late])[0]
    assert utc is not None and utc.when == date(2025, 12, 31)
    no_date = {"1": dict(entry["1"], t="Party with Anna soon")}
    answer = read_answer(no_date, [late])[0]
    assert answer is not None and answer.when is None


async def test_the_model_sees_only_related_memories_about_the_same_thing(
    tmp_path: Path,
) -> None:
    # the lookup ORs the rarest terms, so a memory sharing one word ("Max") comes back;
    # only those sharing two or more terms with the notification are shown to the model
    first = {"Tom": {"a": "new", "t": "Max has swimming at the Stadtbad on Saturday at 9"},
             "Oma": {"a": "new", "t": "Oma left a cake for Max in the fridge"}}
    async with pipeline(tmp_path, [contract_step(first), contract_step({})]) as p:
        p.publish(event("Max hat Samstag um 9 Schwimmen im Stadtbad", title="Tom"),
                  event("Kuchen für Max steht im Kühlschrank", title="Oma", minutes=1))
        assert (await p.processor.run_batch()).report.error is None
        p.provider.requests.clear()
        p.publish(event("Max hat Fieber, kein Schwimmen im Stadtbad", title="Kita",
                        minutes=5))
        assert (await p.processor.run_batch()).report.error is None
        found = await p.store.related("Max hat Fieber, kein Schwimmen im Stadtbad")
        user = p.provider.requests[0].messages[-1].content
    assert {r.text for r in found} >= {"Oma left a cake for Max in the fridge"}  # looked up
    assert "Max has swimming at the Stadtbad on Saturday at 9" in user
    assert "cake" not in user  # but not shown
