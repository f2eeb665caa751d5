"""Which of llama.cpp's extra weight buffer types a model may be loaded into.

llama.cpp can repack a model's weights at load time into "extra" buffer types of
the CPU backend: `CPU_REPACK` (interleaved Q4_0/Q4_K/IQ4_NL/Q8_0 blocks for NEON,
i8mm, SVE or AVX2 kernels; the big win on the ARM SoCs of wearables), `KLEIDIAI`
(Arm's micro-kernels) and, on x86 CPUs with Advanced Matrix Extensions, `AMX`.
The AMX path crashes with a segmentation fault in its first matrix multiply on
some machines (ggml-org/llama.cpp#20824; seen on Sapphire/Emerald Rapids servers),
and whether it is present depends on the CPU and on how the wheel was built (a
wheel built on another machine and kept by pip's cache may carry it). So the
decision is taken from what the loaded library itself reports, never from build
flags: `plan_extra_buffers()` asks the CPU backend for its extra buffer types and
turns all of them off only when one of them is known to crash. Everywhere else
(ARM, x86 without AMX) repacking stays on.

llama.cpp has one switch for all extra types (`use_extra_bufts`), so an AMX
machine also loses `CPU_REPACK`; docs/benchmarks.md gives what that costs on x86.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

CRASHING_BUFFER_TYPES = frozenset({"AMX"})
"""Extra buffer types never used: weights loaded into them crash in llama.cpp's decode."""

_CPU_DEVICE = 0  # enum ggml_backend_dev_type: GGML_BACKEND_DEVICE_TYPE_CPU
_AMX_CPU_FLAGS = ("amx_tile", "amx_int8", "amx_bf16")
_PATCH_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class BufferPlan:
    """What the CPU backend offers and whether the model may use it."""

    available: tuple[str, ...]  # the extra buffer types the library reports, in its order
    use_extra: bool  # the value given to llama.cpp's use_extra_bufts
    reason: str  # a reason code: "repack_on", "no_extra_types", "crashing_type", "cpu_has_amx"

    @property
    def denied(self) -> tuple[str, ...]:
        return tuple(name for name in self.available if name in CRASHING_BUFFER_TYPES)


def cpu_extra_buffer_types(libggml: Any | None = None) -> tuple[str, ...] | None:
    """The names of the CPU backend's extra buffer types, or None when the library cannot
    say (no CPU device registered, or an older library without the query)."""
    if libggml is None:
        try:
            from llama_cpp._ggml import libggml as loaded
        except (ImportError, OSError):
            return None
        libggml = loaded
    try:
        by_type = libggml.ggml_backend_dev_by_type
        backend_reg = libggml.ggml_backend_dev_backend_reg
        proc_address = libggml.ggml_backend_reg_get_proc_address
        buft_name = libggml.ggml_backend_buft_name
    except AttributeError:
        return None
    by_type.argtypes, by_type.restype = [ctypes.c_int], ctypes.c_void_p
    backend_reg.argtypes, backend_reg.restype = [ctypes.c_void_p], ctypes.c_void_p
    proc_address.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    proc_address.restype = ctypes.c_void_p
    buft_name.argtypes, buft_name.restype = [ctypes.c_void_p], ctypes.c_char_p
    device = by_type(_CPU_DEVICE)
    if not device:
        return None
    reg = backend_reg(device)
    if not reg:
        return None
    address = proc_address(reg, b"ggml_backend_dev_get_extra_bufts")
    if not address:
        return ()
    get_extra = ctypes.CFUNCTYPE(ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)(address)
    array = get_extra(device)
    names: list[str] = []
    index = 0
    while array and array[index]:
        raw = buft_name(array[index])
        names.append(raw.decode("ascii", errors="replace") if raw else "?")
        index += 1
    return tuple(names)


def cpu_has_amx(cpuinfo_path: str = "/proc/cpuinfo") -> bool:
    """True when the kernel reports an AMX feature flag (Linux x86 only; False elsewhere)."""
    try:
        with open(cpuinfo_path, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[-1].split()
                    return any(flag in flags for flag in _AMX_CPU_FLAGS)
    except OSError:
        return False
    return False


def plan_extra_buffers(
    available: tuple[str, ...] | None,
    *,
    has_amx: Callable[[], bool] = cpu_has_amx,
) -> BufferPlan:
    """Decide `use_extra_bufts` from what the library reported (None: it could not say)."""
    if available is None:
        # Unknown library: be safe where the crashing path can exist at all.
        if has_amx():
            return BufferPlan((), False, "cpu_has_amx")
        return BufferPlan((), True, "repack_on")
    if any(name in CRASHING_BUFFER_TYPES for name in available):
        return BufferPlan(available, False, "crashing_type")
    if not available:
        return BufferPlan(available, True, "no_extra_types")
    return BufferPlan(available, True, "repack_on")


@contextlib.contextmanager
def model_params_with(*, use_extra_bufts: bool) -> Iterator[None]:
    """While the block runs, `llama_model_default_params()` of the low-level module returns
    params with `use_extra_bufts` set as given.

    `llama_cpp.Llama` builds its model params from that function inside its constructor
    and offers no argument for the field, so the constructor is run inside this block
    (on the provider's thread, serialized by a lock). The caller checks the loaded
    model's `model_params` afterwards, so a library that stops honouring it is noticed.
    """
    import llama_cpp.llama_cpp as low

    original = low.llama_model_default_params

    def patched() -> Any:
        params = original()
        params.use_extra_bufts = use_extra_bufts
        return params

    with _PATCH_LOCK:
        low.llama_model_default_params = patched
        try:
            yield
        finally:
            low.llama_model_default_params = original
