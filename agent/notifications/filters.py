"""Deterministic noise and secret triage for notifications.

`NoiseFilter().classify(event)` returns a reason code when a notification must not
reach the model as it is (and therefore never a memory), else None; `triage` drops
noise and code-only messages and redacts a secret from anything else. Every field
that reaches a model is checked for secrets: title, subtitle, body, app id and
category. The secret detector itself is `memory.secrets` (the store refuses a
statement holding a secret with the same rules).
Noise patterns aim at low false positives: a time, an order number or a price is
not noise. Reason codes never carry content.

Speed: for ASCII text (nearly all notifications) each case-insensitive pattern
runs as its lowercased, case-sensitive twin on the text lowered once - the same
matches at the same positions, several times cheaper than IGNORECASE; other
text uses the original patterns.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass

from companion_memory.agent.notifications.dates import has_day_word
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.memory.lexicon import GLOSS
from companion_memory.memory.search_text import fold
from companion_memory.memory.secrets import (
    REDACTED,
    _ascii_twin,
    _lowered,
    code_message,
    find_secret,
    redact,
)

# -- marketing ----------------------------------------------------------------------

_MARKETING_STRONG = re.compile(
    r"\b(?:unsubscribe|promo ?code|coupon|flash sale|shop now|buy now|limited[- ]time offer"
    r"|free shipping|reply stop|text stop|opt[- ]out|black friday|cyber monday|clearance"
    r"|exclusive (?:deal|offer)s?|use code|customers who (?:bought|viewed)|recommended for you"
    r"|see (?:our )?recommendations|click (?:here|to read more)"
    r"|(?:new|spring|summer|autumn|fall|winter) collection)\b"
    r"|\b\d{1,2}\s?% off\b|\bup to \d{1,2}\s?%",
    re.IGNORECASE,
)
_MARKETING_WEAK = re.compile(
    r"\b(?:sale|deals?|discount|offers?|save|savings|don't miss|last chance|hurry|ends (?:today|"
    r"tonight|soon)|new arrivals|subscribe|newsletter|special price|bestsellers?|voucher"
    r"|tips|top \d{1,2})\b",
    re.IGNORECASE,
)
_MARKETING_STRONG_LC = _ascii_twin(_MARKETING_STRONG)
_MARKETING_WEAK_LC = _ascii_twin(_MARKETING_WEAK)
_MARKETING_CATEGORIES = frozenset(
    {"promo", "promotion", "promotional", "marketing", "advertisement", "recommendation"}
)
"""Categories the phone gives advertising: Android's `promo` and `recommendation` ("a
specific, timely recommendation for a single thing": the next story, show or product the
app wants read or bought), and the names a host may use."""


def _is_marketing(text: str, category: str, low: str | None = None) -> bool:
    if category.strip().casefold() in _MARKETING_CATEGORIES:
        return True
    if low is not None:
        if _MARKETING_STRONG_LC.search(low):
            return True
        return len({m.group(0) for m in _MARKETING_WEAK_LC.finditer(low)}) >= 2
    if _MARKETING_STRONG.search(text):
        return True
    return len({m.group(0).casefold() for m in _MARKETING_WEAK.finditer(text)}) >= 2


# -- social noise, acknowledgements, digests ---------------------------------------------

_MARKETING_MORE = re.compile(
    r"\b(?:jetzt\s+(?:shoppen|kaufen|bestellen|entdecken|sichern|zuschlagen)|nur\s+heute"
    r"|versandkostenfrei|gratisversand|rabattcode|gutscheincode|abbestellen|vom\s+newsletter"
    r"|sonderangebot|schnäppchen|sommerschlussverkauf|winterschlussverkauf|soldes|bons?\s+plans?"
    r"|code\s+promo|offerta\s+speciale|saldi|rebajas|ofertas?\s+exclusivas?|uitverkoop"
    r"|aanbieding(?:en)?|nieuwe\s+collectie|neue\s+kollektion|nouvelle\s+collection)\b"
    r"|\b(?:bis\s+zu|jusqu'à|fino\s+al|hasta\s+(?:un\s+)?|tot)\s+-?\d{1,2}\s?%"
    r"|-?\d{1,2}\s?%\s+(?:rabatt|auf\s+alles|reduziert|sconto|de\s+(?:réduction|descuento)"
    r"|korting)",
    re.IGNORECASE,
)
_REACTION = re.compile(
    r"\b(?:reacted|reagiert|reagierte|a\s+réagi|ha\s+reagito|ha\s+reaccionado|heeft\s+gereageerd"
    r"|liked|loved|likes\s+your|gefällt\s+(?:dein|deine|das|\d)|hat\s+(?:dein|deine|deinen)"
    r"\s+\w+\s+(?:geliked|gelikt|kommentiert\s+mit)|a\s+aimé|ha\s+messo\s+mi\s+piace"
    r"|le\s+gusta|vindt\s+je|emphasi[sz]ed|laughed\s+at|disliked|questioned|tapback"
    r"|gave\s+you\s+kudos|kudos|hat\s+dir\s+kudos|high[- ]?fived?|applauded|endorsed\s+you"
    r"|congratulated\s+you|hat\s+dir\s+gratuliert)\b",
    re.IGNORECASE,
)
_SOCIAL_COUNT = re.compile(
    r"\b(?:\d+\s+(?:new\s+)?(?:followers?|likes?|views?|impressions|profile\s+views|neue\s+follower"
    r"|follower|abonnenten|personen|mal\s+angesehen|nouveaux\s+abonnés|nuovi\s+follower"
    r"|nieuwe\s+volgers)|started\s+following\s+you|folgt\s+dir(?:\s+jetzt)?|new\s+follower"
    r"|appeared\s+in\s+\d+\s+searches|in\s+\d+\s+suchen|viewed\s+your\s+profile"
    r"|profilaufrufe|people\s+you\s+may\s+know|personen,?\s+die\s+du\s+kennen\s+könntest"
    r"|tagged\s+you\s+in\s+a\s+(?:post|photo)|hat\s+ein\s+neues\s+foto|posted\s+a\s+new"
    r"|shared\s+a\s+(?:post|memory|reel)|neuer?\s+beitrag\s+von|is\s+live\s+now|ist\s+jetzt\s+live"
    r"|anniversary\s+at|work\s+anniversary|memories\s+from|erinnerungen\s+von\s+vor)\b",
    re.IGNORECASE,
)
_GREETING = re.compile(
    r"^\W*(?:gute\s+(?:fahrt|reise|heimreise|nacht|besserung)|have\s+a\s+(?:good|great|nice|safe)"
    r"|safe\s+travels|viel\s+(?:spaß|erfolg|glück)|good\s+luck|have\s+fun|enjoy|welcome\s+back"
    r"|willkommen\s+zurück|bon\s+voyage|buon\s+viaggio|goede\s+reis|buen\s+viaje"
    r"|schönes\s+wochenende|happy\s+birthday|alles\s+gute)\b",
    re.IGNORECASE,
)
_MEDIA_ONLY = re.compile(
    r"^\W*(?:foto|photo|bild|image|video|sticker|gif|sprachnachricht|voice\s+message|audio"
    r"|dokument|document|location|standort)\W*$",
    re.IGNORECASE,
)
_DIGEST = re.compile(
    r"\b(?:daily\s+(?:digest|briefing|summary)|weekly\s+(?:digest|summary|recap|report|review)"
    r"|your\s+(?:week|month|year)\s+in\s+review|morning\s+briefing|top\s+stories"
    r"|wochenrückblick|monatsrückblick|jahresrückblick|tagesübersicht|wochenübersicht"
    r"|die\s+wichtigsten\s+nachrichten|nachrichten\s+des\s+tages|eilmeldung"
    r"|résumé\s+(?:de\s+la\s+semaine|hebdomadaire)|riepilogo|resumen\s+semanal|weekoverzicht"
    r"|update\s+available|new\s+version\s+(?:is\s+)?available|neue\s+version\s+verfügbar"
    r"|aktualisierung\s+verfügbar|updates?\s+verfügbar|rate\s+(?:us|our\s+app)|bewerte\s+(?:uns|die\s+app)"
    r"|screen\s+time\s+(?:report|was)|bildschirmzeit|weekly\s+goal|wochenziel)\b",
    re.IGNORECASE,
)
_NEWSLETTER = re.compile(
    r"^\W*(?:newsletter|nieuwsbrief|lettre d'information|infolettre|boletín|bollettino)\b",
    re.IGNORECASE,
)
"""A title or email subject that opens with "Newsletter" (a mailing, not a message)."""
_ACK_WORDS = frozenset(
    [
        "ok", "okay", "okey", "k", "kk", "oki", "okidoki", "yes", "yep", "yeah", "yup", "sure",
        "nope", "thanks", "thx", "ty", "danke", "dankeschön", "merci", "grazie", "gracias",
        "bedankt", "cool", "super", "top", "nice", "great", "perfect", "perfekt", "prima", "passt",
        "gut", "klar", "jo", "ja", "jep", "lol", "haha", "hahaha", "hehe", "xd", "gn", "gm", "np",
        "gerne", "genau", "stimmt", "alright", "noted", "tschüss", "bye", "ciao", "salut",
        "coucou", "oui", "vale", "claro", "omg", "wow",
    ]
)
"""Words that, alone or only with each other, make a bare acknowledgement."""
_ACK_PHRASES = frozenset(
    {"thank you", "vielen dank", "dank je", "alles klar", "gute nacht", "good night",
     "guten morgen", "no problem", "kein problem", "sehr gut", "sounds good", "got it",
     "will do", "mach ich", "bis dann", "see you", "va bene", "d'accord", "danke dir",
     "danke schön", "alles gut", "oh no", "oh nein", "nehm ich", "nehme ich", "i'll take it",
     "je prends", "lo prendo", "me lo quedo", "neem ik"}
)
_WORDS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_NEWS_CATEGORIES = frozenset({"news"})
DEVICE_STATE_CATEGORIES = frozenset(
    {"sys", "service", "progress", "navigation", "stopwatch", "workout", "location_sharing"}
)
"""Android categories that, by the platform's own definition, show a state of the device
or of something running on it, stale once it changes: a system notice (`sys`), a running
background service, the progress of a background operation, turn-by-turn navigation, a
running stopwatch or workout, a live location share. The phone says so in every language.
(In the labelled training sets, `bench/data/triage_train*`, kept apart from every
evaluation corpus, 0 of the 61 rows in these categories are labelled worth keeping.)"""


def _message_text(event: NotificationEvent) -> str:
    """What the sender wrote: the body (or the subtitle when there is no body), without a
    group chat's leading "Name: "."""
    text = event.body or event.subtitle
    head, sep, rest = text.partition(": ")
    if sep and len(head) <= 30 and "\n" not in head:
        text = rest
    return text


