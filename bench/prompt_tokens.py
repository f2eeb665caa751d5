"""What the new part of a notification prompt is made of, in a model's tokens.

Every kept notification of the corpus (as `bench/contract_decoding.py` builds the batches:
one item, no related memories) is rendered as the contract's user message and tokenized
with the model's own vocabulary (`vocab_only`: no weights are loaded). Reported: the
medians and means of the message's tokens, of the body's and of the rest (the heading
with the local time, the app and the sender), and the body lengths in characters, with
how many are longer than the excerpt limits one might try.

    .venv/bin/python bench/prompt_tokens.py --model PATH.gguf
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from contract_decoding import batches  # noqa: E402

from companion_memory.agent.notifications.contract import ITEM_BODY_CHARS  # noqa: E402
from companion_memory.agent.notifications.processor import _contract_messages  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    args = parser.parse_args()
    import llama_cpp

    llm = llama_cpp.Llama(model_path=args.model, vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    zone = ZoneInfo("Europe/Berlin")
    message: list[int] = []
    body: list[int] = []
    chars: list[int] = []
    for batch in batches(1, 100_000):
        item = batch[0]
        text = " ".join(part for part in (item.subtitle, item.body) if part.strip())
        message.append(count(_contract_messages(batch, [], zone)[-1].content))
        body.append(count(text))
        chars.append(len(text))
    rest = [m - b for m, b in zip(message, body, strict=True)]
    print(f"model {Path(args.model).name}, {len(message)} kept notifications, one per message")
    print("| tokens | median | mean |")
    print("|---|---:|---:|")
    for name, values in (("user message", message), ("body", body), ("the rest", rest)):
        print(f"| {name} | {statistics.median(values):.0f} | {statistics.fmean(values):.1f} |")
    longer = ", ".join(f"{sum(1 for c in chars if c > limit)} over {limit}"
                       for limit in (200, 400, ITEM_BODY_CHARS))
    print(f"body characters: median {statistics.median(chars):.0f}, {longer}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
