"""Codes by structure: where a one-time, login or door code stands in a message.

`memory.secrets` calls `code_spans` for every text; the words it needs per language are
data (`memory.auth_words`). A code is found by the shape of the message, not by a list
of phrasings:

- a value: a standalone run of 4-8 digits, or of 6-8 split by spaces or dashes into
  groups ("736 136", "73-61-36"; single digits "8 2 1 9" from 4), or a short token of
  capital letters and digits mixed ("7K4-2QP", "X9KQ2T");
- joined to its code word, or a few words after it in the same sentence: "VerifyCode:
  736136", "code:4821", "認証コード：583920", "Door PIN 4821", "رمز التحقق الخاص بك هو
  583920";
- before its code word, opening a sentence: "7702 is your verification code",
  "583920は認証コードです", "583920 là mã xác minh";
- alone on a line, with at most a sender's name beside it: a message that is nothing
  but a code ("[Kraken] 858 781").

What is never a value: a number next to money or a duration unit ("€ 4821", "10 min"),
part of a date, time, decimal or longer number (a phone number), glued to Latin letters
("4821km", "12F") or following a short designation ("LH 1234", "ICE 1234", "Nr. 4821"),
a year opening a sentence, and a number named by an ordinary word around the code word
("Promo code", "order code 4821", "code review for PR 4821", "优惠码").

`code_only(body, title, spans)` decides whether a notification is there only to deliver
a one-time code (then it is dropped whole rather than redacted): it marks the code as
one-time (an authentication word or a do-not-share or expiry warning) or has the shape
of a code delivery (a bare code, a code announced before its word), it is short, and
once the code is out no fact is left (no date, time, room or other number but
durations and amounts).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from companion_memory.memory import auth_words as words

Span = tuple[int, int, str]

_LETTER = r"[^\W\d_]"
_UNSPACED = re.compile(
    r"[\u0590-\u05ff\u0600-\u06ff\u0900-\u097f\u0e00-\u0e7f\u3000-\u30ff\u3400-\u9fff"
    r"\uac00-\ud7af\uff00-\uffef]"
)
"""Scripts whose words are matched anywhere: no spaces between words (Chinese, Japanese,
Thai), particles joined to the word (Korean), or prefixes and suffixes joined to it
(Arabic, Hebrew, Devanagari)."""
_WORD = re.compile(rf"{_LETTER}+(?:['’]{_LETTER}+)*")
_CAMEL = re.compile(r"(?<=[a-zß-ÿ])(?=[A-ZÀ-Þ])")
"""A change from small to capital letters inside a word parts it ("VerifyCode")."""
_JOINER = re.compile(r"[\s\-\u2010\u2011]*")
STEM_ENDING = 7
"""Letters a `word*` entry may add (an ending: "kodunuz", "кодом")."""
COMPOUND_HEAD = 3
"""Letters a `*word` entry needs before it (a compound's first part: "Türcode")."""


@dataclass(frozen=True, slots=True)
class Hit:
    """Where a table word stands in a text."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Entry:
    word: str
    head: bool
    tail: bool

    def matches(self, token: str) -> bool:
        """`token` (casefolded letters) is this entry, with an ending or compound head
        where the entry allows one."""
        index = token.find(self.word)
        while index >= 0:
            after = len(token) - index - len(self.word)
            if (index == 0 or (self.head and index >= COMPOUND_HEAD)) and \
                    (after == 0 or (self.tail and after <= STEM_ENDING)):
                return True
            index = token.find(self.word, index + 1)
        return False


def _entry(part: str) -> _Entry:
    return _Entry(part.strip("*").casefold(), part.startswith("*"), part.endswith("*"))


class WordTable:
    """The entries of one table of `memory.auth_words`, all languages together, found in a
    text by its words (see the notation there); fast: one pass over the text's words and
    one literal pattern for the scripts matched anywhere."""

    def __init__(self, table: Mapping[str, Iterable[str]] | Iterable[str]) -> None:
        entries = (
            {entry for values in table.values() for entry in values}
            if isinstance(table, Mapping) else set(table)
        )
        anywhere = sorted((e for e in entries if _UNSPACED.search(e) or not all(
            _WORD.fullmatch(part.strip("*")) for part in e.split())), key=lambda e: (-len(e), e))
        self._anywhere = re.compile(
            "|".join(r"\s*".join(re.escape(p) for p in e.split()) for e in anywhere),
            re.IGNORECASE,
        ) if anywhere else None
        spaced = [e for e in entries if e not in set(anywhere)]
        self._words: dict[str, list[_Entry]] = {}
        self._phrases: dict[str, list[tuple[_Entry, ...]]] = {}
        for entry in spaced:
            parts = entry.split()
            if len(parts) > 1:
                phrase = tuple(_entry(p) for p in parts)
                key = "" if phrase[0].head else phrase[0].word[0]
                self._phrases.setdefault(key, []).append(phrase)
                parts = [("*" if parts[0].startswith("*") else "") + "".join(
                    p.strip("*") for p in parts) + ("*" if parts[-1].endswith("*") else "")]
            single = _entry(parts[0])
            self._words.setdefault(single.word, []).append(single)
        self._longest = max((len(w) for w in self._words), default=0)
        self._heads = any(e.head for entries in self._words.values() for e in entries)
        self._recent: dict[str, tuple[Hit, ...]] = {}

    def _word_hits(self, token: str) -> bool:
        """`token` is an entry, with the ending or compound head the entry allows: every
        piece of the token that could be one is looked up (a token is a few letters)."""
        low = token.casefold()
        size = len(low)
        starts = range(size) if self._heads else range(1)
        for start in starts:
            if 0 < start < COMPOUND_HEAD:
                continue
            for end in range(max(start + 1, size - STEM_ENDING),
                             min(size, start + self._longest) + 1):
                for entry in self._words.get(low[start:end], ()):
                    if (start == 0 or entry.head) and (end == size or entry.tail):
                        return True
        return False

    def hits(self, text: str) -> tuple[Hit, ...]:
        """Every place a word of the table stands in `text`, in order."""
        cached = self._recent.get(text)
        if cached is not None:
            return cached
        found: list[Hit] = []
        tokens = list(_WORD.finditer(text))
        for index, token in enumerate(tokens):
            word = token.group(0)
            if _UNSPACED.match(word):
                continue
            if self._word_hits(word):
                found.append(Hit(token.start(), token.end()))
            else:  # the parts of a camel-case word ("CodiceVerifica")
                cut = [0, *(m.start() for m in _CAMEL.finditer(word)), len(word)]
                found.extend(Hit(token.start() + left, token.start() + right)
                             for left, right in itertools.pairwise(cut)
                             if len(cut) > 2 and self._word_hits(word[left:right]))
            low = word[:1].casefold()
            for phrase in (*self._phrases.get(low, ()), *self._phrases.get("", ())):
                end = self._phrase_end(text, tokens, index, phrase)
                if end is not None:
                    found.append(Hit(token.start(), end))
        if self._anywhere is not None:
            found.extend(Hit(m.start(), m.end()) for m in self._anywhere.finditer(text))
        result = tuple(sorted(set(found), key=lambda h: (h.start, -h.end)))
        if len(self._recent) >= _RECENT:
            self._recent.pop(next(iter(self._recent)))
        self._recent[text] = result  # (triage asks about the same few texts several times)
        return result

    @staticmethod
    def _phrase_end(text: str, tokens: list[re.Match[str]], index: int,
                    phrase: tuple[_Entry, ...]) -> int | None:
        if index + len(phrase) > len(tokens):
            return None
        for offset, part in enumerate(phrase):
            token = tokens[index + offset]
            if offset and _JOINER.fullmatch(text, tokens[index + offset - 1].end(),
                                            token.start()) is None:
                return None
            if not part.matches(token.group(0).casefold()):
                return None
        return tokens[index + len(phrase) - 1].end()

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Hit | None:
        """The first hit that lies within `text[pos:endpos]`."""
        stop = len(text) if endpos is None else endpos
        return next((h for h in self.hits(text) if h.start >= pos and h.end <= stop), None)

    def finditer(self, text: str) -> tuple[Hit, ...]:
        return self.hits(text)

    def fullmatch(self, word: str) -> bool:
        """`word` is one entry of the table."""
        return any(h.start == 0 and h.end == len(word) for h in self.hits(word))

    def ends_at(self, text: str, end: int) -> bool:
        """A hit ends exactly at `end`."""
        if not self._phrases:
            start = end
            while start > 0 and _WORD.match(text[start - 1]):
                start -= 1
            if start < end and not _UNSPACED.match(text[start]) and \
                    self._word_hits(text[start:end]):
                return True
            return self._anywhere is not None and any(
                m.end() == end for m in self._anywhere.finditer(text, max(0, end - 12), end))
        start = max(0, end - _WINDOW)
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        window = text[start:end]
        return any(h.end == len(window) for h in self.hits(window))

    def starts_at(self, text: str, start: int) -> bool:
        """A hit starts exactly at `start`."""
        if not self._phrases:
            token = _WORD.match(text, start)
            if token is not None and not _UNSPACED.match(token.group(0)) and \
                    (start == 0 or not _WORD.match(text[start - 1])) and \
                    self._word_hits(token.group(0)):
                return True
            return self._anywhere is not None and \
                self._anywhere.match(text, start) is not None
        end = min(len(text), start + _WINDOW)
        while end < len(text) and not text[end].isspace():
            end += 1
        return any(h.start == 0 for h in self.hits(text[start:end]))


_WINDOW = 32
"""Characters around a position that `ends_at` and `starts_at` read (then to a space)."""
_RECENT = 16
"""Texts whose hits a table remembers (the last few; nothing is kept beyond them)."""

CODE_WORD = WordTable(words.CODE_WORDS)
AUTH_WORD = WordTable(words.AUTH_WORDS)
WARNING = WordTable(words.WARNINGS)
NOT_SECRET = WordTable(words.NOT_SECRET)
_DURATION = WordTable(words.DURATION_UNITS)
_CURRENCY = WordTable(words.CURRENCIES)
_NOT_SECRET_STEMS = tuple(
    sorted({e.strip("*").casefold() for v in words.NOT_SECRET.values() for e in v
            if " " not in e and len(e.strip("*")) >= 3 and not _UNSPACED.search(e)})
)
"""Not-secret words as the first part of a compound code word ("Barcode", "Bestellcode")."""

SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？\n]")
"""Where a sentence ends (`memory.secrets` reads it too)."""
_CLAUSE_END = re.compile(r"[,;](?=\s)|[，、；]")
_DIGIT_RUN = re.compile(
    r"\d+(?:(?:[ \u00a0]|[-\u2010\u2011\u2013](?=\d))\d+(?![A-Za-z\u00c0-\u024f]))*"
)
"""Digits, in groups split by single spaces or dashes ("736 136"); a group glued to Latin
letters after it belongs to a word ("2FA"), not to the number."""
_TOKEN = re.compile(
    r"(?<![\w-])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,8}(?:-[A-Z0-9]{2,8})?(?![\w-])"
)
_DATE_GROUPS = re.compile(r"^(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{4})$")
_DESIGNATION = re.compile(r"(?<![\w.])([A-Z]{1,4}|[A-Z][a-z]{1,2}\.)[ \u00a0]$")
"""A short name before a number: a carrier, a train, an abbreviation ("LH ", "ICE ", "Nr. ")."""
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_NUMBER = re.compile(r"\d+(?:(?:[.,:/]|[ \u00a0](?=\d{3}(?!\d)))\d+)*")
"""A number as a fact: a date, a time, a price with its thousands ("1 200 Kč")."""
_GAP_CHARS = 60
_BEFORE_CHARS = 48
_BEFORE_WORDS = 5
_LINE_WORDS = 2
_OPENERS = ":：]】)）」』>\"'“”«»—–-"


@dataclass(frozen=True, slots=True)
class Value:
    """A code-shaped value: where it is and whether it could be a year (or open with one,
    as a file or travel number does: "2026-0311")."""

    start: int
    end: int
    year: bool
    strict: bool
    """6+ digits, or a letter-digit token of 6+: a code even alone on a line."""


def word_count(text: str) -> int:
    """Words in `text`; in a script written without spaces, one word per two characters."""
    total = 0
    for word in re.findall(rf"{_LETTER}+", text):
        unspaced = sum(1 for ch in word if _UNSPACED.match(ch))
        total += (unspaced + 1) // 2 + (1 if unspaced < len(word) else 0) if unspaced else 1
    return total


def _is_latin_like(ch: str) -> bool:
    return ch.isalpha() and not _UNSPACED.match(ch)


def _money_or_duration(text: str, start: int, end: int) -> bool:
    """A number with a money sign or name, or a duration unit, beside it."""
    after = end + 1 if text[end:end + 1] in (" ", "\u00a0") else end
    if _DURATION.starts_at(text, after) or _CURRENCY.starts_at(text, after):
        return True
    before = start - 1 if start and text[start - 1] in (" ", "\u00a0") else start
    return _CURRENCY.ends_at(text, before)


def _digit_value(text: str, match: re.Match[str]) -> Value | None:
    start, end = match.span()
    run = match.group(0)
    groups = re.split(r"[ \u00a0\-\u2010\u2011\u2013]", run)
    digits = "".join(groups)
    if len(groups) == 1 or all(len(g) == 1 for g in groups):
        if not 4 <= len(digits) <= 8:
            return None  # (one run, or single digits: "8 2 1 9")
    elif not (6 <= len(digits) <= 8 and all(len(g) >= 2 for g in groups)) \
            or _DATE_GROUPS.match(run):
        return None  # (groups: "736 136", "73-61-36"; not "14-16", "2026-05-14")
    before = text[start - 1] if start else ""
    after = text[end] if end < len(text) else ""
    if (before and before in "+#№$€£¥₹₽₩") or (after and after in "%€$£¥₹₽₩°"):
        return None
    if before and before in ".,/:" and start >= 2 and text[start - 2].isdigit():
        return None  # (a date, a decimal, a time)
    if after and after in ".,/:" and end + 1 < len(text) and text[end + 1].isdigit():
        return None
    if after and _is_latin_like(after):
        return None  # (4821km, 12F)
    lead = text[max(0, start - 3):start]
    if re.search(r"\d[ )\-]*$", lead) or re.search(r"\)\s?$", lead):
        return None  # (part of a longer number: a phone number)
    name = _DESIGNATION.search(text[max(0, start - 6):start])
    if name is not None and not CODE_WORD.fullmatch(name.group(1)):
        return None  # (LH 1234, ICE 1234, Nr. 4821)
    if _money_or_duration(text, start, end):
        return None
    strict = len(digits) >= 6
    year = _YEAR.match(groups[0]) is not None and (len(groups) == 1 or len(groups[0]) == 4)
    return Value(start, end, year, strict)


def _token_value(match: re.Match[str]) -> Value | None:
    token = match.group(0)
    core = token.replace("-", "")
    if not 4 <= len(core) <= 10 or sum(ch.isalpha() for ch in core) < 2:
        return None
    switches = sum(1 for a, b in itertools.pairwise(core) if a.isdigit() != b.isdigit())
    if switches < 2:
        return None  # (LH1234, SUMMER26, 12F: a designation, not a code)
    if CODE_WORD.fullmatch(token):
        return None
    return Value(match.start(), match.end(), False, len(core) >= 6)


def values(text: str) -> list[Value]:
    """Every code-shaped value in `text`, in order."""
    found: list[Value] = []
    for match in _DIGIT_RUN.finditer(text):
        start = match.start()
        if start and _is_latin_like(text[start - 1]) and not _glued_to_code_word(text, start):
            continue
        value = _digit_value(text, match)
        if value is not None:
            found.append(value)
    for match in _TOKEN.finditer(text):
        value = _token_value(match)
        if value is not None and not any(v.start < match.end() and match.start() < v.end
                                         for v in found):
            found.append(value)
    return sorted(found, key=lambda v: v.start)


def _glued_to_code_word(text: str, start: int) -> bool:
    """Digits right after letters count only when the letters end a code word ("PIN4821")."""
    return CODE_WORD.ends_at(text, start)


def _qualified(word: Hit, text: str) -> bool:
    """A code word named as an ordinary code: a not-secret word as its compound's first
    part ("Barcode", "Bestellcode", "viivakoodi") or just before it ("Promo code")."""
    return ordinary_word(text[word.start:word.end]) or ordinary_before(text, word.start)


def ordinary_word(word: str) -> bool:
    """`word` is, or opens with, a not-secret word ("Barcode", "Bestellcode")."""
    return word.casefold().startswith(_NOT_SECRET_STEMS)


def ordinary_before(text: str, start: int) -> bool:
    """The word just before `start` is a not-secret word ("order", "Promo", "优惠")."""
    stop = len(text[:start].rstrip(" -:(（[【\u2010\u2011"))
    return NOT_SECRET.ends_at(text, stop)


def _sentence_end(text: str, start: int, limit: int) -> int:
    end = SENTENCE_END.search(text, start, limit)
    return limit if end is None else end.start()


def _after_code_word(text: str, word: Hit, found: list[Value]) -> Value | None:
    """The first value after a code word in its clause, within `_GAP_CHARS`; none when an
    ordinary word stands between ("code review for PR 4821") or the clause ends first
    ("code freeze starts Thursday, release 9021")."""
    stop = _sentence_end(text, word.end, min(len(text), word.end + _GAP_CHARS))
    clause = _CLAUSE_END.search(text, word.end, stop)
    stop = stop if clause is None else clause.start()
    for value in found:
        if value.start < word.end or value.start > stop:
            continue
        if NOT_SECRET.search(text, word.end, value.start) is not None:
            return None
        return value
    return _after_colon(text, word, found)


_COLON = re.compile(r"[:：][ \u00a0]*")
_COLON_CHARS = 120
"""How far after its code word a colon may announce the code ("Mã xác thực giao dịch
chuyển 5.000.000 VND đến tài khoản NGUYEN VAN A: 418 627")."""
_VALUE_END = re.compile(r"[ \u00a0]*(?:[.,;!。，；！\n]|$)")


def _after_colon(text: str, word: Hit, found: list[Value]) -> Value | None:
    """A value that a colon later in the code word's sentence announces, and that ends
    its clause: the code of a message that first says what it is for (an amount, a
    payee), then gives it."""
    stop = _sentence_end(text, word.end, min(len(text), word.end + _COLON_CHARS))
    for colon in _COLON.finditer(text, word.end, stop):
        value = next((v for v in found if v.start == colon.end()), None)
        if value is None or _VALUE_END.match(text, value.end) is None:
            continue
        if NOT_SECRET.search(text, word.end, value.start) is not None:
            return None
        return value
    return None


def _right_before_code_word(text: str, value: Value) -> bool:
    """A value with its code word right after it, in a message that marks its code as
    one-time ("ekranına 55 81 39 kodunu girerek ... Kod 15 dakika boyunca geçerlidir")."""
    if value.year:
        return False
    word = CODE_WORD.search(text, value.end, min(len(text), value.end + 24))
    if word is None or text[value.end:word.start].strip(" \u00a0") or _qualified(word, text):
        return False
    return one_time_marked(text)


def _opens_sentence(text: str, start: int) -> bool:
    head = text[:start].rstrip()
    if not head:
        return True
    if head[-1] in _OPENERS or SENTENCE_END.search(head[-1]) is not None:
        return True
    return start >= 1 and text[start - 1] == "\n"


def _before_code_word(text: str, value: Value) -> bool:
    """A value opening a sentence and followed closely by its code word ("7702 is your
    verification code", "583920は認証コードです")."""
    if value.year or not _opens_sentence(text, value.start):
        return False
    stop = _sentence_end(text, value.end, min(len(text), value.end + _BEFORE_CHARS))
    word = CODE_WORD.search(text, value.end, stop)
    if word is None or _qualified(word, text):
        return False
    gap = text[value.end:word.start]
    if any(ch.isdigit() for ch in gap) or NOT_SECRET.search(text, value.end, word.start):
        return False
    return word_count(gap) <= _BEFORE_WORDS


def _alone_on_line(text: str, value: Value) -> bool:
    """A strict value that is its line's only content beside a name of at most two words
    ("858 781", "[Kraken] 858781", "Kraken: 858781")."""
    if not value.strict or value.year:
        return False
    line_start = text.rfind("\n", 0, value.start) + 1
    line_end = text.find("\n", value.end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[line_start:value.start] + " " + text[value.end:line_end]
    rest = re.sub(r"[\[【(（]([^\]】)）]{0,30})[\]】)）]", r" \1 ", rest)
    if any(ch.isdigit() for ch in rest) or NOT_SECRET.search(rest) is not None:
        return False
    return word_count(rest) <= _LINE_WORDS


def code_spans(text: str) -> list[Span]:
    """(start, end, "secret_code") of every code found by structure in `text`."""
    found = values(text)
    if not found:
        return []
    spans: list[Span] = []
    taken: set[int] = set()
    for word in CODE_WORD.finditer(text):
        if _qualified(word, text):
            continue
        value = _after_code_word(text, word, found)
        if value is not None and value.start not in taken:
            taken.add(value.start)
            spans.append((value.start, value.end, "secret_code"))
    for value in found:
        if value.start in taken:
            continue
        if _before_code_word(text, value) or _alone_on_line(text, value) or \
                _right_before_code_word(text, value):
            taken.add(value.start)
            spans.append((value.start, value.end, "secret_code"))
    return sorted(spans)


# -- what a code message is ----------------------------------------------------------------

AUTH_MESSAGE_WORDS = 30
"""A code message longer than this many words says more than the code: it is redacted."""


def one_time_marked(text: str) -> bool:
    """`text` says its code is one-time: an authentication word ("verification", "TAN",
    "認証") or what code messages say around a code ("do not share", "valid for")."""
    return AUTH_WORD.search(text) is not None or WARNING.search(text) is not None


def delivers_code(text: str) -> bool:
    """`text` has the shape of a code delivery: a code alone on a line (a message that is
    nothing but a code) or a code announced before its word ("7702 is your Quizland
    code"; a door or locker code is named first, then given)."""
    return any(_alone_on_line(text, value) or _before_code_word(text, value)
               for value in values(text))


def facts_left(text: str, spans: Iterable[tuple[int, int, str]]) -> bool:
    """A number is left in `text` once its secret spans are out: a date, a time, a room,
    an address. Durations, amounts and numbers joined to letters ("2FA", "G-") are not
    facts of a code message."""
    rest = list(text)
    for start, end, _ in spans:
        rest[start:end] = " " * (end - start)
    left = "".join(rest)
    for match in _NUMBER.finditer(left):
        start, end = match.span()
        glued = (start and _is_latin_like(left[start - 1])) or \
            (end < len(left) and _is_latin_like(left[end]))
        if glued or _money_or_duration(left, start, end):
            continue  # (2FA, 10min; 84,20 EUR; valid for 5 minutes)
        return True
    return False


def code_only(body: str, title: str, spans: Iterable[tuple[int, int, str]]) -> bool:
    """True when a notification is there only to deliver a one-time code: its title or
    body marks the code as one-time, or the body has the shape of a code delivery
    (`delivers_code`); the body
    is short (`AUTH_MESSAGE_WORDS`); and with `spans` (the body's secret values) taken
    out, no fact is left (`facts_left`). A booking with its door PIN, a parcel locker
    with its pickup code keep their dates, rooms and addresses: they are redacted, not
    dropped. The title (the sender) is not searched for facts."""
    if len(body.split()) > AUTH_MESSAGE_WORDS:
        return False
    if not (one_time_marked(body) or one_time_marked(title) or delivers_code(body)):
        return False
    return not facts_left(body, spans)
