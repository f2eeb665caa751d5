"""`companion-memory demo`: the whole pipeline on a bundled day, in a temporary root.

The emulated phone sends `device/data/sample_day.jsonl` (messages from people,
calendar, deliveries, bank one-time codes, marketing; added, modified and removed
events) through the simulated phone link into the ring; the context persists it;
one worker round runs every processor with the deterministic provider (or the
small local model with `--provider llama`). The demo's clock (a `FakeClock`) stands at
noon of that day in the configured zone; it then moves on by the two weeks the log keeps
the day, and the rounds there run the daily sweep, which has consolidated the completed
day into Long-Term memories (dated diary lines citing the day's notifications, written
when the day's Temporary memories are about to leave). The demo prints what was
kept, what was filtered and why (counts by reason, never the filtered text), the
memories, the consolidated day, a few recalls and the round reports. The temporary
root is removed unless `--keep` is given.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from datetime import date, datetime
from datetime import time as clock_time
from importlib import resources
from pathlib import Path
from typing import Any

from companion_memory.agent.sweep.day_input import DEFER_DAYS
from companion_memory.agent.sweep.windows import load_zone
from companion_memory.ble.emulator.replay import replay_over_ancs
from companion_memory.core.clock import FakeClock
from companion_memory.core.errors import StateError
from companion_memory.device.config import parse_config
from companion_memory.device.feed_input import parse_feed
from companion_memory.device.invocation import Invocation
from companion_memory.device.output import print_json, print_round, say
from companion_memory.device.runtime import Runtime
from companion_memory.memory.records import Tier

DEMO_QUERIES = ("dinner Saturday", "dentist appointment", "parcel delivery", "birthday")
SAMPLE_DATE = date(2026, 3, 12)
"""The day the sample notifications were posted; the demo's clock stands at its noon."""
LLAMA_DEMO_EVENTS = 24
"""With the small model each batch costs a model call of a few seconds on two cores,
so the llama demo replays the first part of the day only."""


def sample_day() -> bytes:
    """The bundled day of notifications (JSON Lines)."""
    return resources.files("companion_memory.device").joinpath("data/sample_day.jsonl").read_bytes()


def cmd_demo(inv: Invocation) -> int:
    provider = inv.args.provider
    good, bad = parse_feed(sample_day())
    if bad:  # the bundled file is ours: a bad line is a packaging bug
        raise StateError(f"bundled sample day has {len(bad)} invalid line(s)")
    events = [event for _, event in good]
    if provider == "llama":
        events = events[:LLAMA_DEMO_EVENTS]
    root = Path(tempfile.mkdtemp(prefix="companion-memory-demo-"))
    try:
        result = asyncio.run(_demo(root, provider, events))
    finally:
        if not inv.args.keep:
            shutil.rmtree(root, ignore_errors=True)
    result["root"] = str(root) if inv.args.keep else None
    if inv.json:
        print_json(result)
    else:
        _print(result)
    return 0


