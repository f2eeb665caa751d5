"""Secret leaks and false drops on the labelled secret corpus (`bench/data/secrets/`).

Every message runs through two paths:

- triage: `NoiseFilter.triage` on the notification, as the notification processor
  calls it. A secret-bearing message is dropped, or kept with its secret spans
  redacted; a leak is a secret value still present in any field that goes on (title,
  subtitle, body, app id, category).
- pipeline: all messages fed through the public `Runtime` (deterministic provider) and
  one idle window run; a leak is a secret value in any model prompt or any stored
  memory (statement or search detail).

A value is found by substring after normalisation: digit groups joined ("318-774"
is "318774"), and for values with letters or of 10+ characters everything but
letters and digits removed, case folded. Short digit values must stand alone (no
digit next to them), so a 4-digit code does not match inside a date.

Printed per language and in total: secret-bearing messages, leaks (triage, pipeline),
kept with the span redacted, dropped; secret-free messages, false drops (dropped for a
secret reason), false redactions (kept, but with a span redacted: a date, price or order
number lost), drops for a noise reason; and of the secret-bearing messages labelled
as carrying something worth keeping, how many were kept, and of those that only
deliver a code, how many were kept redacted instead of dropped (not a leak: a
memory with nothing in it). Under each table: recall (secret-bearing messages with no
leak on either path) and false positives (secret-free messages dropped for a secret or
redacted).

Usage:
    .venv/bin/python bench/secret_corpus.py                  # every part, both paths
    .venv/bin/python bench/secret_corpus.py --part holdout
    .venv/bin/python bench/secret_corpus.py --part unseen_forms --show
    .venv/bin/python bench/secret_corpus.py --no-pipeline    # triage only (fast)
    .venv/bin/python bench/secret_corpus.py --json
    .venv/bin/python bench/secret_corpus.py --ordinary       # everyday notifications
    .venv/bin/python bench/secret_corpus.py --time 7         # triage cost per message

`--ordinary` runs the detector over notifications that were not written for it: the
secret-free ones of the fortnight corpus (labels keep and noise: anything found is a
false positive) and every bundled LifeBench push and SMS (unlabelled: what is found is
counted and listed, to be read by eye; parcel and shop pickup codes are secrets by this
corpus's labels).

`--time N` times `NoiseFilter.triage` over every message of the chosen parts, N passes,
and prints the median and best µs per message (no other output): for a cost comparison,
run it on two checkouts alternately in the same hour.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.memory_quality import Watched, stored_texts  # noqa: E402
from companion_memory.agent.notifications.contract import EXAMPLE_ANSWER, EXAMPLE_USER  # noqa: E402
from companion_memory.agent.notifications.contract import SYSTEM_PROMPT as CONTRACT_SYSTEM_PROMPT  # noqa: E402
from companion_memory.agent.notifications.filters import REDACTABLE, NoiseFilter  # noqa: E402
from companion_memory.ble.events import NotificationEvent  # noqa: E402
from companion_memory.core.clock import FakeClock  # noqa: E402
from companion_memory.device.config import Config, parse_config  # noqa: E402
from companion_memory.device.root import prepare_root  # noqa: E402
from companion_memory.device.runtime import Runtime, build_configured_provider  # noqa: E402
from companion_memory.memory.secrets import find_secret, normalize_digits  # noqa: E402

DATA = ROOT / "bench" / "data" / "secrets"
PARTS = ("tune", "seen", "holdout", "blind", "unseen_forms", "blind2")
POSTED = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SECRET_REASONS = REDACTABLE | {"secret_private_key", "secret_seed_phrase"}
_SEPARATORS = re.compile(r"[^0-9a-z\u00c0-\uffff]+")


class CorpusError(ValueError):
    """A corpus line is malformed; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    part: str
    lang: str
    app_id: str
    title: str
    body: str
    secrets: tuple[str, ...]
    keeps: bool

    @property
    def has_secret(self) -> bool:
        return bool(self.secrets)

    def event(self, index: int) -> NotificationEvent:
        return NotificationEvent.create(
            kind="added", key=f"secret-corpus-{self.id}", app_id=self.app_id,
            title=self.title, body=self.body, category="other",
            posted_at=POSTED + timedelta(seconds=index),
        )


