"""The store refuses any statement, subject or search detail holding a secret, whoever
proposes it, with a typed error that names the field and the kind of secret, never the
text; nothing of the batch is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import (
    IntentOp,
    Kind,
    MemoryIntent,
    SecretInStatementError,
    SourceKind,
    SourceRef,
    Tier,
)
from companion_memory.memory.store import MemoryStore

SOURCES = (SourceRef(SourceKind.CONTEXT, "1"),)


def create(memory_id: str = "m-1", **kw: object) -> MemoryIntent:
    fields: dict[str, object] = {"tier": Tier.TEMPORARY, "kind": Kind.FACT,
                                 "text": "Dinner with Anna on Friday", "sources": SOURCES}
    fields.update(kw)
    return MemoryIntent(op=IntentOp.CREATE, memory_id=memory_id, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [
        ("text", "Your verification code is 493817", "verification_code"),
        ("text", "Anna's card is 4111 1111 1111 1111", "secret_card"),
        ("text", "Rent goes to DE89 3704 0044 0532 0130 00", "secret_iban"),
        ("text", "The wifi password is Sonnenblume2024!", "secret_password"),
        ("subject", "login code 493817", "otp"),
        ("detail", "Bank\nIhr Code lautet 318-774", "secret_code"),
    ],
)
def test_an_intent_holding_a_secret_is_refused_without_its_text(
    field: str, value: str, kind: str
) -> None:
    with pytest.raises(SecretInStatementError) as info:
        create(**{field: value})
    error = info.value
    assert error.code == "secret_in_statement" and error.field == field and error.kind == kind
    assert str(error).startswith(f"{field}: holds a secret ({kind});")
    for word in value.split():
        if any(ch.isdigit() for ch in word):
            assert word not in str(error)


def test_an_update_holding_a_secret_is_refused() -> None:
    with pytest.raises(SecretInStatementError):
        MemoryIntent(op=IntentOp.UPDATE, memory_id="m-1", expected_revision=1,
                     text="Use 771045 to confirm the transfer", sources=SOURCES)


async def test_the_store_refuses_a_direct_intent_and_writes_nothing(tmp_path: Path) -> None:
    store = await MemoryStore.open(tmp_path / "memory.sqlite3", clock=FakeClock())
    try:
        await store.apply([create("m-ok")])
        with pytest.raises(SecretInStatementError):
            await store.apply([create("m-2", text="Dinner on Friday"),
                               create("m-3", text="Your verification code is 493817")])
        with pytest.raises(SecretInStatementError):
            await store.save_memory("Your verification code is 493817", kind=Kind.FACT,
                                    sources=["agent:t1"])
        # an intent altered after construction is refused where the row is written
        sealed = create("m-4", text="Dinner on Saturday")
        object.__setattr__(sealed, "text", "Your verification code is 493817")
        with pytest.raises(SecretInStatementError):
            await store.apply([create("m-5", text="Lunch on Sunday"), sealed])
        records = await store.list_records(include_inactive=True)
        assert [r.memory_id for r in records] == ["m-ok"]
        dump = await store.read(lambda conn: conn.execute(
            "SELECT text || detail FROM memories").fetchall())
        assert not any("493817" in row[0] for row in dump)
    finally:
        await store.close()


def test_ordinary_statements_with_numbers_are_accepted() -> None:
    for text in ("Flight LH 4410 to Munich on 14 March at 08:15",
                 "Order 302-1234567-1234567 arrives Thursday",
                 "Parcel is in Packstation 142 until Wednesday",
                 "Call the dentist at +49 30 1234567"):
        assert create(text=text).text == text
