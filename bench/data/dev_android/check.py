#!/usr/bin/env python3
"""Stdlib validator for the dev_android corpus. Run: python3 check.py  (exit code 0 = pass)."""
import json, os, re, sys, collections
from datetime import datetime, timezone, timedelta

HERE = os.path.dirname(os.path.abspath(__file__))
errors = []
def err(msg):
    errors.append(msg)

def load_jsonl(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err("%s:%d empty line" % (name, n)); continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                err("%s:%d bad JSON: %s" % (name, n, e))
    return rows

N_KEYS = ["id", "kind", "key", "app_id", "title", "subtitle", "body", "category", "posted_at", "label", "secrets", "lang"]
Q_KEYS = {"id", "asked_at", "question", "answers", "superseded", "tags"}
Q_OPTIONAL = {"lang"}
KINDS = {"added", "modified", "removed"}
LABELS = {"keep", "noise", "secret"}
CATS = {"", "msg", "email", "event", "reminder", "alarm", "call", "missed_call", "promo", "recommendation", "social",
        "status", "sys", "service", "progress", "transport", "navigation", "err"}
LANGS = {"en", "pt", "ko", "zh", "ms", "id", "ta", "hi", "th", "ja", "es", "und"}
CJK = {"ja", "zh", "ko"}
TAGS = ["changed", "old", "long", "cross_lingual", "cjk", "secret_adjacent"]
SECRET_WORDS = ["otp", "password", "passcode", " pin", "pin ", "verification code", "one-time code", "iban", "card number",
                "senha", "código", "contraseña", "인증번호", "비밀번호", "密码", "验证码", "パスコード", "暗証番号", "kata laluan",
                "kode pintu", "recovery code", "token"]

# ---------------- meta ----------------
try:
    meta = json.load(open(os.path.join(HERE, "meta.json"), encoding="utf-8"))
    if meta != {"zone": "Asia/Singapore"}:
        err("meta.json must be {\"zone\": \"Asia/Singapore\"}")
except Exception as e:
    err("meta.json: %s" % e)

# ---------------- notifications ----------------
rows = load_jsonl("notifications.jsonl")
by_id = {}
added_by_key = {}
prev_t = None
for i, r in enumerate(rows, 1):
    rid = r.get("id", "?")
    if list(r.keys()) != N_KEYS:
        if set(r.keys()) != set(N_KEYS):
            err("%s: keys %s != %s" % (rid, sorted(r.keys()), sorted(N_KEYS)))
    if rid != "w%03d" % i:
        err("%s: expected id w%03d" % (rid, i))
    for k in ["id", "kind", "key", "app_id", "title", "subtitle", "body", "category", "posted_at", "label", "lang"]:
        if not isinstance(r.get(k), str):
            err("%s: %s must be a string" % (rid, k))
    if not isinstance(r.get("secrets"), list) or not all(isinstance(s, str) and s for s in r.get("secrets", [])):
        err("%s: secrets must be a list of non-empty strings" % rid)
    if r.get("kind") not in KINDS: err("%s: bad kind %r" % (rid, r.get("kind")))
    if r.get("label") not in LABELS: err("%s: bad label %r" % (rid, r.get("label")))
    if r.get("category") not in CATS: err("%s: bad category %r" % (rid, r.get("category")))
    if r.get("lang") not in LANGS: err("%s: bad lang %r" % (rid, r.get("lang")))
    if not r.get("key"): err("%s: empty key" % rid)
    if not re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-zA-Z0-9_]+)*", r.get("app_id", "") or ""):
        err("%s: app_id %r does not look like a package name" % (rid, r.get("app_id")))
    pa = r.get("posted_at", "")
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", pa):
        err("%s: posted_at %r not YYYY-MM-DDTHH:MM:SSZ" % (rid, pa)); t = None
    else:
        t = datetime.strptime(pa, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        if prev_t and t < prev_t:
            err("%s: posted_at not sorted" % rid)
        prev_t = t
    r["_t"] = t
    text = "\n".join([r.get("title", ""), r.get("subtitle", ""), r.get("body", "")])
    secrets = r.get("secrets", [])
    if r.get("label") == "secret" and not secrets:
        err("%s: label secret needs non-empty secrets" % rid)
    if r.get("label") != "secret" and secrets:
        err("%s: secrets listed but label is %s" % (rid, r.get("label")))
    for s in secrets:
        if s not in text:
            err("%s: secret %r not found verbatim in the row" % (rid, s))
    kind = r.get("kind")
    if kind == "added":
        if r["key"] in added_by_key:
            err("%s: key %r already used by added row %s" % (rid, r["key"], added_by_key[r["key"]]["id"]))
        else:
            added_by_key[r["key"]] = r
        if not (r.get("title") or r.get("body")):
            err("%s: added row with empty title and body" % rid)
    elif kind in ("modified", "removed"):
        base = added_by_key.get(r.get("key"))
        if base is None:
            err("%s: %s row has no earlier added row with key %r" % (rid, kind, r.get("key")))
        elif base.get("app_id") != r.get("app_id"):
            err("%s: app_id %r differs from added row %s (%r)" % (rid, r.get("app_id"), base["id"], base.get("app_id")))
        if kind == "removed":
            if r.get("title") or r.get("subtitle") or r.get("body"):
                err("%s: removed row must have empty title/subtitle/body" % rid)
            if r.get("label") != "noise":
                err("%s: removed row must be labelled noise" % rid)
        else:
            if not (r.get("title") or r.get("body")):
                err("%s: modified row must repeat the full new title and body" % rid)
    by_id[rid] = r

# ---------------- questions ----------------
qs = load_jsonl("questions.jsonl")
prev_q = None

def is_long(r):
    body = " ".join([r.get("subtitle", ""), r.get("body", "")])
    if r.get("lang") in CJK:
        return len(re.sub(r"\s", "", body)) > 120
    return len(body.split()) >= 60

for i, q in enumerate(qs, 1):
    qid = q.get("id", "?")
    ks = set(q.keys())
    if not (Q_KEYS <= ks <= Q_KEYS | Q_OPTIONAL):
        err("%s: keys %s" % (qid, sorted(ks)))
    if qid != "w-q%03d" % i:
        err("%s: expected id w-q%03d" % (qid, i))
    at = q.get("asked_at", "")
    m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)([+-]\d\d):(\d\d)", at)
    if not m:
        err("%s: asked_at %r not local time with offset" % (qid, at)); continue
    off = timedelta(hours=int(m.group(2)), minutes=int(m.group(3)) * (1 if m.group(2)[0] == "+" else -1))
    asked = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone(off))
    if m.group(2) + ":" + m.group(3) != "+08:00":
        err("%s: asked_at offset should be +08:00 (Asia/Singapore)" % qid)
    if prev_q and asked < prev_q:
        err("%s: asked_at not sorted" % qid)
    prev_q = asked
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        err("%s: empty question" % qid)
    low = q.get("question", "").lower()
    for w in SECRET_WORDS:
        if w in " " + low + " ":
            err("%s: question seems to ask for a secret (%r)" % (qid, w.strip()))
    answers, sup = q.get("answers", []), q.get("superseded", [])
    if not isinstance(answers, list) or not answers:
        err("%s: answers must be a non-empty list" % qid); continue
    if not isinstance(sup, list):
        err("%s: superseded must be a list" % qid); sup = []
    if set(answers) & set(sup):
        err("%s: an id is both answer and superseded" % qid)
    ok = True
    for a in answers + sup:
        r = by_id.get(a)
        if r is None:
            err("%s: unknown row id %s" % (qid, a)); ok = False; continue
        if r["_t"] is None or r["_t"] >= asked:
            err("%s: row %s posted at/after asked_at" % (qid, a)); ok = False
    for a in answers:
        r = by_id.get(a)
        if r and r.get("label") not in ("keep", "secret"):
            err("%s: answer row %s is labelled %s" % (qid, a, r.get("label")))
    for s in sup:
        r = by_id.get(s)
        if r and r.get("kind") == "removed":
            err("%s: superseded row %s is a removed row" % (qid, s))
    if not ok:
        continue
    tags = q.get("tags", [])
    if not isinstance(tags, list) or any(t not in TAGS for t in tags) or len(set(tags)) != len(tags):
        err("%s: bad tags %r" % (qid, tags)); continue
    ans_rows = [by_id[a] for a in answers]
    expect = {
        "changed": bool(sup),
        "old": all((asked - r["_t"]).total_seconds() > 7 * 86400 for r in ans_rows),
        "cjk": any(r["lang"] in CJK for r in ans_rows),
        "secret_adjacent": any(r["label"] == "secret" for r in ans_rows),
    }
    if "lang" in q:
        if q["lang"] not in LANGS - {"und"}:
            err("%s: bad question lang %r" % (qid, q["lang"]))
        expect["cross_lingual"] = q["lang"] not in {r["lang"] for r in ans_rows}
    for t, want in expect.items():
        if (t in tags) != want:
            err("%s: tag %s should be %s" % (qid, t, "set" if want else "absent"))
    if "long" in tags and not any(is_long(r) for r in ans_rows):
        err("%s: tagged long but no answer row has 60+ words (CJK: >120 chars)" % qid)

# ---------------- summary ----------------
labels = collections.Counter(r.get("label") for r in rows)
kinds = collections.Counter(r.get("kind") for r in rows)
tagc = collections.Counter(t for q in qs for t in q.get("tags", []))
qlang = collections.Counter(q.get("lang", "?") for q in qs)
n = len(rows) or 1
print("rows: %d  %s" % (len(rows), ", ".join("%s %d (%.1f%%)" % (k, v, 100.0 * v / n) for k, v in sorted(labels.items()))))
print("kinds: %s" % dict(kinds))
print("questions: %d  tags %s" % (len(qs), dict(tagc)))
print("question langs: %s" % dict(qlang))
if errors:
    print("\nFAILED with %d error(s):" % len(errors))
    for e in errors:
        print("  - " + e)
    sys.exit(1)
print("OK")
