"""Secret spans in notification text, found structurally in many languages, and redaction.

A secret here is a value that opens something: a one-time or login code, a door,
key-box, locker or bike-lock code, a PIN, a TAN, a password, a card number or its
check digits. `secret_spans(text)` finds them as a code-like value shortly after a
secret word, in English, German, French, Italian, Spanish, Dutch, Polish,
Portuguese, Swedish, Danish/Norwegian, Turkish, Russian, Chinese and Japanese.
Digit groups may be split by spaces or dashes ("318-774", "66 21 08", "4 7 1 9");
letters and digits mixed count too ("7H3K9Q"). Compound words are seen as such:
"Abholcode", "Türcode", "slotcode" and "digicode" are secret words, "Barcode",
"Postcode", "Rabattcode" are not.

`auth_message(text)` says whether the text exists only to deliver a code (a login or
verification message, with its "never share it" warning): such a notification is
dropped whole. Anything else keeps its other words and loses only the spans
(`redact`), so "Packstation 142, Abholcode: [redacted], bis Mi., 11.03." is still
remembered. Reason codes never carry content.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

_KEYWORD = re.compile(
    r"""
    (?<![^\W\d_])                       # start of a word (letters before would be a compound)
    (?:(?P<prefix>[^\W\d_]{0,24}?)(?:code|kode|codice|c[oó]digo|k[oó]d|cod|koodi|kód)(?![^\W\d_])
      | pin(?:code|nummer|-code)?(?![^\W\d_]) | (?:push|m|sms|chip)?tan(?![^\W\d_])
      | otp | cvc2? | cvv2? | cvn | prüfnummer | prüfziffer | kartenprüfnummer | geheimzahl
      | zahlenkombination | kombination | combination | combinaison | combinazione
      | passcode | key\s*box | lock\s*box | schlüsselbox | schlüsselsafe | boîte\s+à\s+clés
      | clave | senha | hasło | şifre | пин | код | пароль
    )
    """,
    re.IGNORECASE | re.VERBOSE,
)
_CJK_KEYWORD = re.compile(
    r"验证码|校验码|取件码|密码|動態碼|認証コード|確認コード|暗証番号|パスワード"
)
_NOT_SECRET_PREFIX = frozenset(
    [
        "bar", "post", "zip", "qr", "dress", "promo", "rabatt", "gutschein", "coupon", "discount",
        "voucher", "source", "error", "fehler", "area", "country", "länder", "tracking",
        "sendungs", "farb", "color", "colour", "html", "status", "referral", "invite",
        "einladungs", "sortier", "sorting", "branch", "bank", "iban", "swift", "bic", "vorwahl",
        "dial", "airport", "flughafen", "booking", "buchungs", "reservation", "reservierungs",
        "order", "bestell", "kunden", "customer", "artikel", "item", "product", "produkt", "rabat",
        "kupon",
    ]
)
_PASSWORD_WORD = re.compile(
    r"(?<![^\W\d_])(?:[^\W\d_]{0,16}?(?:passwort|password|kennwort|wachtwoord|lösenord|passord"
    r"|adgangskode|contraseña|contrasena|parola\s+d'ordine|mot\s+de\s+passe|mdp|pwd?|passphrase"
    r"|heslo|hasło|haslo|senha|salasana|jelszó|parolă|lozinka|geslo|şifre|sifre|пароль"
    r"|wlan-schlüssel|wifi\s+key|wi-fi\s+key))(?![^\W\d_])",
    re.IGNORECASE,
)
_COPULA = re.compile(
    r"\s*(?:[:=]|\b(?:is|ist|lautet|lauten|est|è|es|é|är|er|jest|je|on|is\s+now|ist\s+jetzt|heißt"
    r"|wird|now)\b)\s*[:=]?\s*",
    re.IGNORECASE,
)
_GAP = r"[^\d\n.!?]{0,48}?"
"""What may stand between a secret word and its value: a few words, no digits, same
sentence ("Il codice del lucchetto è", "the code is", "Abholcode:")."""
_DIGITS = r"(?<![\w/.,:-])\d(?:[ -]?\d){2,9}(?![\w/:]|[.,]\d|\s?(?:%|€|\$|£|uhr|h\b|min|km|kg|m\b))"
_MIXED = r"(?<![\w-])(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{4,16}(?![\w-])"
_VALUE = re.compile(rf"{_GAP}(?P<value>{_DIGITS}|{_MIXED})", re.IGNORECASE)
_VALUE_FIRST = re.compile(
    rf"(?P<value>{_DIGITS}|{_MIXED})\s+(?:is|ist)\s+(?:your|dein|ihr|deine|ihre)\b[^.\n]{{0,40}}?"
    r"(?:code|otp|pin|passcode|password|passwort|tan)\b",
    re.IGNORECASE,
)
_NOT_A_PASSWORD = re.compile(
    r"\s+(?:reset|changed?|updated?|expires?|expired|manager|policy|hint|zurückgesetzt"
    r"|geändert|vergessen|forgot|requirements?|requested)\b|\s*(?:geändert|changed)\?",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\s\"'„“”«»,;?()<>\[\]]{6,64}")
_INNER_SYMBOL = re.compile(r"[_#$%&*+=@^~!](?=\S)")


def _password_like(token: str) -> bool:
    """Letters with a digit or an inner symbol ("Ottakring_Bianchi77", "Tr0ub4dor&3"); not a
    web address, a time, a date or a plain word."""
    core = token.rstrip(".!:")
    if len(core) < 6 or "://" in core or core.lower().startswith("www."):
        return False
    if not any(ch.isalpha() for ch in core):
        return False
    return any(ch.isdigit() for ch in core) or _INNER_SYMBOL.search(core) is not None


_PASSWORD_VALUE = re.compile(r"(?P<value>[^\s\"'„“”«»]{4,64})")
_CARD = re.compile(r"(?<![\d-])\d{4}(?:[ .-]?\d{4}){2}[ .-]?\d{1,7}(?![\d-])")
_CARD_WORD = re.compile(
    r"\b(?:card|karte|kreditkarte|debitkarte|carte|carta|tarjeta|kaart|karta|cartão|visa"
    r"|mastercard|amex|maestro|kartennummer|card\s+number)",
    re.IGNORECASE,
)
_AUTH = re.compile(
    r"""
    (?:verification|verify|verifizierung|bestätigungs|anmelde|sicherheits|einmal|login|log-in
     |sign[- ]?in|one[- ]time|2fa|two[- ]factor|zwei[- ]faktor|authenti[cf]|autori[sz]|otp
     |(?<![^\W\d_])(?:push|m|sms)?tan(?![^\W\d_])|vérification|confirmation|verifica|conferma
     |verificaci[oó]n|confirmaci[oó]n|verificatie|bevestigings|weryfikac|potwierdz|verificação
     |подтвержд|验证码|認証|確認コード|doğrulama|verifierings|bekræftelses|bekreftelses
     |do\s+not\s+share|don't\s+share|never\s+share|niemals\s+weiter|nicht\s+weiter|mit\s+niemandem
     |nicht\s+mit\s+anderen|ne\s+(?:le\s+)?partagez|non\s+condividere|no\s+compartas|deel\s+deze)
    """,
    re.IGNORECASE | re.VERBOSE,
)


def _keyword_ok(match: re.Match[str]) -> bool:
    prefix = (match.group("prefix") or "").casefold().rstrip("-")
    return not prefix or not any(prefix.endswith(p) for p in _NOT_SECRET_PREFIX)


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, reason) of every secret value in `text`, in order, not overlapping."""
    spans: list[tuple[int, int, str]] = []
    if not any(ch.isdigit() for ch in text):
        # every code, PIN, card and mixed value holds a digit: only passwords can be left
        if _PASSWORD_WORD.search(text):
            spans.extend(_password_spans(text))
        return _merge(spans)
    for match in _KEYWORD.finditer(text):
        if not _keyword_ok(match):
            continue
        value = _VALUE.match(text, match.end())
        if value is not None:
            spans.append((value.start("value"), value.end("value"), "secret_code"))
    for match in _CJK_KEYWORD.finditer(text):
        value = re.compile(r"[^\d\n]{0,8}?(?P<value>\d(?:[ -]?\d){3,9}|[A-Za-z0-9]{4,12})").match(
            text, match.end()
        )
        if value is not None:
            spans.append((value.start("value"), value.end("value"), "secret_code"))
    spans.extend(_password_spans(text))
    for match in _VALUE_FIRST.finditer(text):
        spans.append((match.start("value"), match.end("value"), "secret_code"))
    if _CARD_WORD.search(text):
        for match in _CARD.finditer(text):
            digits = re.sub(r"\D", "", match.group(0))
            if 13 <= len(digits) <= 19:
                spans.append((match.start(), match.end(), "secret_card"))
    return _merge(spans)


