"""Extra weight buffer types: never one known to crash (AMX), repacking kept elsewhere.

The decision is taken from what the loaded llama.cpp library reports, so it holds
whatever the CPU and however the wheel was built. The last tests load the bundled
model the way the product does (`build_provider` -> `LlamaCppProvider`) and decode,
in a child process, so a crash fails the test instead of the run.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import orjson
import pytest

from companion_memory.agent.model.llama_buffers import (
    CRASHING_BUFFER_TYPES,
    BufferPlan,
    cpu_extra_buffer_types,
    cpu_has_amx,
    model_params_with,
    plan_extra_buffers,
)
from tests.native_guard import crash_message, probe_argv, run_child


def test_amx_turns_every_extra_buffer_type_off() -> None:
    plan = plan_extra_buffers(("AMX", "CPU_REPACK"))
    assert plan.use_extra is False and plan.reason == "crashing_type"
    assert plan.denied == ("AMX",)


@pytest.mark.parametrize("available", [("CPU_REPACK",), ("KLEIDIAI", "CPU_REPACK")])
def test_repacking_stays_on_where_nothing_crashes(available: tuple[str, ...]) -> None:
    plan = plan_extra_buffers(available)
    assert plan.use_extra is True and plan.reason == "repack_on" and plan.denied == ()


def test_no_extra_types_keeps_the_default() -> None:
    assert plan_extra_buffers(()) == BufferPlan((), True, "no_extra_types")


@pytest.mark.parametrize(("amx", "use_extra"), [(True, False), (False, True)])
def test_a_library_that_cannot_say_falls_back_to_the_cpu_flags(amx: bool, use_extra: bool) -> None:
    plan = plan_extra_buffers(None, has_amx=lambda: amx)
    assert plan.use_extra is use_extra


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    with_amx = tmp_path / "amx"
    with_amx.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f amx_bf16 amx_tile amx_int8\n")
    without = tmp_path / "plain"
    without.write_text("processor\t: 0\nflags\t\t: fpu avx2 avx512f avx512_vnni\n")
    assert cpu_has_amx(str(with_amx)) is True
    assert cpu_has_amx(str(without)) is False
    assert cpu_has_amx(str(tmp_path / "missing")) is False


def test_the_library_reports_its_extra_types_and_agrees_with_the_cpu() -> None:
    pytest.importorskip("llama_cpp")
    names = cpu_extra_buffer_types()
    assert names is not None, "the CPU backend did not answer the extra buffer type query"
    assert all(isinstance(name, str) and name for name in names)
    if not cpu_has_amx():
        assert "AMX" not in names  # ggml registers AMX only where the CPU can run it


def test_the_params_patch_is_scoped_and_restored() -> None:
    low = pytest.importorskip("llama_cpp.llama_cpp")
    original = low.llama_model_default_params
    with model_params_with(use_extra_bufts=False):
        assert low.llama_model_default_params().use_extra_bufts is False
    assert low.llama_model_default_params is original
    assert low.llama_model_default_params().use_extra_bufts is True
    with pytest.raises(KeyError), model_params_with(use_extra_bufts=False):
        raise KeyError("boom")
    assert low.llama_model_default_params is original


@pytest.mark.llama
@pytest.mark.parametrize("use_extra", [True, False])
def test_the_engine_loads_with_the_planned_setting_and_decodes(
    model_path: str, use_extra: bool
) -> None:
    from companion_memory.agent.model.llama_engine import Job, LlamaEngine
    from companion_memory.agent.model.provider import Message

    available = cpu_extra_buffer_types() or ()
    plan = BufferPlan(available, use_extra, "test")
    if use_extra and any(name in CRASHING_BUFFER_TYPES for name in available):
        pytest.skip("this CPU offers a crashing buffer type; the product never turns it on")
    engine = LlamaEngine(model_path, n_ctx=512, n_threads=1, seed=0, buffer_plan=plan)
    try:
        assert bool(engine.llm.model_params.use_extra_bufts) is use_extra
        job = Job(
            messages=(Message("user", "Say hello."),),
            schema=None,
            max_output_tokens=8,
            deadline=float("inf"),
            max_prompt_tokens=256,
        )
        generation = engine.generate(job)
        assert generation.completion_tokens > 0
    finally:
        engine.close()


@pytest.mark.llama
def test_the_product_path_loads_and_decodes_in_a_child(model_path: str) -> None:
    outcome = run_child(probe_argv(model_path))
    assert outcome.ok, crash_message(outcome, "the llama probe")
    result = orjson.loads(outcome.stdout.strip().splitlines()[-1])
    assert result["completion_tokens"] > 0
    stats = result["stats"]
    denied = set(stats["extra_buffer_types"]) & CRASHING_BUFFER_TYPES
    assert stats["weight_repack"] is (not denied)


def test_a_native_crash_in_the_child_is_a_clear_failure_not_a_dead_run() -> None:
    suicide = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"
    outcome = run_child([sys.executable, "-c", suicide])
    assert outcome.crashed and outcome.returncode == -signal.SIGSEGV
    message = crash_message(outcome, "the model load")
    assert "crashed with SIGSEGV" in message and "the model load" in message
