"""A year of one person's phone notifications through the product (public LifeBench data).

LifeBench (Apache-2.0) holds a simulated year of phone data per person, with questions
whose evidence names the push notifications and SMS they are answered by (by
`phone_id`). This harness feeds what the phone would show as notifications, every
push and every received SMS, through the public `Runtime` on a `FakeClock`, in time
order, with the product's default configuration (the person's zone, Asia/Shanghai,
is the only setting changed): each notification at its time, one idle window
(`run_once`) whenever the phone has then been quiet for the idle delay (5 minutes),
so expiry, cleanup and retention run as on a device. A year is a few thousand rounds.

Recorded per round: any processor error code and any gap. At the end: rounds,
notifications, errors by code, the first failing round, gaps, live memories,
memories added, the database's size, `PRAGMA integrity_check`, FTS5's own
integrity-check, and whether recall can still read the index.

Each question is asked through `recall_memory(question, limit=10)` twice, scheduled
into the feed's timeline: one hour after its latest evidence arrived ("fresh") and at
the end of its `ask_time` month ("month_end"). Evidence recall@10 is the share of
the question's cited notifications (cited push and received-SMS ids that were fed
and had arrived by then) found among the sources of the ten hits; a memory's sources
are context ids, mapped back to the LifeBench record through the event key
(`push:<phone_id>`, `sms:<phone_id>`). Beside it, BM25 (`rank_bm25.BM25Okapi`,
lowercase words) over every raw notification received before the ask answers the
same questions. Recall latency: p50/p95 of the month-end asks as they happened, and
at the end the same queries once on the year-old store and once on a fresh store
holding copies of the same live memories (same text, search detail, tier and
sources), so the ratio says what a year of writes and expiry costs.

Usage:
    .venv/bin/python bench/lifebench.py --user fenghaoran --days 30
    .venv/bin/python bench/lifebench.py --user fenghaoran                  # a year
    .venv/bin/python bench/lifebench.py --user fenghaoran --sqlite pysqlite3
    .venv/bin/python bench/lifebench.py --data bundled --json              # the test copy
    .venv/bin/python bench/lifebench.py --user all --data PATH            # a checkout

`--data` takes `bundled` (bench/data/lifebench/, one user), a LifeBench checkout
(or its `life_bench_data/data_en` folder), or a bare git mirror of it (read with
`git show`); the default is `$LIFEBENCH_DATA`, else the local mirror when present,
else `bundled`. `--sqlite pysqlite3` runs the whole measurement in a child Python in
which `sqlite3` is pysqlite3's (bench/sqlite_swap.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gzip
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sqlite_swap import SwapError, swapped  # noqa: E402
from companion_memory.ble.events import NotificationEvent  # noqa: E402
from companion_memory.core.clock import FakeClock  # noqa: E402
from companion_memory.core.errors import CompanionMemoryError  # noqa: E402
from companion_memory.device.config import Config, parse_config  # noqa: E402
from companion_memory.device.root import prepare_root  # noqa: E402
from companion_memory.device.runtime import Runtime  # noqa: E402
from companion_memory.memory import fts_index  # noqa: E402
from companion_memory.memory.errors import EmptyQueryError  # noqa: E402
from companion_memory.memory.records import (  # noqa: E402
    IntentOp,
    MemoryIntent,
    MemoryRecord,
    SourceKind,
)
from companion_memory.memory.store import MemoryStore, RecallHit  # noqa: E402

BUNDLED = ROOT / "bench" / "data" / "lifebench"
MIRROR = Path("/work/.mirror/1754955896+LifeBench/repo")
"""A bare git mirror of the LifeBench repository, read with `git show` when present."""
DATA_EN = "life_bench_data/data_en"
DATA_DIRS = {"en": DATA_EN, "zh": "life_bench_data/data"}
"""LifeBench's two editions: the same people, events and ids, in English and Chinese."""
ZONE = "Asia/Shanghai"
SMS_APP = "com.apple.MobileSMS"
RECEIVED = frozenset({"Receive", "接收"})
FRESH_AFTER = timedelta(hours=1)
LIMIT = 10
NOTIFICATIONS_FILE = "notifications.jsonl.gz"
QUESTIONS_FILE = "questions.jsonl.gz"
WORD = re.compile(r"[^\W_]+")
PROGRESS_EVERY = 250
FTS5_TABLE = re.compile(r"USING\s+fts5\s*\(", re.IGNORECASE)


class DataError(ValueError):
    """The LifeBench data cannot be read or is malformed; the message says where."""


# -- data -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notice:
    """One notification the phone showed: a push, or a received SMS."""

    key: str
    posted_at: datetime
    app_id: str
    title: str
    body: str
    category: str = ""

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.body}"

    def event(self) -> NotificationEvent:
        return NotificationEvent.create(
            kind="added", key=self.key, app_id=self.app_id, title=self.title,
            body=self.body, category=self.category, posted_at=self.posted_at,
        )


@dataclass(frozen=True, slots=True)
class Question:
    number: int
    text: str
    ask_month: str
    evidence: frozenset[str]
    """Every cited push and SMS as a notification key (sent SMS included)."""


@dataclass(frozen=True, slots=True)
class UserData:
    name: str
    notices: tuple[Notice, ...]
    questions: tuple[Question, ...]
    sent_sms: int = 0
    end: datetime | None = None
    """Where a slice (`--days`) cuts the feed: no question is asked after it."""


def _local(text: Any, zone: ZoneInfo, where: str) -> datetime:
    if not isinstance(text, str):
        raise DataError(f"{where}: datetime must be a string like 2025-01-31 08:00:00")
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise DataError(f"{where}: datetime {text!r} is not like 2025-01-31 08:00:00") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=zone)
    return parsed.astimezone(UTC)


def _phone_id(record: dict[str, Any], where: str) -> str:
    value = record.get("phone_id")
    if value is None or isinstance(value, bool) or str(value).strip() == "":
        raise DataError(f"{where}: a record needs a phone_id")
    return str(value).strip()


def parse_push(records: Any, zone: ZoneInfo, where: str) -> list[Notice]:
    """Push records (`phone_data/push.json`) as notifications: app = `source`."""
    if not isinstance(records, list):
        raise DataError(f"{where}: expected a JSON list of push records")
    out = []
    for n, record in enumerate(records):
        at = f"{where}[{n}]"
        if not isinstance(record, dict):
            raise DataError(f"{at}: a push record must be an object")
        app = str(record.get("source") or "").strip() or "unknown"
        out.append(Notice(
            key=f"push:{_phone_id(record, at)}",
            posted_at=_local(record.get("datetime"), zone, at),
            app_id=app, title=str(record.get("title") or ""),
            body=str(record.get("content") or ""),
        ))
    return out


