"""The example systemd unit fits both providers: its memory limits hold the largest
model `model fetch` offers, and the folders a model is fetched into are readable by
the service."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from companion_memory.device.models import CATALOG

UNIT = Path(__file__).resolve().parents[2] / "docs" / "systemd" / "companion-memory.service"
MiB = 1 << 20
# What a loaded llama.cpp model needs beyond its file: the KV cache at n_ctx 4096, the
# compute buffers and the daemon itself. Measured with the 1.5B catalogue model: 1,345 MB
# peak resident in a model round for a 1,117 MB file (docs/benchmarks.md).
MODEL_OVERHEAD = 256 * MiB
SUFFIX = {"K": 1 << 10, "M": MiB, "G": 1 << 30, "T": 1 << 40}


def service() -> dict[str, list[str]]:
    """The [Service] section's keys, each with every value it is given."""
    section = ""
    keys: dict[str, list[str]] = {}
    for raw in UNIT.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            section = line
            continue
        if section == "[Service]":
            key, _, value = line.partition("=")
            keys.setdefault(key, []).append(value)
    return keys


def size(value: str) -> int:
    unit = value[-1].upper()
    return int(value[:-1]) * SUFFIX[unit] if unit in SUFFIX else int(value)


def test_the_memory_limits_hold_the_largest_catalogue_model() -> None:
    keys = service()
    largest = max(spec.size for spec in CATALOG.values())
    needed = largest + MODEL_OVERHEAD
    high, hard = size(keys["MemoryHigh"][-1]), size(keys["MemoryMax"][-1])
    assert high >= needed, f"MemoryHigh {high / MiB:.0f} MiB < {needed / MiB:.0f} MiB"
    assert hard >= high


def test_the_model_folders_are_readable_by_the_service() -> None:
    keys = service()
    environment = dict(item.partition("=")[::2] for value in keys["Environment"]
                       for item in value.split())
    root = PurePosixPath(environment["COMPANION_MEMORY_ROOT"])
    models = PurePosixPath(environment["COMPANION_MEMORY_MODELS"])
    writable = [PurePosixPath(p) for value in keys["ReadWritePaths"] for p in value.split()]
    assert root in writable
    # where `model fetch` puts a model in the service's environment: under the root
    assert models.is_relative_to(root)
    # `model fetch`'s default, ~/.cache/companion-memory/models, stays readable: home is
    # read-only for the service, not hidden
    assert keys["ProtectHome"][-1] in ("read-only", "no", "false")
    assert "InaccessiblePaths" not in keys