def is_acknowledgement(text: str) -> bool:
    """True for a bare acknowledgement or reaction in a message: "ok", "Danke!", "👍",
    "haha", emoji or punctuation only."""
    words = [w.casefold() for w in _WORDS.findall(text)]
    if any(ch.isdigit() for ch in text):
        return False
    if not words:
        return True  # emoji, punctuation, nothing
    if len(words) > 4:
        return False
    phrase = " ".join(words)
    for known in _ACK_PHRASES:
        phrase = phrase.replace(known, " ")
    return all(w in _ACK_WORDS for w in phrase.split())


CHIT_CHAT_WORDS = 6
_CHAT_CATEGORIES = frozenset({"social", "message", "msg"})
_TOPIC_WORDS = frozenset(
    fold(word) for german, english in GLOSS.items() for word in (german, *english)
)
"""Everyday topic words (appointments, travel, health, family, home, money, time; the
glossary of `memory.lexicon` in both languages): a short message with one of them may
carry a fact."""


def is_chit_chat(text: str) -> bool:
    """A short chat message with an emoji, no number, no day and no topic word ("gut gelandet? ❤️",
    "sorry for the wall of text 🙈", "so cute 😍"): nothing in it a later question could
    need. Without an emoji a short message is kept ("meet at the museum?")."""
    if any(ch.isdigit() for ch in text) or has_day_word(text):
        return False
    if not any(unicodedata.category(ch) == "So" for ch in text):
        return False
    words = [fold(w) for w in _WORDS.findall(text)]
    return 0 < len(words) <= CHIT_CHAT_WORDS and not any(w in _TOPIC_WORDS for w in words)


