"""Write a benchmark's markdown into its subsection of docs/benchmarks.md.

The section "## Memory store (issue 3)" belongs to the memory benchmarks; each
script owns one "### ..." subsection inside it and replaces only that.
"""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
SECTION = "## Memory store (issue 3)"


def update_subsection(subheading: str, body: str, doc: Path = DOC) -> None:
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    block = f"{subheading}\n\n{body.strip()}\n"
    start = text.find(SECTION)
    if start < 0:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\n{block}"
        doc.write_text(text, encoding="utf-8")
        return
    after = start + len(SECTION)
    nxt = re.search(r"^## ", text[after:], flags=re.M)
    end = after + nxt.start() if nxt else len(text)
    section = text[after:end]
    sub = section.find(subheading)
    if sub < 0:
        section = section.rstrip("\n") + f"\n\n{block}\n"
    else:
        sub_end_match = re.search(r"^#{2,3} ", section[sub + len(subheading):], flags=re.M)
        sub_end = sub + len(subheading) + sub_end_match.start() if sub_end_match else len(section)
        section = section[:sub] + block + "\n" + section[sub_end:]
    if not section.startswith("\n"):
        section = "\n" + section
    tail = "\n\n" + text[end:] if text[end:] else "\n"
    doc.write_text(text[:after] + section.rstrip("\n") + tail, encoding="utf-8")
