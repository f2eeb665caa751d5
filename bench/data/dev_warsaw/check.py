#!/usr/bin/env python3
"""Validator for a notification-memory corpus (stdlib only).

usage: python3 check.py [folder]      (default: the folder this file is in)

Checks notifications.jsonl, questions.jsonl and meta.json; prints a summary and
exits 1 if anything is wrong.
"""
import json
import os
import re
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone

ROW_KEYS = ["id", "kind", "key", "app_id", "title", "subtitle", "body", "category",
            "posted_at", "label", "secrets", "lang"]
Q_KEYS = ["id", "asked_at", "question", "answers", "superseded", "tags", "lang"]
KINDS = {"added", "modified", "removed"}
LABELS = {"keep", "noise", "secret"}
CATEGORIES = {"other", "incoming_call", "missed_call", "voicemail", "social", "schedule",
              "email", "news", "health_and_fitness", "business_and_finance", "location",
              "entertainment"}
ROW_LANGS = {"pl", "tr", "fi", "hu", "en", "und"}
Q_LANGS = {"pl", "tr", "fi", "hu", "en"}
TAGS = {"changed", "old", "long", "cross_lingual", "secret_adjacent"}
LONG_WORDS = 60
OLD_AFTER = timedelta(days=7)

# period of the notifications (local Mon 2025-03-03 .. Sun 2025-03-23, CET = UTC+1)
POST_FROM = datetime(2025, 3, 2, 23, 0, tzinfo=timezone.utc)
POST_TO = datetime(2025, 3, 23, 23, 0, tzinfo=timezone.utc)
# questions asked 2025-03-04 .. 2025-04-20 local
ASK_FROM_DATE = "2025-03-04"
ASK_TO_DATE = "2025-04-20"

POSTED_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
ASKED_RE = re.compile(r"^(\d{4}-\d\d-\d\d)T\d\d:\d\d:\d\d([+-]\d\d:\d\d)$")
ROW_ID_RE = re.compile(r"^p(\d{3})$")
Q_ID_RE = re.compile(r"^p-q(\d{3})$")


def last_sunday(year, month):
    d = datetime(year, month + 1, 1) - timedelta(days=1) if month < 12 else datetime(year, 12, 31)
    while d.weekday() != 6:
        d -= timedelta(days=1)
    return d


def warsaw_offset(utc):
    """Europe/Warsaw UTC offset (hours) at a UTC instant, EU DST rule."""
    y = utc.year
    start = last_sunday(y, 3).replace(hour=1, tzinfo=timezone.utc)
    end = last_sunday(y, 10).replace(hour=1, tzinfo=timezone.utc)
    return 2 if start <= utc < end else 1


