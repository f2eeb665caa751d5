"""The llama.cpp side of `LlamaCppProvider`: everything here runs on the provider's thread.

`LlamaEngine` owns one `llama_cpp.Llama`, the compiled grammar samplers (one
per schema, reset per call) and a greedy decoding loop written for two things
`Llama.generate` does not give us:

- Cheap grammar-constrained sampling. llama.cpp's grammar sampler checks every
  candidate token against the grammar; with Gemma 3's 262,144-token vocabulary
  that is most of the per-token time (about 10 tok/s constrained vs 52
  unconstrained with `Llama.generate`). Decoding is greedy, so the constrained
  answer is the highest-logit token the grammar accepts: we ask the grammar
  about the single best token first and widen (64, 4,096, then all tokens)
  only when it is rejected. The result is the same token, at a fraction of
  the cost.
- Fixed text fed, not sampled. Most of a contract answer is forced by its schema
  (keys, punctuation, constant anchors, the tail of an enum value): `forced.py`
  says what must come next, the grammar checks each of those tokens, and they
  are evaluated together like prompt text rather than one decoding step each. A
  sampled token is evaluated in the same batch as the fixed text that follows it, and
  the fixed text that closes the answer is not evaluated at all (no pick needs its
  logits), so the KV cache may end a few tokens short of the answer.
- Drafts from the prompt. A notification statement often repeats words of its
  notification, so after each sampled token the loop looks up the last two tokens
  in the prompt (and the answer so far) and, on a match, evaluates the tokens that
  followed there in one batch with the sampled token. Each draft token is then
  checked against the greedy (grammar-constrained) pick at its position and kept
  while they agree; the rest is dropped from the KV cache. The answer is the one
  token-by-token decoding gives; a run of matching tokens costs one batch instead
  of one decoding step each.
- Cancellation in decode steps. Every `llama_decode` goes through `_decode`, which
  checks the job's cancel flag and deadline first and counts the decode on the job;
  the loop checks them again before each step that appends tokens. A decode
  evaluates at most `PROMPT_CHUNK` tokens (a prompt chunk, a run of deferred fixed
  text, or a sampled token with its draft), and a step appends at most `STEP_TOKENS`
  tokens to the answer (fixed text is fed in runs of at most that, a draft is never
  longer). So once the flag is set, at most one decode finishes (the one in flight,
  or the one whose check had just passed) and at most `STEP_TOKENS` tokens are
  appended before the thread stops; how long that takes is one decode of at most
  `PROMPT_CHUNK` tokens on the machine at hand. The model stays loaded and usable,
  and `Job` counts decodes and tokens at the cancel so the provider can report both.

The KV cache of the previous call is reused for the longest common prompt
prefix (the system prompt of a scenario is the same every batch).
"""

from __future__ import annotations

import codecs
import ctypes
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion_memory.agent.model.forced import Cursor, Skeleton
from companion_memory.agent.model.llama_buffers import (
    BufferPlan,
    cpu_extra_buffer_types,
    model_params_with,
    plan_extra_buffers,
)
from companion_memory.agent.model.provider import (
    Message,
    ModelError,
    ModelOutputError,
    ModelTimeoutError,
    ModelUnavailableError,
)
from companion_memory.agent.model.schema_tools import schema_key, schema_to_gbnf

GGUF_MAGIC = b"GGUF"
PROMPT_CHUNK = 24
"""The most tokens one decode evaluates: a prompt chunk, a run of deferred fixed text,
a sampled token with its draft. A cancel waits for at most one such decode."""
STEP_TOKENS = 16
"""The most tokens one step of the decoding loop appends to the answer between two looks
at the cancel flag: forced text is fed in runs of at most this, a draft is never longer."""
_WIDTHS = (1, 64, 4096)  # candidate widths tried before the whole vocabulary
_GRAMMAR_CACHE = 16  # compiled grammars kept (one per schema)
DRAFT_TOKENS = (4, 16)  # the least and the most tokens of one draft (it grows while kept)
assert DRAFT_TOKENS[1] <= STEP_TOKENS and 1 + DRAFT_TOKENS[1] <= PROMPT_CHUNK