def load(parts: Iterable[str] = PARTS, folder: Path = DATA) -> list[Row]:
    """The rows of the named parts, in file order."""
    rows: list[Row] = []
    for part in parts:
        path = folder / f"{part}.jsonl"
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = orjson.loads(line)
                rows.append(Row(
                    id=str(data["id"]), part=part, lang=str(data["lang"]),
                    app_id=str(data["app_id"]), title=str(data["title"]),
                    body=str(data["body"]), secrets=tuple(str(s) for s in data["secrets"]),
                    keeps=bool(data["keeps"]),
                ))
            except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
                raise CorpusError(f"{path}:{number}: not a corpus row ({exc})") from None
            if bool(data.get("has_secret")) != bool(rows[-1].secrets):
                raise CorpusError(f"{path}:{number}: has_secret disagrees with secrets")
    return rows


def _needle(secret: str) -> tuple[str, re.Pattern[str] | None]:
    """How a secret value is searched: a squashed substring, or a standalone number."""
    squashed = _SEPARATORS.sub("", secret.casefold())
    if squashed.isdigit() and len(squashed) < 10:
        return squashed, re.compile(rf"(?<!\d){squashed}(?!\d)")
    return squashed, None


def leaked(text: str, secrets: Sequence[str]) -> bool:
    """True when any of `secrets` is in `text` (see the module docstring)."""
    squashed_text: str | None = None
    digits_text = normalize_digits(text)
    for secret in secrets:
        squashed, pattern = _needle(secret)
        if pattern is not None:
            if pattern.search(digits_text):
                return True
            continue
        if squashed_text is None:
            squashed_text = _SEPARATORS.sub("", text.casefold())
        if squashed in squashed_text:
            return True
    return False


@dataclass(slots=True)
class Tally:
    secret: int = 0
    leak_triage: int = 0
    leak_pipeline: int = 0
    redacted: int = 0
    dropped: int = 0
    keeps: int = 0
    keeps_kept: int = 0
    code_only_kept: int = 0
    clean: int = 0
    false_drops: int = 0
    false_redactions: int = 0
    noise_drops: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(slots=True)
class Figures:
    by_lang: dict[str, Tally] = field(default_factory=dict)
    leaked_ids: set[str] = field(default_factory=set)
    false_drop_ids: set[str] = field(default_factory=set)
    false_redaction_ids: set[str] = field(default_factory=set)
    kept: dict[str, str] = field(default_factory=dict)
    """What triage let through of each row (all fields a model sees)."""
    ambiguous: int = 0
    pipeline_run: bool = False

    def total(self) -> Tally:
        total = Tally()
        for tally in self.by_lang.values():
            total.add(tally)
        return total


def triage_row(row: Row, index: int, tally: Tally, figures: Figures) -> None:
    triage = NoiseFilter().triage(row.event(index))
    if triage.reason is None:
        out = triage.event
        figures.kept[row.id] = "\n".join(
            (out.title, out.subtitle, out.body, out.app_id, out.category)
        )
    if row.has_secret:
        tally.secret += 1
        tally.keeps += row.keeps
        if triage.reason is not None:
            tally.dropped += 1
            return
        if leaked(figures.kept[row.id], row.secrets):
            tally.leak_triage += 1
            figures.leaked_ids.add(row.id)
        elif triage.redacted is not None:
            tally.redacted += 1
        tally.keeps_kept += row.keeps
        tally.code_only_kept += not row.keeps
        return
    tally.clean += 1
    if triage.reason in SECRET_REASONS:
        tally.false_drops += 1
        figures.false_drop_ids.add(row.id)
    elif triage.reason is not None:
        tally.noise_drops += 1
    elif triage.redacted is not None:
        tally.false_redactions += 1
        figures.false_redaction_ids.add(row.id)


