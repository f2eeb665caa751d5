"""`IntakeSettings`: how notifications come in and are batched (the `[intake]` table).

`body_limit_bytes` is the cap every phone link applies to a notification body
(cut at a UTF-8 character boundary and flagged `truncated`); it can only lower
the event's own limit (`ble.events.BODY_LIMIT_BYTES`). The ring's capacity and
replay window size the `EventRing`; `consume_limit` and `batch_size` are the
`NotificationProcessor`'s, which checks loose values against these same fields.
`loss_window_s` bounds how long a published notification stays only in RAM: the
`RingWriter` commits within it, so a power cut loses at most that much (below
0.05 s group commit would batch nothing; above a minute is no longer "on arrival").
`noise_model`: besides the rule triage, notifications that the classifier over the
embedding, the phone's category and the text's shape calls noise (`noise_model.py`) are
dropped. On by default: on the tuning, development and held-out corpora it lowers the
junk share and loses no answer (docs/benchmarks.md, "Noise by meaning and shape, on by
default"). It needs the `[memory] embedder` it was trained for; with `embedder = "none"`
only the rules triage.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.ble.events import BODY_LIMIT_BYTES
from companion_memory.core.settings import setting, validate_settings

MIN_BODY_LIMIT_BYTES = 64


@dataclass(frozen=True, slots=True)
class IntakeSettings:
    body_limit_bytes: int = setting(BODY_LIMIT_BYTES, low=MIN_BODY_LIMIT_BYTES,
                                    high=BODY_LIMIT_BYTES, doc="notification body cap")
    consume_limit: int = setting(100, low=1, high=10_000, doc="ring entries per consume")
    batch_size: int = setting(10, low=1, high=100, doc="notifications per model call")
    replay_window: int = setting(4096, low=0, high=1_000_000, doc="fingerprints kept")
    ring_capacity: int = setting(1024, low=1, high=1_000_000, doc="ring entries")
    loss_window_s: float = setting(1.0, low=0.05, high=60.0,
                                   doc="most seconds a notification is only in RAM")
    noise_model: bool = setting(True, doc="drop what the meaning classifier calls noise")

    def __post_init__(self) -> None:
        validate_settings(self)
