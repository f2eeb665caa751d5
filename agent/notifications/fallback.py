"""The deterministic Temporary Memory fallback for the notification scenario (the
offline default; no model).

No model: one Temporary memory per meaningful notification, as a short, bounded
statement of who, where and what, the way a person jots a note ("Anna on WhatsApp:
Dinner on Friday 4 Dec at 8?", "Landlord by email: The heating technician will come
on Monday 7 Dec between 8 and 12", "Calendar: Dentist appointment, tomorrow (Wed 2 Dec)
10:00 at Dr. Weber's"); an email names its subject ("Nora by email about Board meeting
moved to Room 4: ..."). It is never the copied body: only the first sentence is kept,
cut at its last whole clause when it is long. Every day word gets its date from the
posting time (`agent.notifications.dates`), and the memory of an event expires when
the first day it names is over (the proposal's `end`). When a related memory already
says exactly that, the fallback reinforces it instead of adding a copy. A
person-to-person message in which the sender states a lasting fact about themselves
("I'm allergic to hazelnuts") becomes that fact instead, as a Long-Term memory
("Giulia is allergic to hazelnuts"; `agent.notifications.lasting`). The rules extractor
(`agent.notifications.extractor.RulesNotificationExtractor`) calls `notification_fallback`
in process on the batch's items (`rules_input`), and validates its proposals.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, time, timedelta
from typing import Any

from companion_memory.agent.notifications.corrections import correction
from companion_memory.agent.notifications.dates import aware_time, day_mentions, with_dates
from companion_memory.agent.notifications.filters import is_pleasantry
from companion_memory.agent.notifications.lasting import lasting_fact
from companion_memory.memory.records import normalize_text
from companion_memory.memory.search_text import CJK_CHARS

SCENARIO = "notifications"
SENDER_CHARS = 40
TOPIC_WORDS = 14
TOPIC_CHARS = 110
SUBJECT_WORDS = 10
SUBJECT_CHARS = 80
"""What of an email's subject its statement keeps."""
MIN_CLAUSE_WORDS = 4

_GENERIC_SEGMENTS = frozenset(
    {"android", "app", "apps", "mobile", "ios", "client", "messenger", "phone", "com", "org"}
)
_KNOWN_APPS = {
    "gm": "Gmail", "mobilesms": "Messages", "mobilecal": "Calendar", "mobilemail": "Mail",
    "talk": "Google Chat", "katana": "Facebook", "orca": "Messenger", "tgios": "Telegram",
}
_CATEGORY_NOUN = {
    "social": "message", "email": "email", "schedule": "event", "other": "update",
    "business": "update", "finance": "update", "health": "update", "travel": "update",
    "message": "message",
    "msg": "message", "call": "call", "missedcall": "missed call", "incomingcall": "call",
    "voicemail": "voicemail", "news": "news", "reminder": "reminder", "event": "event",
    "alarm": "alarm", "transport": "update", "navigation": "update",
    "businessandfinance": "update", "healthandfitness": "update", "location": "update",
}
# A sentence ends at ! ? ; a newline, a CJK 。！？, or a full stop followed by a space that
# is not a full stop inside a sentence (`_ends_at_period`).
_ENDER = re.compile(r"[!?;\n\u3002\uff01\uff1f]+|\.(?=\s|$)")
_SHORT_WORD = re.compile(r"(?<!\w)[^\W\d_]{1,3}$")
_LONE_NUMBER = re.compile(r"(?<![\w:,.])\d{1,2}$")
"""A number of one or two digits on its own before a full stop: a day or an ordinal ("am
22. März", "2. OG"); a time, an amount, a longer number or the end of a whole date ("um
20:10.", "1.823,44.", "Zimmer 512.", "am 24.3.") can end a sentence."""
_CLAUSE_OPENS = re.compile(r"(?:^|[,:;.(\[\u2013\u2014-])\s*$")
_CJK = re.compile(f"[{CJK_CHARS}]")
_PERSON_NOUNS = frozenset({"message", "email", "call", "missed call", "voicemail"})
_WORD = re.compile(r"\S+")


def app_label(app_id: str) -> str:
    """A readable app name from a bundle or package id ("net.whatsapp.WhatsApp" -> "WhatsApp")."""
    parts = [p for p in re.split(r"[.\s]+", app_id.strip()) if p]
    for part in reversed(parts):
        low = part.casefold()
        if low in _KNOWN_APPS:
            return _KNOWN_APPS[low]
        if low not in _GENERIC_SEGMENTS and len(part) > 1:
            return part[0].upper() + part[1:]
    return app_id.strip()[:SENDER_CHARS] or "App"


def _bounded(text: str, words: int, chars: int) -> str:
    picked = _WORD.findall(text)[:words]
    out = ""
    for word in picked:
        candidate = f"{out} {word}".strip()
        if len(candidate) > chars:
            if not out:  # one long word: a sentence written without spaces (CJK)
                out = candidate[:chars]
            break
        out = candidate
    return out.strip(" ,:-")