def parse_sms(records: Any, zone: ZoneInfo, where: str) -> tuple[list[Notice], int]:
    """Received SMS (`phone_data/sms.json`) as messages-app notifications titled with the
    sender; sent ones are counted and left out (the phone shows no notification)."""
    if not isinstance(records, list):
        raise DataError(f"{where}: expected a JSON list of SMS records")
    out, sent = [], 0
    for n, record in enumerate(records):
        at = f"{where}[{n}]"
        if not isinstance(record, dict):
            raise DataError(f"{at}: an SMS record must be an object")
        if record.get("message_type") not in RECEIVED:
            sent += 1
            continue
        sender = str(record.get("contactName") or record.get("phoneNumber")
                     or record.get("contact_phone_number") or "").strip()
        out.append(Notice(
            key=f"sms:{_phone_id(record, at)}",
            posted_at=_local(record.get("datetime"), zone, at),
            app_id=SMS_APP, title=sender, body=str(record.get("message_content") or ""),
            category="social",
        ))
    return out, sent


def parse_questions(records: Any, where: str) -> list[Question]:
    """`QA/QA_clean.json`: the question, its `ask_time` month and the cited push/SMS ids
    (an evidence item names its id as `id` or `phone_id`; ids compare as strings)."""
    if not isinstance(records, list):
        raise DataError(f"{where}: expected a JSON list of questions")
    out = []
    for n, record in enumerate(records):
        at = f"{where}[{n}]"
        if not isinstance(record, dict) or not isinstance(record.get("question"), str):
            raise DataError(f"{at}: a question must be an object with a 'question' string")
        month = record.get("ask_time")
        if not isinstance(month, str) or not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?",
                                                          month.strip()):
            raise DataError(f"{at}: ask_time must be a month like 2025-01 (or a day)")
        cited = set()
        for item in record.get("evidence") or []:
            if not isinstance(item, dict) or item.get("type") not in ("push", "sms"):
                continue
            ref = item.get("id", item.get("phone_id"))
            if ref is not None and str(ref).strip():
                cited.add(f"{item['type']}:{str(ref).strip()}")
        out.append(Question(n, record["question"], month.strip(), frozenset(cited)))
    return out