def parse_posted(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


def parse_asked(s):
    return datetime.fromisoformat(s).astimezone(timezone.utc)


def word_count(row):
    return len(row["body"].split())


def has_letters(text):
    return any(ch.isalpha() for ch in text)


def strip_sender(body):
    """Drop a group chat's leading "Name: " so an emoji-only message reads as one."""
    m = re.match(r"^[^:\n]{1,40}: ", body)
    return body[m.end():] if m else body


def auto_tags(question, rows_by_id, position, rows):
    """Tags that follow from their definitions (all except 'long')."""
    tags = set()
    asked = parse_asked(question["asked_at"])
    answers = [rows_by_id[a] for a in question["answers"] if a in rows_by_id]
    if question["superseded"]:
        tags.add("changed")
    if answers and all(asked - parse_posted(r["posted_at"]) >= OLD_AFTER for r in answers):
        tags.add("old")
    if answers and question["lang"] not in {r["lang"] for r in answers}:
        tags.add("cross_lingual")
    for r in answers:
        i = position[r["id"]]
        near = [r] + [rows[j] for j in (i - 1, i + 1) if 0 <= j < len(rows)]
        if any(x["label"] == "secret" for x in near):
            tags.add("secret_adjacent")
    return tags


def load_jsonl(path, errors):
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errors.append(f"{os.path.basename(path)}:{n}: empty line")
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{os.path.basename(path)}:{n}: bad json ({e})")
    return out


def check(folder):
    errors = []
    err = errors.append

    # ---------------------------------------------------------------- meta
    try:
        with open(os.path.join(folder, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        if meta != {"zone": "Europe/Warsaw"}:
            err(f"meta.json: expected {{'zone': 'Europe/Warsaw'}}, got {meta}")
    except (OSError, json.JSONDecodeError) as e:
        err(f"meta.json: {e}")

    # ---------------------------------------------------------------- rows
    rows = load_jsonl(os.path.join(folder, "notifications.jsonl"), errors)
    if not 240 <= len(rows) <= 280:
        err(f"notifications: {len(rows)} rows, expected 240-280")
    rows_by_id = {}
    position = {}
    state = {}  # key -> (app_id, "live"|"removed")
    prev_time = None
    for i, r in enumerate(rows):
        where = f"row {i + 1} ({r.get('id')})"
        if list(r.keys()) != ROW_KEYS:
            err(f"{where}: keys {list(r.keys())} != {ROW_KEYS}")
            continue
        m = ROW_ID_RE.match(str(r["id"]))
        if not m or int(m.group(1)) != i + 1:
            err(f"{where}: id should be p{i + 1:03d}")
        rows_by_id[r["id"]] = r
        position[r["id"]] = i
        for k in ("key", "app_id", "title", "subtitle", "body", "posted_at"):
            if not isinstance(r[k], str):
                err(f"{where}: {k} is not a string")
        if not isinstance(r["secrets"], list) or not all(isinstance(s, str) for s in r["secrets"]):
            err(f"{where}: secrets must be a list of strings")
            continue
        if r["kind"] not in KINDS:
            err(f"{where}: bad kind {r['kind']}")
        if r["label"] not in LABELS:
            err(f"{where}: bad label {r['label']}")
        if r["category"] not in CATEGORIES:
            err(f"{where}: bad category {r['category']}")
        if r["lang"] not in ROW_LANGS:
            err(f"{where}: bad lang {r['lang']}")
        if not r["key"] or not r["app_id"]:
            err(f"{where}: empty key or app_id")
        # time
        if not POSTED_RE.match(r["posted_at"]):
            err(f"{where}: posted_at {r['posted_at']!r} not like 2025-03-03T06:31:00Z")
            continue
        t = parse_posted(r["posted_at"])
        if not POST_FROM <= t < POST_TO:
            err(f"{where}: posted_at {r['posted_at']} outside the period")
        if prev_time and t < prev_time:
            err(f"{where}: posted_at not sorted")
        prev_time = t
        # kinds
        key = r["key"]
        if r["kind"] == "added":
            if key in state:
                err(f"{where}: key {key!r} added twice")
            state[key] = (r["app_id"], "live")
        else:
            if key not in state:
                err(f"{where}: {r['kind']} row with no earlier added row for key {key!r}")
            else:
                app, st = state[key]
                if app != r["app_id"]:
                    err(f"{where}: app_id {r['app_id']} differs from the added row's {app}")
                if st == "removed":
                    err(f"{where}: {r['kind']} after the key was removed")
                if r["kind"] == "removed":
                    state[key] = (app, "removed")
        text = r["title"] + "\n" + r["subtitle"] + "\n" + r["body"]
        if r["kind"] == "removed":
            if r["title"] or r["subtitle"] or r["body"]:
                err(f"{where}: removed row must have empty title/subtitle/body")
            if r["label"] != "noise":
                err(f"{where}: removed row must be noise")
            if r["secrets"]:
                err(f"{where}: removed row must have no secrets")
            if r["lang"] != "und":
                err(f"{where}: removed row must have lang und")
        else:
            if not r["body"].strip():
                err(f"{where}: empty body")
            words = has_letters(strip_sender(r["body"]))
            if r["lang"] == "und" and words:
                err(f"{where}: lang und but the body has words")
            if r["lang"] != "und" and not words:
                err(f"{where}: body without words should be und")
        # secrets
        if r["label"] == "secret":
            if not r["secrets"]:
                err(f"{where}: secret row without secrets")
        elif r["secrets"]:
            err(f"{where}: secrets on a {r['label']} row")
        for s in r["secrets"]:
            if not s or s not in text:
                err(f"{where}: secret {s!r} not verbatim in the text")

    # ---------------------------------------------------------------- questions
    qs = load_jsonl(os.path.join(folder, "questions.jsonl"), errors)
    if not 80 <= len(qs) <= 90:
        err(f"questions: {len(qs)}, expected 80-90")
    for i, q in enumerate(qs):
        where = f"question {i + 1} ({q.get('id')})"
        if list(q.keys()) != Q_KEYS:
            err(f"{where}: keys {list(q.keys())} != {Q_KEYS}")
            continue
        m = Q_ID_RE.match(str(q["id"]))
        if not m or int(m.group(1)) != i + 1:
            err(f"{where}: id should be p-q{i + 1:03d}")
        if not isinstance(q["question"], str) or not q["question"].strip():
            err(f"{where}: empty question")
        if q["lang"] not in Q_LANGS:
            err(f"{where}: bad lang {q['lang']}")
        am = ASKED_RE.match(str(q["asked_at"]))
        if not am:
            err(f"{where}: asked_at {q['asked_at']!r} not like 2025-03-05T20:00:00+01:00")
            continue
        asked = parse_asked(q["asked_at"])
        date, off = am.group(1), am.group(2)
        want = warsaw_offset(asked)
        if off != f"+{want:02d}:00":
            err(f"{where}: asked_at offset {off} but Warsaw is +{want:02d}:00 then")
        if not ASK_FROM_DATE <= date <= ASK_TO_DATE:
            err(f"{where}: asked_at {date} outside {ASK_FROM_DATE}..{ASK_TO_DATE}")
        for fld in ("answers", "superseded", "tags"):
            if not isinstance(q[fld], list) or len(set(q[fld])) != len(q[fld]):
                err(f"{where}: {fld} must be a list without repeats")
        if not q["answers"]:
            err(f"{where}: no answers")
        for fld in ("answers", "superseded"):
            for rid in q[fld]:
                r = rows_by_id.get(rid)
                if r is None:
                    err(f"{where}: {fld} id {rid} does not exist")
                    continue
                if parse_posted(r["posted_at"]) >= asked:
                    err(f"{where}: {fld} row {rid} posted after asked_at")
                if r["kind"] == "removed":
                    err(f"{where}: {fld} row {rid} is a removed row")
                if fld == "answers" and r["label"] not in ("keep", "secret"):
                    err(f"{where}: answer row {rid} is {r['label']}")
        if set(q["answers"]) & set(q["superseded"]):
            err(f"{where}: a row is both answer and superseded")
        tags = set(q["tags"])
        if not tags <= TAGS:
            err(f"{where}: unknown tags {sorted(tags - TAGS)}")
        if any(rid not in rows_by_id for rid in q["answers"] + q["superseded"]):
            continue
        want_tags = auto_tags(q, rows_by_id, position, rows)
        have = tags - {"long"}
        if have != want_tags:
            err(f"{where}: tags {sorted(have)} but definitions give {sorted(want_tags)}")
        if "long" in tags and not any(word_count(rows_by_id[a]) >= LONG_WORDS for a in q["answers"]):
            err(f"{where}: tagged long but no answer row has {LONG_WORDS}+ words")

    # ---------------------------------------------------------------- summary
    print(f"rows: {len(rows)}  questions: {len(qs)}")
    print("  labels:", dict(Counter(r.get("label") for r in rows).most_common()))
    print("  langs: ", dict(Counter(r.get("lang") for r in rows).most_common()))
    print("  kinds: ", dict(Counter(r.get("kind") for r in rows).most_common()))
    print("  question langs:", dict(Counter(q.get("lang") for q in qs).most_common()))
    tag_counts = Counter(t for q in qs for t in q.get("tags", []))
    print("  question tags: ", dict(tag_counts.most_common()))
    if errors:
        print(f"\nFAIL: {len(errors)} problem(s)")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK: all checks pass")
    return 0


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else here))