_THANKS = re.compile(
    # one short exclamation may come first ("Wat een avond!!!")
    r"^(?:[^\W\d_]+(?:\s+[^\W\d_]+){0,3}\s*!+\W*)?"
    r"(?:(?:ach|oh|und|and|also|so|ah|aw+|@\S+(?:\s[^\W\d_]+)?)\W+)*"
    r"(?:danke|vielen\s+dank|thanks|thank\s+you|thx|ty|merci|grazie|gracias|dankjewel|dankjulliewel"
    r"|bedankt|dank\s+je|obrigad[oa]|díky|dzięki)\b",
    re.IGNORECASE,
)
_PRESENCE = re.compile(
    r"\b(?:i'?m\s+here|we'?re\s+here|on\s+my\s+way|just\s+landed|(?:ich\s+)?bin\s+da|wir\s+sind\s+da"
    r"|bin\s+unterwegs|je\s+suis\s+là|on\s+est\s+là|j'arrive|sono\s+arrivat[oaie]|siamo\s+arrivati"
    r"|ya\s+llegué|estoy\s+aquí|ik\s+ben\s+er|wij\s+zijn\s+er|we\s+zijn\s+er|gut\s+gelandet"
    r"|gut\s+angekommen|landed\s+safely)(?![\w'])",
    re.IGNORECASE,
)
_MINUTES = re.compile(r"\b\d{1,2}\s?min\w*", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.!?…]+|[\U0001F300-\U0001FAFF\u2600-\u27BF]+")
THANKS_WORDS = 16
THANKS_TAIL_WORDS = 6
PRESENCE_WORDS = 10


