"""Child process: load a GGUF the way the product does and decode; print JSON counters.

`python -m tests.model.llama_probe MODEL_PATH` builds the provider through
`build_provider` (the runtime's path, so the same buffer-type decision applies),
sends one grammar-constrained request and prints the provider's counters and the
buffer plan as one JSON line. Used by `tests/native_guard.py`.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile

import orjson

from companion_memory.agent.model.factory import build_provider, describe
from companion_memory.agent.model.provider import Message, ModelRequest
from companion_memory.agent.model.schema_tools import parse_completion
from companion_memory.agent.model.settings import ProviderSettings
from companion_memory.core.clock import SystemClock

SCHEMA = {
    "type": "object",
    "properties": {"keep": {"type": "boolean"}, "topic": {"type": "string", "maxLength": 24}},
    "required": ["keep", "topic"],
    "additionalProperties": False,
}


async def probe(model_path: str) -> dict[str, object]:
    settings = ProviderSettings(kind="llama", model_path=model_path, n_threads=1)
    with tempfile.TemporaryDirectory() as root:
        provider = build_provider(settings, root=root, clock=SystemClock())
        assert provider is not None  # (a llama kind always builds one)
        try:
            request = ModelRequest(
                "notifications",
                (
                    Message("system", "Say whether to remember the notification. JSON only."),
                    Message("user", "Anna: dinner on Saturday at 7 at the Italian place"),
                ),
                SCHEMA,
                max_output_tokens=48,
            )
            response = await provider.complete(request)
            parse_completion(response.text, SCHEMA)
            info = describe(provider)
        finally:
            await provider.close()
    return {"completion_tokens": response.completion_tokens, "stats": info.get("stats", {})}


def main() -> int:
    result = asyncio.run(probe(sys.argv[1]))
    sys.stdout.write(orjson.dumps(result, default=str).decode() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
