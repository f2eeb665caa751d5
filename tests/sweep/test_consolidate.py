"""The deterministic consolidation's parts, one by one (no store, no model)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from companion_memory.agent.sweep.consolidate import (
    FACT_SAME,
    LINE_RELATED,
    LINES_PER_DAY,
    candidate_words,
    consolidate,
    day_label,
    day_subject,
    diary_line,
    names_sender,
    record_words,
    sender_of,
    shared_lines,
)
from companion_memory.agent.sweep.proposals import DayScope, validate_page
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.records import TEXT_LIMIT_CHARS
from companion_memory.memory.secrets import contains_secret

DAY = date(2026, 1, 14)


def event(title: str, body: str, *, app: str = "com.apple.MobileSMS",
          category: str = "social") -> NotificationEvent:
    return NotificationEvent.create(kind="added", key="k", app_id=app, title=title, body=body,
                                    category=category,
                                    posted_at=datetime(2026, 1, 14, 9, tzinfo=UTC))


def test_who_wrote_it_is_read_from_the_phone_signals() -> None:
    assert sender_of(event("Peng Yuqing", "Shall we go at 3?")) == \
        ("Peng Yuqing", "Messages", True)
    # a bracketed signature: a service sent the text message
    assert sender_of(event("China Merchants Bank", "【CMB】Your bill is ready"))[2] is False
    assert sender_of(event("Shop", "Order shipped [MyShop]"))[2] is True  # not at the start
    # not a message category: the app is the sender
    assert sender_of(event("Payment successful", "You paid 38 yuan", app="com.alipay",
                           category="")) == ("Alipay", "Alipay", False)
    assert sender_of(event("Recipe saved", "x", app="Xia Chu Fang", category="")) == \
        ("Xia Chu Fang", "Xia Chu Fang", False)


def test_kept_words_are_the_rarest_in_the_store_in_their_order() -> None:
    words = candidate_words(event("Alipay", "You have successfully paid order 202503271530 "
                                  "at Shengjuefeisi Cafe, the amount of 38 yuan has been "
                                  "synchronized to My Bills, thank you for choosing Alipay"))
    assert "202503271530" not in words and "You" not in words and "have" not in words
    counts = {"successfully": 90, "paid": 80, "order": 70, "amount": 60, "yuan": 50,
              "Alipay": 40, "synchronized": 40, "Bills": 40, "thank": 30, "choosing": 30}
    kept = record_words(words, False, counts)
    assert len(kept.encode()) <= 60
    assert kept.split()[:2] == ["Shengjuefeisi", "Cafe"] or "Shengjuefeisi Cafe" in kept
    assert "successfully" not in kept and "paid" not in kept
    assert record_words(words, True, counts).split() == words  # a person's: all fit


def test_a_sender_named_in_another_script_keeps_its_latin_letters_for_search() -> None:
    """A consolidated line about 王磊 is still found by "Wang Lei" once the Temporary
    memories that carried the name's pinyin are gone."""
    words = candidate_words(event("王磊", "泵车到了，混凝土车五点半到场"))
    assert words[:3] == ["wang", "lei", "wanglei"] and "王磊" in words
    # a shop's title is no person's name
    assert "wang" not in candidate_words(event("王磊", "订单已发货", app="com.taobao",
                                               category=""))


def test_a_diary_line_names_the_day_the_person_and_what_was_said() -> None:
    line = diary_line(DAY, "Peng Yuqing", "Messages", True,
                      ["The art exhibition opens today, shall we go at 3?", "See you at 3",
                       "See you at 3"])
    assert line == (f"{day_label(DAY)}: Peng Yuqing on Messages: The art exhibition opens "
                    "today, shall we go at 3?; See you at 3")
    assert day_label(DAY).startswith("2026-01-14 (Wed")
    assert "January" in day_label(DAY)
    assert day_subject(DAY, "Peng Yuqing") == "day 2026-01-14 peng yuqing"
    assert len(diary_line(DAY, "A", "B", True, ["x" * 90] * 20)) <= TEXT_LIMIT_CHARS


def test_the_apps_share_a_line_split_at_the_text_and_source_limits() -> None:
    apps = [(f"App{n}", [f"Title {n} " + "w" * 60], [f"context:{n}"]) for n in range(12)]
    lines = shared_lines(DAY, apps)
    assert len(lines) >= 2
    assert all(len(line["text"]) <= TEXT_LIMIT_CHARS for line in lines)
    assert [s for line in lines for s in line["sources"]] == [f"context:{n}" for n in range(12)]
    assert lines[0]["subject"] == "day 2026-01-14 apps"
    assert lines[1]["subject"] == "day 2026-01-14 apps 2"
    many = shared_lines(DAY, [("Bank", ["Card payment"], [f"context:{n}" for n in range(40)])])
    assert len(many[0]["sources"]) == 32


