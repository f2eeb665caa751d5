"""Deterministic triage before any model: noise by reason, secrets redacted or dropped.

Noise no question needs never becomes memory, in the languages a European phone shows;
ordinary short facts still pass. A secret is redacted from a notification that says
something else worth keeping and the whole notification is dropped when it only
delivers a code.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.secrets import REDACTED, secret_spans

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def ev(
    body: str, title: str = "Anna", category: str = "social", app: str = "x.app"
) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key="k", app_id=app, title=title, body=body,
                                    category=category, posted_at=T0)


@pytest.mark.parametrize(
    ("title", "body", "category", "reason"),
    [
        ("Anna", "ok", "social", "acknowledgement"),
        ("Tom", "👍👍", "social", "acknowledgement"),
        ("Familie", "Papa: Danke dir!", "social", "acknowledgement"),
        ("Instagram", "lena_k hat auf deine Story reagiert ❤️", "social", "reaction"),
        ("Anna", 'Reacted 😂 to "see you at 7"', "social", "reaction"),
        ("Strava", "Jonas hat dir Kudos gegeben", "social", "reaction"),
        ("Instagram", "Du hast 3 neue Follower", "social", "social_count"),
        ("LinkedIn", "You appeared in 12 searches this week", "social", "social_count"),
        ("Zalando", "Nur heute: 30 % auf Frühlingsjacken", "promotion", "marketing"),
        ("Fnac", "Jusqu'à -40 % sur les casques", "other", "marketing"),
        ("Bol", "Tot 50% korting op speelgoed", "other", "marketing"),
        ("App Store", "Updates verfügbar: WhatsApp und 5 weitere Apps.", "other", "digest"),
        ("tagesschau", "Bundestag beschließt Haushalt", "news", "news"),
        ("Deniz", "haha yes 😂 classic Markus", "social", "chit_chat"),
        ("Lucía", "📷 Foto", "social", "media_only"),
        ("Ines", "Thank you so much for the flowers 💐 they look lovely", "social", "thanks"),
        ("Oma", "danke für die schönen Fotos, ich hab mich so gefreut", "social", "thanks"),
        ("Chloé", "Quelle soirée !! Merci encore pour l'invitation", "social", "thanks"),
        ("Marco", "grazie mille per ieri sera, che bello", "social", "thanks"),
        ("Ruben", "on my way 🚲 in 5 min", "social", "presence_ping"),
        ("Papa", "sind gut angekommen, alles prima", "social", "presence_ping"),
        ("Lucía", "ya llegué! estoy en la puerta", "social", "presence_ping"),
        ("Sam", "have a nice holiday in Lisbon!! 🌞", "social", "chit_chat"),
        ("Oma", "viel Spaß beim Konzert 🎸", "social", "chit_chat"),
        ("Ruben", "koffie? ☕", "social", "chit_chat"),
        ("Sam", "how was Lisbon? 🌞", "social", "chit_chat"),
        ("Tom", "ok, nehme ich", "social", "acknowledgement"),
        ("Newsletter April: Neues vom Standort Köln", "Sommerfest und neue Kolleg:innen",
         "email", "digest"),
        # the phone's own category decides, whatever the language
        ("Netflix", "Polecamy: nowy sezon serialu, który może Ci się spodobać",
         "recommendation", "marketing"),
        ("Sistem", "Yedekleme tamamlandı: 1.204 fotoğraf", "sys", "device_state"),
        ("Play Store", "Pobieranie aktualizacji… 48%", "progress", "device_state"),
        ("Maps", "200 m sonra sağa dönün, Bağdat Caddesi", "navigation", "device_state"),
        ("VPN", "接続中: 東京サーバー", "service", "device_state"),
    ],
)
def test_noise_is_dropped_by_reason(title: str, body: str, category: str, reason: str) -> None:
    assert NoiseFilter().triage(ev(body, title, category)).reason == reason


@pytest.mark.parametrize(
    ("title", "body", "category"),
    [
        ("Tom", "Max hat Fieber", "social"),
        ("Anna", "Zug fällt aus, ich komme später", "social"),
        ("N26", "Du hast 94,60 € bei Tierarztpraxis am Mauerpark bezahlt.", "finance"),
        # the rules read no amounts: a threshold in one currency means nothing in another
        ("N26", "Du hast 4,80 € bei einer Bäckerei bezahlt.", "finance"),
        ("Bank", "You paid SGD 6.50 to a hawker stall with your card", "finance"),
        ("DHL", "Erinnerung: Ihre Sendung liegt nur noch heute in der Packstation 142", "other"),
        ("Ben", "I'll send you the newsletter draft tonight", "social"),
        ("Mia", "ok, see you at the station at 18:40", "social"),
        ("Anna", "meet at the museum?", "social"),
        ("Tom", "viel Glück beim Tierarzt! sag Bescheid was Dr. Sommer sagt", "social"),
        # thanks that also says when, how much, or asks something
        ("Ines", "Thanks! The key is under the mat, I'm back on Friday", "social"),
        ("Oma", "Danke! Kannst du Max morgen um 8 abholen?", "social"),
        ("Chloé", "merci ! je te rembourse les 40 € demain", "social"),
        ("Ben", "thanks for the offer, I'll take the 18:40 train", "social"),
        ("Mia", "Danke! Der Schlüssel liegt beim Nachbarn im zweiten Stock links neben der Tür",
         "social"),
        # an arrival with a place or time that matters later
        ("Ruben", "on my way, I'll be at gate B12 by 9", "social"),
        ("Ana", "estoy aquí hasta el viernes", "social"),
        ("DB", "Wir sind da: Ihr Zug hält heute an Gleis 7", "travel"),
        # a wish with more after it, or with a day
        ("Sam", "have a nice holiday! the spare key is with Mrs. Kaya", "social"),
        ("Oma", "viel Spaß beim Konzert am Samstag", "social"),
        # a short question with a day, a number or more after it
        ("Ruben", "koffie vrijdag? ☕", "social"),
        ("Sam", "lunch at 1? 🍜", "social"),
        ("Bolt", "Your driver cancelled. Book again or contact support about the 12 € fee",
         "travel"),
        ("Sam", "how was Lisbon? 🌞 did you get the keys back to Marta", "social"),
        ("Mia", "freu mich auf morgen! Treffpunkt ist der Haupteingang vom Zoo", "social"),
        # categories that say nothing against keeping
        ("PKP Intercity", "Pociąg IC 3510 odjedzie z peronu 4 o 18:40", "transport"),
        ("Takvim", "Yarın 10:00 diş hekimi, Moda Cad. 12", "event"),
        ("Okul", "Veli toplantısı Perşembe 17:30'da", "reminder"),
    ],
)
def test_ordinary_facts_pass(title: str, body: str, category: str) -> None:
    assert NoiseFilter().triage(ev(body, title, category)).reason is None


@pytest.mark.parametrize(
    ("body", "secret"),
    [
        ("Ihr Zimmer 512 ist bereit, Türcode: 8862. Frühstück von 6:30 bis 10:30 Uhr.", "8862"),
        ("Packstation 142, Abholcode: 553201. Bitte bis Mi., 11.03. abholen.", "553201"),
        ("The keys are in a key box left of the green door, the code is 4 7 1 9. Enjoy!",
         "4 7 1 9"),
        ("Il codice del lucchetto è 3-8-1-1, la bici è quella verde davanti all'ufficio",
         "3-8-1-1"),
        ("Je fiets staat klaar bij het station. Je slotcode is 6 0 1 2. Terugbrengen zondag.",
         "6 0 1 2"),
        ("Le digicode de l'immeuble est 47B19, c'est au 4e étage, porte de droite.", "47B19"),
        ("Router getauscht, das WLAN heißt Dunckerbude, Passwort: Sonnenblume2024! – für "
         "deinen Laptop", "Sonnenblume2024!"),
        ("hier die Kreditkarte für die Tickets: 4921 5583 0712 6640, Konzert am Freitag",
         "4921 5583 0712 6640"),
    ],
)
def test_a_secret_beside_a_fact_is_redacted_and_the_rest_kept(body: str, secret: str) -> None:
    triage = NoiseFilter().triage(ev(body, "Hotel", "other"))
    assert triage.reason is None and triage.redacted is not None
    assert secret not in triage.event.body and REDACTED in triage.event.body
    kept = body.replace(secret, "")
    assert all(word in triage.event.body for word in kept.split()[:3])


@pytest.mark.parametrize(
    "body",
    [
        "Dein N26 Anmeldecode lautet 66 21 08. Gib ihn niemals weiter.",
        "PayPal: Dein Sicherheitscode lautet 318-774. Teile diesen Code mit niemandem.",
        "Ihr Eurowings-Bestätigungscode lautet 5580-21. Der Code ist 15 Minuten gültig.",
        "Il tuo codice di verifica è 481 220. Non condividerlo.",
        "Votre code de vérification est 993 104.",
        "Uw verificatiecode is 55 12 90",
        "Twój kod weryfikacyjny to 440 119",
        "Ваш код подтверждения: 731 992",
        "您的验证码是 556 091",
        "認証コード: 118 224",
    ],
)
def test_a_code_only_message_is_dropped_whole(body: str) -> None:
    assert NoiseFilter().triage(ev(body, "Bank", "finance")).reason is not None


@pytest.mark.parametrize(
    "text",
    ["Meeting at 10:30 in room 4.11", "Order 12345 shipped", "ICE 1234 from platform 7",
     "Der Code ist 15 Minuten gültig", "Barcode 4006381333931 on the box",
     "Postcode 10435 Berlin", "Zimmer 512, Frühstück ab 6:30"],
)
def test_numbers_that_are_not_secrets_are_left_alone(text: str) -> None:
    assert secret_spans(text) == []
