"""`LlamaCppProvider`: llama.cpp in process, on one owned thread, cancellable between decodes.

Loading and every generation run on the provider's single thread, never on
the event loop; calls queue behind each other there. Output is constrained by
the request's JSON schema with a llama.cpp grammar (compiled once per schema
and cached), so a completion that ends normally always parses; it is still
validated, and one cut short by `max_output_tokens` is reported as
`ModelOutputError`.

Cancellation: cancelling the task awaiting `complete()` sets the call's flag.
The contract is counted in decodes and tokens, not in time: once the flag is
set, at most one llama.cpp decode finishes (the one in flight) and at most
`STEP_TOKENS` tokens are added to the answer before the thread stops, because
every decode checks the flag first and evaluates at most `PROMPT_CHUNK` tokens
(`llama_engine` says how). The wait is therefore one decode of the loaded model
on this machine. The cancelled `complete()` waits for that stop before re-raising
`CancelledError`, so when the cancelled task is done the CPU is free. A call
still queued behind another is dropped without running. The model stays loaded
and the next call works. `last_cancel` records the decodes and tokens finished
after the cancel request and how long the stop took.

Deadline: `request.deadline_s` counts from the call, including time queued;
past it the thread stops and the call raises `ModelTimeoutError`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from companion_memory.agent.model.llama_engine import (
    Generation,
    GenerationCancelled,
    Job,
    LlamaEngine,
)
from companion_memory.agent.model.provider import (
    Message,
    ModelError,
    ModelOutputError,
    ModelRequest,
    ModelResponse,
    ModelUnavailableError,
)
from companion_memory.agent.model.schema_tools import parse_completion
from companion_memory.agent.model.settings import ProviderConfigError

T = TypeVar("T")

LLAMA_PACKAGE_MISSING = (
    "llama-cpp-python installed for it: pip install 'companion-memory[llama]' (it compiles "
    "llama.cpp, which needs a C compiler and takes several minutes), or another kind"
)


def default_threads() -> int:
    """Half the CPUs (at least 1): llama.cpp's threads spin-wait on each other, so on a
    busy device more threads than free cores makes generation an order of magnitude
    slower (measured: 5 tok/s with 2 threads vs 78 with 1 on a loaded 2-core machine)."""
    return max(1, (os.cpu_count() or 2) // 2)


@dataclass(frozen=True, slots=True)
class CancelReport:
    """How a cancelled call stopped, counted from the moment its flag was set: the
    llama.cpp decodes that finished after it (at most 1), the tokens added to the answer
    after it (at most `STEP_TOKENS`), and the delay until the thread saw the flag."""

    tokens_after_cancel: int
    stop_latency_s: float
    decodes_after_cancel: int = 0


class LlamaCppProvider:
    """A GGUF model run by llama.cpp in this process. See the module docstring."""

    name = "llama"

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        max_prompt_tokens: int = 1536,
        seed: int = 0,
        constrained: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(model_path, str) or not model_path:
            raise ProviderConfigError("model_path", model_path, "a path to a GGUF file")
        if importlib.util.find_spec("llama_cpp") is None:  # found, not imported
            raise ProviderConfigError("kind", self.name, LLAMA_PACKAGE_MISSING)
        for key, value in (("n_ctx", n_ctx), ("max_prompt_tokens", max_prompt_tokens)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ProviderConfigError(key, value, "a positive integer")
        if n_threads is not None and (not isinstance(n_threads, int) or n_threads <= 0):
            raise ProviderConfigError("n_threads", n_threads, "a positive integer or None")
        if max_prompt_tokens >= n_ctx:
            raise ProviderConfigError(
                "max_prompt_tokens", max_prompt_tokens, f"fewer than n_ctx ({n_ctx})"
            )
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.max_prompt_tokens = max_prompt_tokens
        self.constrained = constrained
        self._n_threads = n_threads if n_threads is not None else default_threads()
        self._seed = seed
        self._monotonic = monotonic
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llama-provider")
        self._engine: LlamaEngine | None = None
        self._current: Job | None = None
        self._closed = False
        self.load_s: float | None = None
        self.last_generation: Generation | None = None
        self.last_cancel: CancelReport | None = None
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @property
    def loaded(self) -> bool:
        return self._engine is not None

    @property
    def tokens_in_flight(self) -> int:
        """Tokens generated so far by the running call (0 when idle)."""
        job = self._current
        return job.completion_tokens if job is not None else 0

    @property
    def grammars_cached(self) -> int:
        return self._engine.grammars_cached if self._engine is not None else 0

    async def _on_thread(self, fn: Callable[[], T], job: Job | None = None) -> T:
        """Run `fn` on the owned thread; on cancel, flag `job` and wait for the thread to stop."""
        if self._closed:
            raise ModelUnavailableError("the llama.cpp provider is closed")
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        future: Future[T] = self._executor.submit(fn)
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(done.set))
        try:
            await done.wait()
        except asyncio.CancelledError:
            if future.cancel():  # still queued: it never runs
                raise
            if job is not None:
                job.cancel(self._monotonic())
            await asyncio.shield(done.wait())
            if job is not None and job.stopped_at is not None:
                requested = job.cancel_requested_at or job.stopped_at
                self.last_cancel = CancelReport(
                    tokens_after_cancel=job.completion_tokens - (job.tokens_at_cancel or 0),
                    stop_latency_s=job.stopped_at - requested,
                    decodes_after_cancel=job.decodes - (job.decodes_at_cancel or 0),
                )
            raise
        return future.result()

    def _load_sync(self) -> LlamaEngine:
        if self._engine is None:
            self._engine = LlamaEngine(
                self.model_path,
                n_ctx=self.n_ctx,
                n_threads=self._n_threads,
                seed=self._seed,
                monotonic=self._monotonic,
            )
            self.load_s = self._engine.load_s
        return self._engine

    async def load(self) -> None:
        """Load the model on the owned thread (first call does it otherwise).

        Raises `ModelUnavailableError` for a missing, unreadable, non-GGUF or
        truncated file. Cancelling waits for the load to finish in the background.
        """
        await self._on_thread(self._load_sync)

    async def prepare(self) -> None:
        """The protocol's load step: `load()`."""
        await self.load()

    async def generate(
        self,
        messages: tuple[Message, ...],
        *,
        schema: dict[str, Any] | None,
        max_output_tokens: int,
        deadline_s: float,
    ) -> Generation:
        """One greedy completion, grammar-constrained when `schema` is given; no validation."""
        if max_output_tokens <= 0:
            raise ModelError(f"max_output_tokens must be positive, got {max_output_tokens}")
        job = Job(
            messages=messages,
            schema=schema,
            max_output_tokens=max_output_tokens,
            deadline=self._monotonic() + deadline_s,
            max_prompt_tokens=self.max_prompt_tokens,
        )

        def run() -> Generation:
            engine = self._load_sync()
            self._current = job
            try:
                return engine.generate(job)
            finally:
                self._current = None

        try:
            generation = await self._on_thread(run, job)
        except GenerationCancelled:
            raise asyncio.CancelledError() from None
        except ModelError:
            raise
        except Exception as err:
            raise ModelError(f"llama.cpp failed during generation ({type(err).__name__})") from err
        self.last_generation = generation
        self.calls += 1
        self.prompt_tokens += generation.prompt_tokens
        self.completion_tokens += generation.completion_tokens
        return generation

    async def complete(self, request: ModelRequest) -> ModelResponse:
        started = time.perf_counter()
        schema = request.schema if self.constrained and request.schema else None
        generation = await self.generate(
            request.messages,
            schema=schema,
            max_output_tokens=request.max_output_tokens,
            deadline_s=request.deadline_s,
        )
        try:
            parse_completion(generation.text, request.schema)
        except ModelOutputError as err:
            if generation.stopped == "max_tokens":
                raise ModelOutputError(
                    f"the completion was cut at max_output_tokens "
                    f"({request.max_output_tokens}) before the JSON ended; {err.reason}"
                ) from None
            raise
        return ModelResponse(
            text=generation.text,
            prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens,
            provider=self.name,
            elapsed_s=time.perf_counter() - started,
        )

    def stats(self) -> dict[str, Any]:
        """Counters only (no prompt or completion text)."""
        return {
            "provider": self.name,
            "loaded": self.loaded,
            "load_s": self.load_s,
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "grammars_cached": self.grammars_cached,
            "extra_buffer_types": list(self._engine.buffers.available) if self._engine else None,
            "weight_repack": self._engine.buffers.use_extra if self._engine else None,
            "weight_repack_reason": self._engine.buffers.reason if self._engine else None,
        }

    async def close(self) -> None:
        """Free the model on its thread and stop the thread; idempotent."""
        if self._closed:
            return
        engine = self._engine

        def free() -> None:
            if engine is not None:
                engine.close()

        try:
            await self._on_thread(free)
        finally:
            self._closed = True
            self._engine = None
            self._executor.shutdown(wait=False)

