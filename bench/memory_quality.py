"""Memory quality on a labeled fortnight of one person's notifications (issue 14).

The corpus (`bench/data/fortnight/`, see its README) is fed through the public
`Runtime` API on a `FakeClock` exactly as the daemon would see it: each
notification at its time, the worker's idle window (`run_once`) whenever the phone
has been quiet for the idle delay, and each question through
`recall_memory(question, limit=5)` at the time it is asked. Side by side, in the
same run, a baseline of BM25 (`rank_bm25.BM25Okapi`) over the raw notification log
received so far answers the same questions.

A question is answered at k when a notification that answers it at that time is
among the sources of the top k hits (for the baseline: among the top k log
records). Printed per provider:

- answer@5, answer@1, and answer@5 of the questions tagged old (asked > 7 days after
  their fact), changed, long (answer inside a long message) and non-English source;
- stale-first: of the questions with a superseded notification, the share whose
  first relevant hit (answer or superseded) is the superseded one;
- junk share: live memories at the end whose sources are all noise-labeled rows;
- secret leaks: secret strings (spaces, dashes and dots removed) found in any stored
  memory (text or search detail), any recall hit, or any model prompt;
- live and Long-Term memory counts at the end; model calls, model seconds and
  prompt/completion tokens per kept notification (label keep).

Usage:
    .venv/bin/python bench/memory_quality.py                       # deterministic + BM25
    .venv/bin/python bench/memory_quality.py --provider llama=PATH.gguf --days 3
    .venv/bin/python bench/memory_quality.py --json                # one JSON object
    .venv/bin/python bench/memory_quality.py --later 45            # and 45 days on

With `--later DAYS`, every question is asked again DAYS days after the corpus ends, the
worker's round run once per local day until then (the daily sweep consolidates each day,
the cleaners expire what has lived its time); the baseline answers it from every raw
notification. A question about a fact that changed after it was asked may have a newer
answer by then: the later figures are for comparing stores, not for absolute recall.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion_memory.agent.model.provider import ModelProvider, ModelRequest, ModelResponse  # noqa: E402
from companion_memory.agent.model.settings import (  # noqa: E402
    MODEL_SCENARIOS as MODEL_SCENARIO_CHOICES,
)
from companion_memory.ble.events import NotificationEvent, parse_rfc3339  # noqa: E402
from companion_memory.core.clock import FakeClock  # noqa: E402
from companion_memory.core.errors import CompanionMemoryError  # noqa: E402
from companion_memory.device.config import Config, parse_config  # noqa: E402
from companion_memory.device.root import prepare_root  # noqa: E402
from companion_memory.device.runtime import Runtime, build_configured_provider  # noqa: E402
from companion_memory.memory import hybrid  # noqa: E402
from companion_memory.memory.errors import EmptyQueryError  # noqa: E402
from companion_memory.memory.recall import STOPWORDS  # noqa: E402
from companion_memory.memory.records import SourceKind, Status, Tier  # noqa: E402

DATA = ROOT / "bench" / "data" / "fortnight"
ROW_KEYS = frozenset({"id", "kind", "key", "app_id", "title", "subtitle", "body", "category",
                      "posted_at", "label", "secrets", "lang"})
ROW_REQUIRED = frozenset({"id", "kind", "key", "app_id", "posted_at", "label"})
LABELS = frozenset({"keep", "noise", "secret"})
QUESTION_KEYS = frozenset({"id", "asked_at", "question", "answers", "superseded", "tags",
                           "lang"})
QUESTION_OPTIONAL = frozenset({"tags", "lang"})
TAGS = frozenset({"changed", "old", "long", "german_source", "secret_adjacent",
                  "cross_lingual", "cjk"})
EVENT_KEYS = ("kind", "key", "app_id", "title", "subtitle", "body", "category", "posted_at")
OLD_DAYS = 7
EMBEDDER: list[str] = []
LATER: list[float] = []
"""`--later DAYS`: every question asked again this many days after the corpus ends."""
NOISE_MODEL: list[str] = []
MODEL_SCENARIOS: list[str] = []
"""`--model-scenarios`: what a llama provider extracts for (`[provider] scenarios`)."""
ZONE = "Europe/Berlin"
THREADS = 2
TOKEN = re.compile(r"[^\W_]+")
SEPARATORS = re.compile(r"[\s\-./]+")


class CorpusError(ValueError):
    """A corpus row or question is malformed; the message names the file, line and id."""


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    event: NotificationEvent
    label: str
    secrets: tuple[str, ...]
    lang: str

    @property
    def text(self) -> str:
        e = self.event
        return "\n".join(p for p in (e.title, e.subtitle, e.body) if p)


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    asked_at: datetime
    question: str
    answers: tuple[str, ...]
    superseded: tuple[str, ...]
    tags: frozenset[str]


@dataclass(frozen=True, slots=True)
class Corpus:
    rows: tuple[Row, ...]
    questions: tuple[Question, ...]
    zone: str = ZONE
    """The person's time zone (`meta.json` beside the corpus; Europe/Berlin without)."""

    def by_id(self) -> dict[str, Row]:
        return {row.id: row for row in self.rows}


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise CorpusError(f"{path}: cannot be read ({err.strerror})") from err
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, orjson.loads(line)
        except orjson.JSONDecodeError as err:
            raise CorpusError(f"{path.name}:{number}: not a JSON object ({err})") from err


