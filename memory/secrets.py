"""Secrets in text: one detector for everything that may reach a model or a memory.

A secret is a value that opens something: a one-time, login or verification code, a
door, key-box, locker or bike-lock code, a PIN or TAN, a password, a card number, an
IBAN, an API key or token, a private key, a wallet's recovery phrase; and a national
identity number, which opens accounts in its owner's name.

Two shapes are found:

- structural values that are secret on their own, with no word around them: a card
  number that passes Luhn with an issuer prefix (spaces, dots or dashes between its
  groups), an IBAN that passes mod-97 or is printed in groups of four, a key with a
  known prefix (AWS, GitHub, npm, Slack, Stripe, OpenAI, Twilio, ...), a long
  high-entropy token, a PEM header (with any kind of dash), a national identity number
  that its own structure names (a US SSN as written, AAA-GG-SSSS, never an unissued
  area; a Chinese resident ID, a Korean RRN, a Spanish DNI or NIE, a written Brazilian
  CPF, each by its check digit or letter);
- a code-like value near an authentication word, in English, German, French, Italian,
  Spanish, Dutch, Polish, Portuguese, Swedish, Danish/Norwegian, Finnish, Turkish,
  Czech, Russian, Chinese, Japanese and Korean: "Ihr Code lautet 318-774", "pushTAN:
  66 21 08", "Enter 604218 on the website", "Twój kod to 5 8 2 6", "验证码 556091".
  Digit groups may be split by spaces or dashes; letters and digits mixed count too.
  Compound words are seen as such: "Abholcode", "Türcode", "digicode" are secret
  words, "Barcode", "Postcode", "Rabattcode", "dress code", "code review" are not;
- a code found by the structure of its message in any script (`memory.secret_codes`,
  with the words per language as data in `memory.auth_words`): joined to its word
  ("VerifyCode:519204", "code:4821", "認証コード：583920"), before it ("7702 is your
  verification code", "583920は認証コードです"), or alone on a line.

`secret_spans(text)` gives (start, end, reason) of every value; `redact` replaces
them; `find_secret` names the first kind found (a reason code, never content);
`auth_message` says whether a short text marks a code as one-time; `code_message`
whether a notification is nothing but a one-time code (dropped whole; a secret in
anything else is redacted and the rest kept). Ordinary numbers are left alone: phone,
order and tracking numbers, prices, dates, times, postcodes and flight numbers.

Speed: text without a digit can only hold a password, a key, a recovery phrase or an
all-capitals code, so the number patterns are skipped for it; for ASCII text the key
pattern and the English code-message patterns run as lowercased twins (the same
matches, several times cheaper than IGNORECASE).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from datetime import date

from companion_memory.memory import secret_codes
from companion_memory.memory.auth_words import ACCOUNT_WORDS, IDENTITY_WORDS
from companion_memory.memory.stopwords import LOCALES

REDACTED = "[redacted]"

Span = tuple[int, int, str]
"""(start, end, reason code) of one secret value in a text."""


def _ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`pattern` (IGNORECASE) as a case-sensitive pattern for ASCII text lowered with
    `str.lower()`: literals and classes lowered, escapes (\\S, \\D, ...) kept."""
    source = re.sub(
        r"\\.|[A-Z]",
        lambda m: m.group(0) if m.group(0).startswith("\\") else m.group(0).lower(),
        pattern.pattern,
    )
    return re.compile(source, pattern.flags & ~re.IGNORECASE)


def _lowered(text: str) -> str | None:
    """`text.lower()` when `text` is ASCII (same length, same positions), else None."""
    return text.lower() if text.isascii() else None


# -- keys and tokens -------------------------------------------------------------------

_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_PRIVATE_KEY = re.compile(
    rf"[{_DASHES}]{{2,}}\s*BEGIN\s+(?:[A-Z0-9]+\s+)*PRIVATE\s+KEY(?:\s+BLOCK)?\s*[{_DASHES}]{{2,}}"
    r"|\bPuTTY-User-Key-File-\d",
    re.IGNORECASE,
)
_PRIVATE_KEY_END = re.compile(rf"END\s+(?:[A-Z0-9]+\s+)*PRIVATE\s+KEY(?:\s+BLOCK)?\s*[{_DASHES}]*",
                              re.IGNORECASE)
_API_KEY = re.compile(
    r"""
    \bsk-(?:proj-|ant-|svcacct-)?[a-z0-9_-]{20,}     # OpenAI / Anthropic style
    | \b[sr]k_(?:live|test)_[a-z0-9]{16,}            # Stripe secret and restricted keys
    | \bwhsec_[a-z0-9]{24,}
    | \bgh[pousr]_[a-z0-9]{30,}                      # GitHub tokens
    | \bgithub_pat_[a-z0-9_]{30,}
    | \bglpat-[a-z0-9_-]{20,}                         # GitLab
    | \bnpm_[a-z0-9]{30,}                             # npm
    | \bxox[abposre]-[a-z0-9-]{10,}                   # Slack
    | \bxapp-[a-z0-9-]{10,}
    | \b(?:akia|asia|agpa|aida|aroa)[0-9a-z]{16}\b    # AWS key ids
    | \bltai[0-9a-z]{12,30}\b                        # Alibaba Cloud AccessKey ids
    | \baiza[0-9a-z_-]{35}                            # Google API key
    | \bhf_[a-z0-9]{30,}                              # Hugging Face
    | \bsg\.[a-z0-9_-]{16,}\.[a-z0-9_-]{16,}          # SendGrid
    | \b(?:sk|ac)[0-9a-f]{32}\b                       # Twilio API key / account sid
    | \beyj[a-z0-9_-]{8,}\.eyj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}   # JWT
    | \b(?:api[_ -]?(?:key|token|secret)|access[_ -]?(?:key|token)|auth[_ -]?token
         |secret[_ -]?(?:access[_ -]?)?key|client[_ -]?secret|bearer|token|api-schlüssel
         |clé\ api|chiave\ api|clave\ de\ api|clave\ api)
      (?:\s*id)?["']?(?:\s+(?:is|ist|lautet|est|è|es))?\s*[:=：]?\s*["']?
      (?=[a-z0-9_\-+/=.]*\d)(?=[a-z0-9_\-+/=.]*[a-z])[a-z0-9_\-+/=.]{16,}
    """,
    re.VERBOSE | re.IGNORECASE,
)
_API_KEY_LC = _ascii_twin(_API_KEY)
_LONG_TOKEN = re.compile(r"(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/=-]{32,}")
LONG_TOKEN_ENTROPY_BITS = 4.0
"""Shannon entropy per character above which a 32+ character token of mixed-case
letters and digits is taken as a key (random keys score 4.5-5.5; words and ids below)."""


