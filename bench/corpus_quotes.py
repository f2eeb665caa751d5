#!/usr/bin/env python3
"""Find text in the library's source that also stands in a benchmark corpus row.

Sources: every .py file under {agent,memory,ble,storage,device,core} of the repository
(any path with a `tests` or `bench` directory is skipped). From each file the `tokenize`
module gives every string literal (docstrings included) and every comment. Fragments
taken from them (case-insensitive, white space collapsed, NFC):

  literal     a whole string literal (quotes and surrounding white space stripped);
  line        a whole line of a multi-line literal or docstring, or a whole comment;
  quoted      a piece of a literal or comment line between quote marks ("...", '...',
              “...”, „...“, «...», 「...」), split at an ellipsis; in a multi-line
              literal also a quotation that runs over a line break (its first line);
  regex-run   a literal run of a regex-looking literal: the text between regex syntax,
              with \\s, \\s+, \\s* read as one space (a phrase of a pattern list);
  row-in-src  the other direction: a whole corpus title or body found inside a source
              literal or line.

A fragment counts when it has at least MIN_CHARS characters and appears (as a
case-insensitive substring) in a corpus notification's title or body. A fragment that is
purely generic is ignored: fewer than 3 words AND under 20 characters. For `row-in-src` the
same two tests apply to the row's title or body.

Corpora: bench/data/*/notifications.jsonl. For the evaluation corpora nobody may read
(blind, holdout, dev_ios, dev_warsaw) a match is printed as file:line, corpus and row id
only; never the matching text, its length or its kind. For the others (fortnight,
dev_android) the kind, the matched length and the fragment are printed.

One match is one (file:line, corpus, row id); where several fragments of a line match the
same row, the longest is shown. Only title and body are searched (not the subtitle).

Usage: .venv/bin/python bench/corpus_quotes.py [REPO]   (default: this repository)
       QUOTES_CORPORA=fortnight,dev_android .venv/bin/python bench/corpus_quotes.py
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tokenize
import unicodedata
from collections import defaultdict
from pathlib import Path

REPO = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("agent", "memory", "ble", "storage", "device", "core")
SKIP_PARTS = {"tests", "bench", "__pycache__"}
RESTRICTED = {"blind", "holdout", "dev_ios", "dev_warsaw"}
MIN_CHARS = 12
FIELDS = ("title", "body")

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+(?:['’.:,/-][^\W_]+)*")
"""A word for the generic test: letters or digits, joined by an apostrophe or by the
marks inside a number or abbreviation ("how's", "10:00", "z.B", "e-mail" are one word)."""
_N = MIN_CHARS
_QUOTED = re.compile(
    rf'"([^"\n]{{{_N},}})"|“([^”\n]{{{_N},}})”|„([^“”\n]{{{_N},}})[“”]'
    rf"|«\s?([^»\n]{{{_N},}}?)\s?»|「([^」\n]{{{_N},}})」|(?<![\w])'([^'\n]{{{_N},}})'(?![\w])"
)
_QUOTED_ML = re.compile(
    rf'"([^"]{{{_N},200}}?)"|“([^”]{{{_N},200}})”|„([^“”]{{{_N},200}})[“”]'
    rf"|«\s?([^»]{{{_N},200}}?)\s?»|「([^」]{{{_N},200}})」"
)
_ELLIPSIS = re.compile(r"\.\.\.+|…")
_REGEX_HINT = re.compile(r"\\[sbdwSBDW]|\(\?[:=!<P]|\[\^|\|")


def norm(text: str) -> str:
    """NFC, case-folded, white space collapsed."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text).casefold()).strip()


def generic(fragment: str) -> bool:
    """Too short, or purely generic: fewer than 3 words and under 20 characters."""
    if len(fragment) < MIN_CHARS:
        return True
    return len(_WORD.findall(fragment)) < 3 and len(fragment) < 20


def strip_fragment(text: str) -> str:
    return text.strip().strip("\"'“”„«»「」`").strip(" \t,;:()[]")


def literal_value(token: str) -> str | None:
    """The text of a string token (prefixes, quotes removed; escapes left as written for raw
    strings, decoded otherwise when that is safe). f-strings give their literal parts."""
    match = re.match(r"(?i)([rbuf]*)('''|\"\"\"|'|\")", token)
    if match is None:
        return None
    prefix, quote = match.group(1).lower(), match.group(2)
    body = token[len(match.group(0)) : len(token) - len(quote)]
    if "b" in prefix:
        return None  # bytes: not a language
    if "r" in prefix or "f" in prefix:
        return body
    try:
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        return body