def test_a_memory_is_about_the_sender_when_its_line_or_its_statement_names_them() -> None:
    assert names_sender("2026-01-14 (Wed): Anna on Messages: x", "day 2026-01-14 anna", "Anna")
    assert not names_sender("2026-01-14 (Wed): Annabel on Messages: x",
                            "day 2026-01-14 annabel", "Anna")
    assert names_sender("Giulia's new address is Lindenallee 12", None, "Giulia")
    assert not names_sender("Annabel's new address is Lindenallee 12", None, "Anna")


def neighbour(memory_id: str, cosine: float, *, same: bool = True, kind: str = "fact",
              subject: str | None = None) -> dict[str, Any]:
    return {"memory_id": memory_id, "cosine": cosine, "measure": "cosine",
            "same_sender": same, "kind": kind, "subject": subject, "text": "old"}


def payload(*groups: dict[str, Any]) -> dict[str, Any]:
    return {"date": DAY.isoformat(), "groups": list(groups)}


def group(who: str, *, person: bool = True, facts: list[dict[str, Any]] | None = None,
          neighbours: list[dict[str, Any]] | None = None, n: int = 1) -> dict[str, Any]:
    return {"who": who, "app": "Messages", "person": person,
            "sources": [f"context:{i}" for i in range(1, n + 1)],
            "gists": [f"said {i}" for i in range(n)], "facts": facts or [],
            "neighbours": neighbours or []}


def test_a_changed_fact_is_merged_or_amended_and_a_new_one_kept_apart() -> None:
    new_lt = {"memory_id": "n-new", "tier": "long_term", "kind": "fact",
              "text": "Giulia's new address is Kopenhagener Strasse 41",
              "sources": ["context:1"], "neighbours": [neighbour("lt-old", FACT_SAME + 0.01)]}
    temp = {"memory_id": "t-1", "tier": "temporary", "kind": "preference",
            "text": "Giulia prefers tea", "sources": ["context:1"], "reinforced_in_window": 0,
            "neighbours": [neighbour("lt-tea", FACT_SAME + 0.02)]}
    apart = {"memory_id": "t-2", "tier": "temporary", "kind": "fact", "text": "Giulia is vegan",
             "sources": ["context:1"], "reinforced_in_window": 2,
             "neighbours": [neighbour("lt-x", FACT_SAME - 0.05),
                            neighbour("lt-y", 0.99, same=False)]}
    out = consolidate(payload(group("Giulia", facts=[new_lt, temp, apart])))
    by_action = {c["action"]: c for c in out}
    assert by_action["merge"]["memory_id"] == "lt-old"
    assert by_action["merge"]["from_id"] == "n-new"
    assert by_action["amend"]["memory_id"] == "lt-tea"
    assert "memory:t-1" in by_action["amend"]["sources"]
    assert by_action["promote"]["memory_id"] == "t-2"  # reinforced twice today, nothing alike
    assert by_action["add"]["text"].startswith("2026-01-14 (Wed")


def test_a_persons_day_reinforces_what_it_continues_and_an_apps_day_does_not() -> None:
    near = [neighbour("lt-a", LINE_RELATED + 0.05, kind="event", subject="day 2026-01-01 anna"),
            neighbour("lt-b", LINE_RELATED - 0.05, kind="event", subject="day 2026-01-02 anna"),
            neighbour("lt-c", 0.99, same=False, kind="event")]
    person = consolidate(payload(group("Anna", neighbours=near)))
    assert [c["memory_id"] for c in person if c["action"] == "reinforce"] == ["lt-a"]
    app = consolidate(payload(group("Alipay", person=False, neighbours=near)))
    assert not [c for c in app if c["action"] == "reinforce"]
    assert [c["subject"] for c in app] == ["day 2026-01-14 apps"]


def test_a_crowded_day_keeps_its_biggest_lines_and_shares_the_rest() -> None:
    groups = [group(f"Person {n}", n=1 + n % 3) for n in range(LINES_PER_DAY + 3)]
    out = consolidate(payload(*groups))
    own = [c for c in out if c["subject"].split(" ", 2)[2].startswith("person")]
    shared = [c for c in out if c["subject"].startswith("day 2026-01-14 apps")]
    assert len(own) == LINES_PER_DAY and len(shared) == 1
    assert sum(len(c["sources"]) for c in out) == sum(len(g["sources"]) for g in groups)


def test_search_words_come_from_the_cited_notifications_and_hold_no_secret() -> None:
    scope = DayScope(frozenset({1, 2}), frozenset(), frozenset(),
                     words={1: "Shengjuefeisi Cafe latte", 2: "IBAN DE89370400440532013000"})
    page = {"candidates": [{"action": "add", "kind": "event", "text": "2026-01-14: Cafe",
                            "sources": ["context:1", "context:2"]}]}
    [made] = validate_page(page, scope).candidates
    assert made.detail is not None and "Shengjuefeisi" in made.detail
    assert "Cafe" not in made.detail.split()  # the line holds it already
    assert not contains_secret(made.detail) and "DE89" not in made.detail