def _entropy(token: str) -> float:
    counts = Counter(token)
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _looks_random(token: str) -> bool:
    """A long token of upper and lower case letters and digits with high entropy (an AWS
    secret key, a bearer token); not a hex digest, a path of words or a long number."""
    core = token.strip("=-_")
    if len(core) < 32:
        return False
    if not (any(c.isdigit() for c in core) and any(c.islower() for c in core)
            and any(c.isupper() for c in core)):
        return False
    return _entropy(core) >= LONG_TOKEN_ENTROPY_BITS


def _key_spans(text: str, low: str | None) -> list[Span]:
    spans: list[Span] = []
    for match in _PRIVATE_KEY.finditer(text):
        end = _PRIVATE_KEY_END.search(text, match.end())
        spans.append((match.start(), end.end() if end else len(text), "secret_private_key"))
    for match in (_API_KEY.finditer(text) if low is None else _API_KEY_LC.finditer(low)):
        spans.append((match.start(), match.end(), "secret_api_key"))
    for match in _LONG_TOKEN.finditer(text):
        if _looks_random(match.group(0)):
            spans.append((match.start(), match.end(), "secret_api_key"))
    return spans


# -- cards and IBANs ---------------------------------------------------------------------

_CARD_CANDIDATE = re.compile(
    r"(?<![\w+.,/-])(?<![\d][ .-])\d{4}(?:[ .\u00a0-]?\d{2,6}){2,4}"
    r"(?![\w]|[.,/-]\d|[ .-]\d)"
)
_CARD_PREFIX = re.compile(
    r"^(?:4|5[1-5]|2[2-7]|3[47]|3(?:0[0-5]|[689])|6(?:011|5|4[4-9]|2)|35|5[06-8]|6[37])"
)
_IBAN_CANDIDATE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ .\u00a0-]?[A-Z0-9]){11,32}")
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24,
    "DE": 22, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27,
    "HR": 21, "HU": 28, "IE": 22, "IS": 26, "IT": 27, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "RO": 24,
    "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TR": 26, "UA": 29,
}


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a digit string."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def iban_valid(candidate: str) -> bool:
    """ISO 13616 check: known country length (when known) and mod-97 == 1; spaces,
    dots and dashes between the groups are ignored."""
    iban = re.sub(r"[ .\u00a0-]", "", candidate).upper()
    if len(iban) < 15 or len(iban) > 34 or not iban.isalnum() or not iban.isascii():
        return False
    expected = _IBAN_LENGTHS.get(iban[:2])
    if expected is not None and len(iban) != expected:
        return False
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


_CARD_WORD = re.compile(
    r"\b(?:card|karte|kreditkarte|debitkarte|carte|carta|tarjeta|kaart|karta|cartão|kort|kart"
    r"|karty|карта|карты|картк|卡号|卡號|カード|카드|بطاقة|कार्ड|thẻ|บัตร|kartu|visa"
    r"|mastercard|amex|maestro|unionpay|kartennummer"
    r"|card\s+number|numéro\s+de\s+carte|numero\s+carta|número\s+de\s+tarjeta)",
    re.IGNORECASE,
)


def _card_spans(text: str) -> list[Span]:
    """A Luhn-valid number with an issuer prefix; next to a card word any 13-19 digits."""
    spans: list[Span] = []
    worded = _CARD_WORD.search(text) is not None
    for match in _CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and (
            worded or (_CARD_PREFIX.match(digits) and luhn_valid(digits))
        ):
            spans.append((match.start(), match.end(), "secret_card"))
    return spans


_SECURITY_CODE = re.compile(
    r"(?<![^\W\d_])(?:cvc2?|cvv2?|cvn|cid|security\s+code|card\s+verification\s+(?:code|value)"
    r"|güvenlik\s+kodu|kod\s+(?:cvv|cvc|bezpieczeństwa)|código\s+de\s+seguran[cç]a"
    r"|código\s+de\s+seguridad|codice\s+di\s+sicurezza|prüfnummer|код\s+безопасности"
    r"|セキュリティコード|セキュリティーコード|보안\s*코드|安全码|安全碼|رمز\s+الأمان)"
    r"[^\d\n.!?。]{0,12}?(?<!\d)(\d{3,4})(?!\d)",
    re.IGNORECASE,
)
"""A card's security code: 3 or 4 digits just after the word that names it."""


def _security_code_spans(text: str) -> list[Span]:
    return [(match.start(1), match.end(1), "secret_card")
            for match in _SECURITY_CODE.finditer(text)]


_KEY_WORD = re.compile(
    r"(?<![A-Za-z])(?:api[\s_-]?(?:key|token|secret)|access[\s_-]?(?:key|token)"
    r"|secret[\s_-]?key|bearer|auth[\s_-]?token|apiキー|api\s*키|api\s*密钥|api\s*金鑰"
    r"|klucz\s+api|api\s+anahtar[ıi]|ключ\s+api|api[\s-]?ключ|clave\s+(?:de\s+)?api"
    r"|chave\s+(?:de\s+)?api|アクセストークン|トークン)",
    re.IGNORECASE,
)
_KEY_VALUE = re.compile(r"(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/=.-]{16,}(?![A-Za-z0-9_+/=-])")
"""A token of 16 or more letters, digits and the signs keys are written with."""


def _named_key_spans(text: str) -> list[Span]:
    """A key or token given just after the word that names it ("APIキー共有します →
    2dacd58b..."): 16 or more characters with a digit, within 40 characters of the word
    in its line."""
    spans: list[Span] = []
    for word in _KEY_WORD.finditer(text):
        line_end = text.find("\n", word.end())
        stop = min(len(text) if line_end < 0 else line_end, word.end() + 40)
        value = _KEY_VALUE.search(text, word.end(), stop + 64)
        if value is not None and value.start() <= stop and \
                any(ch.isdigit() for ch in value.group(0)) and "://" not in value.group(0):
            spans.append((value.start(), value.end(), "secret_api_key"))
    return spans


_NRB = re.compile(r"(?<![0-9A-Za-z])\d{2}(?:[ ]?\d{4}){6}(?![0-9A-Za-z])")
"""A Polish account number (NRB) as written: 26 digits, in groups of four after two."""


def _nrb_spans(text: str) -> list[Span]:
    """A Polish account number: the IBAN without its country code, so its check digits
    pass mod-97 with "PL" put back."""
    return [(match.start(), match.end(), "secret_iban") for match in _NRB.finditer(text)
            if iban_valid("PL" + match.group(0).replace(" ", ""))]


