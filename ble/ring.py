"""The bounded event ring between the phone link and the notification context.

`publish()` is synchronous and never blocks: BLE callbacks call it. Each accepted
event gets the next sequence number. When the ring is full the oldest entry is
overwritten and counted as lost; a reader that asks for events it can no longer
get is told how many it missed. A replay window drops events whose content
fingerprint was seen among the last `replay_window` accepted events: a cheap
first filter that keeps re-sent events out of the ring. It is bounded, so it is
not what keeps the log free of duplicates; the notification context refuses
every event the retained log already holds when it persists.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from companion_memory.ble.events import NotificationEvent
from companion_memory.core.errors import InvalidInputError

DEFAULT_RING_CAPACITY = 1024
DEFAULT_REPLAY_WINDOW = 4096


@dataclass(frozen=True, slots=True)
class RingEntry:
    seq: int
    event: NotificationEvent


@dataclass(frozen=True, slots=True)
class RingRead:
    """The answer to `events_since`: the entries, how many were lost before them,
    and the sequence number to ask from next time."""

    entries: tuple[RingEntry, ...]
    lost: int
    next_after: int


@dataclass(frozen=True, slots=True)
class RingStatistics:
    capacity: int
    depth: int
    last_seq: int
    published: int
    overwritten: int
    duplicates: int


class EventRing:
    """A bounded, overwrite-oldest ring of `NotificationEvent`s with sequence numbers."""

    def __init__(
        self,
        capacity: int = DEFAULT_RING_CAPACITY,
        *,
        replay_window: int = DEFAULT_REPLAY_WINDOW,
        first_seq: int = 1,
    ) -> None:
        if capacity < 1:
            raise InvalidInputError("ring capacity must be at least 1")
        if replay_window < 0:
            raise InvalidInputError("replay window must be zero or more")
        if first_seq < 1:
            raise InvalidInputError("first_seq must be at least 1")
        self._capacity = capacity
        self.generation = uuid.uuid4().hex[:16]
        """Identifies this ring instance; sequence numbers restart with a new generation."""
        self._entries: deque[RingEntry] = deque(maxlen=capacity)
        self._next_seq = first_seq
        self._replay_window = replay_window
        self._fingerprints: OrderedDict[bytes, None] = OrderedDict()
        self._listeners: list[Callable[[], None]] = []
        self._published = 0
        self._overwritten = 0
        self._duplicates = 0

    @property
    def capacity(self) -> int:
        """How many entries the ring holds before it overwrites the oldest."""
        return self._capacity

    @property
    def last_seq(self) -> int:
        """The sequence number of the newest event ever published (first_seq - 1 if none)."""
        return self._next_seq - 1

    @property
    def replay_window(self) -> int:
        """How many content fingerprints the replay window keeps."""
        return self._replay_window

    def remember(self, fingerprints: Iterable[bytes]) -> int:
        """Seed the replay window with fingerprints of events already taken in (oldest
        first), e.g. from the durable log after a restart, so a phone that re-sends
        what it showed before is not recorded twice. Returns how many are kept."""
        if not self._replay_window:
            return 0
        for fp in fingerprints:
            self._fingerprints[fp] = None
            self._fingerprints.move_to_end(fp)
            if len(self._fingerprints) > self._replay_window:
                self._fingerprints.popitem(last=False)
        return len(self._fingerprints)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after every accepted publish; returns an unsubscribe function.

        Listeners must be cheap and must not block (the worker's `wake()` is one).
        """
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def publish(self, event: NotificationEvent) -> int | None:
        """Append `event`; return its sequence number, or None if it was a replay."""
        if self._replay_window:
            fp = event.fingerprint()
            if fp in self._fingerprints:
                self._fingerprints.move_to_end(fp)
                self._duplicates += 1
                return None
            self._fingerprints[fp] = None
            if len(self._fingerprints) > self._replay_window:
                self._fingerprints.popitem(last=False)
        seq = self._next_seq
        self._next_seq += 1
        if len(self._entries) == self._capacity:
            self._overwritten += 1
        self._entries.append(RingEntry(seq, event))
        self._published += 1
        for listener in tuple(self._listeners):
            listener()
        return seq

    def events_since(self, seq: int, limit: int) -> RingRead:
        """Entries with sequence number > `seq`, oldest first, at most `limit`.

        `lost` counts sequence numbers after `seq` that were overwritten before
        this read (a gap the caller must record).
        """
        if limit < 1:
            raise InvalidInputError("limit must be at least 1")
        if not self._entries:
            return RingRead((), 0, seq)
        oldest = self._entries[0].seq
        lost = max(0, oldest - (seq + 1))
        start = max(seq + 1, oldest)
        offset = start - oldest
        picked = tuple(
            self._entries[i] for i in range(offset, min(len(self._entries), offset + limit))
        )
        next_after = picked[-1].seq if picked else max(seq, start - 1)
        return RingRead(picked, lost, next_after)

    def statistics(self) -> RingStatistics:
        return RingStatistics(
            capacity=self._capacity,
            depth=len(self._entries),
            last_seq=self.last_seq,
            published=self._published,
            overwritten=self._overwritten,
            duplicates=self._duplicates,
        )
