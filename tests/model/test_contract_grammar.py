"""The per-batch contract through the real grammar: the small model's constrained answer
always validates against the batch schema and maps onto the batch item by item."""

from __future__ import annotations

from datetime import UTC

import orjson
import pytest

from companion_memory.agent.model.provider import ModelRequest
from companion_memory.agent.notifications.contract import batch_schema, output_budget, read_answer
from tests.notifications.contract_items import ITEMS


@pytest.mark.llama
@pytest.mark.timeout(600)  # 87 s under load on 2 cores, beside the first llama probe (21 s)
async def test_the_grammar_only_admits_answers_that_map(model_path: str) -> None:
    from companion_memory.agent.model.llama import LlamaCppProvider
    from companion_memory.agent.notifications.extractor import contract_messages

    provider = LlamaCppProvider(model_path, n_ctx=4096, n_threads=1, max_prompt_tokens=3072)
    try:
        messages = contract_messages(ITEMS, [], UTC)
        request = ModelRequest("notifications", messages, batch_schema(ITEMS), {},
                               max_output_tokens=output_budget(ITEMS), deadline_s=3600)
        response = await provider.complete(request)  # validated against the schema
        mapped = read_answer(orjson.loads(response.text), ITEMS)
        assert all(m is not None for m in mapped)
    finally:
        await provider.close()