def _sentences(text: str) -> list[str]:
    """The sentences of a chat message that hold a word (an emoji run ends one too)."""
    return [part for part in _SENTENCE_BREAK.split(text) if _WORDS.search(part)]


def is_thanks(text: str) -> bool:
    """A message that opens by thanking and adds at most a short sentence, naming no day
    and no number and asking nothing ("danke dass ihr da wart 🥹 ich bin sooo verkatert",
    "Wat een avond!!! Dankjewel voor alles"). "Thanks! The key is under the mat, I'm
    back on Friday" is kept: it names a day."""
    if _THANKS.match(text) is None or "?" in text or any(ch.isdigit() for ch in text):
        return False
    if has_day_word(text) or len(_WORDS.findall(text)) > THANKS_WORDS:
        return False
    parts = _sentences(text)
    opening = 2 if parts and _THANKS.match(parts[0]) is None else 1  # the exclamation, then thanks
    tail = sum(len(_WORDS.findall(p)) for p in parts[opening:])
    return tail <= THANKS_TAIL_WORDS


def is_presence_ping(text: str) -> bool:
    """A live arrival ping that is stale minutes later: "je suis là !! j'arrive dans 10
    min", "We zijn er hoor!", "gut gelandet? ❤️". A day or any number other than minutes keeps it
    ("I'm here, gate B12", "on my way, back on Friday")."""
    if _PRESENCE.search(text) is None or has_day_word(text):
        return False
    if any(ch.isdigit() for ch in _MINUTES.sub("", text)):
        return False
    return len(_WORDS.findall(text)) <= PRESENCE_WORDS


