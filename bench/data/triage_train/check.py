#!/usr/bin/env python3
"""Validate train.jsonl (stdlib only). Exit status 0 when every check passes."""
import json, os, re, sys
from collections import Counter

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.jsonl")
KEYS = ["id", "platform", "app_id", "title", "subtitle", "body", "category", "from_person", "label", "lang"]
IOS = {"other", "incoming_call", "missed_call", "voicemail", "social", "schedule", "email", "news",
       "health_and_fitness", "business_and_finance", "location", "entertainment"}
ANDROID = {"msg", "email", "event", "promo", "social", "reminder", "status", "recommendation", "transport",
           "call", "missed_call", "alarm", "err", "progress", "service", "sys", "navigation", "workout", ""}
LANGS = {"en", "es", "pt", "fr", "de", "it", "nl", "pl", "uk", "ru", "tr", "ar", "hi", "id", "vi", "th",
         "ja", "zh", "ko", "sv", "el", "da", "no", "fi", "cs", "ro", "hu", "he", "fa", "bn", "ms", "tl"}
APP_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$")

errors = []
def err(msg):
    errors.append(msg)

rows = []
with open(PATH, encoding="utf-8") as f:
    for ln, line in enumerate(f, 1):
        try:
            r = json.loads(line)
        except ValueError as e:
            err("line %d: bad JSON (%s)" % (ln, e)); continue
        if not isinstance(r, dict) or list(r.keys()) != KEYS:
            err("line %d: keys %s" % (ln, list(r.keys()) if isinstance(r, dict) else type(r))); continue
        rows.append(r)

ids, pairs = Counter(), Counter()
for r in rows:
    i = r["id"]
    ids[i] += 1
    if not re.fullmatch(r"t\d{4}", str(i)): err("%s: bad id" % i)
    for k in ("app_id", "title", "subtitle", "body", "category", "lang", "label", "platform"):
        if not isinstance(r[k], str): err("%s: %s not a string" % (i, k))
    if not isinstance(r["from_person"], bool): err("%s: from_person not bool" % i)
    if r["platform"] not in ("ios", "android"): err("%s: platform %r" % (i, r["platform"]))
    if r["platform"] == "ios" and r["category"] not in IOS: err("%s: ios category %r" % (i, r["category"]))
    if r["platform"] == "android" and r["category"] not in ANDROID: err("%s: android category %r" % (i, r["category"]))
    if r["label"] not in ("keep", "noise"): err("%s: label %r" % (i, r["label"]))
    if r["lang"] not in LANGS: err("%s: lang %r" % (i, r["lang"]))
    if not APP_RE.match(r["app_id"] or ""): err("%s: app_id %r" % (i, r["app_id"]))
    if not r["title"].strip() or not r["body"].strip(): err("%s: empty title/body" % i)
    if "{" in r["title"] + r["subtitle"] + r["body"]: err("%s: unfilled slot" % i)
    pairs[(r["title"], r["body"])] += 1

for i, c in ids.items():
    if c > 1: err("duplicate id %s" % i)
for p, c in pairs.items():
    if c > 1: err("title+body repeats %d times: %r" % (c, p))
expected = ["t%04d" % k for k in range(1, len(rows) + 1)]
if sorted(ids) != expected: err("ids are not t0001..t%04d" % len(rows))

n = len(rows)
def share(pred):
    return sum(1 for r in rows if pred(r)) / max(n, 1)

if not 900 <= n <= 1200: err("row count %d not in 900..1200" % n)
keep = share(lambda r: r["label"] == "keep")
if not 0.40 <= keep <= 0.50: err("keep share %.3f not about 45%%" % keep)
ios = share(lambda r: r["platform"] == "ios")
if not 0.42 <= ios <= 0.58: err("ios share %.3f not about half" % ios)
langs = Counter(r["lang"] for r in rows)
if len(langs) < 14: err("only %d languages" % len(langs))
for l, c in langs.items():
    if c / n > 0.15: err("lang %s has %.1f%% > 15%%" % (l, 100.0 * c / n))
andr = [r for r in rows if r["platform"] == "android"]
blank = sum(1 for r in andr if r["category"] == "") / max(len(andr), 1)
if not 0.15 <= blank <= 0.25: err("android blank category share %.3f not about a fifth" % blank)
apps = len(set(r["app_id"] for r in rows))
if apps < 30: err("only %d distinct app_ids" % apps)
for lab in ("keep", "noise"):
    fps = set(r["from_person"] for r in rows if r["label"] == lab)
    if fps != {True, False}: err("label %s does not mix from_person values" % lab)

print("rows=%d keep=%.1f%% ios=%.1f%% langs=%d max_lang=%.1f%% android_blank=%.1f%% apps=%d"
      % (n, 100 * keep, 100 * ios, len(langs), 100.0 * max(langs.values()) / max(n, 1), 100 * blank, apps))
if errors:
    for e in errors[:50]:
        print("FAIL:", e)
    print("%d problem(s)" % len(errors))
    sys.exit(1)
print("OK")
