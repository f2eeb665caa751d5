"""The data commands: config, feed, once, recall, forget, export, gaps, doctor, episode,
sweep.

Commands that write (feed, once, episode, forget, sweep reconcile) open a `Runtime`,
which takes the root's lock, so they refuse to run beside the root's owner (the
daemon, a host's embedded `Runtime`, another writing command); read commands (recall,
export, gaps, doctor, sweep status) work beside it: gaps and sweep status read the
owner's status file; `doctor --repair` writes only the search index, in one SQLite
transaction, so it too may run beside the owner. Each prints text, or JSON with
`--json`. `cli.py` has already checked the configuration and, for every command but
the writers that create it, that the root exists.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from companion_memory.agent.model.settings import ProviderConfigError
from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.ble.ring import EventRing
from companion_memory.device.config import Config, _toml_value, default_toml
from companion_memory.device.errors import UsageError
from companion_memory.device.feed_input import (
    FEED_REJECTIONS_LISTED,
    FeedReader,
    open_input,
    read_input,
)
from companion_memory.device.invocation import Invocation, open_store, run_locked
from companion_memory.device.lock import EMBEDDED, LockHolder, read_holder
from companion_memory.device.models import CATALOG, fetch_model, models_dir
from companion_memory.device.output import (
    print_json,
    print_jsonl,
    print_round,
    say,
    terminal_safe,
    warn,
)
from companion_memory.device.progress import Progress
from companion_memory.device.providers import provider_settings
from companion_memory.device.reports import read_status
from companion_memory.memory.records import Tier
from companion_memory.memory.store import StoreHealth
from companion_memory.storage.fs import RealFileSystem

if TYPE_CHECKING:
    from companion_memory.device.runtime import Runtime

T = TypeVar("T")


# commands --------------------------------------------------------------------------


def cmd_config(inv: Invocation) -> int:
    if getattr(inv.args, "defaults", False):
        if inv.json:  # every default as data (the TOML file's values, without comments)

            print_json(Config().to_dict())
        else:
            sys.stdout.write(default_toml())
        return 0
    config = inv.config
    api_env = config.provider.openai.api_key_env
    problem = _provider_file_problem(config)
    data = {
        "root": str(inv.root),
        "config_file": config.source,
        "config": config.to_dict(),
        "secrets": {api_env: "set" if inv.env.get(api_env) else "not set"} if api_env else {},
        "problems": [problem] if problem else [],
    }
    if inv.json:
        print_json(data)
    else:
        say(f"# root: {data['root']}")
        say(f"# config file: {data['config_file'] or '(none: defaults)'}")
        for name, state in data["secrets"].items():
            say(f"# secret ${name}: {state}")
        _print_toml(data["config"], "")
    if problem:
        # The daemon still starts with such a file (intake goes on, work stays pending);
        # `config` is where an operator is told, with a non-zero exit status.
        print(f"companion-memory: {problem}", file=sys.stderr)
        return 2
    return 0


def _provider_file_problem(config: Any) -> str | None:
    """The model file check of the provider settings, as one line (None when fine)."""

    try:
        provider_settings(config).check_files()
    except ProviderConfigError as err:
        return f"provider.llama.{err.key}: {err.reason}" if err.key == "model_path" else err.reason
    return None


def _print_toml(table: dict[str, Any], prefix: str) -> None:
    nested = []
    for key, value in table.items():
        if isinstance(value, dict):
            nested.append((key, value))
        else:
            say(f"{key} = {_toml_value(value)}")
    for key, value in nested:
        say(f"\n[{prefix}{key}]")
        _print_toml(value, f"{prefix}{key}.")


def cmd_feed(inv: Invocation) -> int:
    """Stream FILE in bounded batches: each batch is validated (a bad line is reported
    on stderr with its number, alone) and its good events are persisted before the
    next batch is read."""

    counts = {"accepted": 0, "rejected": 0}
    listed: list[dict[str, Any]] = []
    progress = Progress("feed", None)

    async def body(runtime: Runtime) -> dict[str, Any]:
        totals: dict[str, Any] = {}
        reader = FeedReader(handle)
        while (batch := await asyncio.to_thread(reader.next_batch)) is not None:
            good, bad = batch
            for item in bad:
                warn(f"companion-memory: feed line {item['line']}: {item['reason']}")
            counts["accepted"] += len(good)
            counts["rejected"] += len(bad)
            listed.extend(bad[:max(0, FEED_REJECTIONS_LISTED - len(listed))])
            if good:
                _add_totals(totals, (await runtime.feed(event for _, event in good)).to_dict())
                if totals.get("refused_at_level"):
                    break
            progress.update(counts["accepted"])
        if not totals:
            totals = (await runtime.feed(())).to_dict()
        return totals

    with open_input(inv.args.file) as handle:
        try:
            totals = run_locked(inv, "feed", body)
        finally:
            progress.close()
    accepted, rejected = counts["accepted"], counts["rejected"]
    summary = {"accepted": accepted, "rejected": rejected, "rejections": listed, **totals}
    if totals.get("refused_at_level"):
        if inv.json:
            print_json(summary)
        print(f"companion-memory: feed refused: notification intake is paused at storage "
              f"level {totals['refused_at_level']}; nothing was persisted; free space under "
              f"{inv.root} and feed again", file=sys.stderr)
        return 1
    if inv.json:
        print_json(summary)
    else:
        say(f"accepted {accepted} event(s), rejected {rejected}; persisted "
            f"{totals['persisted']}, duplicates {totals['duplicates']}, lost {totals['lost']}"
            + (" (intake paused by storage level)" if totals["paused"] else ""))
    return 2 if rejected else 0


def _add_totals(into: dict[str, Any], more: dict[str, Any]) -> None:
    """Sum one batch's feed totals into the whole feed's (flags and levels are kept)."""
    for key, value in more.items():
        if isinstance(value, bool):
            into[key] = bool(into.get(key)) or value
        elif isinstance(value, int):
            into[key] = int(into.get(key) or 0) + value
        elif value is not None or key not in into:
            into[key] = value


def cmd_once(inv: Invocation) -> int:
    max_batches = inv.args.max_batches
    if max_batches < 1:
        raise UsageError(f"--max-batches {max_batches}: must be at least 1")

    async def body(runtime: Runtime) -> dict[str, Any]:
        progress = Progress("once: pending", None)
        ticker = None
        if progress.enabled:
            async def tick() -> None:
                while True:
                    progress.update(await runtime.pending_count())
                    await asyncio.sleep(0.2)

            ticker = asyncio.create_task(tick())
        try:
            report = await runtime.run_once(max_batches=max_batches)
        finally:
            if ticker is not None:
                ticker.cancel()
            progress.close()
        return report.to_dict()  # the runtime appended it to the day's report file

    data = run_locked(inv, "once", body)
    if inv.json:
        print_json(data)
    else:
        print_round(data)
    return 0


def _tiers(values: list[str] | None) -> Any:
    if not values:
        return (Tier.TEMPORARY, Tier.LONG_TERM)
    return tuple(dict.fromkeys(Tier(v) for v in values))


def hit_dict(record: Any, score: float | None = None) -> dict[str, Any]:
    data: dict[str, Any] = record.to_dict()
    if score is not None:
        data = {"score": round(score, 4), **data}
    return data


def print_record(data: dict[str, Any]) -> None:
    score = f"  score {data['score']}" if "score" in data else ""
    say(f"{data['memory_id']}  {data['tier']}  rev {data['revision']}  {data['authority']}"
        f"  {data['status']}{score}")
    say(f"  {terminal_safe(data['text'], one_line=True)}")  # a newline cannot forge a line
    say(f"  sources: {', '.join(data['sources'])}; expires: {data['expires_at'] or 'never'}")


def cmd_recall(inv: Invocation) -> int:
    limit = inv.args.limit
    if not 1 <= limit <= 1000:
        raise UsageError(f"--limit {limit}: must be between 1 and 1000")
    if not inv.args.query.strip():
        raise UsageError("QUERY is empty; give words to search for")
    tiers = _tiers(inv.args.tier)

    async def body() -> list[dict[str, Any]]:
        async with open_store(inv) as store:
            hits = await store.recall(inv.args.query, limit=limit, tiers=tiers)
            return [hit_dict(h.record, h.score) for h in hits]

    hits = asyncio.run(body())
    if inv.json:
        print_json(hits)
    elif not hits:
        say("no memories match")
    else:
        for item in hits:
            print_record(item)
    return 0


def cmd_forget(inv: Invocation) -> int:
    reason = inv.args.reason.strip()
    if not reason:
        raise UsageError("--reason is empty; say why the memory is rejected")

    async def body(runtime: Runtime) -> dict[str, Any]:
        return hit_dict(await runtime.forget(inv.args.memory_id, reason))

    inv.existing_root()  # nothing to forget in a root that does not exist
    data = run_locked(inv, "forget", body)
    if inv.json:
        print_json(data)
    else:
        say(f"forgot {data['memory_id']} (revision {data['revision']}, {data['status']})")
    return 0


def cmd_export(inv: Invocation) -> int:
    async def body() -> list[dict[str, Any]]:
        async with open_store(inv) as store:
            return list(await store.export())

    print_jsonl(asyncio.run(body()))
    return 0


def _health_dict(health: StoreHealth) -> dict[str, Any]:
    structure = health.structure
    return {
        "ok": health.ok,
        "problems": list(health.problems),
        "database_ok": health.database_ok,
        "active_memories": health.active_rows,
        "indexed_memories": health.indexed_rows,
        "index_levels": structure.levels if structure is not None else 0,
        "index_segments": structure.segments if structure is not None else 0,
    }


def _say_health(label: str, health: dict[str, Any]) -> None:
    state = "ok" if health["ok"] else "PROBLEMS: " + ", ".join(health["problems"])
    say(f"{label}: {state}; database {'ok' if health['database_ok'] else 'corrupt'}; "
        f"{health['indexed_memories']} of {health['active_memories']} live memories indexed; "
        f"index {health['index_levels']} levels, {health['index_segments']} segments")


def cmd_doctor(inv: Invocation) -> int:
    """Check the store; with --repair rebuild the index and check again. Exit 0 when the
    store ends healthy, 1 when a problem remains."""
    repair = bool(inv.args.repair)

    async def body() -> dict[str, Any]:
        async with open_store(inv) as store:
            before = await store.check()
            if not repair:
                return {"check": _health_dict(before)}
            result = await store.repair_index()
            return {"check": _health_dict(result.before), "repaired": result.indexed,
                    "after": _health_dict(result.after)}

    data = asyncio.run(body())
    final = data.get("after", data["check"])
    if inv.json:
        print_json(data)
    else:
        _say_health("store", data["check"])
        if "after" in data:
            say(f"repaired: the index was rebuilt from {data['repaired']} memories")
            _say_health("after repair", data["after"])
        elif not final["ok"]:
            say("run `companion-memory doctor --repair` to rebuild the search index")
    return 0 if final["ok"] else 1


def _long_lived(holder: LockHolder | None) -> bool:
    """Whether the root's owner is the daemon or a host's `Runtime`: it keeps the status
    file fresh, and the log is being written, so readers take the figures from there."""
    return holder is not None and holder.command in ("run", EMBEDDED)


def cmd_gaps(inv: Invocation) -> int:
    holder = read_holder(inv.existing_root())
    if _long_lived(holder):
        snapshot = read_status(RealFileSystem(), inv.root) or {}
        gaps = snapshot.get("gaps", {}).get("all", [])
    else:
        gaps = asyncio.run(_read_gaps(inv.root))
    if inv.json:
        print_json(gaps)
    elif not gaps:
        say("no gaps recorded")
    else:
        for g in gaps:
            span = f"{g.get('first')}..{g.get('last')}" if g.get("first") is not None else "-"
            say(f"{g.get('at')}  {g.get('kind'):<15} ids {span:<12} count {g.get('count')}"
                f"  {g.get('reason')}")
    return 0


async def _read_gaps(root: Path) -> list[dict[str, Any]]:
    """The gaps, read without the lock and without changing a byte: a torn tail or a
    damaged line is shown as the gap a writing command would record, never repaired."""

    ctx = await NotificationContext.open(root, EventRing(replay_window=0), read_only=True)
    try:
        return [g.to_dict() for g in await ctx.gaps()]
    finally:
        await ctx.close()


def cmd_episode(inv: Invocation) -> int:
    bound = inv.config.episodes.max_bytes
    raw = read_input(inv.args.file, max_bytes=bound)
    if len(raw) > bound:  # before parsing: a huge file is never parsed, nor read whole
        raise UsageError(f"{inv.args.file}: the episode is over {bound} bytes; at most "
                         f"{bound} are allowed (episodes.max_bytes)")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise UsageError(f"{inv.args.file}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{inv.args.file}: an episode must be a JSON object")

    async def body(runtime: Runtime) -> dict[str, Any]:
        result = await runtime.record_episode(data)
        return {"episode_id": result.episode_id, "path": str(result.path),
                "eligible": result.eligible, "reason": result.reason,
                "duplicate": result.duplicate}

    out = run_locked(inv, "episode", body)
    if inv.json:
        print_json(out)
    else:
        state = "eligible" if out["eligible"] else f"stored, not eligible ({out['reason']})"
        dup = " (already recorded)" if out["duplicate"] else ""
        say(f"recorded episode {out['episode_id']}: {state}{dup}")
    return 0


def cmd_sweep(inv: Invocation) -> int:
    action = inv.args.sweep_command
    holder = read_holder(inv.existing_root())
    if action == "status" and _long_lived(holder):
        data = (read_status(RealFileSystem(), inv.root) or {}).get("sweep", {})
    else:
        async def body(runtime: Runtime) -> dict[str, Any]:
            if action == "reconcile":
                return (await runtime.sweep_reconcile()).to_dict()
            return (await runtime.sweep_status()).to_dict()

        data = run_locked(inv, f"sweep {action}", body)
    if inv.json:
        print_json(data)
    else:
        for key, value in data.items():
            shown = orjson.dumps(value).decode() if isinstance(value, dict | list) else value
            say(f"{key}: {shown}")
    return 0


def cmd_model(inv: Invocation) -> int:
    folder = Path(inv.args.dest).expanduser() if getattr(inv.args, "dest", None) else \
        models_dir(inv.env)
    if inv.args.model_command == "list":
        rows = [{"name": spec.name, "description": spec.description, "licence": spec.licence,
                 "bytes": spec.size, "sha256": spec.sha256,
                 "path": str(folder / spec.filename),
                 "fetched": (folder / spec.filename).exists()} for spec in CATALOG.values()]
        if inv.json:
            print_json(rows)
        else:
            for row in rows:
                mark = "fetched" if row["fetched"] else "not fetched"
                say(f"{row['name']:<30} {row['description']}  [{mark}]  {row['path']}")
        return 0
    path, fetched = fetch_model(
        inv.args.name, dest_dir=folder,
        progress=None if inv.json else lambda message: print(message, file=sys.stderr),
    )
    if inv.json:
        print_json({"name": inv.args.name, "path": str(path), "fetched": fetched})
    else:
        state = "fetched and verified" if fetched else "already there, verified"
        say(f"{inv.args.name}: {path} ({state})")
        say(f'use it with: [provider]\nkind = "llama"\n[provider.llama]\nmodel_path = "{path}"')
    return 0