_SALUTATION = re.compile(
    r"^(?:hallo|hi|hey|hello|dear|liebe|lieber|liebes|sehr geehrte|sehr geehrter|moin|servus"
    r"|guten (?:tag|morgen|abend)|bonjour|bonsoir|salut|coucou|cher|chère|ciao|buongiorno"
    r"|buonasera|caro|cara|hola|buenos días|buenas|querida|querido|hoi|beste|goedemorgen"
    r"|goedemiddag)(?:\s+(?:frau|herr|mrs?\.?|ms\.?|madame|monsieur|signora|signor|señora"
    r"|señor|mevrouw|meneer))?(?:\s+[^\W\d_][\w.'-]*){0,3}\s*(?:,|$)\s*",
    re.IGNORECASE,
)


def is_pleasantry(sentence: str) -> bool:
    """A sentence that only greets or thanks ("Hallo Jonas Berger, vielen Dank für Ihre
    Buchung", "Coucou Lena", "ok", "Thanks!"); the fallback skips one that opens a
    message when more follows."""
    salutation = _SALUTATION.match(sentence.strip())
    if salutation is not None:
        rest = sentence.strip()[salutation.end():].strip(" ,")
        return not rest or is_pleasantry(rest)
    return is_acknowledgement(sentence) or is_thanks(sentence) or (
        _GREETING.match(sentence) is not None and len(sentence.split()) <= 4
    )


WISH_WORDS = 8
PING_WORDS = 3


def _is_ping_question(message: str) -> bool:
    """A question of a word or two with an emoji and nothing else ("lunch? 🍜", "how's
    Munich? 🥨"): a live ping, answered or stale within the hour. A day or a number
    keeps it ("lunch Friday? 🍜")."""
    if "?" not in message or any(ch.isdigit() for ch in message) or has_day_word(message):
        return False
    if not any(unicodedata.category(ch) == "So" for ch in message):
        return False
    sentences = _sentences(message)
    return len(sentences) == 1 and len(_WORDS.findall(message)) <= PING_WORDS


def _only_a_wish(message: str) -> bool:
    """The whole message is one short well-wish ("have a great weekend in Lisbon!!",
    "viel Spaß beim Konzert 🎸"): nothing follows it and it names no day."""
    sentences = _sentences(message)
    return len(sentences) == 1 and len(_WORDS.findall(message)) <= WISH_WORDS \
        and not has_day_word(message)


def social_noise(event: NotificationEvent, text: str) -> str | None:
    """A reason code for reactions, social counts, acknowledgements, digests and news."""
    category = event.category.strip().casefold()
    if category in _NEWS_CATEGORIES:
        return "news"
    if category in DEVICE_STATE_CATEGORIES:
        return "device_state"
    if _REACTION.search(text):
        return "reaction"
    if _SOCIAL_COUNT.search(text):
        return "social_count"
    if _DIGEST.search(text) or _NEWSLETTER.match(event.title) \
            or _NEWSLETTER.match(event.subtitle):
        return "digest"
    message = _message_text(event).strip()
    if _GREETING.match(message) and not any(ch.isdigit() for ch in message) and (
        not any(fold(w) in _TOPIC_WORDS for w in _WORDS.findall(message))
        or _only_a_wish(message)
    ):
        return "chit_chat"
    if _MEDIA_ONLY.match(message):
        return "media_only"
    if is_acknowledgement(message):
        return "acknowledgement"
    if event.category.strip().casefold() in _CHAT_CATEGORIES:
        if is_chit_chat(message) or _is_ping_question(message):
            return "chit_chat"
        if is_thanks(message):
            return "thanks"
        if is_presence_ping(message):
            return "presence_ping"
    return None


REDACTABLE = frozenset(
    {"secret_code", "secret_card", "secret_password", "secret_iban", "secret_account",
     "secret_identity",
     "secret_api_key", "secret_private_key", "secret_seed_phrase", "otp",
     "verification_code"}
)
"""Reasons for which the secret span is redacted and the rest kept, when anything else
remains (see `NoiseFilter.triage`)."""
MIN_WORDS_AFTER_REDACTION = 4
"""What must remain of a redacted notification for it to go on ("Packstation 142, Abholcode
[redacted]" does; "Your code: [redacted]" does not)."""


def _is_cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af"


_TOKENS = re.compile(r"[^\W_]+")


