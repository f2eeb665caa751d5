"""Lasting facts a sender states about themselves become Long-Term facts without a model;
everything else stays an event statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion_memory.agent.notifications.lasting import FACT_CHARS, lasting_fact
from companion_memory.memory.records import Kind, Status, Tier
from tests.notifications.harness import event, pipeline


@pytest.mark.parametrize(
    ("sender", "body", "statement"),
    [
        ("Priya", "Sunday works!! we'll be there around 1. Just so you know, I've gone fully "
         "vegan since January, so no fish for me", "Priya is vegan"),
        ("Max", "ich bin jetzt Vegetarierin, nur zur Info", "Max is vegetarian"),
        ("Eva", "Kurze Info: ich bin allergisch gegen Erdnüsse!", "Eva is allergic to Erdnüsse"),
        ("Giulia", "ricordati che sono allergica alle nocciole, quindi niente Nutella",
         "Giulia is allergic to nocciole"),
        ("Claire", "je suis allergique aux arachides !", "Claire is allergic to arachides"),
        ("Luis", "ojo, soy alérgico a los gatos", "Luis is allergic to gatos"),
        ("Sanne", "ik ben allergisch voor katten, sorry", "Sanne is allergic to katten"),
        ("Nina Roth", "Unsere neue Adresse ist ab sofort Kopenhagener Str. 41, 10437 Berlin – "
         "also quasi um die Ecke", "Nina Roth's new address is Kopenhagener Str. 41, 10437 Berlin"),
        ("Ben", "FYI my new address is 12 Mill Lane. See you soon",
         "Ben's new address is 12 Mill Lane"),
        # a short lower-case abbreviation does not end the sentence
        ("Hugo", "Notre nouvelle adresse est 8 bd. Voltaire, Lyon. Passez nous voir",
         "Hugo's new address is 8 bd. Voltaire, Lyon"),
        ("Priya", "btw Theo is allergic to kiwi, good to know for the party on the 9th",
         "Theo is allergic to kiwi"),
    ],
)
def test_a_stated_fact_becomes_a_third_person_statement(
        sender: str, body: str, statement: str) -> None:
    assert lasting_fact(sender, body) == statement


@pytest.mark.parametrize(
    ("sender", "body", "statement"),
    [
        ("Ola", "Jestem uczulona na orzechy, pamiętaj", "Ola is allergic to orzechy"),
        ("Kasia", "od marca jestem weganką, tak dla jasności", "Kasia is vegan"),
        ("Ana", "sou alérgica a camarão, tá?", "Ana is allergic to camarão"),
        ("Elif", "Çileğe alerjim var unutma", "Elif is allergic to Çileğe"),
        ("Олег", "кстати, у меня аллергия на кошек", "Олег is allergic to кошек"),
        ("Оксана", "у мене алергія на горіхи", "Оксана is allergic to горіхи"),
        ("小雨", "我对芒果过敏，别放", "小雨 is allergic to 芒果"),
        ("丽丽", "我现在吃素了，别点肉", "丽丽 is vegetarian"),
        ("ゆき", "えびアレルギーなんだよね", "ゆき is allergic to えび"),
        ("지은", "나 새우 알레르기 있어", "지은 is allergic to 새우"),
        ("سارة", "عندي حساسية من البيض، انتبهي", "سارة is allergic to البيض"),
    ],
)
def test_an_allergy_or_a_diet_in_other_languages_becomes_a_statement(
        sender: str, body: str, statement: str) -> None:
    assert lasting_fact(sender, body) == statement


@pytest.mark.parametrize(
    "body",
    [
        "I'm allergic to Monday mornings",      # a day: a joke, not an allergy
        "jestem uczulona na poniedziałek",
        "are you vegan?",                       # a question, not a statement about oneself
        "I'm vegan-curious lol",                # not a diet
        "I am so tired today",
        "Dinner Saturday at 7 at the Italian place?",
        "He is allergic to nothing, lucky him",  # a pronoun, not a name
        "the vegan place on Main St was great",
    ],
)
def test_everything_else_is_no_lasting_fact(body: str) -> None:
    assert lasting_fact("Anna", body) is None


def test_the_object_is_bounded() -> None:
    fact = lasting_fact("Anna", "I'm allergic to " + "very " * 40 + "many things")
    assert fact is not None and len(fact) <= len("Anna is allergic to ") + FACT_CHARS


async def test_the_fallback_keeps_it_as_a_long_term_fact(tmp_path: Path) -> None:
    async with pipeline(tmp_path) as p:
        p.publish(event("Also, I'm allergic to shellfish, so no seafood risotto for me",
                        title="Anna"),
                  event("Dinner on Saturday at 7 at the Italian place?", title="Anna"),
                  event("Shellfish festival this weekend, 20% off", title="Deals",
                        app="com.example.shop", category="news"))
        await p.processor.run_batch()
        live = [m for m in await p.memories() if m.status is Status.ACTIVE]
        facts = [m for m in live if m.kind is Kind.FACT]
        assert [(m.text, m.tier) for m in facts] == [("Anna is allergic to shellfish",
                                                      Tier.LONG_TERM)]
        assert facts[0].expires_at is not None  # auto Long-Term still expires, later
        events = [m for m in live if m.kind is Kind.EVENT]
        assert [m.tier for m in events] == [Tier.TEMPORARY]
        hits = await p.store.recall("seafood risotto", limit=3)  # the sender's own words
        assert hits and hits[0].record.memory_id == facts[0].memory_id
