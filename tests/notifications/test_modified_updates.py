"""A `modified` event of a notification that already has a memory updates that memory.

The phone updates a notification in place (a parcel's status, a growing chat thread);
the memory found by the notification's subject (app id + key) gets the new statement
and the new words instead of a second memory being added. Words only the old version
had are no longer found; the new ones are.
"""

from __future__ import annotations

from pathlib import Path

from companion_memory.memory.records import MemoryRecord, Status
from tests.notifications.harness import Pipeline, event, pipeline


async def live(p: Pipeline) -> list[MemoryRecord]:
    records: list[MemoryRecord] = await p.memories()
    return [r for r in records if r.status is Status.ACTIVE]


async def test_a_modified_event_updates_the_memory_of_its_key(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        p.publish(event("Ihre Sendung kommt morgen zwischen 10 und 14 Uhr", title="DHL",
                        app="de.dhl.paket", key="dhl-1", category="other"))
        await p.processor.run_batch()
        [first] = await live(p)
        p.publish(event("Ihre Sendung liegt in der Packstation 142 zur Abholung bereit",
                        title="DHL", app="de.dhl.paket", key="dhl-1", kind="modified",
                        category="other", minutes=90))
        outcome = await p.processor.run_batch()
        assert outcome.report.extra.get("updated_in_place") == 1
        [record] = await live(p)
        assert record.memory_id == first.memory_id and record.revision == 2
        assert len(record.sources) == 2
        hits = await p.store.recall("Packstation", limit=5)
        assert [h.record.memory_id for h in hits] == [record.memory_id]
        assert await p.store.recall("zwischen", limit=5) == []


async def test_the_same_key_in_another_app_is_another_notification(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        p.publish(event("Dinner moved to Friday at 8", key="k-1", app="net.whatsapp.WhatsApp"))
        await p.processor.run_batch()
        p.publish(event("Parcel arrives on Friday", key="k-1", app="de.dhl.paket",
                        title="DHL", category="other", minutes=5))
        outcome = await p.processor.run_batch()
        assert "updated_in_place" not in outcome.report.extra
        assert len(await live(p)) == 2