class GenerationCancelled(Exception):
    """Internal: the job's cancel flag was seen; the provider re-raises CancelledError."""


@dataclass
class Job:
    """One call's inputs and its cancel flag, shared between the loop and the thread."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None  # None: unconstrained
    max_output_tokens: int
    deadline: float  # on `monotonic`
    max_prompt_tokens: int
    cancel_event: threading.Event = field(default_factory=threading.Event)
    cancel_requested_at: float | None = None
    tokens_at_cancel: int | None = None
    decodes_at_cancel: int | None = None
    completion_tokens: int = 0  # updated by the thread as it goes
    decodes: int = 0  # llama_decode calls finished, updated by the thread
    decode_s: float = 0.0  # time spent in them
    stopped_at: float | None = None  # when the thread saw the cancel flag

    def cancel(self, now: float) -> None:
        """Set the flag, then note the counts: whatever the thread does once the flag is
        set is either counted as after the cancel or was already done when it was read."""
        first = self.cancel_requested_at is None
        self.cancel_event.set()
        if first:
            self.cancel_requested_at = now
            self.tokens_at_cancel = self.completion_tokens
            self.decodes_at_cancel = self.decodes


@dataclass(frozen=True, slots=True)
class Generation:
    """What one decoding loop produced, with the counters the benchmarks use."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    reused_prefix_tokens: int
    prompt_s: float
    generate_s: float
    picks_at_width: dict[int, int]
    stopped: str  # "eog" | "max_tokens"
    forced_tokens: int = 0  # of completion_tokens, fed as fixed text rather than sampled
    drafted_tokens: int = 0  # of completion_tokens, picked from a draft evaluated in a batch
    drafts: int = 0  # draft batches evaluated
    decodes: int = 0  # llama_decode calls (prompt chunks included)
    decode_s: float = 0.0  # time spent in them


class _Lookup:
    """The prompt and the answer so far, indexed by token pair, for drafts: where the
    last two tokens occurred before, the tokens that followed them there."""

    __slots__ = ("_last", "_since", "seq")

    def __init__(self, tokens: list[int]) -> None:
        self.seq = list(tokens)
        self._last: dict[tuple[int, int], int] = {}
        for index in range(1, len(self.seq)):
            self._last[(self.seq[index - 1], self.seq[index])] = index
        self._since: int | None = None

    def append(self, token: int) -> None:
        if self.seq:
            key = (self.seq[-1], token)
            self._since = self._last.get(key)
            self._last[key] = len(self.seq)
        self.seq.append(token)

    def draft(self, size: int) -> list[int]:
        """Up to `size` tokens that followed the last token pair where it last occurred."""
        if self._since is None:
            return []
        return self.seq[self._since + 1 : self._since + 1 + size]


def _free(cursor: Cursor | None) -> bool:
    """Whether the model picks the next token itself (no fixed text is due)."""
    return cursor is None or cursor.lost or (not cursor.done and not cursor.forced())


def check_gguf_file(path: str) -> int:
    """Refuse a missing, unreadable or non-GGUF file before llama.cpp sees it; return its size."""
    if not os.path.exists(path):
        raise ModelUnavailableError(f"model file {path} does not exist; set model_path to a GGUF")
    if not os.path.isfile(path):
        raise ModelUnavailableError(f"model path {path} is not a regular file; expected a GGUF")
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
        size = os.path.getsize(path)
    except OSError as err:
        raise ModelUnavailableError(
            f"model file {path} is not readable ({err.strerror}); check its permissions"
        ) from err
    if magic != GGUF_MAGIC:
        raise ModelUnavailableError(
            f"model file {path} is not a GGUF file (missing the GGUF magic); "
            "convert the model to GGUF for llama.cpp"
        )
    return size


