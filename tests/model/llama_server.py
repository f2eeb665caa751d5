"""Child process: llama-cpp-python's OpenAI-compatible server, loading its model with the
extra weight buffer types the product would use on this CPU.

`python -m tests.model.llama_server ARGS...` runs `python -m llama_cpp.server ARGS...`
with `use_extra_bufts` set by `plan_extra_buffers`, exactly as `LlamaEngine` sets it.
The stock server leaves every extra buffer type on, and on a CPU with AMX its first
decode crashes (SIGSEGV): the HTTP provider's tests would then test the CPU, not the
provider. A user's own server is theirs to configure; this one is test scaffolding.
"""

from __future__ import annotations

import runpy
import sys

from companion_memory.agent.model.llama_buffers import (
    cpu_extra_buffer_types,
    model_params_with,
    plan_extra_buffers,
)


def main() -> None:
    plan = plan_extra_buffers(cpu_extra_buffer_types())
    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    # The server loads its model at start-up, inside this block, and then serves until
    # it is terminated.
    with model_params_with(use_extra_bufts=plan.use_extra):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
