"""Through the console script, as the attack was run: secret-bearing notifications fed
with `feed`, processed with `once` (deterministic provider), then `export` and `recall`
show no secret value, while what was worth keeping beside a secret is remembered."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import orjson

from tests.device.helpers import CLI

MESSAGES = [
    # (key, kind, app_id, title, body, category, the secret values)
    ("k1", "added", "de.number26.android", "N26", "Ihr Code lautet 318-774. Niemals weitergeben.",
     "finance", ["318-774"]),
    ("k2", "added", "de.sparkasse", "Sparkasse", "pushTAN: 66 21 08 für Überweisung an Stadtwerke",
     "finance", ["66 21 08"]),
    ("k3", "added", "com.whatsapp", "Oma", "Schlüsselsafe an der Tür, Zahlenkombination 5 8 2 6. "
     "Blumen bitte gießen!", "social", ["5 8 2 6"]),
    ("k4", "added", "com.google.android.gm", "Hausverwaltung", "Nachzahlung 312,40 € bitte bis "
     "31.03. auf DE89-3704-0044-0532-0130-00 überweisen.", "email",
     ["DE89-3704-0044-0532-0130-00"]),
    ("k5", "added", "com.whatsapp", "Xiao", "帮我订酒店，卡号 6212.3456.7890.1232", "social",
     ["6212.3456.7890.1232"]),
    ("k6", "added", "com.slack", "Ops",
     "AWS secret for deploy: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "work",
     ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]),
    ("k7", "added", "com.google.android.gm", "Netflix", "Your password has been changed to "
     "Hunter22x. If this wasn't you, contact us.", "email", ["Hunter22x"]),
    ("k8", "added", "com.example.bank", "Bank", "Your statement is ready", "Your code is 449120",
     ["449120"]),
    ("k10", "added", "com.apple.MobileSMS", "Instagram", "Enter 739104 on the website to log in",
     "other", ["739104"]),
    ("k11", "added", "com.vk", "VK", "VK: 548-295 — код подтверждения", "other", ["548-295"]),
    ("k12", "added", "com.whatsapp", "Mette", "koden til døren er 3 0 3 4, 2. sal", "social",
     ["3 0 3 4"]),
    ("k13", "added", "com.whatsapp", "Li", "my card 6212 3456 7890 1232 for the train tickets",
     "social", ["6212 3456 7890 1232"]),
    ("k14", "added", "com.google.android.gm", "Vercel", "Your new API token: "
     "9f8e7d6c5b4a39281726354a", "email", ["9f8e7d6c5b4a39281726354a"]),
    ("k9", "added", "de.dhl.paket", "DHL", "Ihre Sendung kommt heute in die Packstation 142",
     "other", []),
    ("k9", "modified", "de.dhl.paket", "DHL", "Packstation 142, Abholcode 7 1 9 3, abholen bis "
     "Mittwoch 11.03.", "other", ["7 1 9 3"]),
]


# export fields the library fills in itself: ids, hashes and timestamps
GENERATED_FIELDS = {"memory_id", "subject", "superseded_by", "created_at", "updated_at",
                    "expires_at", "revision", "reinforced"}


def cli(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    return subprocess.run([*CLI, "--root", str(root), *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=environ, check=False)


def squash(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", text.casefold())


def test_fed_secrets_never_become_memories_and_the_rest_is_kept(tmp_path: Path) -> None:
    root = tmp_path / "root"
    lines = []
    for minute, (key, kind, app, title, body, category, _) in enumerate(MESSAGES):
        lines.append(orjson.dumps({
            "kind": kind, "key": key, "app_id": app, "title": title, "body": body,
            "category": category, "posted_at": f"2026-03-09T08:{minute:02d}:00Z",
        }).decode())
    feed = tmp_path / "feed.jsonl"
    feed.write_text("\n".join(lines) + "\n")
    # one feed and one idle window per event, so that the modified event is seen alone
    for line in lines:
        single = tmp_path / "one.jsonl"
        single.write_text(line + "\n")
        assert cli(root, "feed", str(single)).returncode == 0
        once = cli(root, "once")
        assert once.returncode == 0, once.stderr
    export = cli(root, "export")
    assert export.returncode == 0, export.stderr
    records = [orjson.loads(line) for line in export.stdout.splitlines() if line.strip()]
    assert records, "nothing was exported"
    # every value a person or the model wrote; ids and timestamps are the library's own digits,
    # and a short secret such as "3034" can turn up inside them by chance
    shown = [squash(str(value)) for record in records for key, value in record.items()
             if key not in GENERATED_FIELDS]
    for *_, secrets in MESSAGES:
        for secret in secrets:
            assert not any(squash(secret) in value for value in shown)
    recall = cli(root, "recall", "Packstation", "--json")
    assert recall.returncode == 0 and "packstation 142" in recall.stdout.casefold()
    bill = cli(root, "recall", "Nachzahlung", "--json")
    assert bill.returncode == 0 and "312,40" in bill.stdout
