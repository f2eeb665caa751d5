"""ANCS codec and Data Source reassembler: layouts, every split, typed errors, fuzz."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_memory.ble.ancs.codec import (
    AncsCodecError,
    AncsCommandError,
    AttributeSpec,
    CategoryID,
    EventFlags,
    EventID,
    decode_text,
    encode_get_app_attributes,
    encode_get_notification_attributes,
    encode_perform_notification_action,
    parse_notification_source,
)
from companion_memory.ble.ancs.codec import (
    NotificationAttributeID as A,
)
from companion_memory.ble.ancs.reassembler import (
    AttributeRequest,
    DataSourceReassembler,
    decode_attribute_response,
    encode_attribute_response,
)
from companion_memory.ble.errors import CodecError

SPECS = (
    AttributeSpec(A.APP_IDENTIFIER),
    AttributeSpec(A.TITLE, 64),
    AttributeSpec(A.SUBTITLE, 64),
    AttributeSpec(A.MESSAGE, 512),
    AttributeSpec(A.MESSAGE_SIZE),
    AttributeSpec(A.DATE),
)
VALUES: dict[int, bytes] = {
    A.APP_IDENTIFIER: b"com.apple.MobileSMS",
    A.TITLE: b"Ana Souza",
    A.SUBTITLE: b"",
    A.MESSAGE: ("Dinner at 7? \N{GRINNING FACE} " * 12).encode(),
    A.MESSAGE_SIZE: b"204",
    A.DATE: b"20260310T183000",
}


def _response(uid: int = 0x01020304) -> tuple[AttributeRequest, bytes]:
    request = AttributeRequest.notification(uid, SPECS)
    return request, encode_attribute_response(request, dict(VALUES))


def _feed_all(request: AttributeRequest, pieces: list[bytes]) -> dict[int, bytes]:
    reassembler = DataSourceReassembler(request)
    result = None
    for i, piece in enumerate(pieces):
        result = reassembler.feed(piece)
        if i < len(pieces) - 1:
            assert result is None, f"completed early at piece {i}"
    assert result is not None
    return result.values


def test_notification_source_layout_and_unknown_ids() -> None:
    packet = parse_notification_source(struct.pack("<BBBBI", 0, 0b10110, 4, 3, 77))
    assert packet.event_id is EventID.ADDED
    assert packet.category_id is CategoryID.SOCIAL
    assert packet.pre_existing and not packet.silent
    assert packet.flags & EventFlags.IMPORTANT
    assert (packet.category_count, packet.uid) == (3, 77)
    assert packet.encode() == struct.pack("<BBBBI", 0, 0b10110, 4, 3, 77)
    odd = parse_notification_source(struct.pack("<BBBBI", 9, 0, 200, 0, 1))
    assert odd.event_id == 9 and not isinstance(odd.event_id, EventID)
    assert odd.category_id == 200 and not isinstance(odd.category_id, CategoryID)
    with pytest.raises(AncsCodecError, match="8 bytes, got 7") as info:
        parse_notification_source(b"\x00" * 7)
    assert info.value.code == "ancs_bad_notification_source"


def test_command_encodings() -> None:
    assert encode_get_notification_attributes(
        0x0A0B0C0D, [AttributeSpec(A.APP_IDENTIFIER), AttributeSpec(A.TITLE, 0x120)]
    ) == bytes([0, 0x0D, 0x0C, 0x0B, 0x0A, 0, 1, 0x20, 0x01])
    assert encode_get_app_attributes("com.x", [0]) == b"\x01com.x\x00\x00"
    assert encode_perform_notification_action(5, 1) == b"\x02\x05\x00\x00\x00\x01"
    with pytest.raises(ValueError, match="maximum length"):
        encode_get_notification_attributes(1, [AttributeSpec(A.MESSAGE)])
    with pytest.raises(ValueError, match="NUL"):
        encode_get_app_attributes("a\x00b", [0])


def test_ancs_errors_are_named() -> None:
    for code, name in ((0xA0, "unknown_command"), (0xA1, "invalid_command"),
                       (0xA2, "invalid_parameter"), (0xA3, "action_failed")):
        err = AncsCommandError(code)
        assert err.code == f"ancs_{name}" and err.att_code == code
        assert f"0x{code:02X}" in str(err)
    assert AncsCommandError(0x0E).code == "ancs_att_error"


def test_every_byte_boundary_split_reassembles_identically() -> None:
    request, data = _response()
    whole = decode_attribute_response(request, data).values
    assert whole[A.MESSAGE] == VALUES[A.MESSAGE]
    for cut in range(1, len(data)):
        assert _feed_all(request, [data[:cut], data[cut:]]) == whole, cut
    for a in range(1, len(data) - 1, 7):
        for b in range(a + 1, len(data)):
            assert _feed_all(request, [data[:a], data[a:b], data[b:]]) == whole, (a, b)
    assert _feed_all(request, [data[i : i + 1] for i in range(len(data))]) == whole


def test_every_mtu_from_23_to_517_reassembles_identically() -> None:
    request = AttributeRequest.app("com.example.app", [0])
    app_data = encode_attribute_response(request, {0: b"Example"})
    n_request, n_data = _response()
    for req, data in ((n_request, n_data), (request, app_data)):
        whole = decode_attribute_response(req, data).values
        for mtu in range(23, 518):
            size = mtu - 3
            pieces = [data[i : i + size] for i in range(0, len(data), size)]
            assert _feed_all(req, pieces) == whole, mtu


def test_split_inside_the_length_field() -> None:
    request, data = _response()
    title_len_at = 1 + 4 + 3 + len(VALUES[A.APP_IDENTIFIER]) + 1  # inside title's length
    values = _feed_all(request, [data[:title_len_at], data[title_len_at:title_len_at + 1],
                                 data[title_len_at + 1:]])
    assert values[A.TITLE] == VALUES[A.TITLE]


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda d: b"\x01" + d[1:], "ancs_wrong_command"),
        (lambda d: d[:1] + struct.pack("<I", 99) + d[5:], "ancs_wrong_uid"),
        (lambda d: d + b"\x00", "ancs_trailing_bytes"),
        (lambda d: d[:5] + b"\x01" + d[6:], "ancs_unexpected_attribute"),
    ],
)
def test_bad_responses_raise_typed_errors(mutate: object, code: str) -> None:
    request, data = _response()
    bad = mutate(data)  # type: ignore[operator]
    with pytest.raises(AncsCodecError) as info:
        decode_attribute_response(request, bad)
    assert info.value.code == code
    assert isinstance(info.value, CodecError)


def test_oversized_attribute_and_total_bound() -> None:
    request = AttributeRequest.notification(1, [AttributeSpec(A.TITLE, 8)])
    over = b"\x00" + struct.pack("<I", 1) + bytes([A.TITLE]) + struct.pack("<H", 9) + b"x" * 9
    with pytest.raises(AncsCodecError, match="9 bytes, at most 8") as info:
        DataSourceReassembler(request).feed(over[:8])
    assert info.value.code == "ancs_attribute_too_long"
    with pytest.raises(AncsCodecError) as info2:
        DataSourceReassembler(request).feed(b"\x00" + struct.pack("<I", 1) + b"z" * 500)
    assert info2.value.code in {"ancs_response_too_long", "ancs_unexpected_attribute"}


def test_truncated_response_and_data_after_completion() -> None:
    request, data = _response()
    with pytest.raises(AncsCodecError) as info:
        decode_attribute_response(request, data[:-1])
    assert info.value.code == "ancs_incomplete_response"
    reassembler = DataSourceReassembler(request)
    assert reassembler.feed(data) is not None
    with pytest.raises(AncsCodecError, match="after the response"):
        reassembler.feed(b"\x00")


def test_wrong_app_in_app_response() -> None:
    request = AttributeRequest.app("com.a", [0])
    other = encode_attribute_response(AttributeRequest.app("com.b", [0]), {0: b"B"})
    with pytest.raises(AncsCodecError) as info:
        decode_attribute_response(request, other)
    assert info.value.code == "ancs_wrong_app"


def test_utf8_decoding() -> None:
    assert decode_text("ação".encode(), attribute_id=1) == "ação"
    cut = "aç".encode()[:2]  # 'a' + first byte of 'ç'
    assert decode_text(cut, attribute_id=3, truncated_at=2) == "a"
    with pytest.raises(AncsCodecError) as info:
        decode_text(cut, attribute_id=3)
    assert info.value.code == "ancs_invalid_utf8" and "attribute 3" in str(info.value)
    with pytest.raises(AncsCodecError):
        decode_text(b"\xff\xfeabc", attribute_id=1, truncated_at=5)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_fuzz_notification_source(data: bytes) -> None:
    try:
        packet = parse_notification_source(data)
    except AncsCodecError:
        assert len(data) != 8
    else:
        assert packet.encode()[4:] == data[4:]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=30), st.integers(0, 2**32 - 1))
def test_fuzz_reassembler_random_fragments(pieces: list[bytes], uid: int) -> None:
    request = AttributeRequest.notification(uid, SPECS)
    reassembler = DataSourceReassembler(request)
    for piece in pieces:
        try:
            result = reassembler.feed(piece)
        except AncsCodecError:
            return
        if result is not None:
            assert set(result.values) == {s.attribute_id for s in SPECS}
            for spec in SPECS:
                assert len(result.values[spec.attribute_id]) <= request.limit_for(spec)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_valid_responses_random_splits(data: st.DataObject) -> None:
    values = {
        spec.attribute_id: data.draw(st.binary(max_size=spec.max_length or 40))
        for spec in SPECS
    }
    request = AttributeRequest.notification(data.draw(st.integers(0, 2**32 - 1)), SPECS)
    raw = encode_attribute_response(request, values)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(raw) - 1)), max_size=8))))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True) if b > a]
    assert _feed_all(request, pieces) == values
    # A truncation never completes; an extra byte is always refused.
    trunc = data.draw(st.integers(0, len(raw) - 1))
    assert DataSourceReassembler(request).feed(raw[:trunc]) is None
    with pytest.raises(AncsCodecError):
        DataSourceReassembler(request).feed(raw + b"\x07")


@pytest.mark.parametrize("raw", [b"00010101T000000", b"99991231T235959", b"18991231T120000"])
def test_an_ancs_date_at_the_edge_of_the_calendar_is_a_bad_date(raw: bytes) -> None:
    from zoneinfo import ZoneInfo

    from companion_memory.ble.ancs.normalize import parse_ancs_date

    # Year 1 east of UTC and year 9999 west of it cannot even be moved to UTC.
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago", "UTC"):
        with pytest.raises(CodecError) as info:
            parse_ancs_date(raw, ZoneInfo(zone))
        assert info.value.code == "ancs_bad_date"


def test_an_ordinary_ancs_date_is_moved_to_utc() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from companion_memory.ble.ancs.normalize import parse_ancs_date

    got = parse_ancs_date(b"20260310T183000", ZoneInfo("Europe/Berlin"))
    assert got == datetime(2026, 3, 10, 17, 30, tzinfo=UTC)
