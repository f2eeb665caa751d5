"""The deterministic consolidation of one day: what is kept beyond two weeks, without a model.

The notification log keeps a day for two weeks and its Temporary memories live as long.
What outlives them is written here, once per completed local day, from signals that
exist in every language:

- who: each notification belongs to its sender (`sender_of`): a message's sender as
  the phone names it (the title of a message-category notification), or the app. A
  message whose body carries a bracketed signature ("【Bank】 ...", "[Shop] ...") was
  sent by a service, not written by a person.
- a dated diary line per person and day (`diary_line`): "2026-01-14 (Wed): Peng
  Yuqing on Messages: the exhibition at the city museum; meet at 3?": the gist of each
  of the day's memories from that person, with the names and places they hold, citing
  every notification it covers; a plan (a calendar entry, an event, a reminder, by the
  phone's category) gets its own line too. The apps share one line a day
  (`shared_lines`): "2026-01-14 (Wed): Alipay: Payment at Shengjuefeisi Cafe; Keep: 10
  km run", each app by its titles. The words of the cited notifications that a line
  does not hold are kept as search-only detail, the rarest first (what the store
  holds least of: names, places), bounded (`record_words`, `DayScope.detail_for`), so
  recall finds the line by what was said.
- meaning: the embedder's cosine between the day's memories and the Long-Term ones
  (`MemoryStore.neighbours`), about the same sender (the older memory is their line
  or names them): a fact the day states again or changes (`FACT_SAME`) updates the
  memory that holds it instead of adding a second; a person's day that continues
  earlier memories about them (`LINE_RELATED`) reinforces those, so what keeps coming
  back lives on and what never does expires after the Long-Term TTL.
- repetition within the day: a Temporary fact reinforced twice that day is promoted.

Noise never gets here: the day's notifications go through the same triage as intake
(noise dropped, secrets redacted), and only notifications a processor made a memory of
are consolidated. `sweep_fallback` (agent/sweep/fallback.py) reads the payload that
`gather_day` builds and answers the sweep's schema with these rules; with a model the
same payload's items go to the model instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from companion_memory.agent.notifications.fallback import app_label
from companion_memory.agent.notifications.romanize import name_forms
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.recall import STOPWORDS
from companion_memory.memory.records import TEXT_LIMIT_CHARS, normalize_text
from companion_memory.memory.search_text import fold
from companion_memory.memory.secrets import REDACTED

FACT_SAME = 0.88
"""Cosine (e5, the stored vectors) at or above which a fact from the same sender is the
same fact stated again or changed ("Giulia's new address is ..." twice: 0.91; two
different facts about one person: 0.80-0.85)."""
LINE_RELATED = 0.85
"""Cosine at or above which a person's day continues an earlier memory about them: that
memory is reinforced (it lives the Long-Term TTL from now)."""
RELATED_REINFORCED = 8
"""Earlier memories one person's day reinforces at most."""
REINFORCED_AT_LEAST = 2
"""A Temporary fact reinforced this often during the day is promoted."""
WORDS_SCALE = {"cosine": {"fact": FACT_SAME, "related": LINE_RELATED},
               "words": {"fact": 0.6, "related": 0.5}}
"""The thresholds by measure: without an embedder the sameness of two memories is the
overlap of their words (`day_input.word_overlap`), on its own scale."""
LINE_CHARS = 300
PERSON_GIST_CHARS = 140
APP_GIST_CHARS = 80
PERSON_WORD_BYTES = 200
APP_WORD_BYTES = 60
"""Search-only words kept per notification (UTF-8 bytes): a person's message says more
than an app's push."""
WHO_CHARS = 40
DAY_SUBJECT = "day"
SUBJECT_WHO_CHARS = 80 - len("day 2026-01-14 ")
"""What of the sender's name a day line's subject keeps (subjects hold 80 characters)."""
FACT_KINDS = frozenset({"fact", "preference", "rule", "procedure"})
MESSAGE_CATEGORIES = frozenset({"social", "message", "msg", "email", "chat", "sms", "im"})
PLAN_CATEGORIES = frozenset({"schedule", "event", "calendar", "reminder"})
LINES_PER_DAY = 12
"""Lines of their own a day gives people and plans (calendar entries, events, reminders)
at most, those with the most notifications first; the others join the apps' shared
line (a day's writes are bounded: `SweepSettings.max_writes`)."""
APPS = "apps"
SHARED_PART_CHARS = 160
"""The most one app takes of the day's shared line."""
SOURCES_PER_LINE = 32

