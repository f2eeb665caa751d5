"""The deterministic statement keeps the facts: where its first sentence ends.

A full stop ends a sentence only by structure (no abbreviation lists in any language):
not before a digit or a lower-case letter, not after a day or an ordinal ("22. März"),
not after an abbreviation ("Dr.", "ul.", "z.B."); CJK 。！？ end one; a first sentence
too short to say anything takes the next one along.
"""

from __future__ import annotations

import pytest

from companion_memory.agent.notifications.fallback import distill


def chat(body: str, *, title: str = "Anna", local: str | None = None) -> str | None:
    item = {"app": "net.whatsapp.WhatsApp", "cat": "social", "title": title, "body": body}
    if local is not None:
        item["local"] = local
    return distill(item)


@pytest.mark.parametrize(
    "body",
    [
        # an abbreviation opening a clause, a capitalized one, single letters
        "Jutro o 10:00 dentysta, ul. Marszałkowska 5",
        "Termin bei Dr. Weber um 10 Uhr",
        "Bring was mit, z.B. Salat oder Brot",
        "Treffpunkt bei Dr. med. Petra Lindner im Haus",
        # a day or an ordinal, and what follows in lower case or as a digit
        "Mamas 70. Geburtstag ist am 21. März",
        "Die Feier ist im 2. OG links",
        "Ankunft ca. 20:05 am Gleis 4",
        "Wizyta 22.03. o 10:00 u dentysty",
        # a greeting the filters do not know does not stand for the message
        "Dzień dobry. Jutro o 10:00 dentysta",
        "Merhaba! Yarın saat 10:00 diş hekimi randevusu",
    ],
)
def test_a_full_stop_inside_a_sentence_does_not_cut_it(body: str) -> None:
    assert chat(body) == f"Anna on WhatsApp: {body}"


@pytest.mark.parametrize(
    ("body", "topic"),
    [
        ("The parcel is with your neighbour. Pick it up after six",
         "The parcel is with your neighbour"),
        ("Your flight leaves at 20:10. Boarding starts at gate B12",
         "Your flight leaves at 20:10"),
        ("Die Abrechnung für 2025 liegt vor. Nachzahlung: 312 Euro",
         "Die Abrechnung für 2025 liegt vor"),
        ("Der Termin ist jetzt am 24.3. Ostern kommen wir wie geplant",
         "Der Termin ist jetzt am 24.3"),
        ("Der Kunde sagte gerade JA. Wir feiern am Samstag", "Der Kunde sagte gerade JA"),
        # CJK sentence enders
        ("明日10時に歯医者の予約があります。よろしくお願いします。",
         "明日10時に歯医者の予約があります"),
        ("明天上午十点看牙医！别忘了带卡", "明天上午十点看牙医"),
        ("こんにちは！明日10時に歯医者の予約があります。",
         "こんにちは！明日10時に歯医者の予約があります"),
        # a short first sentence with nothing after it worth keeping stays alone
        ("Thanks! See you", "Thanks"),
    ],
)
def test_a_sentence_end_ends_the_statement(body: str, topic: str) -> None:
    assert chat(body) == f"Anna on WhatsApp: {topic}"


def test_a_question_keeps_its_mark_in_any_script() -> None:
    assert chat("明天上午十点见面？") == "Anna on WhatsApp: 明天上午十点见面？"
    assert chat("Dinner on Friday at 8? The usual place.") == \
        "Anna on WhatsApp: Dinner on Friday at 8?"


def test_a_sentence_written_without_spaces_is_bounded_not_lost() -> None:
    statement = chat("明天上午十点预约了牙医" * 20)
    assert statement is not None
    topic = statement.removeprefix("Anna on WhatsApp: ")
    assert topic.startswith("明天上午十点预约了牙医")
    assert 0 < len(topic) <= 110


def test_a_leading_pleasantry_gives_way_to_what_follows_without_its_marks() -> None:
    assert chat("Merci pour tout !! 🥰 Max m'a fait un dessin pour vous", title="Claire") == \
        "Claire on WhatsApp: Max m'a fait un dessin pour vous"
