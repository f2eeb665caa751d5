"""Sorts the hand-written rows, assigns ids, converts times to UTC, computes tags."""
import json
import os
from datetime import datetime, timedelta, timezone

from _rows import ROWS, QUESTIONS

HERE = os.path.dirname(os.path.abspath(__file__))

APPS = {
    "WA": ("net.whatsapp.WhatsApp", "social"),
    "SMS": ("com.apple.MobileSMS", "social"),
    "CAL": ("com.apple.mobilecal", "schedule"),
    "MAIL": ("com.apple.mobilemail", "email"),
    "GMAIL": ("com.google.Gmail", "email"),
    "TG": ("ph.telegra.Telegraph", "social"),
    "IG": ("com.burbn.instagram", "social"),
    "ZALO": ("vn.com.vng.zingalo", "social"),
    "MSGR": ("com.facebook.Messenger", "social"),
    "WECHAT": ("com.tencent.xin", "social"),
    "PHONE": ("com.apple.mobilephone", None),
    "OEBB": ("at.oebb.ticketshop", "other"),
    "BILLA": ("at.billa.app", "other"),
    "WH": ("at.willhaben.app", "other"),
    "POST": ("at.post.app", "other"),
    "GEORGE": ("at.erstebank.george", "business_and_finance"),
    "MEINESV": ("at.sozialversicherung.meinesv", "health_and_fitness"),
    "NFLX": ("com.netflix.Netflix", "entertainment"),
    "DUO": ("com.duolingo.DuolingoMobile", "other"),
    "STRAVA": ("com.strava.stravaride", "health_and_fitness"),
    "BOOK": ("com.booking.BookingApp", "other"),
    "WL": ("at.wienerlinien.wienmobil", "other"),
    "ORF": ("at.orf.news", "news"),
    "STD": ("at.derstandard.app", "news"),
    "WEATHER": ("com.apple.weather", "other"),
    "SETTINGS": ("com.apple.Preferences", "other"),
    "HEALTH": ("com.apple.Health", "health_and_fitness"),
    "FITNESS": ("com.apple.Fitness", "health_and_fitness"),
    "SPOT": ("com.spotify.client", "entertainment"),
    "AMZ": ("com.amazon.Amazon", "other"),
    "DHL": ("de.dhl.paket", "other"),
    "FOOD": ("com.foodora.app", "other"),
    "DIENST": ("at.stadtklinik.dienstplan", "other"),
    "KIGA": ("at.kigapost.eltern", "other"),
    "SAKURA": ("jp.sakuranihongo.app", "other"),
    "TEMU": ("com.einnovation.temu", "other"),
    "LIDL": ("com.lidl.lidlplus", "other"),
    "FINDMY": ("com.apple.findmy", "location"),
    "GMAPS": ("com.google.Maps", "location"),
    "YT": ("com.google.ios.youtube", "entertainment"),
}

CEST = timezone(timedelta(hours=2))
CET = timezone(timedelta(hours=1))
DST_END_UTC = datetime(2025, 10, 26, 1, 0, tzinfo=timezone.utc)


def local(t):
    naive = datetime.strptime("2025-" + t, "%Y-%m-%d %H:%M")
    aware = naive.replace(tzinfo=CEST)
    if aware.astimezone(timezone.utc) >= DST_END_UTC:
        aware = naive.replace(tzinfo=CET)
    return aware


def main():
    rows = sorted(ROWS, key=lambda r: local(r["t"]))
    times = [r["t"] for r in rows]
    assert len(set(times)) == len(times), "duplicate times"
    by_h, first = {}, {}
    out = []
    for i, r in enumerate(rows, 1):
        rid = "v%03d" % i
        bundle, cat = APPS[r["app"]]
        if r["kind"] == "added":
            cat = r["cat"] or cat
            assert cat, r
            first[r["key"]] = (bundle, cat)
        else:
            b0, cat = first[r["key"]]
            assert b0 == bundle, r
        if r["h"]:
            assert r["h"] not in by_h, r["h"]
            by_h[r["h"]] = (rid, r, local(r["t"]))
        out.append({
            "id": rid, "kind": r["kind"], "key": r["key"], "app_id": bundle,
            "title": r["title"], "subtitle": r["subtitle"], "body": r["body"],
            "category": cat,
            "posted_at": local(r["t"]).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "label": r["label"], "secrets": r["secrets"], "lang": r["lang"],
        })
    with open(os.path.join(HERE, "notifications.jsonl"), "w", encoding="utf-8") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")

    qs = sorted(QUESTIONS, key=lambda q: local(q[0]))
    qout = []
    for i, (t, lang, text, ans, sup, long_) in enumerate(qs, 1):
        at = local(t)
        arows = [by_h[h] for h in ans]
        tags = []
        if sup:
            tags.append("changed")
        if all(at - a[2] > timedelta(days=7) for a in arows):
            tags.append("old")
        if long_:
            tags.append("long")
        if lang not in {a[1]["lang"] for a in arows}:
            tags.append("cross_lingual")
        if any(a[1]["lang"] in ("ja", "zh", "ko") for a in arows):
            tags.append("cjk")
        if any(a[1]["label"] == "secret" for a in arows):
            tags.append("secret_adjacent")
        qout.append({
            "id": "v-q%03d" % i, "asked_at": at.isoformat(), "question": text,
            "answers": [a[0] for a in arows], "superseded": [by_h[h][0] for h in sup],
            "tags": tags, "lang": lang,
        })
    with open(os.path.join(HERE, "questions.jsonl"), "w", encoding="utf-8") as f:
        for o in qout:
            f.write(json.dumps(o, ensure_ascii=False) + "\n")
    with open(os.path.join(HERE, "meta.json"), "w") as f:
        json.dump({"zone": "Europe/Vienna"}, f)
        f.write("\n")
    print(len(out), "rows,", len(qout), "questions")


if __name__ == "__main__":
    main()