def render_prompt(messages: tuple[Message, ...], template: str | None, bos: str, eos: str) -> str:
    """Messages to one prompt: the model's chat template when it has one, else plain text.

    A base model (no template) gets the message contents separated by blank
    lines, ending with a cue for the JSON answer.
    """
    if template:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        chat: Any = [{"role": m.role, "content": m.content} for m in messages]
        rendered = formatter(messages=chat)
        prompt: str = rendered.prompt
        return prompt
    parts = [m.content if m.role != "assistant" else f"Answer: {m.content}" for m in messages]
    return "\n\n".join(parts) + "\n\nAnswer (JSON):\n"


class LlamaEngine:
    """One loaded model. Not thread-safe: only the provider's thread calls it."""

    def __init__(
        self,
        model_path: str,
        *,
        n_ctx: int,
        n_threads: int | None,
        seed: int,
        monotonic: Callable[[], float] = time.monotonic,
        buffer_plan: BufferPlan | None = None,
        feed_fixed_text: bool = True,
        draft_from_prompt: bool = True,
    ) -> None:
        import llama_cpp
        import numpy as np

        self._lib: Any = llama_cpp
        self._np: Any = np
        self._monotonic = monotonic
        check_gguf_file(model_path)
        self.buffers: BufferPlan = buffer_plan or plan_extra_buffers(cpu_extra_buffer_types())
        started = time.perf_counter()
        try:
            with model_params_with(use_extra_bufts=self.buffers.use_extra):
                self.llm: Any = llama_cpp.Llama(
                    model_path=model_path,
                    n_ctx=n_ctx,
                    n_threads=n_threads,
                    n_batch=min(512, n_ctx),
                    seed=seed,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as err:
            raise ModelUnavailableError(
                f"llama.cpp could not load {model_path} ({type(err).__name__}); the GGUF file "
                "is truncated, corrupt or of an unsupported architecture"
            ) from err
        if bool(self.llm.model_params.use_extra_bufts) != self.buffers.use_extra:
            self.llm.close()
            raise ModelUnavailableError(
                "llama-cpp-python ignored the extra-buffer-type setting; refusing to run a "
                "model whose weights may sit in a buffer type known to crash"
            )
        self.load_s = time.perf_counter() - started
        self.n_ctx = n_ctx
        self._chunk = min(PROMPT_CHUNK, int(self.llm.n_batch))  # so one eval is one decode
        self._vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self.n_vocab = int(self.llm.n_vocab())
        self._template: str | None = self.llm.metadata.get("tokenizer.chat_template") or None
        self._bos = self._token_text(self.llm.token_bos())
        self._eos = self._token_text(self.llm.token_eos())
        self._grammars: OrderedDict[str, Any] = OrderedDict()
        self._skeletons: OrderedDict[str, Skeleton | None] = OrderedDict()
        self.feed_fixed_text = feed_fixed_text
        self.draft_from_prompt = draft_from_prompt
        dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        self._buf = (llama_cpp.llama_token_data * self.n_vocab)()
        self._cand: Any = np.frombuffer(self._buf, dtype=dtype)  # type: ignore[call-overload]
        self._arr = llama_cpp.llama_token_data_array(
            data=ctypes.cast(self._buf, llama_cpp.llama_token_data_p),
            size=0,
            selected=-1,
            sorted=False,
        )
        self._all_ids = np.arange(self.n_vocab, dtype=np.intc)

    @property
    def grammars_cached(self) -> int:
        return len(self._grammars)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        raw: bytes = self.llm.detokenize([token], special=True)
        return raw.decode("utf-8", errors="replace")

    def tokenize_prompt(self, messages: tuple[Message, ...]) -> list[int]:
        prompt = render_prompt(messages, self._template, self._bos, self._eos)
        tokens: list[int] = self.llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        return tokens

    def _grammar(self, schema: dict[str, Any], key: str) -> Any:
        sampler = self._grammars.get(key)
        if sampler is not None:
            self._grammars.move_to_end(key)
            self._lib.llama_sampler_reset(sampler)
            return sampler
        try:
            gbnf = schema_to_gbnf(schema)
        except (ValueError, KeyError, TypeError, RecursionError) as err:
            raise ModelError(
                f"the request schema cannot be turned into a grammar ({type(err).__name__})",
                code="schema_unsupported",
            ) from None
        sampler = self._lib.llama_sampler_init_grammar(
            self._vocab, gbnf.encode("utf-8"), b"root"
        )
        if not sampler:
            raise ModelError("llama.cpp rejected the grammar built from the schema",
                             code="schema_unsupported")
        self._grammars[key] = sampler
        while len(self._grammars) > _GRAMMAR_CACHE:
            _, old = self._grammars.popitem(last=False)
            self._lib.llama_sampler_free(old)
        return sampler

    def _pick(self, logits: Any, grammar: Any, widths: dict[int, int]) -> int:
        """The highest-logit token the grammar accepts (plain argmax without a grammar)."""
        np = self._np
        best = int(np.argmax(logits))
        if grammar is None:
            return best
        cand = self._cand
        for width in (*_WIDTHS, self.n_vocab):
            if width == 1:
                ids = np.array([best], dtype=np.intc)
            elif width < self.n_vocab:
                ids = np.argpartition(logits, -width)[-width:]
            else:
                ids = self._all_ids
            n = len(ids)
            cand["id"][:n] = ids
            cand["logit"][:n] = logits[ids]
            cand["p"][:n] = 0.0
            self._arr.size = n
            self._arr.selected = -1
            self._arr.sorted = False
            self._lib.llama_sampler_apply(grammar, ctypes.byref(self._arr))
            kept = cand["logit"][:n]
            index = int(np.argmax(kept))
            if np.isfinite(kept[index]):
                widths[width] = widths.get(width, 0) + 1
                return int(cand["id"][index])
        raise ModelOutputError("the grammar admits no next token; the schema may be unsatisfiable")

    def _admits(self, grammar: Any, token: int) -> bool:
        """Whether the grammar, in its current state, accepts `token` next."""
        cand = self._cand
        cand["id"][0] = token
        cand["logit"][0] = 0.0
        cand["p"][0] = 0.0
        self._arr.size = 1
        self._arr.selected = -1
        self._arr.sorted = False
        self._lib.llama_sampler_apply(grammar, ctypes.byref(self._arr))
        return bool(self._np.isfinite(cand["logit"][0]))

    def _skeleton(self, schema: dict[str, Any], key: str) -> Skeleton | None:
        if key not in self._skeletons:
            self._skeletons[key] = Skeleton.of(schema)
            while len(self._skeletons) > _GRAMMAR_CACHE:
                self._skeletons.popitem(last=False)
        return self._skeletons[key]

    def _fixed_tokens(self, cursor: Cursor, grammar: Any, room: int,
                      queued: list[int]) -> list[int]:
        """The next tokens of the text the schema forces, each accepted by the grammar (and
        so consumed by it): at most `STEP_TOKENS` and `room`; stops at the first token it
        refuses. The text is tokenized whole once: `queued` keeps its tokens not taken
        yet, so a long fixed text is fed in steps and the tokens are those of one pass."""
        if not queued:
            text = cursor.forced()
            if not text or room < 1:
                return []
            tokens: list[int] = self.llm.tokenize(text.encode("utf-8"), add_bos=False,
                                                  special=False)
            if self.llm.detokenize(tokens).decode("utf-8", errors="replace") != text:
                return []  # this tokenizer does not spell the text back the same way alone
            queued.extend(tokens)
        taken: list[int] = []
        for token in queued[: min(room, STEP_TOKENS)]:
            if not self._admits(grammar, token):
                queued.clear()  # the rest is not fed; the next step asks the cursor again
                return taken
            self._lib.llama_sampler_accept(grammar, token)
            taken.append(token)
        del queued[: len(taken)]
        return taken

    def _check(self, job: Job) -> None:
        if job.cancel_event.is_set():
            job.stopped_at = self._monotonic()
            raise GenerationCancelled()
        if self._monotonic() > job.deadline:
            raise ModelTimeoutError(
                f"the llama.cpp call ran past its deadline after {job.completion_tokens} tokens"
            )

    def _prefill(self, tokens: list[int], job: Job) -> int:
        """Evaluate the prompt, reusing the cached prefix; return the tokens reused."""
        llm = self.llm
        prefix = 0
        for old, new in zip(llm._input_ids.tolist(), tokens, strict=False):
            if old != new:
                break
            prefix += 1
        prefix = min(prefix, len(tokens) - 1)
        if prefix > 0 and llm._ctx.kv_cache_seq_rm(-1, prefix, -1):
            llm.n_tokens = prefix
        else:
            prefix = 0
            llm.reset()
        for start in range(prefix, len(tokens), self._chunk):
            self._decode(job, tokens[start : start + self._chunk])
        return prefix

    def _decode(self, job: Job, batch: list[int], *, all_logits: bool = False) -> None:
        """The one way a batch reaches llama_decode: the cancel flag and the deadline are
        checked first, so no decode starts once a cancel was seen; the job counts it."""
        self._check(job)
        started = time.perf_counter()
        if all_logits:
            self._eval_all(batch)
        else:
            self.llm.eval(batch)  # one llama_decode: batch is at most n_batch tokens
        job.decode_s += time.perf_counter() - started
        job.decodes += 1

    def _logits(self, index: int) -> Any:
        """The logits at batch position `index` of the last eval (-1: its last token); a
        view valid until the next eval."""
        pointer = self._lib.llama_get_logits_ith(self.llm.ctx, index)
        return self._np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    def _eval_all(self, batch: list[int]) -> None:
        """Evaluate `batch` after the cached tokens with logits at every position
        (`Llama.eval` keeps only the last unless the whole context keeps all)."""
        llm = self.llm
        past = llm.n_tokens
        llm._ctx.kv_cache_seq_rm(-1, past, -1)
        llm._batch.set_batch(batch=batch, n_past=past, logits_all=True)
        llm._ctx.decode(llm._batch)
        llm.input_ids[past : past + len(batch)] = batch
        llm.n_tokens = past + len(batch)

    def _take(self, token: int, grammar: Any, cursor: Cursor | None, decoder: Any,
              lookup: _Lookup | None, out: list[int], job: Job) -> None:
        """Append a picked token to the answer: the grammar, the cursor and the lookup
        follow it."""
        if grammar is not None:
            self._lib.llama_sampler_accept(grammar, token)
        out.append(token)
        job.completion_tokens = len(out)
        if cursor is not None and not cursor.lost:
            cursor.advance(decoder.decode(self.llm.detokenize([token])))
        if lookup is not None:
            lookup.append(token)

    def generate(self, job: Job) -> Generation:
        """Run one greedy completion for `job`; raises ModelError or GenerationCancelled."""
        self._check(job)
        tokens = self.tokenize_prompt(job.messages)
        if len(tokens) > job.max_prompt_tokens:
            raise ModelError(
                f"the prompt has {len(tokens)} tokens, over max_prompt_tokens "
                f"{job.max_prompt_tokens}; send fewer items per call",
                code="prompt_too_long",
            )
        room = self.n_ctx - len(tokens)
        limit = min(job.max_output_tokens, room)
        if limit < 1:
            raise ModelError(
                f"the prompt ({len(tokens)} tokens) leaves no room in n_ctx {self.n_ctx}",
                code="prompt_too_long",
            )
        key = schema_key(job.schema) if job.schema is not None else ""
        grammar = self._grammar(job.schema, key) if job.schema is not None else None
        skeleton = (self._skeleton(job.schema, key)
                    if job.schema is not None and self.feed_fixed_text else None)
        cursor = skeleton.cursor() if skeleton is not None else None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        widths: dict[int, int] = {}
        out: list[int] = []
        forced = drafted = drafts = 0
        lookup = _Lookup(tokens) if self.draft_from_prompt else None
        draft_size = DRAFT_TOKENS[0]
        queued: list[int] = []  # fixed text tokenized but not fed yet (see _fixed_tokens)
        logits: Any = None  # the next token's logits when not those of the last eval
        started = self._monotonic()
        try:
            reused = self._prefill(tokens, job)
            prefilled = self._monotonic()
            stopped = "max_tokens"
            pending: list[int] = []  # picked tokens not evaluated yet (see below)
            while len(out) < limit:
                self._check(job)
                if cursor is not None and not cursor.lost:
                    if cursor.done:
                        stopped = "eog"  # the answer is complete: only the end may follow
                        break
                    fixed = self._fixed_tokens(cursor, grammar, limit - len(out), queued)
                    if fixed:
                        out.extend(fixed)
                        forced += len(fixed)
                        job.completion_tokens = len(out)
                        cursor.advance(decoder.decode(self.llm.detokenize(fixed)))
                        for token in fixed:
                            if lookup is not None:
                                lookup.append(token)
                        pending.extend(fixed)
                        continue
                # A picked token is evaluated only when the next pick needs its logits,
                # together with the fixed text that follows it: one batch instead of one
                # step each, and nothing at all for the text that closes the answer.
                for start in range(0, len(pending), self._chunk):
                    self._decode(job, pending[start : start + self._chunk])
                    logits = None
                pending = []
                if logits is None:
                    logits = self._logits(-1)
                token = self._pick(logits, grammar, widths)
                if self._lib.llama_vocab_is_eog(self._vocab, token):
                    stopped = "eog"
                    break
                self._take(token, grammar, cursor, decoder, lookup, out, job)
                draft = (lookup.draft(min(draft_size, limit - len(out)))
                         if lookup is not None and _free(cursor) else [])
                if not draft:
                    pending = [token]
                    logits = None
                    continue
                # the sampled token and the draft in one batch, logits at every position
                drafts += 1
                base = self.llm.n_tokens
                self._decode(job, [token, *draft], all_logits=True)
                kept = 0
                for index, guess in enumerate(draft):
                    pick = self._pick(self._logits(index), grammar, widths)
                    if pick != guess or self._lib.llama_vocab_is_eog(self._vocab, pick):
                        break
                    self._take(pick, grammar, cursor, decoder, lookup, out, job)
                    kept += 1
                    if not _free(cursor):
                        break
                drafted += kept
                draft_size = (min(DRAFT_TOKENS[1], draft_size * 2) if kept == len(draft)
                              else max(DRAFT_TOKENS[0], kept + 1))
                end = base + 1 + kept
                if end < self.llm.n_tokens:  # drop the refused rest of the draft
                    self.llm._ctx.kv_cache_seq_rm(-1, end, -1)
                    self.llm.n_tokens = end
                logits = self._logits(kept)
        except GenerationCancelled:
            raise
        except BaseException:
            self.llm.reset()  # the KV cache may be half written
            raise
        finished = self._monotonic()
        text = self.llm.detokenize(out).decode("utf-8", errors="replace")
        return Generation(
            text=text,
            prompt_tokens=len(tokens),
            completion_tokens=len(out),
            reused_prefix_tokens=reused,
            prompt_s=prefilled - started,
            generate_s=finished - prefilled,
            picks_at_width=widths,
            stopped=stopped,
            forced_tokens=forced,
            drafted_tokens=drafted,
            drafts=drafts,
            decodes=job.decodes,
            decode_s=job.decode_s,
        )

    def close(self) -> None:
        for sampler in self._grammars.values():
            self._lib.llama_sampler_free(sampler)
        self._grammars.clear()
        self.llm.close()
