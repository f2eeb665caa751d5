#!/usr/bin/env python3
"""Validate part_a.jsonl and part_b.jsonl (stdlib only). Exit 0 on success, 1 on any error.

Checks: UTF-8, one JSON object per line, field names and order, types, id format and
sequence, language set, label/kind vocabularies, counts per part / language / label,
near_miss minimum, sender script, unique ids across parts, no text repeated (within or
across parts), no two texts sharing the same first 6 words (across both parts), no
\\u escapes in the raw file (ensure_ascii false), sane text length.
"""
import json, os, re, sys, unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
PARTS = {"a": os.path.join(HERE, "part_a.jsonl"), "b": os.path.join(HERE, "part_b.jsonl")}
FIELDS = ["id", "lang", "sender", "text", "label", "kind"]
LANGS = ["en", "de", "fr", "es", "pt", "it", "pl", "tr", "nl", "ru", "uk", "ja", "zh", "ko", "ar"]
KINDS = {
    "lasting": {"diet", "allergy", "address", "health", "family", "work", "preference",
                "contact", "other_lasting"},
    "other": {"plan", "chitchat", "near_miss", "logistics", "news"},
}
PER_PART = 420
PER_LANG = 28
PER_LANG_LABEL = 14
MIN_NEAR_MISS = 5
FIRST_N = 6

errors = []
def err(msg):
    errors.append(msg)


def script_ok(lang, s):
    def has(pred):
        return any(pred(ch) for ch in s)
    name = lambda ch: unicodedata.name(ch, "")
    if lang in ("ru", "uk"):
        return has(lambda c: "CYRILLIC" in name(c))
    if lang == "ar":
        return has(lambda c: "ARABIC" in name(c))
    if lang == "ko":
        return has(lambda c: "HANGUL" in name(c))
    if lang == "zh":
        return has(lambda c: "CJK UNIFIED" in name(c))
    if lang == "ja":
        return has(lambda c: any(k in name(c) for k in ("HIRAGANA", "KATAKANA", "CJK UNIFIED")))
    return has(lambda c: "LATIN" in name(c))


CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

def words(text):
    """Word tokens; for Chinese/Japanese scripts (no spaces) each character counts as a word."""
    toks = []
    for tok in re.findall(r"\w+", text.casefold()):
        if CJK_CHAR.search(tok):
            buf = ""
            for ch in tok:
                if CJK_CHAR.match(ch):
                    if buf:
                        toks.append(buf); buf = ""
                    toks.append(ch)
                else:
                    buf += ch
            if buf:
                toks.append(buf)
        else:
            toks.append(tok)
    return toks


def norm_text(text):
    return " ".join(text.casefold().split())


rows_by_part = {}
for part, path in PARTS.items():
    rows = []
    if not os.path.exists(path):
        err(f"{path}: missing"); rows_by_part[part] = rows; continue
    raw = open(path, "rb").read()
    try:
        content = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        err(f"{path}: not UTF-8 ({e})"); rows_by_part[part] = rows; continue
    if "\\u" in content:
        err(f"{path}: contains \\u escapes (write with ensure_ascii=False)")
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        where = f"{os.path.basename(path)}:{n}"
        if not line.strip():
            err(f"{where}: empty line"); continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            err(f"{where}: bad JSON ({e})"); continue
        if not isinstance(obj, dict):
            err(f"{where}: not an object"); continue
        if list(obj.keys()) != FIELDS:
            err(f"{where}: fields {list(obj.keys())} != {FIELDS}"); continue
        bad = [k for k in FIELDS if not isinstance(obj[k], str) or not obj[k].strip()]
        if bad:
            err(f"{where}: non-string or empty fields {bad}"); continue
        exp_id = f"{part}{n:03d}"
        if obj["id"] != exp_id:
            err(f"{where}: id {obj['id']!r}, expected {exp_id!r}")
        if obj["lang"] not in LANGS:
            err(f"{where}: unknown lang {obj['lang']!r}")
        if obj["label"] not in KINDS:
            err(f"{where}: bad label {obj['label']!r}")
        elif obj["kind"] not in KINDS[obj["label"]]:
            err(f"{where}: kind {obj['kind']!r} not allowed for label {obj['label']!r}")
        if obj["lang"] in LANGS and not script_ok(obj["lang"], obj["sender"]):
            err(f"{where}: sender {obj['sender']!r} not in the script of {obj['lang']}")
        if obj["lang"] in LANGS and not script_ok(obj["lang"], obj["text"]):
            err(f"{where}: text not in the script of {obj['lang']}")
        if obj["text"] != obj["text"].strip() or "\n" in obj["text"]:
            err(f"{where}: text has surrounding whitespace or a newline")
        if not 5 <= len(obj["text"]) <= 300:
            err(f"{where}: text length {len(obj['text'])} outside 5..300")
        obj["_where"] = where
        rows.append(obj)
    rows_by_part[part] = rows

# counts
for part, rows in rows_by_part.items():
    if len(rows) != PER_PART:
        err(f"part {part}: {len(rows)} valid rows, expected {PER_PART}")
    by_lang = Counter(r["lang"] for r in rows)
    by_lang_label = Counter((r["lang"], r["label"]) for r in rows)
    near = Counter(r["lang"] for r in rows if r["kind"] == "near_miss")
    for lang in LANGS:
        if by_lang[lang] != PER_LANG:
            err(f"part {part} {lang}: {by_lang[lang]} rows, expected {PER_LANG}")
        for label in KINDS:
            if by_lang_label[(lang, label)] != PER_LANG_LABEL:
                err(f"part {part} {lang} {label}: {by_lang_label[(lang, label)]}, expected {PER_LANG_LABEL}")
        if near[lang] < MIN_NEAR_MISS:
            err(f"part {part} {lang}: only {near[lang]} near_miss rows (min {MIN_NEAR_MISS})")

# uniqueness across both parts
all_rows = [r for part in sorted(rows_by_part) for r in rows_by_part[part]]
seen_id, seen_text, seen_prefix = {}, {}, {}
for r in all_rows:
    if r["id"] in seen_id:
        err(f"{r['_where']}: duplicate id {r['id']} (also {seen_id[r['id']]})")
    seen_id.setdefault(r["id"], r["_where"])
    t = norm_text(r["text"])
    if t in seen_text:
        err(f"{r['_where']}: text repeated (also {seen_text[t]}): {r['text']!r}")
    seen_text.setdefault(t, r["_where"])
    w = words(r["text"])
    key = " ".join(w[:FIRST_N])
    if key in seen_prefix:
        err(f"{r['_where']}: first {FIRST_N} words {key!r} shared with {seen_prefix[key]}")
    seen_prefix.setdefault(key, r["_where"])

# report
print("Counts (part / lang: lasting, other, near_miss):")
for part, rows in rows_by_part.items():
    c = Counter((r["lang"], r["label"]) for r in rows)
    nm = Counter(r["lang"] for r in rows if r["kind"] == "near_miss")
    print(f"  part {part}: {len(rows)} rows; " + ", ".join(
        f"{l} {c[(l, 'lasting')]}/{c[(l, 'other')]}/{nm[l]}" for l in LANGS))
    kinds = Counter((r["label"], r["kind"]) for r in rows)
    print("    kinds: " + ", ".join(f"{k}={v}" for (lab, k), v in sorted(kinds.items())))

if errors:
    print(f"\nFAILED with {len(errors)} error(s):")
    for e in errors:
        print("  " + e)
    sys.exit(1)
print("\nOK: all checks passed")
sys.exit(0)
