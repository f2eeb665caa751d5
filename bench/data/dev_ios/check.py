#!/usr/bin/env python3
"""Stdlib validator for the dev_ios corpus. Usage: python3 check.py [folder]"""
import json
import os
import re
import sys
from datetime import datetime, timedelta, timezone

try:
    from zoneinfo import ZoneInfo
except ImportError:  # pragma: no cover
    ZoneInfo = None

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))

N_KEYS = ["id", "kind", "key", "app_id", "title", "subtitle", "body", "category",
          "posted_at", "label", "secrets", "lang"]
Q_KEYS_REQUIRED = ["id", "asked_at", "question", "answers", "superseded", "tags"]
Q_KEYS_OPTIONAL = ["lang"]
KINDS = {"added", "modified", "removed"}
CATEGORIES = {"other", "incoming_call", "missed_call", "voicemail", "social", "schedule", "email",
              "news", "health_and_fitness", "business_and_finance", "location", "entertainment"}
LABELS = {"keep", "noise", "secret"}
TAGS = ["changed", "old", "long", "cross_lingual", "cjk", "secret_adjacent"]
CJK = {"ja", "zh", "ko"}

errors = []


def err(msg):
    errors.append(msg)


def load_jsonl(name):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err("%s:%d empty line" % (name, n))
                continue
            try:
                out.append(json.loads(line))
            except ValueError as e:
                err("%s:%d bad json: %s" % (name, n, e))
    return out


def words(text):
    return len(text.split())


def is_long_text(text, lang):
    if lang in CJK:
        return len(text) > 120
    return words(text) >= 60