async def pipeline(
    rows: Sequence[Row], figures: Figures, kept: dict[str, str], root: str, config: Config
) -> None:
    """Feed every row through the Runtime and look for its secrets in prompts and memories.

    `kept`: what triage let through of each row. A short number that another row
    legitimately carries (a train number, a time in the fixed prompt) cannot be told
    apart in a prompt: such a value counts as ambiguous, and the row-local triage check
    stands for it."""
    clock = FakeClock(POSTED + timedelta(days=1))
    await asyncio.to_thread(prepare_root, Path(root))
    watched = Watched(await asyncio.to_thread(build_configured_provider, config, Path(root),
                                              clock))
    runtime = Runtime(config, root=root, clock=clock, provider=watched.provider,
                      start_worker=False, start_link=False)
    await runtime.open()
    try:
        await runtime.feed([row.event(i) for i, row in enumerate(rows)])
        await runtime.run_once()
    finally:
        await runtime.close()
    stored = await asyncio.to_thread(stored_texts, Path(root))
    haystack = "\n".join([*watched.prompts, *stored])
    fixed = "\n".join((CONTRACT_SYSTEM_PROMPT, EXAMPLE_USER, EXAMPLE_ANSWER))
    for row in rows:
        if not row.has_secret:
            continue
        clear = [s for s in row.secrets
                 if not any(leaked(text, (s,)) for rid, text in kept.items() if rid != row.id)
                 and not leaked(fixed, (s,))]
        if len(clear) < len(row.secrets):
            figures.ambiguous += 1
        if clear and leaked(haystack, clear):
            figures.by_lang[row.lang].leak_pipeline += 1
            figures.leaked_ids.add(row.id)
    figures.pipeline_run = True


def evaluate(rows: Sequence[Row], *, with_pipeline: bool = True) -> Figures:
    figures = Figures()
    for index, row in enumerate(rows):
        tally = figures.by_lang.setdefault(row.lang, Tally())
        triage_row(row, index, tally, figures)
    if with_pipeline:
        with tempfile.TemporaryDirectory(prefix="cm-secrets-") as root:
            config = parse_config({})  # (reads the zone's tzdata: not on the loop)
            asyncio.run(pipeline(rows, figures, figures.kept, root, config))
    return figures