_SIGNED = re.compile(r"^\s*(?:【[^】]{1,40}】|\[[^\]]{1,40}\])|【[^】]{1,40}】\s*$")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_REDACTED_WORD = REDACTED.strip("[]")
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def is_message(event: NotificationEvent) -> bool:
    """A message-category notification (a chat, a text, an email)."""
    return event.category.replace(" ", "").casefold() in MESSAGE_CATEGORIES


def signed_by_service(text: str) -> bool:
    """A bracketed signature at the start or end ("【Bank】 ..."): a service sent it."""
    return bool(_SIGNED.search(text))


def app_name(app_id: str) -> str:
    """The app's name: a bundle or package id made readable (`app_label`), or the id
    itself when it already is a name ("Xia Chu Fang")."""
    name = " ".join(app_id.split())
    if " " in name or "." not in name:
        return _cut(name, WHO_CHARS) or "App"
    return app_label(app_id)


def sender_of(event: NotificationEvent) -> tuple[str, str, bool]:
    """(who, app, person): the sender as the phone names it, the app's name, and whether
    a person wrote it. A message's sender is its title; anything else is its app's."""
    app = app_name(event.app_id)
    title = " ".join(event.title.split())
    if is_message(event) and title:
        who = _cut(title, WHO_CHARS)
        return who, app, not signed_by_service(event.body)
    return app, app, False


def _cut(text: str, limit: int) -> str:
    """`text` cut at a word to at most `limit` characters (an ellipsis when cut)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return (head or text[: limit - 1]) + "\u2026"


def _without_prefix(text: str, names: Iterable[str]) -> str:
    """`text` without a leading "<name ...>: " that names the sender or the app."""
    head, sep, rest = text.partition(": ")
    if sep and rest and len(head) <= 80:
        low = head.casefold()
        if any(name and name.casefold() in low for name in names):
            return rest.strip()
    return text.strip()


def is_plan(event: NotificationEvent) -> bool:
    """A calendar entry, an event or a reminder, by the phone's category."""
    return event.category.replace(" ", "").casefold() in PLAN_CATEGORIES


def gist(statement: str, title: str, who: str, app: str, person: bool, *,
         whole: bool = False) -> str:
    """What one notification adds to its sender's line: a person's statement without its
    "who on app:" head; an app's title (the shortest summary it gives) without the app's
    name, or its statement when it has no title or `whole` is set (a plan, whose time
    and place are in the statement; a title the sender uses for every notification)."""
    names = (who, app)
    if person or whole or not title.strip():
        return _cut(_without_prefix(statement, names), PERSON_GIST_CHARS if person
                    else APP_GIST_CHARS)
    return _cut(_without_prefix(title, names), APP_GIST_CHARS)


def candidate_words(event: NotificationEvent) -> list[str]:
    """The words of one notification that may be kept for search: the Latin letters of a
    message's sender named in another script (`romanize.name_forms`: "王磊" -> "wang lei"),
    then its title, subtitle and body, without function words, redaction marks, numbers
    of five digits or more (order and phone numbers) and repeats, in order."""
    seen: set[str] = set()
    out: list[str] = []
    names = " ".join(name_forms(event.title)) if is_message(event) else ""
    for part in (names, event.title, event.subtitle, event.body):
        for word in _WORD.findall(part):
            key = fold(word)
            if key in seen or key in STOPWORDS or key == _REDACTED_WORD or len(key) < 2:
                continue
            if sum(ch.isdigit() for ch in word) >= 5:
                continue
            seen.add(key)
            out.append(word)
    return out


def record_words(words: Sequence[str], person: bool, counts: Mapping[str, int]) -> str:
    """The search-only words kept of one notification: the rarest of `words` in what the
    store holds (`counts`: how many memories hold each; a name or a place is rare, a
    template's words are common), at most PERSON_WORD_BYTES or APP_WORD_BYTES, in their
    order in the notification."""
    limit = PERSON_WORD_BYTES if person else APP_WORD_BYTES
    ranked = sorted(range(len(words)), key=lambda i: (counts.get(words[i], 0), i))
    chosen: set[int] = set()
    size = 0
    for i in ranked:
        cost = len(words[i].encode("utf-8")) + 1
        if size + cost > limit:
            continue
        chosen.add(i)
        size += cost
    return " ".join(words[i] for i in sorted(chosen))


