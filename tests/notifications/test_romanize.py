"""A name the phone shows in another script is found by its Latin letters."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_memory.agent.notifications.romanize import MAX_NAME_WORDS, name_forms
from tests.notifications.harness import event, pipeline


@pytest.mark.parametrize(
    ("name", "forms"),
    [
        ("王磊", ["wang", "lei", "wanglei"]),  # surname, given name, both
        ("张晓明", ["zhang", "xiaoming", "zhangxiaoming"]),
        ("김지훈", ["gimjihun", "jihun"]),  # hangul names are written joined
        ("Олена Петрівна", ["olena", "petrivna"]),
        ("Ελένη", ["eleni"]),
        ("たかはし", ["takahashi"]),
        ("Anna Müller", []),  # Latin letters: the index folds the accents itself
        ("Ayşe", []),
        ("🙏", []),
    ],
)
def test_name_forms(name: str, forms: list[str]) -> None:
    assert name_forms(name) == forms


def test_a_long_title_is_not_a_name() -> None:
    assert name_forms(" ".join(["Олена"] * (MAX_NAME_WORDS + 1))) == []
    assert name_forms(" ".join(["Олена"] * MAX_NAME_WORDS)) == ["olena"]


async def test_a_contact_saved_in_chinese_is_found_by_pinyin(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        p.publish(
            event("明天早上六点半浇筑三楼楼板，请你到场确认坍落度。", title="王磊",
                  category="msg", app="com.tencent.mm"),
            event("Die Lieferung kommt morgen zwischen 8 und 12 Uhr.", title="Paketdienst",
                  category="msg", app="com.whatsapp", minutes=1),
        )
        outcome = await p.processor.run_batch()
        assert outcome.report.applied == 2
        hits = await p.store.recall("What did Wang Lei ask me?", limit=5)
        assert hits, "the pinyin of the sender's name finds the memory"
        assert "王磊" in hits[0].record.text
        # the romanized name is a search word, not part of what the memory says
        assert all("Wang" not in h.record.text and "wang" not in h.record.text for h in hits)


async def test_a_chinese_shop_title_is_not_romanized(tmp_path: Path) -> None:
    """Only a person's or a chat's name: a shop's title in Chinese characters would add
    single syllables that match English words by accident."""
    async with pipeline(tmp_path) as p:
        p.publish(event("订单已发货，预计周五送达。", title="王磊", category="shopping",
                        app="com.taobao.taobao"))
        outcome = await p.processor.run_batch()
        assert outcome.report.applied == 1
        hits = await p.store.recall("Wang Lei", limit=5)
        assert hits == []