_IBAN_PRINTED = re.compile(r"[A-Z]{2}\d{2}(?: [A-Z0-9]{4})+(?: [A-Z0-9]{1,3})?")
"""An IBAN as it is printed (ISO 13616's paper format): groups of four after the
country and check digits, one space apart."""


def _iban_spans(text: str) -> list[Span]:
    """IBANs of a known country at exactly its length, standing alone, passing mod-97 or
    printed in the standard groups of four (a mistyped account number is still one)."""
    spans: list[Span] = []
    upper = text.upper() if text.isascii() else text
    for match in _IBAN_CANDIDATE.finditer(upper):
        length = _IBAN_LENGTHS.get(match.group(0)[:2])
        positions = [match.start() + i for i, ch in enumerate(match.group(0)) if ch.isalnum()]
        if length is None or len(positions) < length:
            continue
        end = positions[length - 1] + 1
        if end < len(text) and text[end].isalnum():
            continue  # (the value goes on without a break: part of a longer token)
        if iban_valid("".join(upper[p] for p in positions[:length])) or \
                _IBAN_PRINTED.fullmatch(upper[match.start():end]):
            spans.append((match.start(), end, "secret_iban"))
    return spans


def _account_word_pattern() -> re.Pattern[str]:
    spaced, anywhere = [], []
    for words in ACCOUNT_WORDS.values():
        for word in words:
            if all("LATIN" in unicodedata.name(ch, "") or "CYRILLIC" in unicodedata.name(ch, "")
                   or not ch.isalpha() for ch in word):
                spaced.append(re.escape(word).replace("\\ ", r"\s+"))
            else:  # scripts whose particles join the word: matched anywhere
                anywhere.append(re.escape(word))
    alternatives = sorted(set(spaced), key=len, reverse=True)
    joined = sorted(set(anywhere), key=len, reverse=True)
    return re.compile(rf"(?<![^\W\d_])(?:{'|'.join(alternatives)})(?![^\W\d_])"
                      rf"|(?:{'|'.join(joined)})", re.IGNORECASE)


_ACCOUNT_WORD = _account_word_pattern()
_ACCOUNT_NUMBER = re.compile(
    r"(?<![0-9A-Za-z.,/-])\d(?:[ .\-\u2010\u2011]?\d){7,18}(?![0-9A-Za-z/-]|[.,]\d)")
"""8 to 19 digits, single spaces, dots or hyphens between them (041-2-77310-8)."""
_ACCOUNT_GAP = re.compile(r"[\s:：#\-–]*(?:[^\W\d_]{1,10}\.?[\s:：#\-–]*)?")
"""What may stand between the account word and its number: spaces, colons, dashes and at
most one short word ("no.", "number:", "is"); "account team on 1800 ..." is a phone
number, and a comma or a full stop ends the phrase ("Kontonummer …, BLZ 10020030")."""
_DATE_LIKE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}")
ACCOUNT_GAP_CHARS = 16
"""The number starts at most this many characters after the account word."""


def _account_spans(text: str) -> list[Span]:
    """A domestic bank account number: 8 to 19 digits just after a word that names an
    account (`memory.auth_words.ACCOUNT_WORDS`), not a date."""
    spans: list[Span] = []
    for word in _ACCOUNT_WORD.finditer(text):
        match = _ACCOUNT_NUMBER.search(text, word.end(), word.end() + ACCOUNT_GAP_CHARS + 40)
        if match is None or match.start() - word.end() > ACCOUNT_GAP_CHARS:
            continue
        if not _ACCOUNT_GAP.fullmatch(text, word.end(), match.start()) or \
                _DATE_LIKE.fullmatch(match.group(0)):
            continue
        spans.append((match.start(), match.end(), "secret_account"))
    return spans


# -- national identity numbers ---------------------------------------------------------

_SSN = re.compile(r"(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])")
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-8]\d{5}(?:19|20)\d{2}\d{4}\d{3}[\dXx](?![0-9A-Za-z])")
_KR_RRN = re.compile(r"(?<![\w-])\d{6}-[1-8]\d{6}(?![\w-])")
_ES_DNI = re.compile(r"(?<![0-9A-Za-z])([XYZxyz]?)(\d{7,8})-?([A-Za-z])(?![0-9A-Za-z])")
_BR_CPF = re.compile(r"(?<![\w.-])\d{3}\.\d{3}\.\d{3}-\d{2}(?![\w.-])")
_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_KR_WEIGHTS = (2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5)
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _date_ok(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _ssn_ok(match: re.Match[str]) -> bool:
    """A US Social Security number as written (AAA-GG-SSSS): never area 000, 666 or
    9xx, group 00 or serial 0000."""
    area, group, serial = match.groups()
    return (area not in ("000", "666") and area[0] != "9" and group != "00"
            and serial != "0000")


def _cn_id_ok(value: str) -> bool:
    """A Chinese resident identity number: a birth date in digits 7-14 and the
    ISO 7064 MOD 11-2 check character."""
    if not _date_ok(int(value[6:10]), int(value[10:12]), int(value[12:14])):
        return False
    total = sum(int(ch) * w for ch, w in zip(value[:17], _CN_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == value[17].upper()


def _kr_rrn_ok(value: str) -> bool:
    """A Korean resident registration number (YYMMDD-SNNNNNC): a month and day, and
    its weighted check digit."""
    digits = value.replace("-", "")
    if not (1 <= int(digits[2:4]) <= 12 and 1 <= int(digits[4:6]) <= 31):
        return False
    total = sum(int(ch) * w for ch, w in zip(digits[:12], _KR_WEIGHTS, strict=True))
    return (11 - total % 11) % 10 == int(digits[12])


def _es_dni_ok(match: re.Match[str]) -> bool:
    """A Spanish DNI (8 digits) or NIE (X, Y or Z and 7 digits) and its check letter."""
    prefix, digits, letter = match.groups()
    if prefix:
        if len(digits) != 7:
            return False
        digits = str("XYZ".index(prefix.upper())) + digits
    elif len(digits) != 8:
        return False
    return _DNI_LETTERS[int(digits) % 23] == letter.upper()


def _cpf_ok(value: str) -> bool:
    """A Brazilian CPF as written (ddd.ddd.ddd-dd) and its two check digits."""
    digits = [int(ch) for ch in value if ch.isdigit()]
    if len(set(digits)) == 1:
        return False
    for size in (9, 10):
        total = sum(d * w for d, w in zip(digits[:size], range(size + 1, 1, -1), strict=True))
        if (total * 10 % 11) % 10 != digits[size]:
            return False
    return True


_IDENTITY_CHECKS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], bool]], ...] = (
    (_SSN, _ssn_ok),
    (_CN_ID, lambda m: _cn_id_ok(m.group(0))),
    (_KR_RRN, lambda m: _kr_rrn_ok(m.group(0))),
    (_ES_DNI, _es_dni_ok),
    (_BR_CPF, lambda m: _cpf_ok(m.group(0))),
)