def _row(path: Path, number: int, data: Any) -> Row:
    where = f"{path.name}:{number}"
    if not isinstance(data, dict):
        raise CorpusError(f"{where}: a row must be a JSON object")
    name = data.get("id", "?")
    where = f"{where} (row {name})"
    unknown = sorted(set(data) - ROW_KEYS)
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(ROW_KEYS)}")
    missing = sorted(ROW_REQUIRED - set(data))
    if missing:
        raise CorpusError(f"{where}: missing key(s) {missing}")
    if data["label"] not in LABELS:
        raise CorpusError(f"{where}: label {data['label']!r} is not one of {sorted(LABELS)}")
    secrets = data.get("secrets") or []
    if not isinstance(secrets, list) or not all(isinstance(s, str) and s for s in secrets):
        raise CorpusError(f"{where}: secrets must be a list of non-empty strings")
    if data["label"] == "secret" and not secrets:
        raise CorpusError(f"{where}: a secret row needs its secret strings in 'secrets'")
    try:
        event = NotificationEvent.from_dict({k: data[k] for k in EVENT_KEYS if k in data})
    except (ValueError, CompanionMemoryError) as err:
        raise CorpusError(f"{where}: {err}") from err
    row = Row(str(name), event, data["label"], tuple(secrets), str(data.get("lang", "und")))
    for secret in row.secrets:
        if secret not in row.text:
            raise CorpusError(f"{where}: a secret string does not occur in the row's text")
    return row


def _question(path: Path, number: int, data: Any, rows: dict[str, Row]) -> Question:
    where = f"{path.name}:{number}"
    if not isinstance(data, dict):
        raise CorpusError(f"{where}: a question must be a JSON object")
    where = f"{where} (question {data.get('id', '?')})"
    unknown = sorted(set(data) - QUESTION_KEYS)
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {unknown}; allowed: {sorted(QUESTION_KEYS)}")
    missing = sorted(QUESTION_KEYS - QUESTION_OPTIONAL - set(data))
    if missing:
        raise CorpusError(f"{where}: missing key(s) {missing}")
    try:
        asked = parse_rfc3339(data["asked_at"], "asked_at")
    except (ValueError, CompanionMemoryError) as err:
        raise CorpusError(f"{where}: {err}") from err
    if not isinstance(data["question"], str) or not data["question"].strip():
        raise CorpusError(f"{where}: question must be a non-empty string")
    ids: dict[str, tuple[str, ...]] = {}
    for key in ("answers", "superseded"):
        value = data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise CorpusError(f"{where}: {key} must be a list of row ids")
        for ref in value:
            if ref not in rows:
                raise CorpusError(f"{where}: {key} names row {ref!r}, which does not exist")
            if rows[ref].event.posted_at > asked:
                raise CorpusError(f"{where}: {key} row {ref} is posted after the question")
        ids[key] = tuple(value)
    if not ids["answers"]:
        raise CorpusError(f"{where}: answers must name at least one row")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not set(tags) <= TAGS:
        raise CorpusError(f"{where}: tags must be a list from {sorted(TAGS)}")
    return Question(str(data["id"]), asked, data["question"], ids["answers"],
                    ids["superseded"], frozenset(tags))