class Source:
    """Where LifeBench is read from: the bundled copy, a checkout, or a bare git mirror."""

    def __init__(self, spec: str | None, lang: str = "en",
                 questions_lang: str | None = None) -> None:
        if spec is None:
            spec = os.environ.get("LIFEBENCH_DATA") or (
                str(MIRROR) if (MIRROR / "HEAD").is_file() else "bundled")
        self.spec = spec
        self.bundled = spec == "bundled"
        self.folder = DATA_DIRS[lang]
        self.questions_folder = DATA_DIRS[questions_lang or lang]
        if self.bundled and (self.folder, self.questions_folder) != (DATA_EN, DATA_EN):
            raise DataError("--data bundled holds the English edition only; the Chinese one "
                            "needs a LifeBench checkout or mirror")
        path = BUNDLED if self.bundled else Path(spec).expanduser()
        if not path.exists():
            raise DataError(f"--data {spec}: no such folder (use 'bundled', a LifeBench "
                            "checkout or a bare git mirror of it)")
        self.git = not self.bundled and (path / "HEAD").is_file() and (path / "objects").is_dir()
        self.root = path
        if not self.bundled and not self.git:
            for candidate in (path / self.folder, path):
                if any(candidate.glob("*/phone_data/push.json")):
                    path = candidate
                    break
            else:
                raise DataError(f"--data {spec}: holds neither {self.folder}/<user>/phone_data "
                                "nor a bare git repository")
        self.path = path

    def users(self) -> list[str]:
        if self.bundled:
            return sorted(p.parent.name for p in self.path.glob(f"*/{NOTIFICATIONS_FILE}"))
        if self.git:
            listing = self._git("ls-tree", "--name-only", f"HEAD:{self.folder}")
            return sorted(line for line in listing.splitlines() if line.strip())
        return sorted(p.parent.parent.name for p in self.path.glob("*/phone_data/push.json"))

    def _git(self, *args: str) -> str:
        done = subprocess.run(["git", "--git-dir", str(self.path), *args],
                              capture_output=True, check=False)
        if done.returncode != 0:
            raise DataError(f"git {' '.join(args[:2])}: "
                            f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode("utf-8")

    def read_json(self, user: str, relative: str, folder: str | None = None) -> Any:
        folder = folder or self.folder
        try:
            if self.git:
                return orjson.loads(self._git("show", f"HEAD:{folder}/{user}/{relative}"))
            base = self.path if folder == self.folder else self.root / folder
            return orjson.loads((base / user / relative).read_bytes())
        except orjson.JSONDecodeError as err:
            raise DataError(f"{user}/{relative}: not JSON ({err})") from err
        except OSError as err:
            raise DataError(f"{user}/{relative}: cannot be read ({err.strerror})") from err

    def load(self, user: str) -> UserData:
        zone = ZoneInfo(ZONE)
        if user not in self.users():
            raise DataError(f"--user {user}: not in {self.spec} "
                            f"(users: {', '.join(self.users()) or 'none'})")
        if self.bundled:
            lines = read_jsonl_gz(self.path / user / NOTIFICATIONS_FILE)
            push = parse_push([r for r in lines if r.get("type") == "push"], zone, user)
            sms, sent = parse_sms([r for r in lines if r.get("type") == "sms"], zone, user)
            questions = parse_questions(
                read_jsonl_gz(self.path / user / QUESTIONS_FILE), f"{user}/{QUESTIONS_FILE}")
        else:
            push = parse_push(self.read_json(user, "phone_data/push.json"), zone,
                              f"{user}/phone_data/push.json")
            sms, sent = parse_sms(self.read_json(user, "phone_data/sms.json"), zone,
                                  f"{user}/phone_data/sms.json")
            questions = parse_questions(
                self.read_json(user, "QA/QA_clean.json", self.questions_folder),
                f"{user}/QA/QA_clean.json")
        notices = sorted(push + sms, key=lambda n: (n.posted_at, n.key))
        return UserData(user, tuple(notices), tuple(questions), sent)


def read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    try:
        raw = gzip.decompress(path.read_bytes())
    except OSError as err:
        raise DataError(f"{path.name}: cannot be read ({err})") from err
    rows = []
    for number, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as err:
            raise DataError(f"{path.name}:{number}: not JSON ({err})") from err
        if not isinstance(row, dict):
            raise DataError(f"{path.name}:{number}: a line must be a JSON object")
        rows.append(row)
    return rows


PUSH_FIELDS = ("type", "phone_id", "datetime", "source", "title", "content")
SMS_FIELDS = ("type", "phone_id", "datetime", "contactName", "message_type", "message_content")


def write_bundle(source: Source, user: str, folder: Path) -> tuple[int, int]:
    """Write the reduced copy of `user` that `--data bundled` reads (see its NOTICE):
    push and received SMS with the fields the harness reads, and the questions with
    their push/sms evidence. Returns (notifications, questions)."""
    if source.bundled or (not source.git and not (source.path / user).is_dir()):
        raise DataError("--bundle needs --data pointing at a LifeBench checkout or mirror")
    if user not in source.users():
        raise DataError(f"--user {user}: not in {source.spec}")
    push, sms = source.read_json(user, "phone_data/push.json"), \
        source.read_json(user, "phone_data/sms.json")
    rows = [{k: str(r[k]) if k == "phone_id" else r.get(k) for k in PUSH_FIELDS}
            for r in push]
    rows += [{k: str(r[k]) if k == "phone_id" else r.get(k) for k in SMS_FIELDS}
             | {"contactName": r.get("contactName") or r.get("phoneNumber")
                or r.get("contact_phone_number")}
             for r in sms if r.get("message_type") in RECEIVED]
    rows.sort(key=lambda r: (str(r["datetime"]), str(r["type"]),
                             int(r["phone_id"]) if r["phone_id"].isdigit() else 0))
    questions = [{"question": q["question"], "ask_time": q["ask_time"],
                  "evidence": [{"type": e["type"], "id": str(e.get("id", e.get("phone_id")))}
                               for e in q.get("evidence") or []
                               if isinstance(e, dict) and e.get("type") in ("push", "sms")]}
                 for q in source.read_json(user, "QA/QA_clean.json")]
    target = folder / user
    target.mkdir(parents=True, exist_ok=True)
    for name, items in ((NOTIFICATIONS_FILE, rows), (QUESTIONS_FILE, questions)):
        raw = b"".join(orjson.dumps(item) + b"\n" for item in items)
        (target / name).write_bytes(gzip.compress(raw, 9, mtime=0))
    return len(rows), len(questions)


def month_end(month: str, zone: ZoneInfo) -> datetime:
    """The last second of `month` (YYYY-MM; a day YYYY-MM-DD: of that day) in `zone`, in
    UTC."""
    parts = [int(p) for p in month.split("-")]
    if len(parts) == 3:
        following = datetime(parts[0], parts[1], parts[2], tzinfo=zone) + timedelta(days=1)
    else:
        year, number = parts
        following = datetime(year + number // 12, number % 12 + 1, 1, tzinfo=zone)
    return (following - timedelta(seconds=1)).astimezone(UTC)


def slice_days(data: UserData, days: float | None, start: datetime | None) -> UserData:
    """The notifications from `start` (default: the first) for `days` days."""
    notices = list(data.notices)
    end = None
    if start is not None:
        notices = [n for n in notices if n.posted_at >= start]
    if days is not None and notices:
        end = notices[0].posted_at + timedelta(days=days)
        notices = [n for n in notices if n.posted_at < end]
    return UserData(data.name, tuple(notices), data.questions, data.sent_sms, end)


# -- asks -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ask:
    question: Question
    when: str  # "fresh" or "month_end"
    at: datetime
    cited: frozenset[str]
    """Cited notifications that were fed and had arrived by `at`."""


def schedule(data: UserData) -> tuple[list[Ask], dict[str, int]]:
    """Each question's two asks, and counts of what was left out and why."""
    zone = ZoneInfo(ZONE)
    arrived = {n.key: n.posted_at for n in data.notices}
    end = data.end
    asks: list[Ask] = []
    skipped: Counter[str] = Counter()
    for q in data.questions:
        fed = {k for k in q.evidence if k in arrived}
        if not q.evidence:
            skipped["no_push_or_sms_evidence"] += 1
            continue
        if not fed:
            skipped["evidence_not_fed"] += 1  # sent SMS only, or outside the slice
            continue
        fresh_at = max(arrived[k] for k in fed) + FRESH_AFTER
        for when, at in (("fresh", fresh_at), ("month_end", month_end(q.ask_month, zone))):
            cited = frozenset(k for k in fed if arrived[k] <= at)
            if not cited:
                skipped[f"{when}_before_evidence"] += 1
            elif end is not None and at > end:
                skipped[f"{when}_after_slice"] += 1
            else:
                asks.append(Ask(q, when, at, cited))
    return asks, dict(skipped)


CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+")


def words(text: str) -> list[str]:
    """The baseline's tokens: words, and each run of Chinese, Japanese or Korean
    characters as its overlapping character bigrams (a run is one "word" otherwise, so
    BM25 over Chinese text would match only whole sentences)."""
    out = []
    for word in WORD.findall(text.casefold()):
        if not CJK_RUN.search(word):
            out.append(word)
            continue
        for piece in re.split(f"({CJK_RUN.pattern})", word):
            if not piece:
                continue
            if CJK_RUN.fullmatch(piece):
                out.extend([piece] if len(piece) == 1 else
                           [piece[i:i + 2] for i in range(len(piece) - 1)])
            else:
                out.append(piece)
    return out


class Bm25Baseline:
    """BM25 (rank_bm25) over every raw notification received before the ask."""

    def __init__(self) -> None:
        self.docs: list[list[str]] = []
        self.keys: list[str] = []
        self.seconds = 0.0

    def add(self, notice: Notice) -> None:
        self.docs.append(words(notice.text) or ["_"])
        self.keys.append(notice.key)

    def top(self, query: str, k: int = LIMIT) -> list[str]:
        from rank_bm25 import BM25Okapi

        started = time.perf_counter()
        terms = words(query)
        if not self.docs or not terms:
            return []
        scores = BM25Okapi(self.docs).get_scores(terms)
        wanted = set(terms)
        # only records sharing a query word, by score (rank_bm25 floors the weight of a
        # word found in more than half the records, so a real match can score <= 0)
        matching = [i for i, doc in enumerate(self.docs) if wanted.intersection(doc)]
        order = sorted(matching, key=lambda i: (-scores[i], -i))[:k]
        self.seconds += time.perf_counter() - started
        return [self.keys[i] for i in order]


# -- one user ---------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float | None:
    """Nearest-rank percentile (`share` in (0, 1])."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def latency(values: Sequence[float]) -> dict[str, Any]:
    p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
    return {"n": len(values), "p50_ms": None if p50 is None else round(p50 * 1000, 3),
            "p95_ms": None if p95 is None else round(p95 * 1000, 3)}


@dataclass(slots=True)
class Run:
    user: str
    rounds: int = 0
    fed: int = 0
    persisted: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    failing_rounds: int = 0
    first_failure: dict[str, Any] | None = None
    last_failure: dict[str, Any] | None = None
    round_gaps: int = 0
    added: int = 0
    applied: int = 0
    recall: dict[str, list[float]] = field(default_factory=lambda: {"fresh": [], "month_end": []})
    bm25: dict[str, list[float]] = field(default_factory=lambda: {"fresh": [], "month_end": []})
    ask_errors: Counter[str] = field(default_factory=Counter)
    month_end_s: list[float] = field(default_factory=list)
    forgotten: int = 0
    phases: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    sweep: Counter[str] = field(default_factory=Counter)
    """The daily sweep's outcomes over the run (added, amended, merged, reinforced, ...)."""
    sweep_days: int = 0
    raw_bytes: int = 0
    raw_month: Counter[str] = field(default_factory=Counter)
    months: list[dict[str, Any]] = field(default_factory=list)
    asks: list[dict[str, Any]] = field(default_factory=list)
    """Each ask: the cited notifications, those the product and BM25 found, the hits."""


def _code(exc: BaseException) -> str:
    if isinstance(exc, CompanionMemoryError):
        return exc.code
    return f"unexpected_{type(exc).__name__}"


def _tail_context_ids(root: Path, count: int) -> list[tuple[int, str]]:
    """(context id, key) of the last `count` records of the newest log shard."""
    shards = sorted((root / "notifications" / "events").glob("*.jsonl"))
    with open(shards[-1], "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - 16384 * count))
        lines = handle.read().splitlines()[-count:]
    out = []
    for line in lines:
        record = orjson.loads(line)
        out.append((int(record["context_id"]), str(record["key"])))
    return out


def config_for(embedder: str | None = None,
               settings: Sequence[str] = ()) -> Config:
    """The default configuration in the person's zone; `embedder` (or
    $LIFEBENCH_EMBEDDER) replaces `[memory] embedder`; each of `settings`
    ("section.key=TOML value", as `--set` takes them) replaces one setting."""
    embedder = embedder or os.environ.get("LIFEBENCH_EMBEDDER")
    table: dict[str, dict[str, Any]] = {"sweep": {"zone": ZONE}}
    if embedder:
        table["memory"] = {"embedder": embedder}
    for item in settings:
        name, _, value = item.partition("=")
        section, _, key = name.strip().partition(".")
        if not (section and key and value.strip()):
            raise DataError(f"--set {item!r}: use section.key=value, e.g. "
                            "intake.noise_model=true")
        try:
            parsed = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            parsed = value.strip()  # a bare word is a string
        table.setdefault(section, {})[key] = parsed
    return parse_config(table)


async def _advance(clock: FakeClock, when: datetime) -> None:
    step = (when - clock.now()).total_seconds()
    if step > 0:
        await clock.advance(step)


async def run_user(data: UserData, *, progress: bool = True,
                   forget_every: int = 0, embedder: str | None = None,
                   keep_store: Path | None = None,
                   settings: Sequence[str] = ()) -> dict[str, Any]:
    """Feed `data` through a Runtime on a FakeClock (see the module docstring); with
    `forget_every`, the owner forgets the newest live memory after every that many
    rounds (so a forget's index rebuild and scrub run all year long too). `embedder`
    replaces the default `[memory] embedder` ("none": keyword recall only)."""
    config = config_for(embedder, settings)
    idle = timedelta(seconds=config.worker.idle_delay_s)
    asks, skipped = schedule(data)
    out = Run(data.name)
    timeline: list[tuple[datetime, int, Any]] = [(n.posted_at, 0, n) for n in data.notices]
    timeline += [(a.at, 1, a) for a in asks]
    if data.notices:  # the end-of-feed snapshot, right after the last round
        timeline.append((data.notices[-1].posted_at + idle + timedelta(seconds=1), 2, None))
        timeline += [(at, 3, month) for month, at in month_ends(data)]
    queries = list(dict.fromkeys(a.question.text for a in asks if a.when == "month_end"))
    snapshot: dict[str, Any] = {}
    timeline.sort(key=lambda item: (item[0], item[1]))
    first = data.notices[0].posted_at if data.notices else datetime.now(UTC)
    clock = FakeClock(first - timedelta(minutes=1))
    bm25 = Bm25Baseline()
    cid_to_key: dict[int, str] = {}
    started = time.perf_counter()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cm-lifebench-") as tmp:
        root = Path(tmp) / "root"
        runtime = Runtime(config, root=root, clock=clock, start_worker=False,
                          start_link=False)
        await runtime.open()
        try:
            last_event: datetime | None = None
            pending = False

            async def idle_window(until: datetime) -> None:
                nonlocal pending
                if not pending or last_event is None or last_event + idle > until:
                    return
                await _advance(clock, last_event + idle)
                t0 = time.perf_counter()
                report = await runtime.run_once()
                out.phases["run_once"] += time.perf_counter() - t0
                out.rounds += 1
                pending = False
                for r in report.reports:
                    out.round_gaps += r.gaps
                    if r.error is None and r.processor == "notifications":
                        out.added += r.proposals.get("add", 0)
                        out.applied += r.applied
                    if r.processor == "sweep":
                        out.sweep_days += sum(1 for d in r.extra.get("dates", [])
                                              if d.get("status") in ("swept", "empty"))
                        out.sweep.update({k[len("outcome_"):]: v for k, v in
                                          r.proposals.items() if k.startswith("outcome_")})
                errors = report.errors
                if errors:
                    out.failing_rounds += 1
                    out.errors.update(errors.values())
                    failure = {"round": out.rounds, "at": clock.now().isoformat(),
                               "errors": dict(errors)}
                    out.first_failure = out.first_failure or failure
                    out.last_failure = failure
                if forget_every and out.rounds % forget_every == 0:
                    await _forget_newest(runtime, out)
                if progress and out.rounds % PROGRESS_EVERY == 0:
                    print(f"  {data.name}: round {out.rounds} at "
                          f"{clock.now().date().isoformat()}, failing rounds "
                          f"{out.failing_rounds}, {time.perf_counter() - started:.0f} s",
                          file=sys.stderr)

            index = 0
            while index < len(timeline):
                when, kind, item = timeline[index]
                await idle_window(when)
                await _advance(clock, when)
                if kind == 0:
                    batch = [item]
                    while index + 1 < len(timeline) and timeline[index + 1][1] == 0 \
                            and timeline[index + 1][0] == when:
                        index += 1
                        batch.append(timeline[index][2])
                    t0 = time.perf_counter()
                    totals = await runtime.feed([n.event() for n in batch])
                    out.phases["feed"] += time.perf_counter() - t0
                    out.fed += len(batch)
                    out.persisted += totals.persisted
                    if totals.persisted:
                        cid_to_key.update(await asyncio.to_thread(
                            _tail_context_ids, root, totals.persisted))
                    for notice in batch:
                        bm25.add(notice)
                        size = len(notice.text.encode("utf-8"))
                        out.raw_bytes += size
                        out.raw_month[notice.posted_at.astimezone(ZoneInfo(ZONE))
                                      .strftime("%Y-%m")] += size
                    last_event, pending = when, True
                elif kind == 1:
                    await _ask(runtime, item, out, bm25, cid_to_key)
                elif kind == 3:
                    t0 = time.perf_counter()
                    out.months.append({"month": item, **await asyncio.to_thread(
                        _month_end_store, root, clock.now(), out)})
                    out.phases["month_end_store"] += time.perf_counter() - t0
                else:
                    out.phases["feed_and_rounds_wall"] = time.perf_counter() - started
                    t0 = time.perf_counter()
                    snapshot = await _snapshot(runtime, root, Path(tmp), clock, config,
                                               queries)
                    out.phases["snapshot"] = time.perf_counter() - t0
                index += 1
            await idle_window(datetime.max.replace(tzinfo=UTC))
            result = await _final(runtime, out, snapshot)
        finally:
            with contextlib.suppress(Exception):
                await runtime.close()
        result.update(await asyncio.to_thread(_file_checks, root))
        if keep_store is not None:
            await asyncio.to_thread(_keep_store, root, keep_store / f"{data.name}.sqlite3")
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["asks_skipped"] = skipped
    result["phases_s"] = {k: round(v, 1) for k, v in out.phases.items()}
    result["phases_s"]["bm25"] = round(bm25.seconds, 1)
    return result


def _keep_store(root: Path, target: Path) -> None:
    """Copy the closed run's memory database to `target` (SQLite's backup), to read."""
    target.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(f"file:{root / 'memory.sqlite3'}?mode=ro", uri=True)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()


async def _forget_newest(runtime: Runtime, out: Run) -> None:
    newest = await runtime.list_memories(limit=1)
    if not newest:
        return
    try:
        await runtime.forget(newest[0].memory_id, reason="soak: the owner says no")
    except Exception as exc:
        out.failing_rounds += 1
        out.errors[f"forget:{_code(exc)}"] += 1
        return
    out.forgotten += 1


async def _ask(runtime: Runtime, ask: Ask, out: Run, bm25: Bm25Baseline,
               cid_to_key: dict[int, str]) -> None:
    t0 = time.perf_counter()
    hits: list[RecallHit] = []
    failed = False
    try:
        hits = await runtime.recall_memory(ask.question.text, limit=LIMIT)
    except EmptyQueryError:
        pass
    except Exception as exc:  # a broken index: counted (recall 0), the run goes on
        out.ask_errors[_code(exc)] += 1
        failed = True
    elapsed = time.perf_counter() - t0
    out.phases["recall"] += elapsed
    if ask.when == "month_end" and not failed:  # a failed ask has no latency
        out.month_end_s.append(elapsed)
    found = {cid_to_key.get(int(s.ref), "?") for hit in hits for s in hit.record.sources
             if s.kind is SourceKind.CONTEXT and s.ref.isdigit()}
    out.recall[ask.when].append(len(found & ask.cited) / len(ask.cited))
    baseline = set(bm25.top(ask.question.text))
    out.bm25[ask.when].append(len(baseline & ask.cited) / len(ask.cited))
    out.asks.append({
        "question": ask.question.number, "when": ask.when, "at": ask.at.isoformat(),
        "cited": sorted(ask.cited), "found": sorted(found & ask.cited),
        "bm25": sorted(baseline & ask.cited),
        "hits": [{"memory_id": h.record.memory_id, "tier": h.record.tier.value,
                  "sources": len(h.record.sources), "score": round(h.score, 4),
                  "age_days": round((ask.at - h.record.created_at).total_seconds() / 86400, 1)}
                 for h in hits],
    })


def _live(records: Iterable[MemoryRecord], now: datetime) -> list[MemoryRecord]:
    return [r for r in records if r.is_live(now)]


def month_ends(data: UserData) -> list[tuple[str, datetime]]:
    """(month, its last second) for every month with notifications (within a `--days`
    slice: up to its end)."""
    if not data.notices:
        return []
    zone = ZoneInfo(ZONE)
    first = data.notices[0].posted_at.astimezone(zone)
    last = data.notices[-1].posted_at.astimezone(zone)
    fed = {n.posted_at.astimezone(zone).strftime("%Y-%m") for n in data.notices}
    out = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        label = f"{year:04d}-{month:02d}"
        at = month_end(label, zone)
        if label in fed and (data.end is None or at <= data.end):
            out.append((label, at))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return out


def _month_end_store(root: Path, now: datetime, out: Run) -> dict[str, Any]:
    """What the store keeps at a month's end: live memories and their text + search
    detail bytes by tier, beside the raw notification text received so far (what BM25
    over every raw notification holds); the database file; Long-Term memories that cite
    no notification or hold a secret (text or detail)."""
    from companion_memory.memory.secrets import contains_secret

    db = root / "memory.sqlite3"
    now_us = int(now.timestamp() * 1_000_000)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tiers: dict[str, dict[str, int]] = {}
        for tier, count, text_b, detail_b in conn.execute(
            "SELECT tier, count(*), coalesce(sum(length(CAST(text AS BLOB))), 0), "
            "coalesce(sum(length(CAST(coalesce(detail, '') AS BLOB))), 0) FROM memories "
            "WHERE status = 'active' AND (expires_us IS NULL OR expires_us > ?) "
            "GROUP BY tier", (now_us,)
        ):
            tiers[str(tier)] = {"memories": int(count), "text_bytes": int(text_b),
                                "detail_bytes": int(detail_b)}
        without, secret = 0, 0
        for text, detail, sources in conn.execute(
            "SELECT text, coalesce(detail, ''), sources FROM memories WHERE tier = 'long_term' "
            "AND status = 'active' AND (expires_us IS NULL OR expires_us > ?)", (now_us,)
        ):
            if "context:" not in str(sources):
                without += 1
            if contains_secret(str(text)) or contains_secret(str(detail)):
                secret += 1
    finally:
        conn.close()
    wal = db.with_name(db.name + "-wal")
    kept = sum(t["text_bytes"] + t["detail_bytes"] for t in tiers.values())
    long_term = tiers.get("long_term", {"text_bytes": 0, "detail_bytes": 0})
    lt_bytes = long_term["text_bytes"] + long_term["detail_bytes"]
    return {
        "memories": {t: v["memories"] for t, v in tiers.items()},
        "memory_bytes": kept,
        "long_term_bytes": lt_bytes,
        "raw_bytes_so_far": out.raw_bytes,
        "ratio": round(kept / out.raw_bytes, 3) if out.raw_bytes else None,
        "long_term_ratio": round(lt_bytes / out.raw_bytes, 3) if out.raw_bytes else None,
        "db_bytes": db.stat().st_size,
        "wal_bytes": wal.stat().st_size if wal.exists() else 0,
        "long_term_without_sources": without,
        "long_term_with_secret": secret,
    }


def _per_week(out: Run) -> float | None:
    """Long-Term memories the sweep wrote (added or promoted) per week of swept days."""
    if not out.sweep_days:
        return None
    made = out.sweep.get("added", 0) + out.sweep.get("promoted", 0)
    return round(made / (out.sweep_days / 7), 2)


async def _snapshot(runtime: Runtime, root: Path, tmp: Path, clock: FakeClock,
                    config: Config, queries: Sequence[str]) -> dict[str, Any]:
    """The store right after the round that follows the last notification: live
    memories, whether recall reads the index, and the month-end queries once on it and
    once on a fresh store holding copies of the same live memories."""
    now = clock.now()
    live = _live(await runtime.list_memories(limit=1_000_000), now)
    try:
        await runtime.recall_memory("message from a friend", limit=LIMIT)
        readable: str = "ok"
    except Exception as exc:
        readable = _code(exc)
    old_s = await _timed(runtime, queries)
    keep = os.environ.get("LIFEBENCH_KEEP")
    if keep:  # the year-old store and the queries, for a closer look
        await asyncio.to_thread(_keep, root / "memory.sqlite3", Path(keep), queries)
    fresh_s, compact_s = await _fresh_store_latency(
        root, tmp / "fresh", clock, config, live, queries)
    old, new, compact = latency(old_s), latency(fresh_s), latency(compact_s)

    def ratio(key: str, base: dict[str, Any]) -> float | None:
        a, b = old[key], base[key]
        return None if a is None or not b else round(a / b, 2)

    return {"at": now.isoformat(), "live_memories": len(live), "fts_readable": readable,
            "year_old_store": old, "fresh_store": new, "fresh_store_one_segment": compact,
            "ratio_p50": ratio("p50_ms", new), "ratio_p95": ratio("p95_ms", new),
            "ratio_one_segment_p50": ratio("p50_ms", compact),
            "ratio_one_segment_p95": ratio("p95_ms", compact)}


async def _final(runtime: Runtime, out: Run, snapshot: dict[str, Any]) -> dict[str, Any]:
    gaps = await runtime.gaps()

    def share(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 3) if values else None

    return {
        "user": out.user,
        "rounds": out.rounds,
        "notifications": out.fed,
        "persisted": out.persisted,
        "failing_rounds": out.failing_rounds,
        "errors_by_code": dict(out.errors),
        "first_failure": out.first_failure,
        "last_failure": out.last_failure,
        "round_gaps": out.round_gaps,
        "gaps": dict(Counter(f"{g.kind}:{g.reason}" for g in gaps)),
        "gap_records": sum(g.count for g in gaps),
        "pending_at_end": await runtime.pending_count(),
        "live_memories": snapshot.get("live_memories"),
        "memories_added": out.added + out.sweep.get("added", 0),  # notifications and sweep
        "forgotten": out.forgotten,
        "intents_applied": out.applied,
        "fts_readable": snapshot.get("fts_readable"),
        "recall@10": {
            when: {"asked": len(out.recall[when]), "product": share(out.recall[when]),
                   "bm25": share(out.bm25[when])}
            for when in ("fresh", "month_end")
        },
        "ask_errors": dict(out.ask_errors),
        "sweep": {"days_swept": out.sweep_days, "outcomes": dict(out.sweep)},
        "long_term_per_person_week": _per_week(out),
        "months": out.months,
        "asks": out.asks,
        "store_at_year_end": out.months[-1] if out.months else None,
        "long_term_with_secret": max((m["long_term_with_secret"] for m in out.months),
                                     default=0),
        "long_term_without_sources": max((m["long_term_without_sources"] for m in out.months),
                                         default=0),
        "latency": {"month_end_in_run": latency(out.month_end_s),
                    **{k: v for k, v in snapshot.items() if k not in
                       ("live_memories", "fts_readable")}},
    }


async def _timed(runtime: Runtime, queries: Sequence[str]) -> list[float]:
    """Each query once (recall caches per unchanged file, so a repeat would time the
    cache), after one untimed warm-up query."""
    seconds = []
    with contextlib.suppress(Exception):
        await runtime.recall_memory("warm up the statistics", limit=LIMIT)
    for query in queries:
        t0 = time.perf_counter()
        try:
            await runtime.recall_memory(query, limit=LIMIT)
        except Exception:  # an unreadable index: no figure for this query
            continue
        seconds.append(time.perf_counter() - t0)
    return seconds


def _details(path: Path, ids: Sequence[str]) -> dict[str, tuple[str | None, int | None]]:
    """memory id -> (search detail, detail_until_us) read from the database file (the
    detail is never shown through the API, but it is part of what recall searches)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
        if not {"detail", "detail_until_us"} <= columns:
            return {}
        wanted = set(ids)
        return {mid: (detail or None, until) for mid, detail, until in conn.execute(
            "SELECT memory_id, detail, detail_until_us FROM memories WHERE status = 'active'")
            if mid in wanted}
    finally:
        conn.close()


async def _fresh_store_latency(old_root: Path, root: Path, clock: FakeClock, config: Config,
                               live: Sequence[MemoryRecord], queries: Sequence[str]
                               ) -> tuple[list[float], list[float]]:
    """The same live memories written into a new root (one transaction per 200, as the
    store's intents write them), then the same queries once; again after the store's
    own rebuild of that copy's index into one segment."""
    details = await asyncio.to_thread(
        _details, old_root / "memory.sqlite3", [r.memory_id for r in live])
    fresh_clock = FakeClock(clock.now())
    await asyncio.to_thread(prepare_root, root)
    store = await MemoryStore.open(root / "memory.sqlite3", clock=fresh_clock,
                                   settings=config.memory)
    try:
        intents = []
        for record in live:
            detail, until_us = details.get(record.memory_id, (None, None))
            until = None if until_us is None else datetime.fromtimestamp(until_us / 1e6, UTC)
            intents.append(MemoryIntent(
                op=IntentOp.CREATE, memory_id=record.memory_id, tier=record.tier,
                kind=record.kind, text=record.text, authority=record.authority,
                sources=record.sources, subject=record.subject, auto=record.auto,
                detail=detail, detail_until=until if until and until > clock.now() else None,
            ))
        for start in range(0, len(intents), 200):
            await store.apply(intents[start:start + 200])
    finally:
        await store.close()
    timings = []
    for step in ("as written", "one segment"):
        if step == "one segment":
            await asyncio.to_thread(_one_segment, root / "memory.sqlite3")
        runtime = Runtime(config, root=root, clock=fresh_clock, start_worker=False,
                          start_link=False)
        await runtime.open()
        try:
            timings.append(await _timed(runtime, queries))
        finally:
            await runtime.close()
    return timings[0], timings[1]


def _keep(db: Path, folder: Path, queries: Sequence[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(db)
    target = sqlite3.connect(folder / "memory.sqlite3")
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()
    (folder / "queries.json").write_text(json.dumps(list(queries)))


def _one_segment(path: Path) -> None:
    """The store's own rebuild of its index (`memory.fts_index.rebuild`): the same index
    content in one segment, the layout a compacted store reaches at best."""
    conn = sqlite3.connect(path)
    try:
        fts_index.rebuild(conn)
        conn.commit()
    finally:
        conn.close()


def _file_checks(root: Path) -> dict[str, Any]:
    """Sizes and SQLite's own checks on the closed database file."""
    db = root / "memory.sqlite3"
    wal = db.with_name(db.name + "-wal")
    out: dict[str, Any] = {
        "db_bytes": db.stat().st_size if db.exists() else None,
        "wal_bytes": wal.stat().st_size if wal.exists() else 0,
        "log_bytes": sum(p.stat().st_size for p in (root / "notifications").rglob("*")
                         if p.is_file()),
    }
    conn = sqlite3.connect(db)
    try:
        try:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
            out["integrity_check"] = "; ".join(str(r[0]) for r in rows[:5])
        except sqlite3.DatabaseError as err:
            out["integrity_check"] = f"error: {type(err).__name__}"
        tables = {name for name, sql in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'")
            if sql and FTS5_TABLE.search(sql)}
        checks = {}
        for table in sorted(tables):
            try:
                conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
                checks[table] = "ok"
            except sqlite3.DatabaseError as err:
                checks[table] = f"error: {type(err).__name__}: {str(err)[:80]}"
        out["fts5_integrity_check"] = checks
        try:
            health = fts_index.check(conn)  # the store's own check (doctor's)
            out["store_check"] = "; ".join(health.problems) or "ok"
        except sqlite3.DatabaseError as err:
            out["store_check"] = f"error: {type(err).__name__}"
        with_vector, active = conn.execute(
            "SELECT count(v.id), count(*) FROM memories AS m LEFT JOIN memory_vectors AS v "
            "ON v.memory_rowid = m.rowid WHERE m.status = 'active'").fetchone()
        stray = conn.execute(
            "SELECT count(*) FROM memory_vectors AS v LEFT JOIN memories AS m "
            "ON m.rowid = v.memory_rowid WHERE m.rowid IS NULL OR m.status != 'active'"
        ).fetchone()[0]
        out["vectors"] = {"active_with_vector": int(with_vector), "active": int(active),
                          "stray": int(stray)}
    finally:
        conn.close()
    return out


# -- output -----------------------------------------------------------------------------


def sqlite_info() -> dict[str, str]:
    return {"sqlite_version": str(sqlite3.sqlite_version), "module": sqlite3.__name__}


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_cell(v)}" for k, v in value.items()) or "-"
    return str(value)


def table(results: Sequence[dict[str, Any]], info: dict[str, str]) -> str:
    lines = [f"SQLite {info['sqlite_version']} ({info['module']})", "",
             "| measure | " + " | ".join(r["user"] for r in results) + " |",
             "|---|" + "---:|" * len(results)]

    def row(name: str, get: Any) -> None:
        lines.append(f"| {name} | " + " | ".join(_cell(get(r)) for r in results) + " |")

    row("notifications fed", lambda r: r["notifications"])
    row("rounds", lambda r: r["rounds"])
    row("failing rounds", lambda r: r["failing_rounds"])
    row("errors by code", lambda r: r["errors_by_code"])
    row("first failure (round, at)", lambda r: None if not r["first_failure"] else
        f"{r['first_failure']['round']} {r['first_failure']['at'][:16]} "
        f"{','.join(r['first_failure']['errors'].values())}")
    row("gaps", lambda r: r["gaps"])
    row("pending at end", lambda r: r["pending_at_end"])
    row("end of feed (snapshot) at", lambda r: (r["latency"].get("at") or "-")[:16])
    row("live memories at end of feed", lambda r: r["live_memories"])
    row("memories added", lambda r: r["memories_added"])
    row("db + wal bytes", lambda r: (r["db_bytes"] or 0) + r["wal_bytes"])
    row("integrity_check", lambda r: r["integrity_check"])
    row("fts5 integrity-check", lambda r: r["fts5_integrity_check"])
    row("recall readable at end of feed", lambda r: r["fts_readable"])
    for when in ("fresh", "month_end"):
        row(f"recall@10 {when} product", lambda r, w=when: r["recall@10"][w]["product"])
        row(f"recall@10 {when} BM25 raw", lambda r, w=when: r["recall@10"][w]["bm25"])
        row(f"questions asked {when}", lambda r, w=when: r["recall@10"][w]["asked"])
    row("ask errors", lambda r: r["ask_errors"])
    row("sweep days / outcomes", lambda r: f"{r['sweep']['days_swept']} / "
        + _cell(r["sweep"]["outcomes"]))
    row("Long-Term written per person-week", lambda r: r["long_term_per_person_week"])
    row("Long-Term with a secret / citing nothing", lambda r:
        f"{r['long_term_with_secret']} / {r['long_term_without_sources']}")
    row("kept / raw bytes, worst month end", lambda r: max(
        (m["ratio"] or 0 for m in r["months"]), default=None))
    row("kept / raw bytes at the last month end", lambda r: (r["store_at_year_end"] or {})
        .get("ratio"))
    row("Long-Term / raw bytes at the last month end", lambda r:
        (r["store_at_year_end"] or {}).get("long_term_ratio"))
    for name in ("month_end_in_run", "year_old_store", "fresh_store",
                 "fresh_store_one_segment"):
        row(f"recall p50/p95 ms {name}", lambda r, n=name: "-" if n not in r["latency"]
            else f"{_cell(r['latency'][n]['p50_ms'])} / {_cell(r['latency'][n]['p95_ms'])}")
    row("year-old / fresh p50, p95", lambda r:
        f"{_cell(r['latency'].get('ratio_p50'))}, {_cell(r['latency'].get('ratio_p95'))}")
    row("year-old / fresh one segment p50, p95", lambda r:
        f"{_cell(r['latency'].get('ratio_one_segment_p50'))}, "
        f"{_cell(r['latency'].get('ratio_one_segment_p95'))}")
    row("wall s", lambda r: r["wall_s"])
    row("phases s", lambda r: r["phases_s"])
    return "\n".join(lines)


def months_table(result: dict[str, Any]) -> str:
    """What the store keeps at each month end (see `_month_end_store`)."""
    lines = ["", f"{result['user']}: the store at each month end", "",
             "| month | raw bytes so far | kept bytes (ratio) | Long-Term bytes (ratio) | "
             "live Temporary / Long-Term | DB file / WAL bytes |",
             "|---|---:|---:|---:|---:|---:|"]
    for m in result["months"]:
        counts = m["memories"]
        lines.append(
            f"| {m['month']} | {m['raw_bytes_so_far']:,} | {m['memory_bytes']:,} "
            f"({_cell(m['ratio'])}) | {m['long_term_bytes']:,} ({_cell(m['long_term_ratio'])}) "
            f"| {counts.get('temporary', 0)} / {counts.get('long_term', 0)} "
            f"| {m['db_bytes']:,} / {m['wal_bytes']:,} |")
    return "\n".join(lines)


def _child(argv: Sequence[str]) -> int:
    """Run this script again in a Python whose `sqlite3` is pysqlite3's."""
    command = [sys.executable, str(ROOT / "bench" / "sqlite_swap.py"), str(Path(__file__)),
               *argv]
    return subprocess.run(command, check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--user", action="append",
                        help="a LifeBench user (repeatable), or 'all'; default: the first")
    parser.add_argument("--data", help="bundled, a LifeBench checkout, or a bare git mirror")
    parser.add_argument("--lang", choices=sorted(DATA_DIRS), default="en",
                        help="the edition whose notifications are fed (zh: the Chinese one)")
    parser.add_argument("--questions-lang", choices=sorted(DATA_DIRS),
                        help="the edition whose questions are asked (default: --lang's; "
                        "--lang zh --questions-lang en asks English questions of Chinese "
                        "notifications)")
    parser.add_argument("--days", type=float, help="only the first N days of notifications")
    parser.add_argument("--start", help="skip notifications before this date (YYYY-MM-DD, "
                        f"{ZONE})")
    parser.add_argument("--sqlite", choices=("system", "pysqlite3"), default="system",
                        help="which SQLite library the whole run uses")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--forget-every", type=int, default=0, metavar="N",
                        help="the owner forgets the newest memory after every N rounds")
    parser.add_argument("--profile", type=Path, help="write cProfile statistics of the "
                        "main thread here (SQLite work runs on the store's own thread)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="replace one setting of the default configuration (repeatable; "
                        "the value in TOML: intake.noise_model=true)")
    parser.add_argument("--keep-store", type=Path, metavar="DIR",
                        help="copy each user's memory database at year end to DIR/USER.sqlite3")
    parser.add_argument("--bundle", type=Path, metavar="DIR",
                        help="write the reduced copy of --user into DIR and stop")
    args = parser.parse_args(argv)
    if args.days is not None and not args.days > 0:
        parser.error("--days must be a positive number of days")
    if args.sqlite == "pysqlite3" and not swapped():
        return _child(list(sys.argv[1:] if argv is None else argv))
    try:
        start = None if args.start is None else datetime.fromisoformat(args.start).replace(
            tzinfo=ZoneInfo(ZONE))
    except ValueError:
        parser.error(f"--start {args.start!r}: use a date like 2025-01-01")
    try:
        source = Source(args.data, args.lang, args.questions_lang)
        names = source.users()
        wanted = args.user or names[:1]
        users = names if "all" in wanted else wanted
        if args.bundle is not None:
            for user in users:
                counts = write_bundle(source, user, args.bundle)
                print(f"{user}: {counts[0]} notifications, {counts[1]} questions")
            return 0
        datasets = [slice_days(source.load(u), args.days, start) for u in users]
        config_for(None, args.set)  # a bad --set stops here, before any run
    except (DataError, SwapError, CompanionMemoryError) as err:
        print(f"lifebench: {err}", file=sys.stderr)
        return 2
    info = sqlite_info()
    if not args.quiet:
        print(f"lifebench: SQLite {info['sqlite_version']} ({info['module']}), data "
              f"{source.spec}", file=sys.stderr)
    profiler = cProfile.Profile() if args.profile else None
    results = []
    for data in datasets:
        if profiler is not None:
            profiler.enable()
        result = asyncio.run(run_user(data, progress=not args.quiet,
                                      forget_every=args.forget_every,
                                      keep_store=args.keep_store, settings=args.set))
        if profiler is not None:
            profiler.disable()
        result["sent_sms_left_out"] = data.sent_sms
        results.append(result)
    if profiler is not None and args.profile is not None:
        profiler.dump_stats(str(args.profile))
    if args.json:
        print(orjson.dumps({**info, "data": source.spec, "results": results}).decode())
    else:
        print(table(results, info))
        for result in results:
            print(months_table(result))
    return 0


with contextlib.suppress(AttributeError):
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

if __name__ == "__main__":
    sys.exit(main())