_IDENTITY_WORD = secret_codes.WordTable(IDENTITY_WORDS)
_IDENTITY_NUMBER = re.compile(
    r"(?<![0-9A-Za-z.,/-])(?:[A-Za-z]{1,3}[ -]?)?\d(?:[ .\-\u2010\u2011]?\d){5,17}[A-Za-z]?"
    r"(?![0-9A-Za-z/-]|[.,]\d)")
"""6 to 18 digits, single spaces, dots or hyphens between them, with up to three letters
before them or one after ("CBK141207", "F224578030", "784-1990-1234567-6")."""
_IDENTITY_GAP = re.compile(r"[^\d\n,.;!?。！？，]{0,24}")
"""What may stand between an identity word and its number: up to 24 characters with no
digit and no comma or sentence end ("no ", "của mẹ là ", "字號是 ", "、")."""


def _fails_its_check(value: str) -> bool:
    """`value` has the shape of a number whose check digit is known, and fails it (a CPF
    written as one with the wrong digits is no CPF)."""
    for pattern, valid in _IDENTITY_CHECKS:
        match = pattern.fullmatch(value)
        if match is not None:
            return not valid(match)
    return False


def _identity_spans(text: str) -> list[Span]:
    """National identity numbers: after a word that names one (`memory.auth_words.
    IDENTITY_WORDS`: "PESEL 61081503372", "TC kimlik no ..."), not a date; and without
    a word, those whose own structure says what they are: a check digit or letter
    (Chinese resident ID, Korean RRN, Spanish DNI/NIE, Brazilian CPF as written) or, for
    the US SSN, its written shape and the numbers never issued."""
    spans = [(match.start(), match.end(), "secret_identity")
             for pattern, valid in _IDENTITY_CHECKS for match in pattern.finditer(text)
             if valid(match)]
    for word in _IDENTITY_WORD.finditer(text):
        gap = _IDENTITY_GAP.match(text, word.end)
        if gap is None:
            continue
        match = _IDENTITY_NUMBER.match(text, gap.end())
        if match is None:  # (the gap took letters that open the number: back off)
            match = _IDENTITY_NUMBER.search(text, word.end)
            if match is None or match.start() > gap.end() or \
                    _IDENTITY_GAP.fullmatch(text, word.end, match.start()) is None:
                continue
        if _DATE_LIKE.fullmatch(match.group(0)) or _fails_its_check(match.group(0)):
            continue
        spans.append((match.start(), match.end(), "secret_identity"))
    return spans


# -- passwords ---------------------------------------------------------------------------

_PASSWORD_WORD = re.compile(
    r"(?<![^\W\d_])(?:[^\W\d_]{0,16}?(?:passwort|password|kennwort|wachtwoord|lösenord|passord"
    r"|adgangskode|kodeord|contraseña|contrasena|parola\s+d'ordine|mot\s+de\s+passe|mdp|pwd?|passphrase"
    r"|heslo|hasło|haslo|senha|salasana|jelszó|parolă|lozinka|geslo|şifre|sifre|пароль"
    r"|wlan-schlüssel|wifi\s+key|wi-fi\s+key|clé\s+(?:du\s+)?wi-?fi|clé\s+wpa"
    r"|clave\s+(?:del\s+)?wi-?fi|chiave\s+(?:del\s+)?wi-?fi|wi-?fi-?(?:sleutel|nøgle|nøkkel"
    r"|nyckel|kode|koden)|mật\s+khẩu|mat\s+khau|kata\s+sandi|kata\s+laluan|парола|лозинка"
    r"|κωδικός\s+πρόσβασης|κωδικος\s+προσβασης|كلمة\s+(?:المرور|السر)|رمز\s+عبور"
    r"|סיסמה|סיסמא|पासवर्ड|パスワード|密码|密碼|비밀번호|비번|باسورد|parolan[ıi]z|parolas[ıi]"
    r"|pass\s+wi-?fi|wi-?fi\s+pass|รหัสไวไฟ|รหัสผ่าน)"
    r"(?:et|en|n|a|si|niz|nizi|ni|u|em|y|ом|я|та)?)(?![^\W\d_])",
    re.IGNORECASE,
)
_PASSWORD_HINT = re.compile(
    r"pass|pw|kennw|wacht|lösen|kode|contrase|mot\s+de|mdp|hesl|hasł|hasl|senha|salas|jelsz"
    r"|parol|lozink|gesl|şifre|sifre|пароль|wlan|wifi|wi-fi|secret|geheim|clé|clave|chiave"
    r"|mật|mat\s+khau|kata\s+sandi|kata\s+laluan|парол|лозинк|πρόσβασης|προσβασης|كلمة|رمز\s+عبور"
    r"|סיסמ|पासवर्ड|パスワード|密码|密碼|비밀번호|비번|باسورد|รหัส",
    re.IGNORECASE,
)
"""A cheap first look: text without any of these stems has no password word."""
_SECRET_WORD = re.compile(r"(?<![^\W\d_])(?:secret|geheimnis|client\s+secret)\s*[:=：]\s*",
                          re.IGNORECASE)
_COPULA = re.compile(
    r"\s*(?:[:=：]|\b(?:is|ist|lautet|lauten|est|è|es|é|är|er|jest|je|on|is\s+now|ist\s+jetzt"
    r"|heißt|wird|now|to|naar|en|à|a|in|auf|zu)\b)\s*[:=]?\s*",
    re.IGNORECASE,
)
_NOT_A_PASSWORD = re.compile(
    r"\s+(?:reset|changed?|updated?|expires?|expired|manager|policy|hint|zurückgesetzt"
    r"|geändert|vergessen|forgot|requirements?|requested|strength|vergessen)\b"
    r"|\s*(?:geändert|changed)\?",
    re.IGNORECASE,
)
_CHANGED_TO = re.compile(
    r"[^\n.!?]{0,40}?\b(?:changed|set|reset|updated|geändert|gesetzt|zurückgesetzt|changé"
    r"|modifié|modificata|cambiada|cambiata|gewijzigd|zmienione|alterada|ändrat|endret|ændret)"
    r"\s+(?:to|in|auf|à|a|en|naar|na|para|till|til)\s*:?\s*",
    re.IGNORECASE,
)
_NOT_IN_VALUE = "\\s\"'„“”«»，。、！？：；（）「」『』【】\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
"""What ends a password value: space, quotes, CJK punctuation and CJK text (a password is
written in Latin letters, digits and symbols)."""
_TOKEN = re.compile(rf"[^{_NOT_IN_VALUE},;?()<>\[\]]{{6,64}}")
_INNER_SYMBOL = re.compile(r"[_#$%&*+=@^~!](?=\S)")
_PASSWORD_VALUE = re.compile(rf"[^{_NOT_IN_VALUE}]{{4,64}}")