def load_corpus(folder: Path = DATA, *, days: float | None = None) -> Corpus:
    """Read and check the corpus; `days` keeps the first N days (and their questions)."""
    rows_path, questions_path = folder / "notifications.jsonl", folder / "questions.jsonl"
    rows = [_row(rows_path, n, d) for n, d in _lines(rows_path)]
    seen: set[str] = set()
    for row in rows:
        if row.id in seen:
            raise CorpusError(f"{rows_path.name}: row id {row.id} appears twice")
        seen.add(row.id)
    by_id = {row.id: row for row in rows}
    questions = [_question(questions_path, n, d, by_id) for n, d in _lines(questions_path)]
    rows.sort(key=lambda r: r.event.posted_at)
    if days is not None and rows:
        end = rows[0].event.posted_at + timedelta(days=days)
        rows = [r for r in rows if r.event.posted_at < end]
        questions = [q for q in questions if q.asked_at < end]
    questions.sort(key=lambda q: q.asked_at)
    meta = folder / "meta.json"
    zone = str(orjson.loads(meta.read_bytes()).get("zone", ZONE)) if meta.exists() else ZONE
    return Corpus(tuple(rows), tuple(questions), zone)


def squash(text: str) -> str:
    """Lower case with spaces, dashes, dots and slashes removed: how leaks are searched."""
    return SEPARATORS.sub("", text.casefold())


def tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.casefold()) if t not in STOPWORDS]


# -- providers --------------------------------------------------------------------------


def stored_texts(root: Path) -> list[str]:
    """Every memory's statement and hidden detail (the source words kept for search), read
    straight from the database file: the audit looks at what is on disk, not at what
    the API shows."""
    conn = sqlite3.connect(f"file:{root / 'memory.sqlite3'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT text, detail FROM memories").fetchall()
    finally:
        conn.close()
    return [f"{text}\n{detail or ''}" for text, detail in rows]


DECODE_FIELDS = ("calls", "new_prompt_tokens", "reused_prompt_tokens", "prompt_s",
                 "generate_s", "completion_tokens", "forced_tokens", "drafted_tokens",
                 "sampled_tokens", "drafts")
"""Where an in-process llama.cpp call's time went, summed over the run (`Watched.decode`)."""


class Watched:
    """Wraps a provider: counts model seconds, keeps every prompt for the leak check, and
    sums the decoding loop's counters where the provider keeps them (llama.cpp). With no
    provider (kind "deterministic": the rules extract) nothing is watched: `provider` is
    None and the runtime gets none."""

    def __init__(self, inner: ModelProvider | None) -> None:
        self.inner = inner
        self.name = inner.name if inner is not None else "deterministic"
        self.seconds = 0.0
        self.prompts: list[str] = []
        self.decode: dict[str, float] = dict.fromkeys(DECODE_FIELDS, 0)
        self._last_counted: Any = None  # a failed call leaves the previous generation there

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.prompts.append("\n".join(m.content for m in request.messages))
        started = time.perf_counter()
        assert self.inner is not None  # (the runtime gets no wrapper without a provider)
        try:
            return await self.inner.complete(request)
        finally:
            self.seconds += time.perf_counter() - started
            provider: Any = self.inner  # through the budget wrapper to the engine's provider
            while provider is not None and not hasattr(provider, "last_generation"):
                provider = getattr(provider, "inner", None)
            self._count(getattr(provider, "last_generation", None))

    def _count(self, gen: Any) -> None:
        if gen is None or gen is self._last_counted:
            return
        self._last_counted = gen
        d = self.decode
        d["calls"] += 1
        d["new_prompt_tokens"] += gen.prompt_tokens - gen.reused_prefix_tokens
        d["reused_prompt_tokens"] += gen.reused_prefix_tokens
        d["prompt_s"] += gen.prompt_s
        d["generate_s"] += gen.generate_s
        d["completion_tokens"] += gen.completion_tokens
        d["forced_tokens"] += gen.forced_tokens
        d["drafted_tokens"] += gen.drafted_tokens
        d["sampled_tokens"] += gen.completion_tokens - gen.forced_tokens - gen.drafted_tokens
        d["drafts"] += gen.drafts

    async def prepare(self) -> None:
        if self.inner is not None:
            await self.inner.prepare()

    async def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            await close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def provider(self) -> ModelProvider | None:
        """What the runtime is given: this wrapper, or None when there is no model."""
        return self if self.inner is not None else None


