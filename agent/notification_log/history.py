"""History reads: processed records by the time they were received."""

from __future__ import annotations

from datetime import UTC, datetime

from companion_memory.agent.notification_log.recovery import Recovery
from companion_memory.agent.notification_log.types import NotificationRecord
from companion_memory.storage.jsonl_log import JsonlLog


class HistoryReader:
    """Reads processed records from the log; synchronous (run it on a worker thread)."""

    def __init__(self, *, log: JsonlLog, recovery: Recovery) -> None:
        self._log = log
        self._recovery = recovery

    def processed_between(
        self, start: datetime, end: datetime, limit: int, processed: int
    ) -> list[NotificationRecord]:
        """Records with context id <= `processed` received in [start, end), oldest first."""
        return self._recovery.read(lambda: self._between(start, end, limit, processed))

    def _between(
        self, start: datetime, end: datetime, limit: int, processed: int
    ) -> list[NotificationRecord]:
        start_day = start.astimezone(UTC).date()
        out: list[NotificationRecord] = []
        shards = self._log.shards()
        for i, shard in enumerate(shards):
            # A shard's records were all received before the next shard's day
            # (the newest shard takes records until a later day's begins).
            if i + 1 < len(shards) and shards[i + 1].day <= start_day:
                continue
            if shard.first_id > processed:
                break
            for line in self._log.read_shard(shard.day):
                if line["context_id"] > processed:
                    return out
                record = NotificationRecord.from_line(line)
                if start <= record.received_at < end:
                    out.append(record)
                    if len(out) >= limit:
                        return out
        return out