def _password_like(token: str) -> bool:
    """Letters with a digit or an inner symbol ("Lindenhof_Garten42", "Kx9&plum"); not a
    web address, a time, a date or a plain word."""
    core = token.rstrip(".!:")
    if len(core) < 6 or "://" in core or core.lower().startswith("www."):
        return False
    if not any(ch.isalpha() for ch in core):
        return False
    return any(ch.isdigit() for ch in core) or _INNER_SYMBOL.search(core) is not None


def _value_span(text: str, start: int) -> tuple[int, int] | None:
    value = _PASSWORD_VALUE.match(text, start)
    if value is None or value.group(0).startswith(REDACTED):
        return None
    end = value.end()
    while end > value.start() and text[end - 1] in ".,;:)":
        end -= 1
    return (value.start(), end) if end - value.start() >= 4 else None


def _password_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    for match in _PASSWORD_WORD.finditer(text):
        rest = text[match.end():match.end() + 64]
        changed = _CHANGED_TO.match(text, match.end())
        if changed is not None:
            found = _value_span(text, changed.end())
            if found is not None:
                spans.append((*found, "secret_password"))
            continue
        if _NOT_A_PASSWORD.match(rest):
            continue
        gap = re.match(r"(?:[^\n.!?:=]{0,40}?)(?=[:=：]|\b(?:is|ist|lautet|est|è|es|är|er|jest"
                       r"|heißt)\b)", rest, re.IGNORECASE)
        start = match.end() + (gap.end() if gap else 0)
        copula = _COPULA.match(text, start)
        if copula is not None and copula.end() > start:
            found = _value_span(text, copula.end())
            if found is not None:
                spans.append((*found, "secret_password"))
        # a password-like token later in the same message ("the new one is X", "la
        # nuova è X"): letters and digits mixed, or letters with symbols, 6+ characters
        for token in _TOKEN.finditer(text, match.end(), match.end() + 160):
            word = token.group(0)
            if not word.startswith(REDACTED) and _password_like(word):
                spans.append((token.start(), token.start() + len(word.rstrip(".:")),
                              "secret_password"))
    for match in _SECRET_WORD.finditer(text):
        found = _value_span(text, match.end())
        if found is not None and _password_like(text[found[0]:found[1]]):
            spans.append((*found, "secret_password"))
    return spans


# -- recovery phrases ----------------------------------------------------------------------

_SEED_WORD = re.compile(
    r"seed[- ]?phrase|seed\s+words|recovery\s+(?:phrase|words)|secret\s+recovery|mnemonic"
    r"|backup\s+phrase|wiederherstellungs(?:phrase|sätze?|wörter)|seed-?wörter"
    r"|phrase\s+(?:de\s+récupération|secrète|mnémonique)|frase\s+(?:di\s+recupero|segreta"
    r"|semilla|de\s+recuperaci[oó]n|de\s+recupera[cç][aã]o|mnem[oó]nica)|herstelzin"
    r"|herstelwoorden|fraza\s+(?:odzyskiwania|seed)|återställningsfras|gjenopprettingsfrase"
    r"|gendannelses(?:sætning|frase)|kurtarma\s+(?:ifadesi|kelimeleri)|obnovovací\s+fráze"
    r"|сид-?фраз|мнемоническ|секретн\w+\s+фраз|助记词|恢复短语|シードフレーズ|リカバリーフレーズ"
    r"|復元フレーズ|복구\s*구문",
    re.IGNORECASE,
)
_SEED_RUN = re.compile(r"(?:(?:\d{1,2}[.):]?\s*)?[a-z]{3,8}[\s,;]+){11,}(?:\d{1,2}[.):]?\s*)?"
                       r"[a-z]{3,8}\b")
SEED_WORDS = 12
"""The shortest wallet recovery phrase (BIP-39: 12, 18 or 24 words)."""


_SEED_LINE = re.compile(r"^[ \t]*((?:[a-z]{3,8}[ \t]+){11,23}[a-z]{3,8})[ \t]*$", re.MULTILINE)
SEED_LENGTHS = frozenset({12, 15, 18, 21, 24})
"""The lengths of a BIP-39 recovery phrase."""
_FUNCTION_WORDS = frozenset().union(*LOCALES.values())


def _seed_line(words: list[str]) -> bool:
    """A line that is only a recovery phrase: 12, 15, 18, 21 or 24 lower-case words of
    3 to 8 letters and not one function word of any language (a sentence of that many
    words always has some)."""
    return len(words) in SEED_LENGTHS and not any(w in _FUNCTION_WORDS for w in words)


def _seed_spans(text: str) -> list[Span]:
    spans: list[Span] = [(match.start(1), match.end(1), "secret_seed_phrase")
                         for match in _SEED_LINE.finditer(text)
                         if _seed_line(match.group(1).split())]
    for match in _SEED_WORD.finditer(text):
        run = _SEED_RUN.search(text, match.end(), min(len(text), match.end() + 400))
        if run is None or run.start() - match.end() > 80:
            continue
        words = re.findall(r"[a-z]{3,8}", run.group(0))
        if len(words) >= SEED_WORDS:
            spans.append((run.start(), run.end(), "secret_seed_phrase"))
    return spans


# -- codes near an authentication word -------------------------------------------------------