async def _demo(root: Path, provider: str, events: list[Any]) -> dict[str, Any]:
    data: dict[str, Any] = {"provider": {"kind": provider}}
    if provider == "llama":
        # Small batches and room for a whole answer: a base model writes long texts, and an
        # answer cut at the token limit is rejected (and retried) rather than half-applied.
        data["intake"] = {"batch_size": 4}
        data["provider"] = {
            "kind": "llama",
            "fallback": "none",
            "max_output_tokens": 320,
            "llama": {"model_path": "small", "n_ctx": 2048, "max_prompt_tokens": 1536},
        }
    config = parse_config(data)
    zone = load_zone(config.sweep.zone)  # read when the settings were checked
    clock = FakeClock(datetime.combine(SAMPLE_DATE, clock_time(12), zone))
    started = time.perf_counter()
    async with Runtime(config, root=root / "root", start_worker=False,
                       clock=clock) as runtime:
        link = await _replay(runtime, events)
        report = await runtime.run_once()
        memories = await runtime.list_memories()
        # the daily sweep consolidates the day once it is over (the first round after its
        # midnight); its diary lines are written when the day's Temporary memories are
        # about to leave, two weeks on
        for later in (1, DEFER_DAYS + 1):
            clock.set_wall(datetime.combine(
                date.fromordinal(SAMPLE_DATE.toordinal() + later), clock_time(0, 30), zone))
            sweep_round = await runtime.run_once()
        for _ in range(DEFER_DAYS):  # each round sweeps at most max_days_per_run days
            if not (await runtime.sweep_status()).pending_dates:
                break
            sweep_round = await runtime.run_once()
        consolidated = [m for m in await runtime.list_memories(tier=Tier.LONG_TERM)
                        if m.memory_id.startswith("sweep-")]
        recalls = []
        for query in DEMO_QUERIES:
            hits = await runtime.recall_memory(query, limit=3)
            recalls.append({
                "query": query,
                "hits": [{"memory_id": h.record.memory_id, "score": round(h.score, 3),
                          "text": h.record.text} for h in hits],
            })
        gaps = [g.to_dict() for g in await runtime.gaps()]
        stats = (await runtime.status()).memory
    notes = report.report_for("notifications")
    return {
        "provider": provider,
        "events": len(events),
        "link": link,
        "kept": {
            "analyzed": notes.analyzed if notes else 0,
            "applied": notes.applied if notes else 0,
            "proposals": dict(notes.proposals) if notes else {},
        },
        "filtered": dict(sorted(notes.filtered.items())) if notes else {},
        "memories": [
            {k: m.to_dict()[k] for k in ("memory_id", "tier", "kind", "text", "sources",
                                         "expires_at")}
            for m in memories
        ],
        "consolidated": [
            {"memory_id": m.memory_id, "kind": m.kind.value, "text": m.text,
             "sources": [s.to_str() for s in m.sources],
             "expires_at": m.expires_at.isoformat() if m.expires_at else None}
            for m in consolidated
        ],
        "memory_stats": stats,
        "recalls": recalls,
        "gaps": gaps,
        "round": report.to_dict(),
        "sweep_round": sweep_round.to_dict(),
        "elapsed_s": round(time.perf_counter() - started, 3),
    }


async def _replay(runtime: Any, events: list[Any]) -> dict[str, Any]:
    """Send the events from an emulated iPhone over ANCS (two bumble devices on one
    in-process link) into the ring, then persist them; without bumble, use the
    simulated feed link."""
    try:
        import bumble  # noqa: F401
    except ImportError:
        totals = await runtime.feed(events)
        return {"link": "simulated feed", "sent": len(events), **totals.to_dict()}
    stats = await replay_over_ancs(events, runtime._event_ring(), zone=runtime.config.sweep.zone)
    totals = await runtime.feed(())
    return {
        "link": "emulated iPhone over ANCS (bumble)",
        "sent": stats.sent,
        **totals.to_dict(),
        "published": stats.published,
        "duplicates": stats.duplicates,
        "link_errors": dict(stats.errors),
    }


def _print(result: dict[str, Any]) -> None:
    link = result["link"]
    say(f"== companion-memory demo ({result['events']} notifications of one day, "
        f"provider {result['provider']}) ==")
    say(f"link: {link['link']}; sent {link['sent']}, persisted {link['persisted']}, "
        f"duplicates {link['duplicates']}, lost {link['lost']}")
    kept = result["kept"]
    say(f"\nkept: {kept['analyzed']} notification(s) analyzed, {kept['applied']} memory write(s); "
        "proposals " + (", ".join(f"{k}={v}" for k, v in sorted(kept["proposals"].items()))
                        or "none"))
    say("filtered (never sent to a model, never stored as memory):")
    for reason, count in result["filtered"].items():
        say(f"  {reason:<22} {count}")
    say(f"\nmemories ({len(result['memories'])}):")
    for m in result["memories"]:
        say(f"  [{m['tier']}/{m['kind']}] {m['text']}")
        say(f"      {m['memory_id']}  sources {', '.join(m['sources'])}")
    say(f"\nthe consolidated day, {DEFER_DAYS + 1} days later (the daily sweep, Long-Term; "
        f"{len(result['consolidated'])}):")
    for m in result["consolidated"]:
        say(f"  [{m['kind']}] {m['text']}")
        say(f"      cites {len(m['sources'])} notification(s); kept until "
            f"{(m['expires_at'] or 'never')[:10]} unless reinforced")
    say("\nrecalls:")
    for item in result["recalls"]:
        say(f"  recall({item['query']!r}):")
        for hit in item["hits"] or [{"text": "(nothing)", "score": "", "memory_id": ""}]:
            say(f"      {hit['score']!s:>6}  {hit['text']}")
    say(f"\ngaps: {len(result['gaps'])}")
    say("\nround report:")

    print_round(result["round"])
    say(f"\nthe last round, {DEFER_DAYS + 1} days later (the daily sweep):")
    print_round(result["sweep_round"])
    say(f"\nfinished in {result['elapsed_s']:.2f} s"
        + (f"; root kept at {result['root']}" if result.get("root") else ""))

