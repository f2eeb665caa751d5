"""The episodes' rules (no model), called in process by `RulesEpisodeExtractor`.

Rules, per episode of the payload (`{"episodes": [...], "related": [...]}`):
- goal achieved (or partial) with steps: the steps become a `device_procedure`
  ("To <goal>: <action> <target> > ..."), citing the evidence its steps cite
  (all evidence when the steps cite none);
- an `error` evidence item followed by later steps in an achieved episode: the
  error and the steps that fixed it become a `device_requirement`;
- goal not achieved with an `error` evidence item: a `device_quirk`;
- nothing of the above: `ignore`.
A related Device Memory with the same subject and kind is left alone when the
text is the same (`ignore`), and superseded (`conflict`) when it differs: a newer
observation of the same procedure means the device changed.
"""

from __future__ import annotations

from typing import Any

from companion_memory.memory.records import TEXT_LIMIT_CHARS, normalize_text

_DETAIL_CHARS = 120


def _clip(text: str, limit: int = TEXT_LIMIT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _step_text(step: dict[str, Any]) -> str:
    return " ".join(p for p in (str(step.get("action", "")), str(step.get("target", ""))) if p)


def _subject(kind: str, goal: str) -> str:
    return _clip(f"{kind}:{normalize_text(goal)}", 80)


def _cited(steps: list[dict[str, Any]], fallback: list[str]) -> list[str]:
    cited = [e for s in steps for e in s.get("evidence", []) if isinstance(e, str)]
    return list(dict.fromkeys(cited)) or fallback


def _item(episode: dict[str, Any], kind: str, text: str, evidence: list[str],
          related: list[dict[str, Any]]) -> dict[str, Any]:
    subject = _subject(kind, str(episode.get("goal", "")))
    item: dict[str, Any] = {
        "episode_id": episode["episode_id"],
        "goal_result": episode.get("goal_result"),
        "action": "add",
        "kind": kind,
        "text": _clip(text),
        "evidence": evidence,
        "subject": subject,
    }
    for record in related:
        if record.get("subject") == subject and record.get("kind") == kind:
            if normalize_text(str(record.get("text", ""))) == normalize_text(item["text"]):
                return {"episode_id": episode["episode_id"],
                        "goal_result": episode.get("goal_result"), "action": "ignore"}
            item["action"] = "conflict"
            item["memory_id"] = record.get("memory_id")
            item["revision"] = record.get("revision")
            break
    return item


def _for_episode(episode: dict[str, Any], related: list[dict[str, Any]]) -> list[dict[str, Any]]:
    goal = str(episode.get("goal", ""))
    result = episode.get("goal_result")
    steps = [s for s in episode.get("steps", []) if isinstance(s, dict)]
    evidence = [e for e in episode.get("evidence", []) if isinstance(e, dict)]
    all_ids = [str(e.get("id")) for e in evidence]
    errors = [e for e in evidence if e.get("kind") == "error"]
    items: list[dict[str, Any]] = []
    if result in ("achieved", "partial") and steps:
        text = f"To {goal}: " + " > ".join(_step_text(s) for s in steps)
        items.append(_item(episode, "device_procedure", text, _cited(steps, all_ids), related))
    if result == "achieved" and errors:
        error = errors[0]
        at = next((s["n"] for s in steps if error.get("id") in s.get("evidence", [])), 0)
        fix = [s for s in steps if isinstance(s.get("n"), int) and s["n"] > at]
        if fix:
            detail = _clip(str(error.get("detail", "")), _DETAIL_CHARS)
            text = f"{goal}: after error \"{detail}\", fixed by " + " > ".join(
                _step_text(s) for s in fix
            )
            cites = [str(error.get("id")), *_cited(fix, [])]
            items.append(_item(episode, "device_requirement", text,
                               list(dict.fromkeys(cites)), related))
    if result == "not_achieved" and errors:
        error = errors[0]
        detail = _clip(str(error.get("detail", "")), _DETAIL_CHARS)
        items.append(_item(episode, "device_quirk", f"{goal}: fails with error \"{detail}\"",
                           [str(error.get("id"))], related))
    if not items:
        items.append({"episode_id": episode["episode_id"], "goal_result": result,
                      "action": "ignore"})
    return items


def episode_fallback(payload: dict[str, Any]) -> dict[str, Any]:
    """The deterministic answer for an episodes batch payload (see the module docstring)."""
    related = [r for r in payload.get("related", []) if isinstance(r, dict)]
    items: list[dict[str, Any]] = []
    for episode in payload.get("episodes", []):
        if isinstance(episode, dict) and isinstance(episode.get("episode_id"), str):
            items.extend(_for_episode(episode, related))
    return {"items": items}