_KEYWORD = re.compile(
    r"""
    (?<![^\W\d_])                       # start of a word (letters before would be a compound)
    (?:[^\W\d_]{0,24}?(?:code|kode|codice|c[oó]digo|k[oó]d|cod|koodi|kód)
        (?:u|unuz|unuzu|un|s|em|e|a|y|i|en|n|et|ne|erne)?(?![^\W\d_])
      | pin(?:code|nummer|-code|-kod)?(?![^\W\d_])
      | (?:push|m|sms|chip|e|photo|mobile|app|i|sm)?tan(?![^\W\d_])
      | otp | cvc2? | cvv2? | cvn | prüfnummer | prüfziffer | kartenprüfnummer | geheimzahl
      | zahlenkombination | kombination | combination | combinaison | combinazione
      | passcode | key\s*box | lock\s*box | schlüsselbox | schlüsselsafe | boîte\s+à\s+clés
      | clave | senha | hasło | şifre(?:niz|n)? | пин | код(?:а|ом)? | пароль | blik
      | tunnusluku | engångskod | engangskode | engangskoden | token | szyfr(?:u|em)?
      | kombinacj[aię] | kombinace | kombinaci | combinaci[oó]n | combinação | combinatie
      | kombinasjon(?:en)? | kombinationen | cryptogramme(?:\s+visuel)?
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)
_CJK_KEYWORD = re.compile(
    r"验证码|驗證碼|校验码|动态码|动态密码|取件码|提货码|取货码|密码|密碼|動態碼|認証コード|確認コード"
    r"|認証番号|確認番号|暗証番号|暗証|パスワード|ワンタイムパスワード|パスコード|ログインコード|セキュリティコード"
    r"|キーボックス|ロック番号|解錠番号|開錠番号|オートロック|门锁|门禁码|开门密码"
    r"|인증번호|인증\s*코드|비밀번호|승인번호"
)
_CJK_VALUE = re.compile(
    r"[^\dA-Za-z\n]{0,10}?(\d(?:[ -]?\d){3,9}(?!\d)|[A-Za-z0-9]{4,12}(?![\w#$%&*+=@^~!-]))"
)
_NOT_SECRET_FOLLOWER = re.compile(
    r"\s*(?:review|reviews|of\s+conduct|style|freeze|coverage|owners?|editor|quality|base"
    r"|snippet|changes?|push|commit|block|sample|camp|challenge|club|examples?|audit|kata"
    r"|-?review|reviewer|smell|der\s+kleidung|vestimentaire|cleanup|merge|postal|postale"
    r"|pocztowy|rabatowy|promocyjny|promocional|promozionale|promotionnel|promo|fiscale"
    r"|sconto|a\s+barre|de\s+barras|kreskowy|de\s+réduction|descuento|desconto|rabatt"
    r"|del\s+pedido|de\s+commande|d'ordine|pedido|commande|zamówienia|objednávky|заказа"
    r"|отслеживания|de\s+suivi|di\s+tracciamento|de\s+seguimiento|de\s+rastreio"
    r"|de\s+réservation|di\s+prenotazione|de\s+reserva|rezerwacji|rezervace|бронирования"
    r"|qr|iata|ean|isbn|gtin|hs|icd|bar|de\s+la\s+route|de\s+la\s+promo|regalo|cadeau"
    r"|booking|reservasi|pemesanan|diskon|promosi)\b",
    re.IGNORECASE,
)
_GAP = r"[^\d\n.!?。！？]{0,48}?"
"""What may stand between a secret word and its value: a few words, no digits, same
sentence ("il codice della cassetta è", "the code is", "Abholcode:")."""
_DIGITS = (r"(?:(?<![\w/.,:+-])|(?<=\bG-))(?!\d{4}-\d{1,2}-\d{1,2}\b|\d{1,2}-\d{1,2}-\d{4}\b)"
           r"\d(?:[ -]?\d){2,9}"
           r"(?![\w/:]|[.,]\d|\s?(?:%|€|\$|£|uhr|h\b|min|km|kg|m\b|mb|gb|eur\b|usd\b|zł|kr\b))")
_MIXED = (r"(?<![\w-])(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])"
          r"[A-Za-z0-9]{3,10}(?:-[A-Za-z0-9]{2,8})?(?![\w-])")
_VALUE = re.compile(rf"{_GAP}(?:G-)?(?P<value>{_DIGITS}|{_MIXED})", re.IGNORECASE)
_CAPS_VALUE = re.compile(r"\s*(?:[:=]|is|ist|lautet|est|è|es|är|er|jest|to|je)\s*:?\s*"
                         r"(?P<value>[A-Z]{5,8})(?![\w-])")
_YOUR = (r"(?:your|dein|deine|ihr|ihre|votre|ton|il\s+tuo|la\s+tua|tu|su|je|uw|twój|twoj"
         r"|o\s+seu|o\s+teu|seu|din|ditt|sizin|ваш|váš|tvůj)")
_VALUE_FIRST = re.compile(
    rf"(?:G-)?(?P<value>{_DIGITS}|{_MIXED})(?:\s*(?:[:,-]\s*)?(?:is|ist|est|è|es|é|is|är|er|to"
    rf"|je|jest|это|—)?\s+{_YOUR}\b[^.\n]{{0,40}}?|\s*[—–-]\s*(?:{_YOUR}\s+)?)"
    r"(?:code|codice|c[oó]digo|kod|kode|kód|код|otp|pin|passcode|password|passwort|kennwort"
    r"|wachtwoord|mot\s+de\s+passe|contraseña|clave|senha|hasło|пароль|şifre|heslo|kodeord"
    r"|token|tan)",
    re.IGNORECASE,
)
_VALUE_FIRST_HINT = re.compile(
    r"kennwort|wachtwoord|mot\s+de\s+passe|contraseña|hasło|kodeord|password|passwort",
    re.IGNORECASE,
)
_ENTER_VALUE = re.compile(
    rf"(?<![^\W\d_])(?P<verb>enter|use|type|input|eingeben|gib|geben\s+sie|saisissez|entrez|utilisez"
    r"|inserisci|usa|introduce|introduzca|ingresa|voer|gebruik|wpisz|podaj|użyj|digite"
    r"|insira|ange|skriv|angiv|indtast|tast|oppgi|syötä|girin|girmek|zadejte|введите"
    r"|använd|anvend|brug|bruk|bruke|käytä|kullanın|použijte|zadejte|используйте"
    r"|укажите)(?:\s+(?:the\s+)?(?:code|den\s+code|le\s+code|il\s+codice|de\s+code|kod))?"
    rf"\s*:?\s*(?:G-)?(?P<value>{_DIGITS}|{_MIXED})",
    re.IGNORECASE,
)
_ENTER_FOLLOW = re.compile(
    r"\s*(?:on|to|at|in|as|for|into|auf|um|bei|als|zur|zum|sur|pour|dans|su|per|para|en|op|om"
    r"|na|w|aby|för|på|for|til|için|pro|do|на|для|в|ein|\.|,|$)",
    re.IGNORECASE,
)
_TYPE_VERBS = frozenset(
    {"enter", "type", "input", "eingeben", "saisissez", "entrez", "inserisci", "introduce",
     "introduzca", "ingresa", "voer", "wpisz", "digite", "insira", "skriv", "indtast", "tast",
     "oppgi", "syötä", "girin", "zadejte", "введите"}
)
_CODE_CONTEXT = re.compile(
    r"code|kod|codice|código|código|код|otp|pin|tan|passcode|verif|bestätig|login|anmeld"
    r"|sign|log\s*in|confirm|auth|sicherheit|zugang|access|accès|accesso|acceso|toegang"
    r"|dostęp|acesso|åtkomst|adgang|tilgang|giriş|přihlá|вход|登录|ログイン|2fa|mfa"
    r"|logga|logge|logg|inlogg|innlogg|kirjau|zaloguj|logowa|войти|entrar|connexion|accedi"
    r"|password|passwort|mot\s+de\s+passe|wachtwoord|hasło|senha",
    re.IGNORECASE,
)


def _keyword_ok(match: re.Match[str], text: str) -> bool:
    if secret_codes.ordinary_word(match.group(0)) or \
            secret_codes.ordinary_before(text, match.start()):
        return False  # ("Reservation code", "Fund code": `memory.auth_words.NOT_SECRET`)
    return _NOT_SECRET_FOLLOWER.match(text, match.end()) is None


_LATER_VALUE = re.compile(
    rf"[^\n.!?。！？]{{0,100}}?(?:[:=：]|\b(?:is|ist|lautet|est|è|es|é|är|er|jest|je|on)\b)"
    rf"\s*:?\s*(?:G-)?(?P<value>{_DIGITS}|{_MIXED})",
    re.IGNORECASE,
)
"""A code word's value further on in its sentence, after a colon or "is": the words in
between may hold numbers ("... de 35,50 EUR en la tienda es 581204")."""
_LATER_COPULA = re.compile(r"[^\n.!?:=：]{0,40}?(?=[:=：]|\b(?:is|ist|lautet|est|è|es|é|är|er"
                           r"|jest|je|heißt)\b)", re.IGNORECASE)


def _discount_code(text: str, span: Span) -> bool:
    """A code of letters and digits in a sentence with a percentage: a public discount
    code, not a secret (a one-time code is digits, or letters and digits beside no
    percentage)."""
    value = text[span[0]:span[1]]
    if not any(ch.isalpha() for ch in value):
        return False
    starts = [m.end() for m in secret_codes.SENTENCE_END.finditer(text, 0, span[0])]
    start = starts[-1] if starts else 0
    end = secret_codes.SENTENCE_END.search(text, span[1])
    return "%" in text[start:end.start() if end else len(text)]


def _code_spans(text: str) -> list[Span]:
    spans: list[Span] = []
    keywords = list(_KEYWORD.finditer(text))
    for match in keywords:
        if not _keyword_ok(match, text):
            continue
        later = _LATER_VALUE.match(text, match.end())
        if later is not None:
            spans.append((later.start("value"), later.end("value"), "secret_code"))
        value = _VALUE.match(text, match.end())
        if value is not None:
            spans.append((value.start("value"), value.end("value"), "secret_code"))
            continue
        if later is not None:
            continue
        caps = _CAPS_VALUE.match(text, match.end())
        if caps is not None:
            spans.append((caps.start("value"), caps.end("value"), "secret_code"))
            continue
        gap = _LATER_COPULA.match(text, match.end())
        start = gap.end() if gap is not None else match.end()
        copula = _COPULA.match(text, start)
        if copula is not None and copula.end() > start:
            found = _value_span(text, copula.end())
            if found is not None and _password_like(text[found[0]:found[1]]):
                spans.append((*found, "secret_code"))
    for match in _CJK_KEYWORD.finditer(text):
        cjk = _CJK_VALUE.match(text, match.end())
        if cjk is not None and any(ch.isdigit() for ch in cjk.group(1)):
            spans.append((cjk.start(1), cjk.end(1), "secret_code"))
            continue
        lead = re.match(r"[^\dA-Za-z\n]{0,10}?(?=[A-Za-z0-9])", text[match.end():])
        if lead is not None:
            found = _value_span(text, match.end() + lead.end())
            if found is not None and _password_like(text[found[0]:found[1]]):
                spans.append((*found, "secret_code"))
    # a word-and-digit code in a sentence that gives a percentage is a discount code
    # ("-25% na wszystko z kodem LATO25", "kode HEMAT20 buat diskon 20%")
    spans = [span for span in spans if not _discount_code(text, span)]
    # codes by structure (`memory.secret_codes`): joined to their word, before it, alone
    spans.extend(secret_codes.code_spans(text))
    # (a value before its code word: only where some code word is; the scan is costly)
    for match in (_VALUE_FIRST.finditer(text) if keywords or _VALUE_FIRST_HINT.search(text)
                  else ()):
        spans.append((match.start("value"), match.end("value"), "secret_code"))
    for match in _ENTER_VALUE.finditer(text):
        # "Enter 604218 on the website", "Use 317752 to sign in": a bare code to type,
        # in a message that speaks of signing in, a code or a confirmation
        # (a number to type into a field is a code even without such words)
        typed = match.group("verb").casefold() in _TYPE_VERBS and \
            sum(ch.isdigit() for ch in match.group("value")) >= 4
        if _ENTER_FOLLOW.match(text, match.end()) and (typed or _CODE_CONTEXT.search(text)):
            spans.append((match.start("value"), match.end("value"), "secret_code"))
    return spans


# -- one-time code messages ----------------------------------------------------------------

_CODE_TOKEN = (
    r"(?<![\w.:,/$€£+-])(?!(?:19|20)\d\d\b)"  # (a year is not a code)
    r"(?:\d{4,8}|\d{3}[ -]\d{3}|G-\d{6}|[A-Z0-9]{3}-[A-Z0-9]{3})"
    r"(?![\w.:,/%-]?\d)"
)
_CODE = re.compile(_CODE_TOKEN)
_VERIFY_WORDS = re.compile(
    r"\b(?:verification|verify|verifying|confirm(?:ation)? code|activation code"
    r"|validation code)\b",
    re.IGNORECASE,
)
_OTP_WORDS = re.compile(
    r"\b(?:otp|one[- ]time (?:pass(?:word|code)?|code|pin)|passcode|2fa|two[- ]factor"
    r"|security code|log ?in code|sign[- ]in code|auth(?:entication|orization)? code"
    r"|access code|pin(?: code)?|tan|mtan|code d'accès|bestätigungscode"
    r"|do not share|don't share|never share|not share (?:it|this)"
    r"|to (?:confirm|approve|authori[sz]e|complete) (?:your|the|this) (?:transfer|payment"
    r"|transaction|purchase|login|sign[- ]in))\b",
    re.IGNORECASE,
)
_CODE_PHRASE = re.compile(
    r"\bcode\b\s*(?:is|:|=)?\s*" + _CODE_TOKEN
    + r"|" + _CODE_TOKEN + r"\s+is\s+your\b[^.\n]{0,40}\bcode\b"
    + r"|\b(?:use|enter|type)\s+" + _CODE_TOKEN + r"\s+(?:to|for|as)\b",
    re.IGNORECASE,
)
_VERIFY_WORDS_LC = _ascii_twin(_VERIFY_WORDS)
_OTP_WORDS_LC = _ascii_twin(_OTP_WORDS)
_CODE_PHRASE_LC = _ascii_twin(_CODE_PHRASE)
_CODE_PHRASE_WORDS = ("code", "use", "enter", "type")


def _code_phrase(pattern: re.Pattern[str], text: str) -> bool:
    """A code phrase not named as an ordinary code by the word before it ("error code
    4021", "order code", "promo code": `memory.auth_words.NOT_SECRET`)."""
    for match in pattern.finditer(text):
        if not secret_codes.ordinary_before(text, match.start()):
            return True
    return False


def _is_one_time_code(text: str, low: str | None = None) -> str | None:
    """"verification_code" or "otp" for an English code message, else None."""
    if not _CODE.search(text):
        return None
    if low is None:
        if _VERIFY_WORDS.search(text):
            return "verification_code"
        if _OTP_WORDS.search(text) or _code_phrase(_CODE_PHRASE, text):
            return "otp"
        return None
    if _VERIFY_WORDS_LC.search(low):
        return "verification_code"
    if _OTP_WORDS_LC.search(low):
        return "otp"
    # every alternative of the phrase needs the literal "code" or use/enter/type
    if any(word in low for word in _CODE_PHRASE_WORDS) and _code_phrase(_CODE_PHRASE_LC, low):
        return "otp"
    return None


# -- the public functions --------------------------------------------------------------------

_HARD_ORDER = ("secret_private_key", "secret_api_key", "secret_card", "secret_iban",
               "secret_account",
               "secret_identity", "secret_password", "secret_seed_phrase")


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for start, end, reason in sorted(spans):
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, reason))
    return out


