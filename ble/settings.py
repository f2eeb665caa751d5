"""`LinkSettings`: which phone link runs and how it reconnects (the `[link]` table).

`backoff_initial_s` may not exceed `backoff_max_s` (the reconnect `Backoff`'s
rule, checked here at construction). The body cap each session applies is the
intake setting `body_limit_bytes`, handed to the sessions alongside these.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion_memory.core.settings import SettingsError, setting, validate_settings

LINK_KINDS = ("none", "ancs", "android")


@dataclass(frozen=True, slots=True)
class LinkSettings:
    kind: str = setting("none", choices=LINK_KINDS,
                        doc="phone link: ancs = iPhone, android = the companion app")
    address: str = setting("", doc="phone's BLE address; empty = the phone that connected to us")
    adapter: str = setting("", doc="BlueZ adapter, e.g. hci0; empty = bleak's choice")
    advertise: bool = setting(True, doc="advertise the ANCS solicitation (ancs only)")
    local_name: str = setting("companion", doc="advertised name")
    backoff_initial_s: float = setting(1.0, low=0.1, high=3600.0, doc="first reconnect delay")
    backoff_max_s: float = setting(60.0, low=0.1, high=86_400.0, doc="longest reconnect delay")

    def __post_init__(self) -> None:
        validate_settings(self)
        if self.backoff_initial_s > self.backoff_max_s:
            raise SettingsError(
                "backoff_initial_s", self.backoff_initial_s,
                f"at most backoff_max_s ({self.backoff_max_s})",
                problem="must not exceed backoff_max_s",
            )