def provider_config(spec: str, person_zone: str = ZONE) -> tuple[str, Config]:
    """`deterministic` or `llama=PATH`: a label and the runtime configuration."""
    zone: dict[str, Any] = {"sweep": {"zone": person_zone}}
    if EMBEDDER:
        zone["memory"] = {"embedder": EMBEDDER[0]}
    if NOISE_MODEL:
        zone["intake"] = {"noise_model": NOISE_MODEL[0] == "on"}
    if spec == "deterministic":
        return "deterministic", parse_config(zone)
    kind, _, path = spec.partition("=")
    if kind != "llama" or not path:
        raise SystemExit(f"--provider {spec!r}: use 'deterministic' or 'llama=PATH.gguf'")
    scenarios = MODEL_SCENARIOS[0] if MODEL_SCENARIOS else "all"
    config = parse_config({**zone, "provider": {
        "kind": "llama", "scenarios": scenarios,
        "llama": {"model_path": path, "n_threads": THREADS}}})
    label = f"llama {Path(path).stem}"
    return (label if scenarios == "all" else f"{label} ({scenarios})"), config


# -- one run ----------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    label: str
    answered5: dict[str, bool] = field(default_factory=dict)
    answered1: dict[str, bool] = field(default_factory=dict)
    stale_first: dict[str, bool] = field(default_factory=dict)
    leaks: int = 0
    leaked_rows: set[str] = field(default_factory=set)
    live: int | None = None
    long_term: int | None = None
    junk: float | None = None
    model_calls: int = 0
    model_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    decode: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    junk_rows: list[str] = field(default_factory=list)
    junk_long_term: int | None = None
    """Of the junk memories, how many are Long-Term (the daily consolidation's lines)."""
    poison_gaps: int | None = None
    """Batches skipped as poison (every attempt failed), from the runtime's gap record."""
    later: Outcome | None = None
    """The same questions asked `LATER` days after the corpus ends (`--later`)."""


def judge(out: Outcome, question: Question, ranked: Sequence[set[str]]) -> None:
    """Record answer@1/@5 and stale-first for one question from its ranked source sets."""
    answers, old = set(question.answers), set(question.superseded)
    out.answered5[question.id] = any(sources & answers for sources in ranked[:5])
    out.answered1[question.id] = bool(ranked and ranked[0] & answers)
    if old:
        first = next((s for s in ranked if s & (answers | old)), None)
        out.stale_first[question.id] = bool(first is not None and first & old
                                            and not first & answers)


def _timeline(corpus: Corpus) -> list[tuple[datetime, int, Any]]:
    events: list[tuple[datetime, int, Any]] = [(r.event.posted_at, 0, r) for r in corpus.rows]
    events += [(q.asked_at, 1, q) for q in corpus.questions]
    events.sort(key=lambda item: (item[0], item[1]))
    return events