def day_label(day: date) -> str:
    """"2026-01-14 (Wed, January)": how every diary line names its day (the month's
    name too: a question says "in mid-January", not "2026-01")."""
    return f"{day.isoformat()} ({_WEEKDAYS[day.weekday()]}, {_MONTHS[day.month - 1]})"


def day_subject(day: date, who: str) -> str:
    """The subject of a sender's line for a day: one line per sender and day."""
    return f"{DAY_SUBJECT} {day.isoformat()} {normalize_text(who)[:SUBJECT_WHO_CHARS]}"


def diary_line(day: date, who: str, app: str, person: bool, gists: Sequence[str]) -> str:
    """"2026-01-14 (Wed): Peng Yuqing on Messages: the exhibition; meet at 3?" with as
    many of `gists` (in order, each once) as fit LINE_CHARS."""
    where = f" on {app}" if person and app.casefold() not in who.casefold() else ""
    head = f"{day_label(day)}: {who}{where}: "
    parts: list[str] = []
    seen: set[str] = set()
    for item in gists:
        key = normalize_text(item)
        if not key or key in seen:
            continue
        candidate = "; ".join([*parts, item])
        if parts and len(head) + len(candidate) > LINE_CHARS:
            break
        seen.add(key)
        parts.append(item)
    return _cut(head + "; ".join(parts), TEXT_LIMIT_CHARS)


def names_sender(text: str, subject: str | None, who: str) -> bool:
    """Whether a memory is about `who`: a diary line of theirs (its subject names them),
    or a statement that names them as a whole word."""
    if subject is not None and subject.startswith(f"{DAY_SUBJECT} "):
        return subject.split(" ", 2)[-1] == normalize_text(who)[:SUBJECT_WHO_CHARS]
    return re.search(rf"(?<!\w){re.escape(who)}(?!\w)", text, re.IGNORECASE) is not None


def is_day_line(item: dict[str, Any]) -> bool:
    subject = item.get("subject")
    return isinstance(subject, str) and subject.startswith(f"{DAY_SUBJECT} ")


def reaches(item: dict[str, Any], level: str) -> bool:
    """Whether a neighbour's sameness reaches the threshold `level` ("fact" or
    "related") of its measure."""
    scale = WORDS_SCALE.get(str(item.get("measure", "cosine")))
    value = item.get("cosine")
    return scale is not None and isinstance(value, (int, float)) and value >= scale[level]


def _best(neighbours: Sequence[dict[str, Any]], level: str, taken: set[str], *,
          lines: bool) -> dict[str, Any] | None:
    for item in neighbours:
        if item.get("memory_id") in taken or not item.get("same_sender"):
            continue
        if lines != is_day_line(item):
            continue
        if not lines and item.get("kind") not in FACT_KINDS:
            continue
        if reaches(item, level):
            return item
    return None