def _password_spans(text: str) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    for match in _PASSWORD_WORD.finditer(text):
        rest = text[match.end():match.end() + 64]
        if _NOT_A_PASSWORD.match(rest):
            continue
        gap = re.match(r"(?:[^\n.!?:=]{0,40}?)(?=[:=]|\b(?:is|ist|lautet|est|è|es|är|er|jest"
                       r"|heißt)\b)", rest, re.IGNORECASE)
        start = match.end() + (gap.end() if gap else 0)
        copula = _COPULA.match(text, start)
        if copula is None:
            continue
        value = _PASSWORD_VALUE.match(text, copula.end())
        if value is not None and not value.group("value").startswith(REDACTED):
            end = value.end("value")
            while end > value.start("value") and text[end - 1] in ".,;:)":
                end -= 1
            if end - value.start("value") >= 4:
                spans.append((value.start("value"), end, "secret_password"))
    for match in _PASSWORD_WORD.finditer(text):
        # a password-like token later in the same message ("the new one is X", "quella
        # nuova è X"): letters and digits mixed, or letters with symbols, 6+ characters
        rest = text[match.end():match.end() + 64]
        if _NOT_A_PASSWORD.match(rest):
            continue
        for token in _TOKEN.finditer(text, match.end(), match.end() + 160):
            word = token.group(0)
            if not word.startswith(REDACTED) and _password_like(word):
                spans.append((token.start(), token.start() + len(word.rstrip(".!:")),
                              "secret_password"))
    return spans


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for start, end, reason in sorted(spans):
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, reason))
    return out


def redact(text: str, spans: list[tuple[int, int, str]] | None = None) -> str:
    """`text` with every secret span replaced by `REDACTED`."""
    found = secret_spans(text) if spans is None else spans
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


AUTH_MESSAGE_WORDS = 30
"""A code message longer than this many words says more than the code: it is redacted."""


def auth_message(text: str) -> bool:
    """True when `text` is there to deliver a login/verification code (drop it whole): an
    authentication word, and no more words than such a message has."""
    return _AUTH.search(text) is not None and len(text.split()) <= AUTH_MESSAGE_WORDS