def _ends_at_period(text: str, at: int) -> bool:
    """Whether the full stop at `text[at]` (followed by a space or the end) ends a
    sentence. Structure only, no list of abbreviations in any language. It does not
    when what follows starts with a digit or a lower-case letter ("ca. drei", "Nr. 5"),
    nor when it closes a day or an ordinal ("am 22. März", `_LONE_NUMBER`) or an
    abbreviation (`_abbreviation`: "Dr. Weber", "ul. Marszałkowska", "z.B. Montag").
    A doubtful full stop keeps two sentences together, which costs less than cutting a
    fact in half (the statement is bounded anyway)."""
    following = text[at + 1 :].lstrip()
    if not following:
        return True  # the text's last full stop
    if following[:1].isdigit() or following[:1].islower():
        return False
    if _LONE_NUMBER.search(text, 0, at):
        return False
    word = _SHORT_WORD.search(text, 0, at)
    return word is None or not _abbreviation(text, word.start(), word.group())


def _abbreviation(text: str, start: int, word: str) -> bool:
    """Whether a word of one to three letters before a full stop reads as an abbreviation:
    a single letter ("z.B.", "J. Smith"); a capitalized one ("Dr.", "St.", "Nr.", "Min.";
    a short name or noun at the end of a sentence, "um 10 Uhr.", keeps the next sentence
    along); a lower-case one without a vowel ("bzw.") or opening a clause or following
    another abbreviation (", ul. Marszałkowska", "Dr. med. Jana"). A lower-case short
    word that closes a sentence has a vowel and follows another word of its clause
    ("liegt vor.", "call me."); an all-capital one is a word or a code ("said YES.")."""
    if len(word) == 1 or (word[0].isupper() and word[1:].islower()):
        return True
    if word.islower():
        return not _has_vowel(word) or _CLAUSE_OPENS.search(text, 0, start) is not None
    return False


def _has_vowel(word: str) -> bool:
    """Whether a word has a vowel letter (a Latin a e i o u y, accents aside); a word of
    another script counts as having one."""
    for ch in unicodedata.normalize("NFD", word.casefold()):
        if ch in "aeiouy" or (ch.isalpha() and ord(ch) > 0x24F):
            return True
    return False