def regex_runs(value: str) -> list[str]:
    """Literal runs of a regex-looking literal ("started following you" from
    r"|started\\s+following\\s+you|"): \\s (with its quantifier) is a space, an escaped
    character is itself, any other escape, group, class, quantifier, anchor, alternation
    or unescaped dot ends a run."""
    if not _REGEX_HINT.search(value):
        return []
    runs, current, i, n = [], [], 0, len(value)

    def cut() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    while i < n:
        ch = value[i]
        if ch == "\\" and i + 1 < n:
            nxt = value[i + 1]
            i += 2
            if nxt == "s":
                while i < n and value[i] in "+*?":
                    i += 1
                current.append(" ")
            elif nxt.isalnum():
                cut()  # \b \d \w \u..., a class or an anchor
            else:
                current.append(nxt)
        elif ch == "[":
            cut()
            j = i + 1
            if j < n and value[j] == "^":
                j += 1
            if j < n and value[j] == "]":
                j += 1
            while j < n and value[j] != "]":
                j += 2 if value[j] == "\\" else 1
            i = j + 1
        elif ch == "(":
            cut()
            i += 1
            if i < n and value[i] == "?":  # (?: (?P<name> (?= (?<! (?i)
                i += 1
                if i < n and value[i] == "P" and i + 1 < n and value[i + 1] == "<":
                    i = value.find(">", i) + 1 or n
                elif i < n and value[i] == "<":
                    i += 2
                elif i < n and value[i] in ":=!":
                    i += 1
                else:
                    while i < n and value[i] != ")":
                        i += 1
                    i += 1
        elif ch == "{" and re.match(r"\{\d*,?\d*\}", value[i:]):
            cut()
            i = value.index("}", i) + 1
        elif ch in ")|^$?*+.":
            cut()
            i += 1
        else:
            current.append(ch)
            i += 1
    cut()
    return runs


def source_pieces(path: Path):
    """(line number, kind, text) for every fragment of one source file."""
    try:
        source = path.read_text(encoding="utf-8")
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (UnicodeDecodeError, tokenize.TokenError, SyntaxError):
        return
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            text = tok.string.lstrip("#")
            yield tok.start[0], "line", text
            for piece in _quoted(text):
                yield tok.start[0], "quoted", piece
            continue
        fstring = getattr(tokenize, "FSTRING_MIDDLE", None)
        if fstring is not None and tok.type == fstring:
            value = tok.string
        elif tok.type == tokenize.STRING:
            value = literal_value(tok.string)
            if value is None:
                continue
        else:
            continue
        first = tok.start[0]
        lines = value.split("\n")
        yield first, "literal" if len(lines) == 1 else "literal-multi", value
        if len(lines) > 1:
            for offset, line in enumerate(lines):
                yield first + offset, "line", line
        for offset, line in enumerate(lines):
            for piece in _quoted(line):
                yield first + offset, "quoted", piece
            for run in regex_runs(line):
                yield first + offset, "regex-run", run
        if len(lines) > 1:  # a quotation that runs over a line break
            for match in _QUOTED_ML.finditer(value):
                inner = next(g for g in match.groups() if g is not None)
                if "\n" in inner:
                    at = first + value.count("\n", 0, match.start())
                    for piece in _ELLIPSIS.split(inner):
                        yield at, "quoted", piece


def _quoted(text: str) -> list[str]:
    out = []
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        out.extend(_ELLIPSIS.split(inner))
    return out


def load_corpora(repo: Path) -> dict[str, list[tuple[str, str]]]:
    """corpus -> [(row id, normalized field text)] for every title and body."""
    corpora: dict[str, list[tuple[str, str]]] = {}
    only = set(filter(None, os.environ.get("QUOTES_CORPORA", "").split(",")))
    for path in sorted((repo / "bench" / "data").glob("*/notifications.jsonl")):
        if only and path.parent.name not in only:
            continue
        rows: list[tuple[str, str]] = []
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                row = json.loads(line)
                for field in FIELDS:
                    text = row.get(field) or ""
                    if isinstance(text, str) and text.strip():
                        rows.append((str(row.get("id", "?")), norm(text)))
        corpora[path.parent.name] = rows
    return corpora


