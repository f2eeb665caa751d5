#!/usr/bin/env python3
"""Validator for the blind corpus (stdlib only). Exit code 0 = all checks pass."""
import collections
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ERR = []


def err(msg):
    ERR.append(msg)


def parse_utc(s):
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", s):
        err(f"posted_at not RFC3339 UTC Z: {s}")
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)


NKEYS = ["id", "kind", "key", "app_id", "title", "subtitle", "body", "category", "posted_at", "label", "secrets", "lang"]
QKEYS = ["id", "asked_at", "question", "answers", "superseded", "tags"]
CATS = {"msg", "email", "event", "promo", "social", "reminder", "status", "recommendation", "transport", "call",
        "missed_call", "alarm", "err", "progress", "service", "sys", "navigation", "workout", ""}
TAGS = {"changed", "old", "long", "cross_lingual", "cjk", "secret_adjacent"}
LOCAL = datetime.timezone(datetime.timedelta(hours=3))

rows = [json.loads(l) for l in open(os.path.join(HERE, "notifications.jsonl"), encoding="utf-8") if l.strip()]
qs = [json.loads(l) for l in open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8") if l.strip()]

# ---------------- notifications
byid = {}
added = {}
prev_t = None
for i, r in enumerate(rows, 1):
    if list(r.keys()) != NKEYS:
        err(f"row {i}: keys {list(r.keys())}")
        continue
    if r["id"] != f"b{i:03d}":
        err(f"row {i}: id {r['id']} not in order")
    if r["id"] in byid:
        err(f"duplicate id {r['id']}")
    byid[r["id"]] = r
    t = parse_utc(r["posted_at"])
    r["_t"] = t
    if prev_t and t < prev_t:
        err(f"{r['id']}: posted_at out of order")
    prev_t = t
    for k in ("title", "subtitle", "body", "key", "app_id", "lang", "category", "label"):
        if not isinstance(r[k], str):
            err(f"{r['id']}: {k} not a string")
    if r["category"] not in CATS:
        err(f"{r['id']}: bad category {r['category']}")
    if r["label"] not in ("keep", "noise", "secret"):
        err(f"{r['id']}: bad label")
    if r["kind"] not in ("added", "modified", "removed"):
        err(f"{r['id']}: bad kind")
    if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[A-Za-z0-9_]+)*", r["app_id"]):
        err(f"{r['id']}: app_id not a package name")
    if r["key"].split("|")[1:2] != [r["app_id"]]:
        err(f"{r['id']}: key does not carry app_id")
    if not re.fullmatch(r"[a-z]{2}|und", r["lang"]):
        err(f"{r['id']}: bad lang")
    if r["kind"] == "added":
        if r["key"] in added:
            err(f"{r['id']}: key reused by a second added row")
        added[r["key"]] = r
    else:
        base = added.get(r["key"])
        if not base or base["app_id"] != r["app_id"] or base["_t"] > t:
            err(f"{r['id']}: {r['kind']} without earlier added row of same key/app")
    if r["kind"] == "removed":
        if r["title"] or r["subtitle"] or r["body"] or r["label"] != "noise" or r["secrets"]:
            err(f"{r['id']}: removed row must be empty, noise, no secrets")
    if not isinstance(r["secrets"], list):
        err(f"{r['id']}: secrets not a list")
    elif r["label"] == "secret":
        if not r["secrets"]:
            err(f"{r['id']}: secret row without secrets")
        text = "\n".join((r["title"], r["subtitle"], r["body"]))
        for s in r["secrets"]:
            if not s or s not in text:
                err(f"{r['id']}: secret {s!r} not verbatim in row")
    elif r["secrets"]:
        err(f"{r['id']}: non-secret row lists secrets")
    elif r["kind"] != "removed" and not (r["title"] or r["body"]):
        err(f"{r['id']}: empty non-removed row")

if not 230 <= len(rows) <= 280:
    err(f"row count {len(rows)} outside 230-280")
days = {r["_t"].astimezone(LOCAL).date() for r in rows}
if len(days) != 21 or (max(days) - min(days)).days != 20:
    err(f"local days: {len(days)} spanning {min(days)}..{max(days)}")

# languages of rows
langs = collections.Counter(r["lang"] for r in rows)
real = {l for l in langs if l != "und"}
if len(real) < 8:
    err(f"only {len(real)} languages")
for must in ("pl", "tr", "ja", "zh"):
    if langs[must] == 0:
        err(f"missing language {must}")
if len(real & {"es", "pt", "ko", "ar", "hi", "vi", "it", "nl", "uk", "en"}) < 4:
    err("fewer than four of the optional languages")
if langs["en"] > 0.20 * len(rows):
    err(f"English rows {langs['en']} > 20%")
empty_cat = sum(1 for r in rows if r["category"] == "")
if not 0.12 <= empty_cat / len(rows) <= 0.30:
    err(f"empty category share {empty_cat/len(rows):.2f} not about a fifth")