def baseline(corpus: Corpus) -> Outcome:
    """BM25 (rank_bm25) over the raw notification log received before each question."""
    from rank_bm25 import BM25Okapi

    out = Outcome("raw-log BM25 (rank_bm25)")
    started = time.perf_counter()
    received: list[Row] = []
    for _, _, item in _timeline(corpus):
        if isinstance(item, Row):
            if item.text:
                received.append(item)
            continue
        docs = [tokens(f"{r.text}") or ["_"] for r in received]
        query = tokens(item.question)
        if not docs or not query:
            judge(out, item, [])
            continue
        scores = BM25Okapi(docs).get_scores(query)
        wanted = set(query)
        # every record sharing a query word, by score (rank_bm25 gives a word in more than
        # half the records a negative weight, so a score can be <= 0 for a real match)
        matching = [i for i, doc in enumerate(docs) if wanted.intersection(doc)]
        order = sorted(matching, key=lambda i: (-scores[i], -i))
        ranked = [{received[i].id} for i in order[:10]]
        judge(out, item, ranked)
    if LATER:  # asked later: over every notification of the corpus
        out.later = Outcome(out.label)
        docs = [tokens(r.text) or ["_"] for r in received]
        index = BM25Okapi(docs) if docs else None
        for question in corpus.questions:
            query = tokens(question.question)
            if index is None or not query:
                judge(out.later, question, [])
                continue
            scores = index.get_scores(query)
            wanted = set(query)
            matching = [i for i, doc in enumerate(docs) if wanted.intersection(doc)]
            order = sorted(matching, key=lambda i: (-scores[i], -i))
            judge(out.later, question, [{received[i].id} for i in order[:10]])
    out.wall_s = time.perf_counter() - started
    return out


def _leaks_in(text: str, secrets: dict[str, str]) -> set[str]:
    """The rows whose secret (squashed) appears in `text` on its own: its characters in
    order, separated only by spaces, dashes, dots or slashes, and not inside a longer run
    of letters and digits (a digest "c53b2808862d" holds no door code 8862)."""
    flat = squash(text)
    folded = text.casefold()
    return {row for secret, row in secrets.items()
            if secret in flat and _leak_pattern(secret).search(folded)}


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _leak_pattern(secret: str) -> re.Pattern[str]:
    found = _PATTERNS.get(secret)
    if found is None:
        between = f"(?:{SEPARATORS.pattern})*"
        body = between.join(re.escape(ch) for ch in secret)
        found = _PATTERNS[secret] = re.compile(rf"(?<![^\W_]){body}(?![^\W_])")
    return found


EXPLAIN: set[str] = set()
"""Question ids whose top hits are printed (`--explain`; texts of the bench's own corpus)."""


