"""The Episode: the trace of one task the device agent carried out.

An episode is recorded by the host (`EpisodeRecorder.record`) as a JSON object:

```json
{
  "episode_id": "ep-2026-03-01-wifi",
  "goal": "Turn on Wi-Fi",
  "status": "completed",
  "goal_result": "achieved",
  "started_at": "2026-03-01T09:00:00Z",
  "ended_at": "2026-03-01T09:00:40Z",
  "app": "com.android.settings",
  "firmware": "OS 4.2.1",
  "steps": [
    {"n": 1, "action": "open", "target": "Settings", "observation": "Settings opened"},
    {"n": 2, "action": "tap", "target": "Connections", "observation": "Wi-Fi listed",
     "evidence": ["e1"]},
    {"n": 3, "action": "toggle", "target": "Wi-Fi", "observation": "Wi-Fi on",
     "evidence": ["e2"]}
  ],
  "evidence": [
    {"id": "e1", "kind": "screen", "detail": "Settings > Connections shows Wi-Fi"},
    {"id": "e2", "kind": "setting", "detail": "wifi_enabled=true"}
  ]
}
```

Fields
- `episode_id`: 1-64 characters from `A-Z a-z 0-9 . _ -`, starting with a letter or digit.
- `goal`: non-empty text, at most 500 characters.
- `status`: "completed" | "failed" | "abandoned".
- `goal_result`: "achieved" | "partial" | "not_achieved".
- `started_at`, `ended_at`: RFC 3339 with an offset, from 1900-01-01 up to (not
  including) 9000-01-01 UTC; `ended_at` not before `started_at`.
- `steps`: at most 100 of `{n, action, target, observation, evidence?}`; `n` counts
  1, 2, 3...; `evidence` optionally lists ids of the episode's evidence items.
- `evidence`: at most 100 of `{id, kind, detail}`; `kind` is "screen" | "setting" |
  "error" | "log"; ids unique, same character set as episode ids (at most 32 characters).
- `app`, `firmware`: optional strings (at most 200 characters).

Only a completed episode with at least one evidence item is eligible for Device
Memory; others are stored and ignored with a reason (`ineligible_reason`).
Validation raises `EpisodeError` whose `code` says what was wrong; messages never
carry the episode's text, only field names, ids and limits.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import orjson

from companion_memory.ble.events import InvalidEventError, format_rfc3339, parse_event_time
from companion_memory.core.errors import InvalidInputError

EPISODE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
EVIDENCE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")
GOAL_LIMIT_CHARS = 500
FIELD_LIMIT_CHARS = 1000
META_LIMIT_CHARS = 200
STEPS_LIMIT = 100
EVIDENCE_LIMIT = 100
DEFAULT_MAX_BYTES = 256 * 1024

_TOP_FIELDS = frozenset(
    {"episode_id", "goal", "status", "goal_result", "started_at", "ended_at", "steps",
     "evidence", "app", "firmware"}
)


class EpisodeError(InvalidInputError):
    """An episode was rejected; `code` names the rule (see the module docstring).

    Codes: invalid_json, not_an_object, too_large, missing_id, invalid_id,
    missing_field, invalid_field, unknown_field, duplicate_evidence_id,
    evidence_not_in_trace, duplicate_id_different_content, file_not_found.
    """

    code = "invalid_episode"

    def __init__(self, code: str, reason: str, *, episode_id: str | None = None) -> None:
        self.episode_id = episode_id
        super().__init__(reason, code=code)


class EpisodeStatus(StrEnum):
    COMPLETED = "completed"
    FAILED = "failed"
    ABANDONED = "abandoned"


class GoalResult(StrEnum):
    ACHIEVED = "achieved"
    PARTIAL = "partial"
    NOT_ACHIEVED = "not_achieved"


class EvidenceKind(StrEnum):
    SCREEN = "screen"
    SETTING = "setting"
    ERROR = "error"
    LOG = "log"


@dataclass(frozen=True, slots=True)
class Step:
    n: int
    action: str
    target: str
    observation: str = ""
    evidence: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n, "action": self.action, "target": self.target,
            "observation": self.observation,
        }
        if self.evidence:
            out["evidence"] = list(self.evidence)
        return out


@dataclass(frozen=True, slots=True)
class Evidence:
    id: str
    kind: EvidenceKind
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind.value, "detail": self.detail}


def _text(data: dict[str, Any], key: str, where: str, limit: int, *, required: bool,
          episode_id: str | None) -> str:
    value = data.get(key)
    if value is None:
        if required:
            raise EpisodeError("missing_field", f"{where}{key} is required",
                               episode_id=episode_id)
        return ""
    if not isinstance(value, str):
        raise EpisodeError("invalid_field", f"{where}{key} must be a string",
                           episode_id=episode_id)
    value = value.strip()
    if required and not value:
        raise EpisodeError("invalid_field", f"{where}{key} must not be empty",
                           episode_id=episode_id)
    if len(value) > limit:
        raise EpisodeError(
            "invalid_field",
            f"{where}{key} is {len(value)} characters; at most {limit} are allowed",
            episode_id=episode_id,
        )
    return value


def _enum(data: dict[str, Any], key: str, enum: type[StrEnum], where: str,
          episode_id: str | None) -> Any:
    value = data.get(key)
    allowed = ", ".join(e.value for e in enum)
    if value is None:
        raise EpisodeError("missing_field", f"{where}{key} is required (one of {allowed})",
                           episode_id=episode_id)
    try:
        return enum(value)
    except ValueError:
        raise EpisodeError("invalid_field", f"{where}{key} must be one of {allowed}",
                           episode_id=episode_id) from None


def _time(data: dict[str, Any], key: str, episode_id: str) -> datetime:
    value = data.get(key)
    if value is None:
        raise EpisodeError("missing_field", f"{key} is required (RFC 3339)",
                           episode_id=episode_id)
    try:
        return parse_event_time(value, key)
    except InvalidEventError as err:
        raise EpisodeError("invalid_field", err.reason, episode_id=episode_id) from None


def _list(data: dict[str, Any], key: str, limit: int, episode_id: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise EpisodeError("invalid_field", f"{key} must be a list", episode_id=episode_id)
    if len(value) > limit:
        raise EpisodeError("invalid_field",
                           f"{key} has {len(value)} items; at most {limit} are allowed",
                           episode_id=episode_id)
    return value


@dataclass(frozen=True, slots=True)
class Episode:
    """A validated episode; build it with `Episode.from_dict`."""

    episode_id: str
    goal: str
    status: EpisodeStatus
    goal_result: GoalResult
    started_at: datetime
    ended_at: datetime
    steps: tuple[Step, ...]
    evidence: tuple[Evidence, ...]
    app: str | None = None
    firmware: str | None = None

    @classmethod
    def from_dict(cls, data: Any) -> Episode:
        if not isinstance(data, dict):
            raise EpisodeError("not_an_object", "an episode must be a JSON object")
        raw_id = data.get("episode_id")
        if raw_id is None or raw_id == "":
            raise EpisodeError("missing_id", "episode_id is required")
        if not isinstance(raw_id, str) or not EPISODE_ID_RE.match(raw_id):
            raise EpisodeError(
                "invalid_id",
                "episode_id must be 1-64 characters of A-Z a-z 0-9 . _ - "
                "starting with a letter or digit",
            )
        eid = raw_id
        unknown = sorted(set(data) - _TOP_FIELDS)
        if unknown:
            raise EpisodeError(
                "unknown_field",
                f"unknown field(s) {', '.join(unknown[:5])}; allowed: "
                f"{', '.join(sorted(_TOP_FIELDS))}",
                episode_id=eid,
            )
        goal = _text(data, "goal", "", GOAL_LIMIT_CHARS, required=True, episode_id=eid)
        status = _enum(data, "status", EpisodeStatus, "", eid)
        goal_result = _enum(data, "goal_result", GoalResult, "", eid)
        started = _time(data, "started_at", eid)
        ended = _time(data, "ended_at", eid)
        if ended < started:
            raise EpisodeError("invalid_field", "ended_at is before started_at",
                               episode_id=eid)
        evidence: list[Evidence] = []
        seen: set[str] = set()
        for i, item in enumerate(_list(data, "evidence", EVIDENCE_LIMIT, eid)):
            where = f"evidence[{i}]."
            if not isinstance(item, dict):
                raise EpisodeError("invalid_field", f"evidence[{i}] must be an object",
                                   episode_id=eid)
            ev_id = item.get("id")
            if not isinstance(ev_id, str) or not EVIDENCE_ID_RE.match(ev_id):
                raise EpisodeError(
                    "invalid_field",
                    f"{where}id must be 1-32 characters of A-Z a-z 0-9 . _ -",
                    episode_id=eid,
                )
            if ev_id in seen:
                raise EpisodeError("duplicate_evidence_id",
                                   f"evidence id {ev_id} appears twice", episode_id=eid)
            seen.add(ev_id)
            kind = _enum(item, "kind", EvidenceKind, where, eid)
            detail = _text(item, "detail", where, FIELD_LIMIT_CHARS, required=True,
                           episode_id=eid)
            evidence.append(Evidence(ev_id, kind, detail))
        steps: list[Step] = []
        for i, item in enumerate(_list(data, "steps", STEPS_LIMIT, eid)):
            where = f"steps[{i}]."
            if not isinstance(item, dict):
                raise EpisodeError("invalid_field", f"steps[{i}] must be an object",
                                   episode_id=eid)
            n = item.get("n")
            if not isinstance(n, int) or isinstance(n, bool) or n != i + 1:
                raise EpisodeError("invalid_field", f"{where}n must be {i + 1}",
                                   episode_id=eid)
            refs = item.get("evidence", [])
            if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
                raise EpisodeError("invalid_field",
                                   f"{where}evidence must be a list of evidence ids",
                                   episode_id=eid)
            missing = [r for r in refs if r not in seen]
            if missing:
                raise EpisodeError(
                    "evidence_not_in_trace",
                    f"{where}evidence references {', '.join(missing[:5])}, which is not "
                    f"in this episode's evidence (ids: {', '.join(sorted(seen)) or 'none'})",
                    episode_id=eid,
                )
            steps.append(Step(
                n=n,
                action=_text(item, "action", where, FIELD_LIMIT_CHARS, required=True,
                             episode_id=eid),
                target=_text(item, "target", where, FIELD_LIMIT_CHARS, required=False,
                             episode_id=eid),
                observation=_text(item, "observation", where, FIELD_LIMIT_CHARS,
                                  required=False, episode_id=eid),
                evidence=tuple(dict.fromkeys(refs)),
            ))
        app = _text(data, "app", "", META_LIMIT_CHARS, required=False, episode_id=eid)
        firmware = _text(data, "firmware", "", META_LIMIT_CHARS, required=False,
                         episode_id=eid)
        return cls(
            episode_id=eid, goal=goal, status=status, goal_result=goal_result,
            started_at=started, ended_at=ended, steps=tuple(steps),
            evidence=tuple(evidence), app=app or None, firmware=firmware or None,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "episode_id": self.episode_id,
            "goal": self.goal,
            "status": self.status.value,
            "goal_result": self.goal_result.value,
            "started_at": format_rfc3339(self.started_at),
            "ended_at": format_rfc3339(self.ended_at),
            "steps": [s.to_dict() for s in self.steps],
            "evidence": [e.to_dict() for e in self.evidence],
        }
        if self.app is not None:
            out["app"] = self.app
        if self.firmware is not None:
            out["firmware"] = self.firmware
        return out

    def canonical_bytes(self) -> bytes:
        """The normalized trace as stored on disk (sorted keys, indented)."""
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)

    def digest(self) -> str:
        """sha256 of the normalized trace: same content, same digest."""
        return hashlib.sha256(self.canonical_bytes()).hexdigest()

    @property
    def evidence_ids(self) -> frozenset[str]:
        return frozenset(e.id for e in self.evidence)

    def ineligible_reason(self) -> str | None:
        """None when the episode may teach Device Memory, else a reason code."""
        if self.status is not EpisodeStatus.COMPLETED:
            return f"status_{self.status.value}"
        if not self.evidence:
            return "no_evidence"
        return None


def parse_episode(raw: bytes | str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Episode:
    """Parse and validate an episode from JSON text, enforcing the size bound first."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > max_bytes:
        raise EpisodeError(
            "too_large", f"the episode is {len(data)} bytes; at most {max_bytes} are allowed"
        )
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise EpisodeError(
            "invalid_json",
            f"the episode is not valid JSON (line {err.lineno}, column {err.colno})",
        ) from None
    return Episode.from_dict(value)