def table(figures: Figures, title: str) -> str:
    lines = [f"### {title}", "",
             "| lang | secret | leaks triage | leaks pipeline | redacted, kept | dropped "
             "| worth keeping: kept | code only: kept | secret-free | false drops "
             "| false redactions | noise drops |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rows = [*sorted(figures.by_lang.items()), ("all", figures.total())]
    for lang, t in rows:
        pipe = str(t.leak_pipeline) if figures.pipeline_run else "-"
        lines.append(
            f"| {lang} | {t.secret} | {t.leak_triage} | {pipe} | {t.redacted} | {t.dropped} "
            f"| {t.keeps_kept}/{t.keeps} | {t.code_only_kept}/{t.secret - t.keeps} "
            f"| {t.clean} | {t.false_drops} | {t.false_redactions} | {t.noise_drops} |"
        )
    total = figures.total()
    share = total.false_drops / total.clean if total.clean else 0.0
    caught = total.secret - len(figures.leaked_ids)
    recall = caught / total.secret if total.secret else 1.0
    wrong = total.false_drops + total.false_redactions
    false_share = wrong / total.clean if total.clean else 0.0
    lines.append("")
    lines.append(f"recall: {caught}/{total.secret} secret-bearing messages leak nothing "
                 f"({recall:.1%}); false positives: {wrong}/{total.clean} secret-free messages "
                 f"dropped for a secret or redacted ({false_share:.1%})")
    lines.append(f"leaks: {total.leak_triage + total.leak_pipeline}; false drops: "
                 f"{total.false_drops}/{total.clean} ({share:.1%}); pipeline check ambiguous "
                 f"for {figures.ambiguous} short values (another message carries the same "
                 "number; the triage check covers them)")
    return "\n".join(lines)


FORTNIGHT = ROOT / "bench" / "data" / "fortnight" / "notifications.jsonl"
LIFEBENCH = ROOT / "bench" / "data" / "lifebench" / "fenghaoran" / "notifications.jsonl.gz"


def ordinary() -> str:
    """What the detector finds in everyday notifications (see `--ordinary`)."""
    fortnight = [orjson.loads(line) for line in FORTNIGHT.read_bytes().splitlines() if line]
    clean = [r for r in fortnight if r["label"] != "secret" and r["kind"] != "removed"]
    flagged = [r["id"] for r in clean
               if find_secret("\n".join((r["title"], r["subtitle"], r["body"]))) is not None]
    life = [orjson.loads(line) for line in gzip.decompress(LIFEBENCH.read_bytes()).splitlines()
            if line]
    found = [f"{r['type']}:{r['phone_id']}" for r in life
             if find_secret("\n".join(str(r.get(k, "")) for k in (
                 "title", "content", "contactName", "message_content"))) is not None]
    return (f"fortnight: {len(flagged)}/{len(clean)} secret-free notifications flagged "
            f"({' '.join(flagged) or '-'})\n"
            f"lifebench (unlabelled): {len(found)}/{len(life)} flagged ({' '.join(found)})")


def timed(rows: Sequence[Row], passes: int) -> str:
    """Median and best µs per message of `NoiseFilter.triage` over `rows` (see `--time`)."""
    events = [row.event(index) for index, row in enumerate(rows)]
    noise = NoiseFilter()
    per_message: list[float] = []
    for _ in range(passes):
        start = time.perf_counter()
        for event in events:
            noise.triage(event)
        per_message.append((time.perf_counter() - start) / len(events) * 1e6)
    return (f"triage: {len(events)} messages, {passes} passes: median "
            f"{statistics.median(per_message):.0f} µs, best {min(per_message):.0f} µs "
            "per message")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all")
    parser.add_argument("--no-pipeline", action="store_true", help="triage only")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--ordinary", action="store_true",
                        help="only the everyday notifications of fortnight and LifeBench")
    parser.add_argument("--show", action="store_true",
                        help="print the ids of leaked and falsely dropped rows")
    parser.add_argument("--time", type=int, metavar="N",
                        help="time the triage over the parts, N passes (prints only that)")
    args = parser.parse_args(argv)
    if args.time is not None:
        if args.time < 1:
            parser.error("--time needs at least 1 pass")
        parts = PARTS if args.part == "all" else (args.part,)
        print(timed(load(parts), args.time))
        return 0
    if args.ordinary:
        print(ordinary())
        return 0
    parts = PARTS if args.part == "all" else (args.part,)
    results: dict[str, Figures] = {}
    for part in parts:
        results[part] = evaluate(load((part,)), with_pipeline=not args.no_pipeline)
    if args.json:
        print(orjson.dumps({
            part: {"by_lang": {k: v.as_dict() for k, v in f.by_lang.items()},
                   "total": f.total().as_dict(), "leaked": sorted(f.leaked_ids),
                   "false_drops": sorted(f.false_drop_ids),
                   "false_redactions": sorted(f.false_redaction_ids)}
            for part, f in results.items()
        }).decode())
        return 0
    for part, figures in results.items():
        print(table(figures, part))
        if args.show:
            print("leaked:", " ".join(sorted(figures.leaked_ids)) or "-")
            print("false drops:", " ".join(sorted(figures.false_drop_ids)) or "-")
            print("false redactions:", " ".join(sorted(figures.false_redaction_ids)) or "-")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