def _sentence_ends(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence ender of `text`, in order."""
    return [
        (m.start(), m.end()) for m in _ENDER.finditer(text)
        if m.group() != "." or _ends_at_period(text, m.start())
    ]


def _split_first(text: str) -> tuple[str, str]:
    """The first sentence of `text` (without its ender) and what follows the ender."""
    ends = _sentence_ends(text)
    if not ends:
        return text, ""
    start, end = ends[0]
    return text[:start], text[end:]


def _weight(text: str) -> int:
    """About how many words `text` holds: its space-separated words, and a word per two
    characters of a script written without spaces (Chinese, Japanese)."""
    return len(text.split()) + len(_CJK.findall(text)) // 2


def _first_sentence(text: str) -> str:
    """The first sentence of `text`, a prefix of it. A first sentence too short to say
    anything (fewer than MIN_CLAUSE_WORDS words: "Dzień dobry.", "Hi!", "Flight
    cancelled.") takes the next one along when that one has a number or a few words, so
    a greeting the filters do not know, in whatever language, does not stand for the
    message."""
    ends = _sentence_ends(text)
    if not ends:
        return text
    cut = ends[0][0]
    nexts = [start for start, _ in ends[1:]] + [len(text)]
    for (_, after), nxt in zip(ends, nexts, strict=True):
        if _weight(text[:cut]) >= MIN_CLAUSE_WORDS:
            break
        following = text[after:nxt]
        if not any(ch.isdigit() for ch in following) and \
                _weight(following) < MIN_CLAUSE_WORDS - 1:
            break
        cut = nxt
    return text[:cut]


def _local(item: dict[str, Any]) -> datetime | None:
    """When the item was posted, in the owner's zone (the payload's `local`), or None."""
    return aware_time(item.get("local"))


def distill(item: dict[str, Any]) -> str | None:
    """The fallback statement for one item, or None when it carries nothing meaningful.
    A day word in it gets its date ("tomorrow (Wed 2 Dec) 10:00"), so the statement
    stays true when it is read on another day."""
    text = _distill(item)
    local = _local(item)
    if text is None or local is None:
        return text
    return with_dates(text, local.date())


def event_end(item: dict[str, Any], text: str) -> str | None:
    """When the event a statement is about is over: the end of the first day it names
    (the statement's dated day word or written date) that is not before the posting
    day, as RFC 3339 in the owner's offset; None when it names no such day (a claim
    "for the delay on 05.03." is no event that is over)."""
    local = _local(item)
    if local is None:
        return None
    days = [m for m in day_mentions(text, local.date()) if m.day >= local.date()]
    if not days:
        return None
    end = datetime.combine(days[0].day + timedelta(days=1), time.min, local.tzinfo)
    return end.isoformat(timespec="seconds")


def _distill(item: dict[str, Any]) -> str | None:
    title = " ".join(str(item.get("title", "")).split())
    subtitle = " ".join(str(item.get("sub", "")).split())
    body = " ".join(str(item.get("body", "")).split())
    if not (title or subtitle or body):
        return None
    app = app_label(str(item.get("app", ""))) or "App"
    category = str(item.get("cat", "")).replace(" ", "").casefold()
    noun = _CATEGORY_NOUN.get(category, "message")
    source_text = body or subtitle
    sender = _bounded(title, 6, SENDER_CHARS)
    group = ""
    if noun == "message" or title.startswith("#"):
        # a group chat or a team channel ("#ops", whatever category the phone gives it):
        # the title names the group, the sender is the subtitle or the body's leading
        # "Name: " (a bank's "Lastschrift: 42 EUR" is no speaker: outside chats only a
        # channel title counts)
        speaker, rest = _speaker(source_text)
        if speaker and rest:
            group, sender, source_text = sender, speaker, rest
        elif noun == "message" and subtitle and body and title:
            group, sender = sender, _bounded(subtitle, 6, SENDER_CHARS)
    source_text = _past_pleasantry(source_text)
    first = _first_sentence(source_text) if source_text else ""
    topic = _unstopped(_clause(first, _bounded(first, TOPIC_WORDS, TOPIC_CHARS)))
    if group and topic:
        return f"{sender} in {group} on {app}: {topic}{_asked(source_text, first, topic)}"
    if noun in _PERSON_NOUNS:
        if sender and topic and noun in ("message", "email"):
            # what a person jots down: who, where, what ("Anna on WhatsApp: dinner Saturday
            # at 7?"); a question stays a question
            where = "by email" if noun == "email" else f"on {app}"
            if noun == "email" and subtitle and body and not group:
                # an email's subject says what it is about, whatever the first sentence
                # of its body says ("Please find the details below")
                where = f"by email about {_bounded(subtitle, SUBJECT_WORDS, SUBJECT_CHARS)}"
            return f"{sender} {where}: {topic}{_asked(source_text, first, topic)}"
        if app.casefold().rstrip("s") == noun:  # "Messages", "Mail": no "Messages message"
            noun = ""
        app_noun = f"{app} {noun}" if noun else app
        if sender and topic:
            return f"{app_noun} from {sender}: {topic}"
        if sender:
            return f"{app_noun} from {sender}"
        return f"{app_noun}: {topic}"
    # Calendars, deliveries, banks, news: the title names the thing, the body says what.
    if sender and topic:
        return f"{app}: {sender}, {topic[0].lower() + topic[1:] if _lower_ok(topic) else topic}"
    return f"{app}: {sender or topic}"


def is_personal(category: str) -> bool:
    """Whether the phone's category names something a person sent (a message, an email,
    a call): its title is then a person's or a chat's name."""
    return _CATEGORY_NOUN.get(category.replace(" ", "").casefold()) in _PERSON_NOUNS


def message_sender(title: str, subtitle: str, body: str, category: str) -> str | None:
    """The sender of a message notification as the phone names it: the title, or in a
    group chat the speaker (the subtitle, or the body's leading "Name: "), as the
    deterministic statement reads it; None when the phone's category is not a message
    (a calendar, a bank, a delivery: their title names a thing, not a person)."""
    if _CATEGORY_NOUN.get(category.replace(" ", "").casefold()) != "message":
        return None
    title, subtitle, body = (" ".join(part.split()) for part in (title, subtitle, body))
    speaker, rest = _speaker(body or subtitle)
    if speaker and rest:
        return speaker
    if subtitle and body and title:
        return subtitle
    return title or None


_SPEAKER = re.compile(r"^([^\W\d_][\w.'-]*(?: [^\W\d_][\w.'-]*){0,2}): (?=\S)")
_NOT_SPEAKERS = frozenset(
    {"correction", "reminder", "update", "recipe", "note", "re", "fwd", "fw", "also", "ps",
     "info", "news", "important", "urgent", "achtung", "hinweis", "wichtig", "erinnerung",
     "korrektur", "rappel", "attention", "nota", "aviso", "let op", "todo", "tip",
     "tipp", "warning", "warnung", "question", "frage", "status", "summary"}
)
_CONNECTOR = re.compile(
    r"^(?:(?:oh|ah|and|also|btw|by the way|ps|und|ach|übrigens|außerdem|et|aussi|e|anche|y"
    r"|también|en|ook)\b[\s,:]*)+",
    re.IGNORECASE,
)


_LEADING_MARKS = re.compile(r"^[^\w\"'\u201e\u201c\u00ab(\u00bf\u00a1]+")
"""What is left of a sentence's end before the next one: spaces, commas, emoji ("Merci !!
🥰 Max..." -> "Max...")."""


def _speaker(text: str) -> tuple[str, str]:
    """A group message's leading "Name: " and the rest, or ("", "")."""
    match = _SPEAKER.match(text)
    if match is None or match.group(1).casefold() in _NOT_SPEAKERS:
        return "", ""
    return match.group(1), text[match.end():]


def _past_pleasantry(text: str) -> str:
    """The message from its first sentence that says something: a leading "Thanks!",
    "Good night!" or "ok," is skipped when more follows ("Thanks! Also my new number is on
    the team page" -> "My new number is on the team page")."""
    head, tail = _split_first(text)
    if not tail or not is_pleasantry(head):
        return text
    rest = _CONNECTOR.sub("", _LEADING_MARKS.sub("", tail)).strip()
    if len(rest.split()) < MIN_CLAUSE_WORDS - 1:
        return text
    return rest[0].upper() + rest[1:]


def _asked(source_text: str, first: str, topic: str) -> str:
    """"?" when the statement is a whole question (the sentence split drops its "?")."""
    whole = topic == first.strip(" ,:-")
    mark = source_text[len(first):len(first) + 1]
    return mark if whole and mark in ("?", "\uff1f") else ""


def lasting(item: dict[str, Any]) -> str | None:
    """A lasting fact the sender of a person-to-person message states about themselves
    ("Priya is vegan"), or None (`agent.notifications.lasting`)."""
    noun = _CATEGORY_NOUN.get(str(item.get("cat", "")).replace(" ", "").casefold(), "message")
    if noun not in _PERSON_NOUNS:
        return None
    sender = _bounded(" ".join(str(item.get("title", "")).split()), 6, SENDER_CHARS)
    return lasting_fact(sender, " ".join(str(item.get("body", "")).split()))


def _clause(sentence: str, bounded: str) -> str:
    """A sentence cut short ends at its last whole clause (the last comma), so the
    statement does not stop mid-phrase; a sentence that fits is kept whole."""
    if bounded == sentence.strip(" ,:-"):
        return bounded
    head, comma, _ = bounded.rpartition(",")
    return head.strip() if comma and len(head.split()) >= MIN_CLAUSE_WORDS else bounded


def _unstopped(topic: str) -> str:
    """`topic` without a full stop at its end, unless it closes an abbreviation ("statt
    Gleis 9." -> "statt Gleis 9"; "bei Dr." stays)."""
    if not topic.endswith("."):
        return topic
    word = _SHORT_WORD.search(topic, 0, len(topic) - 1)
    if word is not None and _abbreviation(topic, word.start(), word.group()):
        return topic
    return topic[:-1]


def _lower_ok(topic: str) -> bool:
    """Lower-case the first letter only for ordinary words ("Tomorrow" yes, "LH" no)."""
    first = topic.split(" ", 1)[0]
    return first[:1].isupper() and first[1:].islower()


def notification_fallback(payload: dict[str, Any]) -> dict[str, Any]:
    """Answer the notification schema without a model (see the module docstring)."""
    related = payload.get("related", [])
    by_item: dict[int, list[dict[str, Any]]] = {}
    for record in related if isinstance(related, list) else []:
        for cid in record.get("for", []):
            by_item.setdefault(int(cid), []).append(record)
    proposals: list[dict[str, Any]] = []
    for item in payload.get("items", []):
        cid = int(item["c"])
        fixed = correction(" ".join(str(item.get("body", "")).split()), by_item.get(cid, []))
        if fixed is not None:  # "27, nicht 72": the earlier statement is corrected in place
            record, corrected = fixed
            proposals.append({"c": cid, "a": "update", "id": record["id"], "rev": record["rev"],
                              "t": corrected, "au": "inference"})
            continue
        fact = lasting(item)
        text = fact or distill(item)
        if text is None:
            proposals.append({"c": cid, "a": "ignore"})
            continue
        norm = normalize_text(text)
        same = next(
            (r for r in by_item.get(cid, []) if normalize_text(str(r.get("text", ""))) == norm),
            None,
        )
        if same is not None:
            proposals.append({"c": cid, "a": "reinforce", "id": same["id"], "rev": same["rev"]})
        elif fact is not None:
            proposals.append({"c": cid, "a": "add", "t": text, "k": "fact", "au": "inference",
                              "tier": "long_term"})
        else:
            entry = {"c": cid, "a": "add", "t": text, "k": "event", "au": "inference"}
            end = event_end(item, text)
            if end is not None:
                entry["end"] = end
            proposals.append(entry)
    return {"p": proposals}