def main() -> None:
    corpora = load_corpora(REPO)
    joined = {name: "\x00".join(t for _, t in rows) for name, rows in corpora.items()}
    files = sorted(
        p for d in SOURCE_DIRS for p in (REPO / d).rglob("*.py")
        if not SKIP_PARTS & set(p.relative_to(REPO).parts)
    )
    # (file:line, corpus, row id) -> (kind, length, fragment) of the longest match
    found: dict[tuple[str, str, str], tuple[str, int, str]] = {}
    seen: set[tuple[str, str]] = set()
    texts_by_place: dict[str, set[str]] = defaultdict(set)
    # a multi-line literal: (file, first line, last line) -> its whole text, for a row
    # quoted across a line break (reported at the literal's first line)
    multi: dict[tuple[str, int, int], str] = {}

    def record(place: str, corpus: str, row_id: str, kind: str, fragment: str) -> None:
        key = (place, corpus, row_id)
        old = found.get(key)
        if old is None or len(fragment) > old[1]:
            found[key] = (kind, len(fragment), fragment)

    for path in files:
        rel = path.relative_to(REPO).as_posix()
        for line_no, kind, raw in source_pieces(path):
            fragment = norm(strip_fragment(raw))
            if not fragment:
                continue
            place = f"{rel}:{line_no}"
            if kind == "literal-multi":
                kind = "literal"
                multi[(rel, line_no, line_no + raw.count("\n"))] = fragment
            else:
                texts_by_place[place].add(fragment)
            if generic(fragment) or (place, fragment) in seen:
                continue
            seen.add((place, fragment))
            for corpus, rows in corpora.items():
                if fragment not in joined[corpus]:
                    continue
                for row_id, text in rows:
                    if fragment in text:
                        record(place, corpus, row_id, kind, fragment)

    # the other direction: a whole title or body quoted inside a source literal or line
    for corpus, rows in corpora.items():
        for row_id, text in rows:
            if generic(text):
                continue
            hit_lines: set[tuple[str, int]] = set()
            for place, fragments in texts_by_place.items():
                if any(text in fragment for fragment in fragments):
                    record(place, corpus, row_id, "row-in-src", text)
                    file, _, line = place.rpartition(":")
                    hit_lines.add((file, int(line)))
            for (file, first, last), whole in multi.items():
                if text in whole and not any(
                        (file, n) in hit_lines for n in range(first, last + 1)):
                    record(f"{file}:{first}", corpus, row_id, "row-in-src", text)

    out = sys.stdout
    out.write("# corpus_quotes.py: source text that also stands in a corpus row's title or body\n")
    out.write(f"# sources: {len(files)} .py files under {', '.join(SOURCE_DIRS)} "
              "(tests/ and bench/ skipped)\n")
    out.write("# restricted corpora (" + ", ".join(sorted(RESTRICTED)) +
              "): file:line, corpus, row id only\n")
    out.write("# others: file:line, corpus, row id, kind, matched length, fragment\n\n")
    counts: dict[str, int] = defaultdict(int)
    rows_hit: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def sort_key(item):
        (place, corpus, row_id), _ = item
        file, _, line = place.rpartition(":")
        return corpus, file, int(line), row_id

    current = None
    for (place, corpus, row_id), (kind, length, fragment) in sorted(found.items(), key=sort_key):
        if corpus != current:
            current = corpus
            out.write(f"## {corpus}\n")
        counts[corpus] += 1
        rows_hit[corpus].add(row_id)
        if corpus in RESTRICTED:
            out.write(f"{place}\t{corpus}\t{row_id}\n")
        else:
            kinds[corpus][kind] += 1
            shown = fragment.replace("\t", " ")
            out.write(f"{place}\t{corpus}\t{row_id}\t{kind}\t{length}\t{shown}\n")
    out.write("\n# summary: matches (distinct file:line x row id) and distinct rows, per corpus\n")
    for corpus in sorted(corpora):
        detail = ""
        if corpus not in RESTRICTED and kinds[corpus]:
            detail = "  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds[corpus].items()))
        out.write(f"# {corpus}: {counts[corpus]} matches, {len(rows_hit[corpus])} rows"
                  f"{detail}\n")


if __name__ == "__main__":
    main()