async def run_provider(corpus: Corpus, spec: str, *, idle_s: float | None = None) -> Outcome:
    label, config = provider_config(spec, corpus.zone)
    out = Outcome(label)
    rows = corpus.by_id()
    secrets = {squash(s): r.id for r in corpus.rows for s in r.secrets if len(squash(s)) >= 4}
    idle = idle_s if idle_s is not None else config.worker.idle_delay_s
    first = corpus.rows[0].event.posted_at if corpus.rows else datetime.now().astimezone()
    clock = FakeClock(first - timedelta(minutes=1))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cm-quality-") as root:
        await asyncio.to_thread(prepare_root, Path(root))
        watched = Watched(await asyncio.to_thread(
            build_configured_provider, config, Path(root), clock))
        runtime = Runtime(config, root=root, clock=clock, provider=watched.provider,
                          start_worker=False, start_link=False)
        await runtime.open()
        cid_to_row: dict[int, str] = {}
        last_event: datetime | None = None
        pending = False
        try:
            async def idle_window(until: datetime) -> None:
                nonlocal pending
                if pending and last_event is not None and last_event + timedelta(
                    seconds=idle
                ) <= until:
                    clock.set_wall(last_event + timedelta(seconds=idle))
                    report = await runtime.run_once()
                    for r in report.reports:
                        out.model_calls += r.model_calls
                        out.prompt_tokens += r.prompt_tokens
                        out.completion_tokens += r.completion_tokens
                        for reason, count in r.filtered.items():
                            out.dropped[reason] = out.dropped.get(reason, 0) + count
                    pending = False

            for when, _, item in _timeline(corpus):
                await idle_window(when)
                clock.set_wall(max(when, clock.now()))
                if isinstance(item, Row):
                    totals = await runtime.feed([item.event])
                    if totals.persisted == 1:
                        newest = await asyncio.to_thread(_newest_context_id, Path(root))
                        cid_to_row[newest] = item.id
                    last_event, pending = when, True
                    continue
                try:
                    hits = await runtime.recall_memory(item.question, limit=5)
                except EmptyQueryError:
                    hits = []
                ranked = []
                for hit in hits:
                    ranked.append({cid_to_row.get(int(s.ref), "?") for s in hit.record.sources
                                   if s.kind is SourceKind.CONTEXT})
                    for row in _leaks_in(hit.record.text, secrets):
                        out.leaked_rows.add(row)
                judge(out, item, ranked)
                if item.id in EXPLAIN:
                    print(f"{item.id} {item.question} answers={item.answers} "
                          f"superseded={item.superseded}")
                    for hit, sources in zip(hits, ranked, strict=True):
                        print(f"   {hit.score:6.2f} {sorted(sources)} {hit.record.text[:100]}")
            end = (last_event or first) + timedelta(seconds=idle)
            await idle_window(max(end, clock.now()))
            if LATER:
                out.later = await _ask_later(runtime, clock, corpus, cid_to_row, label)
            stored = await runtime.list_memories(include_inactive=True, limit=1_000_000)
            now = clock.now()
            live = [m for m in stored if m.status is Status.ACTIVE
                    and (m.expires_at is None or m.expires_at > now)]
            for text in await asyncio.to_thread(stored_texts, Path(root)):
                out.leaked_rows |= _leaks_in(text, secrets)
            for prompt in watched.prompts:
                out.leaked_rows |= _leaks_in(prompt, secrets)
            out.live = len(live)
            out.long_term = sum(1 for m in live if m.tier is Tier.LONG_TERM)
            junk = junk_long_term = 0
            for m in live:
                refs = [s.ref for s in m.sources if s.kind is SourceKind.CONTEXT]
                labels = {rows[cid_to_row[int(r)]].label for r in refs
                          if r.isdigit() and int(r) in cid_to_row}
                if labels and labels <= {"noise"}:
                    junk += 1
                    junk_long_term += m.tier is Tier.LONG_TERM
                    out.junk_rows.append(",".join(cid_to_row[int(r)] for r in refs
                                                  if r.isdigit() and int(r) in cid_to_row))
            out.junk = junk / len(live) if live else 0.0
            out.junk_long_term = junk_long_term
            out.model_s = watched.seconds
            out.decode = dict(watched.decode) if watched.decode["calls"] else {}
            out.poison_gaps = sum(1 for g in await runtime.gaps() if g.kind == "poison_batch")
        finally:
            await runtime.close()
    out.leaks = len(out.leaked_rows)
    out.wall_s = time.perf_counter() - started
    return out


async def _ask_later(runtime: Runtime, clock: FakeClock, corpus: Corpus,
                     cid_to_row: dict[int, str], label: str) -> Outcome:
    """Every question asked again `LATER` days after the corpus ends, the worker's round
    run once every local day until then (the daily sweep consolidates each day, the
    cleaners expire what has lived its time)."""
    later = Outcome(label)
    days = LATER[0]
    stop = clock.now() + timedelta(days=days)
    while clock.now() < stop:
        clock.set_wall(min(stop, clock.now() + timedelta(days=1)))
        await runtime.run_once()
    for question in corpus.questions:
        try:
            hits = await runtime.recall_memory(question.question, limit=5)
        except EmptyQueryError:
            hits = []
        ranked = [{cid_to_row.get(int(s.ref), "?") for s in hit.record.sources
                   if s.kind is SourceKind.CONTEXT and s.ref.isdigit()} for hit in hits]
        judge(later, question, ranked)
    return later