def _hard_spans(text: str, low: str | None) -> list[Span]:
    """Keys, cards, IBANs, identity numbers, passwords and recovery phrases: secret without
    a code word."""
    spans = _key_spans(text, low)
    if _DIGIT.search(text):
        spans.extend(_card_spans(text))
        spans.extend(_iban_spans(text))
        spans.extend(_account_spans(text))
        spans.extend(_security_code_spans(text))
        spans.extend(_nrb_spans(text))
        spans.extend(_named_key_spans(text))
        spans.extend(_identity_spans(text))
    if _PASSWORD_HINT.search(text) and (_PASSWORD_WORD.search(text) or _SECRET_WORD.search(text)):
        spans.extend(_password_spans(text))
    if text.count(" ") >= SEED_WORDS - 1:
        spans.extend(_seed_spans(text))
    return spans


_DIGIT = re.compile(r"\d")
_CAPS_HINT = re.compile(r"[A-Z]{5,8}")
"""An all-capitals code ("code: QXRTZB") is the only code without a digit."""


def secret_spans(text: str) -> list[Span]:
    """(start, end, reason) of every secret value in `text`, in order, not overlapping."""
    if not text:
        return []
    spans = _hard_spans(text, _lowered(text))
    if _DIGIT.search(text) or _CAPS_HINT.search(text):
        spans.extend(_code_spans(text))
    return _merge(spans)