def consolidate(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The day's candidates from the payload `gather_day` built (see the module
    docstring): facts first (merge, amend, promote), then the diary lines, then the
    reinforcements."""
    try:
        day = date.fromisoformat(str(payload.get("date")))
    except ValueError:
        return []
    groups = payload.get("groups")
    if not isinstance(groups, list):
        return []
    facts: list[dict[str, Any]] = []
    own: list[tuple[dict[str, Any], str, list[str]]] = []  # people's and plans' lines
    shared: list[tuple[str, list[str], list[str]]] = []  # (app, gists, sources)
    reinforce: list[dict[str, Any]] = []
    taken: set[str] = set()
    for group in groups:
        if not isinstance(group, dict) or not group.get("sources"):
            continue
        who, app, person = str(group["who"]), str(group["app"]), bool(group.get("person"))
        sources = [str(s) for s in group["sources"]]
        facts.extend(_facts(group, sources, taken))
        gists = [str(g) for g in group.get("gists", []) if str(g).strip()]
        if not gists:
            continue
        if not person and not group.get("plan"):
            shared.append((who, gists, sources))
            continue
        line: dict[str, Any] = {
            "action": "add", "kind": "event", "subject": day_subject(day, who),
            "text": diary_line(day, who, app, person, gists), "sources": sources,
        }
        if group.get("until"):
            line["until"] = group["until"]
        own.append((line, who, gists))
        if person:  # a person's day keeps what is known about them alive
            reinforce.extend(_reinforcements(group.get("neighbours", []), sources, taken))
    if len(own) > LINES_PER_DAY:  # the fewest-sourced ones join the shared lines
        ranked = sorted(range(len(own)), key=lambda i: (-len(own[i][0]["sources"]), i))
        keep = set(ranked[:LINES_PER_DAY])
        shared.extend((who, gists, line["sources"])
                      for i, (line, who, gists) in enumerate(own) if i not in keep)
        own = [own[i] for i in sorted(keep)]
    return [*facts, *(line for line, _, _ in own), *shared_lines(day, shared), *reinforce]


def _facts(group: dict[str, Any], sources: list[str], taken: set[str]
           ) -> list[dict[str, Any]]:
    """A fact the day states again or changes updates the memory that holds it (merge a
    Long-Term fact a processor wrote today into it; amend it from a Temporary fact);
    a Temporary fact reinforced twice that day is promoted."""
    out: list[dict[str, Any]] = []
    for fact in group.get("facts", []):
        same = _best(fact.get("neighbours", []), "fact", taken, lines=False)
        fact_sources = [str(s) for s in fact.get("sources", [])] or sources
        if same is not None:
            taken.add(str(same["memory_id"]))
            if fact.get("tier") == "long_term":
                out.append({"action": "merge", "memory_id": same["memory_id"],
                            "from_id": fact["memory_id"], "text": fact["text"],
                            "sources": fact_sources})
            else:
                out.append({"action": "amend", "memory_id": same["memory_id"],
                            "text": fact["text"],
                            "sources": [*fact_sources, f"memory:{fact['memory_id']}"]})
        elif fact.get("tier") == "temporary" and \
                int(fact.get("reinforced_in_window", 0)) >= REINFORCED_AT_LEAST:
            out.append({"action": "promote", "memory_id": fact["memory_id"],
                        "sources": [f"memory:{fact['memory_id']}"]})
    return out


def _reinforcements(neighbours: Sequence[dict[str, Any]], sources: list[str],
                    taken: set[str]) -> list[dict[str, Any]]:
    """The earlier memories about the same person that the day continues (at least
    LINE_RELATED alike), at most RELATED_REINFORCED."""
    out: list[dict[str, Any]] = []
    for item in neighbours:
        if len(out) >= RELATED_REINFORCED:
            break
        if item.get("memory_id") in taken or not item.get("same_sender") or \
                not reaches(item, "related"):
            continue
        taken.add(str(item["memory_id"]))
        out.append({"action": "reinforce", "memory_id": item["memory_id"],
                    "sources": sources})
    return out


def shared_lines(day: date, apps: Sequence[tuple[str, list[str], list[str]]]
                 ) -> list[dict[str, Any]]:
    """The day's line of the apps' notifications (more lines when one would hold more
    than the memory text limit or SOURCES_PER_LINE notifications): "2026-01-14 (Wed):
    Alipay: Payment at Shengjuefeisi Cafe; Keep: 10 km run, Monthly report"."""
    out: list[dict[str, Any]] = []
    head = f"{day_label(day)}: "
    parts: list[str] = []
    sources: list[str] = []

    def flush() -> None:
        if parts:
            n = len(out) + 1
            out.append({"action": "add", "kind": "event",
                        "subject": day_subject(day, APPS if n == 1 else f"{APPS} {n}"),
                        "text": head + "; ".join(parts), "sources": list(sources)})
            parts.clear()
            sources.clear()

    for who, gists, cited in apps:
        seen: list[str] = []
        for item in gists:
            if normalize_text(item) not in {normalize_text(g) for g in seen}:
                seen.append(item)
        part = _cut(f"{who}: {', '.join(seen)}", SHARED_PART_CHARS)
        if parts and (len(head) + len("; ".join([*parts, part])) > TEXT_LIMIT_CHARS
                      or len(sources) + len(cited) > SOURCES_PER_LINE):
            flush()
        parts.append(part)
        sources.extend(cited[:SOURCES_PER_LINE])
    flush()
    return out