def _newest_context_id(root: Path) -> int:
    shards = sorted((root / "notifications" / "events").glob("*.jsonl"))
    with open(shards[-1], "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - 16384))
        last = handle.read().splitlines()[-1]
    return int(orjson.loads(last)["context_id"])


# -- report -----------------------------------------------------------------------------


def _share(values: dict[str, bool], ids: set[str] | None = None) -> tuple[int, int]:
    picked = [v for k, v in values.items() if ids is None or k in ids]
    return sum(picked), len(picked)


def summary(corpus: Corpus, out: Outcome) -> dict[str, Any]:
    kept = sum(1 for r in corpus.rows if r.label == "keep") or 1
    tagged = {tag: {q.id for q in corpus.questions if tag in q.tags} for tag in TAGS}
    non_english = {q.id for q in corpus.questions
                   if any(corpus.by_id()[a].lang not in ("en", "und") for a in q.answers)}
    result: dict[str, Any] = {"label": out.label}
    for name, values, ids in (
        ("answer@5", out.answered5, None), ("answer@1", out.answered1, None),
        ("old answer@5", out.answered5, tagged["old"]),
        ("changed answer@5", out.answered5, tagged["changed"]),
        ("long answer@5", out.answered5, tagged["long"]),
        ("non-English answer@5", out.answered5, non_english),
        ("cross-lingual answer@5", out.answered5, tagged["cross_lingual"]),
        ("CJK answer@5", out.answered5, tagged["cjk"]),
        ("stale-first", out.stale_first, None),
    ):
        hit, total = _share(values, ids)
        result[name] = {"hits": hit, "of": total, "share": hit / total if total else None}
    by_lang: dict[str, set[str]] = {}
    for q in corpus.questions:  # by the language of the notifications that answer it
        for lang in {corpus.by_id()[a].lang for a in q.answers}:
            by_lang.setdefault(lang, set()).add(q.id)
    result["answer@5 by language"] = {
        lang: dict(zip(("hits", "of"), _share(out.answered5, ids), strict=True))
        for lang, ids in sorted(by_lang.items())
    }
    if out.later is not None:
        for name, values in (("later answer@5", out.later.answered5),
                             ("later answer@1", out.later.answered1)):
            hit, total = _share(values)
            result[name] = {"hits": hit, "of": total,
                            "share": hit / total if total else None}
    result.update(
        junk_share=out.junk, junk_long_term=out.junk_long_term,
        secret_leaks=out.leaks if out.live is not None else None,
        live=out.live, long_term=out.long_term, model_calls=out.model_calls,
        model_s_per_kept=out.model_s / kept, prompt_tokens_per_kept=out.prompt_tokens / kept,
        completion_tokens_per_kept=out.completion_tokens / kept, dropped=out.dropped,
        poison_gaps=out.poison_gaps, decode=out.decode,
        wall_s=out.wall_s,
        misses=sorted(q for q, ok in out.answered5.items() if not ok),
        misses_at_1=sorted(q for q, ok in out.answered1.items() if not ok),
        stale=sorted(q for q, bad in out.stale_first.items() if bad),
        junk_sources=sorted(out.junk_rows),
    )
    return result


def table(corpus: Corpus, results: list[dict[str, Any]]) -> str:
    apps = len({r.event.app_id for r in corpus.rows})
    lines = [
        f"corpus: {len(corpus.rows)} notifications from {apps} apps, "
        f"{len(corpus.questions)} questions",
        "",
        "| measure | " + " | ".join(r["label"] for r in results) + " |",
        "|---|" + "---:|" * len(results),
    ]

    def cell(value: Any) -> str:
        if isinstance(value, dict):
            share = value["share"]
            return "-" if share is None else f"{share:.2f} ({value['hits']}/{value['of']})"
        if value is None:
            return "-"
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)

    for key in ("answer@5", "answer@1", "old answer@5", "changed answer@5", "long answer@5",
                "non-English answer@5", "cross-lingual answer@5", "CJK answer@5",
                "stale-first", "later answer@5", "later answer@1", "junk_share",
                "junk_long_term", "secret_leaks", "live",
                "long_term", "model_calls", "poison_gaps", "model_s_per_kept",
                "prompt_tokens_per_kept",
                "completion_tokens_per_kept", "wall_s"):
        lines.append(f"| {key} | " + " | ".join(cell(r.get(key)) for r in results) + " |")
    langs = sorted({lang for r in results for lang in r.get("answer@5 by language", {})})
    for lang in langs:
        row = []
        for r in results:
            got = r.get("answer@5 by language", {}).get(lang)
            row.append(cell(None if got is None else {
                **got, "share": got["hits"] / got["of"] if got["of"] else None}))
        lines.append(f"| answer@5, answers in {lang} | " + " | ".join(row) + " |")
    for r in results:
        if r.get("decode"):
            d = r["decode"]
            lines.append(
                f"\n{r['label']}: {d['calls']:.0f} llama.cpp calls; prompt "
                f"{d['new_prompt_tokens']:.0f} new + {d['reused_prompt_tokens']:.0f} reused "
                f"tokens in {d['prompt_s']:.1f} s; completion {d['completion_tokens']:.0f} "
                f"tokens ({d['forced_tokens']:.0f} forced, {d['drafted_tokens']:.0f} from "
                f"{d['drafts']:.0f} drafts, {d['sampled_tokens']:.0f} sampled) in "
                f"{d['generate_s']:.1f} s")
        if r.get("dropped"):
            drops = ", ".join(f"{k} {v}" for k, v in sorted(r["dropped"].items()))
            lines.append(f"\n{r['label']}: dropped before the model by reason: {drops}")
    return "\n".join(lines)