def main():
    with open(os.path.join(HERE, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    zone = meta.get("zone")
    if not zone:
        err("meta.json: no zone")
    tz = ZoneInfo(zone) if (ZoneInfo and zone) else None

    rows = load_jsonl("notifications.jsonl")
    by_id, added = {}, {}
    prev_t = None
    for i, r in enumerate(rows, 1):
        rid = r.get("id", "?")
        if list(r.keys()) != N_KEYS:
            err("%s: keys %s" % (rid, list(r.keys())))
            continue
        if rid != "v%03d" % i:
            err("%s: expected id v%03d" % (rid, i))
        for k in ("key", "app_id", "title", "subtitle", "body", "lang"):
            if not isinstance(r[k], str):
                err("%s: %s not a string" % (rid, k))
        if r["kind"] not in KINDS:
            err("%s: kind %r" % (rid, r["kind"]))
        if r["category"] not in CATEGORIES:
            err("%s: category %r" % (rid, r["category"]))
        if r["label"] not in LABELS:
            err("%s: label %r" % (rid, r["label"]))
        if not re.fullmatch(r"[a-z]{2}|und", r["lang"]):
            err("%s: lang %r" % (rid, r["lang"]))
        if not r["key"] or not r["app_id"]:
            err("%s: empty key or app_id" % rid)
        try:
            t = datetime.strptime(r["posted_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        except ValueError:
            err("%s: posted_at %r" % (rid, r["posted_at"]))
            continue
        if prev_t and t < prev_t:
            err("%s: posted_at not sorted" % rid)
        prev_t = t
        r["_t"] = t
        by_id[rid] = r
        if r["kind"] == "added":
            if r["key"] in added:
                err("%s: key %s added twice" % (rid, r["key"]))
            added[r["key"]] = r
        else:
            a = added.get(r["key"])
            if a is None:
                err("%s: %s row without an earlier added row for key %s" % (rid, r["kind"], r["key"]))
            elif a["app_id"] != r["app_id"]:
                err("%s: app_id differs from added row %s" % (rid, a["id"]))
        if r["kind"] == "removed":
            if r["title"] or r["subtitle"] or r["body"]:
                err("%s: removed row not empty" % rid)
            if r["label"] != "noise":
                err("%s: removed row not labelled noise" % rid)
        if r["kind"] == "modified" and not (r["title"] or r["body"]):
            err("%s: modified row without text" % rid)
        if not isinstance(r["secrets"], list):
            err("%s: secrets not a list" % rid)
            continue
        text = "\n".join([r["title"], r["subtitle"], r["body"]])
        for s in r["secrets"]:
            if not isinstance(s, str) or not s or s not in text:
                err("%s: secret %r not in text" % (rid, s))
        if r["label"] == "secret" and not r["secrets"]:
            err("%s: secret row without secrets" % rid)
        if r["label"] != "secret" and r["secrets"]:
            err("%s: secrets listed on a %s row" % (rid, r["label"]))

    kinds = [r.get("kind") for r in rows]
    if not 5 <= kinds.count("modified") <= 8:
        err("modified rows: %d (want 5-8)" % kinds.count("modified"))
    if not 10 <= kinds.count("removed") <= 20:
        err("removed rows: %d (want 10-20)" % kinds.count("removed"))

    qs = load_jsonl("questions.jsonl")
    prev_a = None
    for i, q in enumerate(qs, 1):
        qid = q.get("id", "?")
        keys = list(q.keys())
        if keys[:len(Q_KEYS_REQUIRED)] != Q_KEYS_REQUIRED or \
                any(k not in Q_KEYS_OPTIONAL for k in keys[len(Q_KEYS_REQUIRED):]):
            err("%s: keys %s" % (qid, keys))
            continue
        if qid != "v-q%03d" % i:
            err("%s: expected id v-q%03d" % (qid, i))
        try:
            at = datetime.fromisoformat(q["asked_at"])
            if at.tzinfo is None:
                raise ValueError("no offset")
        except ValueError:
            err("%s: asked_at %r" % (qid, q["asked_at"]))
            continue
        if tz is not None and at.utcoffset() != at.astimezone(tz).utcoffset():
            err("%s: offset of %s is not the %s offset" % (qid, q["asked_at"], zone))
        if prev_a and at < prev_a:
            err("%s: asked_at not sorted" % qid)
        prev_a = at
        if not isinstance(q["question"], str) or not q["question"].strip():
            err("%s: empty question" % qid)
        if not q["answers"]:
            err("%s: no answers" % qid)
        if set(q["answers"]) & set(q["superseded"]):
            err("%s: id both answer and superseded" % qid)
        ok = True
        for rid in q["answers"] + q["superseded"]:
            r = by_id.get(rid)
            if r is None:
                err("%s: unknown row %s" % (qid, rid))
                ok = False
            elif r["_t"] >= at:
                err("%s: row %s posted after asked_at" % (qid, rid))
        if not ok:
            continue
        arows = [by_id[x] for x in q["answers"]]
        for r in arows:
            if r["label"] not in ("keep", "secret"):
                err("%s: answer %s labelled %s" % (qid, r["id"], r["label"]))
        tags = q["tags"]
        if any(t not in TAGS for t in tags) or len(set(tags)) != len(tags):
            err("%s: bad tags %s" % (qid, tags))
        want = set()
        if q["superseded"]:
            want.add("changed")
        if all(at - r["_t"] > timedelta(days=7) for r in arows):
            want.add("old")
        qlang = q.get("lang")
        if qlang is not None and qlang not in {r["lang"] for r in arows}:
            want.add("cross_lingual")
        if any(r["lang"] in CJK for r in arows):
            want.add("cjk")
        if any(r["label"] == "secret" for r in arows):
            want.add("secret_adjacent")
        have = set(tags) - {"long"}
        if qlang is None:
            have.discard("cross_lingual")
            want.discard("cross_lingual")
        if have != want:
            err("%s: tags %s, expected %s (+long by hand)" % (qid, sorted(have), sorted(want)))
        if "long" in tags and not any(is_long_text(r["body"], r["lang"]) for r in arows):
            err("%s: tagged long but no answer row is a long message" % qid)
        for r in arows:
            for s in r["secrets"]:
                if s in q["question"]:
                    err("%s: question contains a secret" % qid)

    if errors:
        for e in errors:
            print("ERROR", e)
        print("%d errors" % len(errors))
        return 1
    print("OK: %d notification rows, %d questions" % (len(rows), len(qs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