def word_count(text: str) -> int:
    """Words and numbers in `text` (a floor, a locker number, a date say something);
    Chinese, Japanese and Korean, written without spaces, count one word per two
    characters."""
    total = 0
    for word in _TOKENS.findall(text):
        cjk = sum(1 for ch in word if _is_cjk(ch))
        total += max(1, (cjk + 1) // 2 + (1 if cjk < len(word) else 0)) if cjk else 1
    return total


@dataclass(frozen=True, slots=True)
class Triage:
    """What the deterministic triage decided for one notification."""

    reason: str | None
    """The drop reason, or None when the notification goes on to the model."""
    event: NotificationEvent
    """What goes on: the event itself, or a copy with its secret spans redacted."""
    redacted: str | None = None
    """The reason code of the secret that was redacted, if one was."""


def _redacted_event(event: NotificationEvent) -> NotificationEvent:
    """`event` with the secret spans of every field a model sees replaced."""
    return dataclasses.replace(
        event, title=redact(event.title), subtitle=redact(event.subtitle),
        body=redact(event.body), app_id=redact(event.app_id), category=redact(event.category),
    )


def _without_marks(event: NotificationEvent) -> NotificationEvent:
    """`event` with each redaction mark replaced by a sentence break, so that what stood
    around a value is checked again without a secret word reaching past it."""
    return dataclasses.replace(
        event, title=event.title.replace(REDACTED, "."),
        subtitle=event.subtitle.replace(REDACTED, "."), body=event.body.replace(REDACTED, "."),
        app_id=event.app_id.replace(REDACTED, "."), category=event.category.replace(REDACTED, "."),
    )


class NoiseFilter:
    """Deterministic classification of notifications that must not become memories."""

    def triage(self, event: NotificationEvent) -> Triage:
        """Drop noise and code-only messages; redact a secret from anything else.

        A notification that is nothing but a one-time code (`code_message`: it marks the
        code as one-time or has the shape of a code delivery, and no date, time, room or
        other number is left once the code is out) is dropped whole; one that also says
        something worth remembering (a booking with its door PIN, a parcel locker with
        its pickup code, a bill with the IBAN to pay it to, a card in a chat) loses only
        the secret span, in every field the model sees (title, subtitle, body, app id,
        category). When the redacted text still looks secret to `classify` (a kind of
        secret the span finder does not locate), or too little remains, the whole
        notification is dropped.
        """
        reason = self.classify(event)
        if reason not in REDACTABLE:
            return Triage(reason, event)
        body = "\n".join(part for part in (event.subtitle, event.body) if part)
        if code_message(body, event.title):
            return Triage(reason, event)  # nothing but a one-time code
        redacted = _redacted_event(event)
        if self.classify(_without_marks(redacted)) in REDACTABLE:
            return Triage(reason, event)  # a secret is left that no span covers
        noise = self.classify(redacted)
        if noise is not None:
            return Triage(noise, event)
        rest = " ".join((redacted.subtitle, redacted.body)).replace(REDACTED, " ")
        if word_count(rest) < MIN_WORDS_AFTER_REDACTION:
            return Triage(reason, event)
        return Triage(None, redacted, reason)

    def classify(self, event: NotificationEvent) -> str | None:
        """A reason code ("secret_*", "otp", "verification_code", "marketing", "removed",
        "empty", "news", "reaction", "social_count", "digest",
        "chit_chat", "thanks", "presence_ping", "media_only",
        "acknowledgement", "device_state") when
        `event` must not reach the model as it is, else None. Secrets are looked for in
        the title, subtitle, body, app id and category."""
        if event.kind is EventKind.REMOVED:
            return "removed"
        text = "\n".join(part for part in (event.title, event.subtitle, event.body) if part)
        low = _lowered(text)
        secret = find_secret(text, low) or find_secret(event.app_id) or \
            find_secret(event.category)
        if secret is not None:
            return secret
        if not text.strip():
            return "empty"
        if _is_marketing(text, event.category, low) or _MARKETING_MORE.search(text):
            return "marketing"
        return social_noise(event, text)