async def evaluate(corpus: Corpus, providers: Sequence[str]) -> list[dict[str, Any]]:
    results = [summary(corpus, baseline(corpus))]
    for spec in providers:
        results.append(summary(corpus, await run_provider(corpus, spec)))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", action="append",
                        help="deterministic (default) or llama=PATH.gguf; repeatable")
    parser.add_argument("--days", type=float, help="only the first N days of the corpus")
    parser.add_argument("--data", type=Path, default=DATA, help="the corpus folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--misses", action="store_true",
                        help="list the ids of unanswered questions per provider")
    parser.add_argument("--embedder", help="[memory] embedder (default: the default config's)")
    parser.add_argument("--noise-model", choices=("on", "off"),
                        help="[intake] noise_model (default: the default config's)")
    parser.add_argument("--model-scenarios", choices=MODEL_SCENARIO_CHOICES,
                        help="[provider] scenarios for a llama provider (default: all)")
    parser.add_argument("--dense-weight", type=float,
                        help="share of the dense leg in hybrid recall (for tuning)")
    parser.add_argument("--later", type=float, metavar="DAYS",
                        help="also ask every question again DAYS days after the corpus "
                        "ends (one worker round per local day until then)")
    parser.add_argument("--explain", default="",
                        help="comma-separated question ids whose top hits are printed")
    args = parser.parse_args(argv)
    EXPLAIN.update(q for q in args.explain.split(",") if q)
    if args.embedder:
        EMBEDDER.append(args.embedder)
    if args.later is not None:
        if not args.later > 0:
            parser.error("--later must be a positive number of days")
        LATER.append(args.later)
    if args.noise_model:
        NOISE_MODEL.append(args.noise_model)
    if args.model_scenarios:
        MODEL_SCENARIOS.append(args.model_scenarios)
    if args.dense_weight is not None:
        hybrid.DENSE_WEIGHT = args.dense_weight
    try:
        corpus = load_corpus(args.data, days=args.days)
    except CorpusError as err:
        print(f"memory_quality: {err}", file=sys.stderr)
        return 2
    results = asyncio.run(evaluate(corpus, args.provider or ["deterministic"]))
    if args.json:
        print(orjson.dumps({"results": results}, default=str).decode())
    else:
        print(table(corpus, results))
    if args.misses:
        for r in results:
            print(f"{r['label']}: unanswered@5 {' '.join(r['misses'])}; "
                  f"not first {' '.join(r['misses_at_1'])}; "
                  f"stale-first {' '.join(r['stale'])}; junk {' '.join(r['junk_sources'])}")
    return 0


with contextlib.suppress(AttributeError):
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]

if __name__ == "__main__":
    sys.exit(main())