def find_secret(text: str, low: str | None = None) -> str | None:
    """The reason code of the first kind of secret in `text`, else None: a key, card,
    IBAN, password or recovery phrase first ("secret_*"), then an English code message
    ("verification_code", "otp"), then a code next to a secret word ("secret_code").
    `low`: `text.lower()` when `text` is ASCII and the caller has it already."""
    if not text:
        return None
    if low is None:
        low = _lowered(text)
    hard = {reason for _, _, reason in _hard_spans(text, low)}
    for reason in _HARD_ORDER:
        if reason in hard:
            return reason
    code = _is_one_time_code(text, low)
    if code is not None:
        return code
    if (_DIGIT.search(text) or _CAPS_HINT.search(text)) and _code_spans(text):
        return "secret_code"
    return None


def contains_secret(text: str) -> bool:
    """True when `text` holds any secret `find_secret` names."""
    return find_secret(text) is not None


REDACT_PASSES = 8
"""How often `redact` looks again: a list of codes after one code word ("Codes for the
lockers: 4821, 5930 and 6612") shows its next value only once the one before is out."""


def redact(text: str, spans: list[Span] | None = None) -> str:
    """`text` with every secret span replaced by `REDACTED`; without `spans`, searched
    again after each pass until nothing is left (at most `REDACT_PASSES`)."""
    if spans is not None:
        return _replace(text, spans)
    for _ in range(REDACT_PASSES):
        found = secret_spans(text)
        if not found:
            break
        text = _replace(text, found)
    return text


def _replace(text: str, found: list[Span]) -> str:
    if not found:
        return text
    parts: list[str] = []
    last = 0
    for start, end, _ in found:
        parts.append(text[last:start])
        parts.append(REDACTED)
        last = end
    parts.append(text[last:])
    return "".join(parts)


AUTH_MESSAGE_WORDS = secret_codes.AUTH_MESSAGE_WORDS
"""A code message longer than this many words says more than the code: it is redacted."""


def auth_message(text: str) -> bool:
    """True when `text` is short (`AUTH_MESSAGE_WORDS`) and marks a code as one-time: an
    authentication word or a do-not-share or expiry warning of `memory.auth_words`."""
    return secret_codes.one_time_marked(text) and len(text.split()) <= AUTH_MESSAGE_WORDS


def code_message(body: str, title: str = "") -> bool:
    """True when a notification (its subtitle and body in `body`, its sender in `title`)
    is nothing but a one-time code: drop it whole. A secret inside anything else (a
    booking with its door PIN, a parcel locker with its pickup code) is redacted and the
    rest kept. See `memory.secret_codes.code_only`."""
    return secret_codes.code_only(body, title, secret_spans(body))


def normalize_digits(text: str) -> str:
    """`text` without the spaces, dots and dashes that split digit groups, for finding a
    known secret value in what was stored ("318-774" and "318774" compare equal)."""
    return re.sub(r"(?<=\d)[ .\u00a0-](?=\d)", "", text)