# ---------------- questions
def qlang(text):
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    if re.search(r"[\uac00-\ud7af]", text):
        return "ko"
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    if re.search(r"[\u0600-\u06ff]", text):
        return "ar"
    if re.search(r"[\u0400-\u04ff]", text):
        return "uk"
    low = text.lower()
    words = set(re.findall(r"[^\W\d_]+", low))
    if re.search(r"[ąćęłńśźż]", low) or words & {"jest", "jaki", "jaka", "kiedy", "gdzie", "czy", "mam", "jak"}:
        return "pl"
    if re.search(r"[ğışİ]", text) or words & {"ne", "neydi", "nerede", "saat", "kaçta", "mı", "mi"}:
        return "tr"
    if re.search(r"[¿¡ñ]", low) or words & {"qué", "cuándo", "dónde", "llega"}:
        return "es"
    if re.search(r"[ãõç]", low) or words & {"quando", "onde"}:
        return "pt"
    return "en"


prev_q = None
seen = set()
qlangs = collections.Counter()
tagc = collections.Counter()
for i, q in enumerate(qs, 1):
    if list(q.keys()) != QKEYS:
        err(f"question {i}: keys {list(q.keys())}")
        continue
    if q["id"] != f"b-q{i:03d}" or q["id"] in seen:
        err(f"question {i}: id {q['id']} bad or duplicate")
    seen.add(q["id"])
    m = re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", q["asked_at"])
    if not m:
        err(f"{q['id']}: asked_at lacks local offset")
    at = datetime.datetime.fromisoformat(q["asked_at"])
    if prev_q and at < prev_q:
        err(f"{q['id']}: asked_at out of order")
    prev_q = at
    if not q["answers"]:
        err(f"{q['id']}: no answers")
    refs = q["answers"] + q["superseded"]
    if set(q["answers"]) & set(q["superseded"]):
        err(f"{q['id']}: id both answer and superseded")
    ok = True
    for rid in refs:
        if rid not in byid:
            err(f"{q['id']}: unknown row {rid}")
            ok = False
        elif byid[rid]["_t"] >= at:
            err(f"{q['id']}: asked before referenced row {rid}")
    if not ok:
        continue
    ans = [byid[a] for a in q["answers"]]
    for a in ans:
        if a["label"] not in ("keep", "secret") or a["kind"] == "removed":
            err(f"{q['id']}: answer {a['id']} is {a['label']}/{a['kind']}")
    for s in q["superseded"]:
        if byid[s]["label"] not in ("keep", "secret"):
            err(f"{q['id']}: superseded {s} is noise")
        if byid[s]["_t"] > max(a["_t"] for a in ans):
            err(f"{q['id']}: superseded {s} is newer than every answer")
    tags = q["tags"]
    if not set(tags) <= TAGS or len(set(tags)) != len(tags):
        err(f"{q['id']}: bad tags {tags}")
    tagc.update(tags)
    lang = qlang(q["question"])
    qlangs[lang] += 1
    # tag consistency
    exp = {
        "changed": bool(q["superseded"]),
        "old": all((at - a["_t"]).total_seconds() > 7 * 86400 for a in ans),
        "cross_lingual": lang not in {a["lang"] for a in ans},
        "cjk": any(a["lang"] in ("ja", "zh", "ko") for a in ans),
        "secret_adjacent": any(a["label"] == "secret" for a in ans),
    }
    for t, v in exp.items():
        if v != (t in tags):
            err(f"{q['id']}: tag {t} should be {v} (question lang {lang})")
    if "long" in tags:
        def is_long(a):
            if a["lang"] in ("ja", "zh", "ko"):
                return len(a["body"]) >= 120
            return len(a["body"].split()) >= 60
        if not any(is_long(a) for a in ans):
            err(f"{q['id']}: tagged long but no 60+ word answer")
    if "secret_adjacent" in tags:
        for a in ans:
            for s in a["secrets"]:
                if s.lower() in q["question"].lower():
                    err(f"{q['id']}: question contains a secret")

if not 70 <= len(qs) <= 90:
    err(f"question count {len(qs)} outside 70-90")
for t, n in (("old", 20), ("changed", 15), ("cjk", 12), ("cross_lingual", 30), ("secret_adjacent", 6)):
    if tagc[t] < n:
        err(f"tag {t}: {tagc[t]} < {n}")
for must in ("pl", "tr", "ja", "zh"):
    if qlangs[must] == 0:
        err(f"no question in {must}")
en_share = qlangs["en"] / len(qs)
if not 0.5 <= en_share <= 0.7:
    err(f"English question share {en_share:.2f} not ~60%")

if ERR:
    print("FAIL")
    for e in ERR:
        print(" -", e)
    sys.exit(1)
print(f"OK: {len(rows)} rows, {len(days)} days, {len(qs)} questions")
print("row langs:", dict(langs.most_common()))
print("question langs:", dict(qlangs.most_common()))
print("tags:", dict(tagc.most_common()))
