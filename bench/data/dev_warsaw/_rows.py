# -*- coding: utf-8 -*-
"""Hand-written source rows for the dev_warsaw corpus.

Times are Warsaw local time (CET, UTC+1) in the form "MM-DD HH:MM" (year 2025).
_build.py sorts them, assigns ids and keys, converts to UTC and writes the jsonl.
"""

WA = "com.whatsapp"
SMS = "com.google.android.apps.messaging"
MSGR = "com.facebook.orca"
TEAMS = "com.microsoft.teams"
OUTLOOK = "com.microsoft.office.outlook"
GMAIL = "com.google.android.gm"
GCAL = "com.google.android.calendar"
DIAL = "com.google.android.dialer"
INPOST = "pl.inpost.inpostmobile"
ALLEGRO = "pl.allegro"
ZALANDO = "de.zalando.mobile"
MBANK = "pl.mbank"
REVOLUT = "com.revolut.revolut"
PKP = "pl.pkp.intercity"
JAK = "com.citynav.jakdojade.pl.android"
ZABKA = "pl.zabka.apb2c"
LIDL = "com.lidl.eci.lidlplus"
BOOKING = "com.booking"
WIZZ = "com.wizzair.WizzAirApp"
AIRBNB = "com.airbnb.android"
LOT = "com.lot.mobile"
MEDICOVER = "com.medicover.mymedicover"
GLOVO = "com.glovo"
UBER = "com.ubercab"
BOLT = "ee.mtakso.client"
ONET = "pl.onet.onetapp"
WEATHER = "com.accuweather.android"
CANDY = "com.king.candycrushsaga"
CLASH = "com.supercell.clashroyale"
DUO = "com.duolingo"
NETFLIX = "com.netflix.mediaclient"
SPOTIFY = "com.spotify.music"
INSTA = "com.instagram.android"
STRAVA = "com.strava"
GITHUB = "com.github.android"
JIRA = "com.atlassian.android.jira.core"
REDDIT = "com.reddit.frontpage"
MEDIUM = "com.medium.reader"
STEAM = "com.valvesoftware.android.steam.community"
SLACK = "com.Slack"
MACKOLIK = "com.kokteyl.mackolik"
HURRIYET = "com.hurriyet.android"
TRENDYOL = "trendyol.com"

ROWS = []


def add(t, app, title, body, cat, label, lang, sub="", secrets=(), key=None, ref=None):
    ROWS.append(dict(t=t, kind="added", app=app, key=key, title=title, subtitle=sub,
                     body=body, category=cat, label=label, secrets=list(secrets),
                     lang=lang, ref=ref))


def mod(t, app, key, title, body, cat, label, lang, sub="", secrets=(), ref=None):
    ROWS.append(dict(t=t, kind="modified", app=app, key=key, title=title, subtitle=sub,
                     body=body, category=cat, label=label, secrets=list(secrets),
                     lang=lang, ref=ref))


def rem(t, app, key, cat="other"):
    ROWS.append(dict(t=t, kind="removed", app=app, key=key, title="", subtitle="",
                     body="", category=cat, label="noise", secrets=[], lang="und",
                     ref=None))


# ---------------------------------------------------------------- Mon 03-03
add("03-03 06:40", WEATHER, "Warszawa: 2°C, rano przymrozek",
    "Uważaj na oblodzone chodniki do ok. 9:00. Po południu pochmurno, do 7°C.",
    "news", "noise", "pl")
add("03-03 07:05", WA, "Annem",
    "Günaydın oğlum, bugün işe gidiyor musun? Oralarda hava çok soğukmuş, kalın giy sakın 🧣",
    "social", "noise", "tr")
add("03-03 07:38", JAK, "Zmiany w komunikacji: tramwaje 17 i 33",
    "Od 3.03 do 16.03 tramwaje linii 17 i 33 jeżdżą objazdem ulicą Puławską z powodu remontu "
    "torowiska na Woronicza. Przystanek Odyńca 02 zawieszony.",
    "location", "keep", "pl", ref="tram")
add("03-03 08:52", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Huomenta! Sprintin katselmointi siirtyy torstaille klo 14 Suomen aikaa, "
    "eli teillä Varsovassa klo 13. Laitan uuden kutsun.",
    "social", "keep", "fi", ref="sprint1")
add("03-03 09:04", OUTLOOK, "Zaktualizowane zaproszenie: Sprint 14 – katselmointi",
    "to 6.3.2025 klo 13.00–14.00 · Neuvotteluhuone Näsijärvi (4. krs), Varsovan toimisto / Teams",
    "schedule", "keep", "fi", sub="Jussi Heikkinen", key="outlook-s14", ref="room1")
add("03-03 10:18", ALLEGRO, "Dziękujemy za zakup!",
    "Słuchawki Sony WH-CH720N – zamówienie opłacone. Dostawa: Paczkomat InPost WAW231M, "
    "przewidywana śr. 5.03.",
    "other", "keep", "pl", ref="allegro_sony")
add("03-03 12:27", WA, "Magda ❤️",
    "Kupisz w drodze mleko owsiane i coś na kolację? Ja dziś siedzę w studiu do 18",
    "social", "noise", "pl")
add("03-03 13:14", GITHUB, "vireo/checkout-web",
    "Review requested: #482 Fix flaky payment e2e test (aino-l)",
    "other", "noise", "en")
add("03-03 15:41", WA, "Yıldızlar 🏠",
    "Elif: Müjdeee! Sözün tarihi kesinleşti: 17 Mayıs Cumartesi, akşam 7'de bizim evde 💍 "
    "Abi sen gelebilecek misin? Bileti şimdiden al, sonra çok pahalanıyor 🙏",
    "social", "keep", "tr", ref="soz1")
add("03-03 15:50", WA, "Yıldızlar 🏠",
    "Annem: Maşallah kızım 🧿🧿 Allah tamamına erdirsin",
    "social", "noise", "tr")
add("03-03 17:04", MACKOLIK, "Göztepe 1-1 Eyüpspor (MS)",
    "Maç sona erdi. Göztepe evinde 1 puanla yetindi.",
    "news", "noise", "tr")
add("03-03 21:08", SMS, "Teresa Wrona",
    "Emre, w niedzielę obiad u nas o 14:00, Kuba też będzie. Magda mówiła, że w sobotę "
    "pomagasz koledze, to chociaż w niedzielę przyjedźcie 😊",
    "social", "keep", "pl", ref="obiad1")
add("03-03 22:15", WA, "Annem",
    "Oğlum oruç tutuyor musun orada? Tutamıyorsan da dert etme, iş yorucu. Sahura kalkarsan "
    "bir mesaj at",
    "social", "noise", "tr")

# ---------------------------------------------------------------- Tue 03-04
add("03-04 06:48", WEATHER, "Warszawa: 5°C, deszcz ze śniegiem",
    "Przelotne opady deszczu ze śniegiem do południa. Wiatr w porywach do 40 km/h.",
    "news", "noise", "pl")
add("03-04 08:09", TEAMS, "Aino Laaksonen",
    "Moi Emre! Tuun Varsovaan ensi viikolla, ti–to 11.–13.3. Ehdittäisiinkö käydä se "
    "regressiosetti läpi yhdessä? Varaisin vaikka keskiviikon aamupäivän, jos sulle sopii.",
    "social", "keep", "fi", ref="aino_visit")
add("03-04 10:44", WA, "Burak",
    "Abi bu cumartesi taşınıyorum ya, sabah 10'da eski eve gelebilir misin? Kamyonet 10.30'da "
    "geliyor, yeni evde 3. kat ve asansör yok 😅 Öğlen pizza benden",
    "social", "keep", "tr", ref="move1")
add("03-04 11:32", INPOST, "Paczka nadana",
    "Nadawca: AudioPunkt (Allegro). Numer przesyłki: 620411887730229154017. Damy znać, "
    "kiedy ruszy w drogę.",
    "other", "noise", "pl", key="inpost-sony")
add("03-04 12:14", GLOVO, "Zamówienie przyjęte 🛵",
    "Kebab King Puławska przygotowuje Twoje zamówienie. Szacowany czas dostawy: 12:45.",
    "location", "noise", "pl", key="glovo-0304")
mod("03-04 12:33", GLOVO, "glovo-0304", "Kurier jest w drodze 🛵",
    "Oskar odebrał Twoje zamówienie i będzie u Ciebie za ok. 10 min.",
    "location", "noise", "pl")
add("03-04 14:21", JIRA, "QA-1317 assigned to you",
    "Checkout: discount code not applied after currency switch (PLN → EUR). Priority: High. "
    "Reporter: Jussi Heikkinen",
    "other", "keep", "en", ref="jira1317")
add("03-04 16:05", MSGR, "Bence Farkas",
    "Szia Emre! Na, eldöntöttem: a 30. szülinapomat Budapesten ünneplem, március 21–23. "
    "Jöttök Magdával? 🙏 Dóra már nézi a szállást",
    "social", "keep", "hu", ref="bence_trip")
add("03-04 16:07", MSGR, "Bence Farkas",
    "A repjegyet érdemes most megvenni, Wizzen még 200 zloty körül van oda-vissza",
    "social", "noise", "hu")
add("03-04 18:41", WA, "Magda ❤️",
    "Bence napisał też do mnie 😄 Jedźmy! Tylko w poniedziałek 24.03 mam rano klienta, więc "
    "wracamy najpóźniej w niedzielę wieczorem",
    "social", "keep", "pl", ref="magda_bp")
add("03-04 20:32", NETFLIX, "Nowość w Netflix",
    "Nowy serial „Pod Wawelem” – wszystkie odcinki już dostępne.",
    "entertainment", "noise", "pl")
add("03-04 22:14", DUO, "Duolingo",
    "Emre, Twoja seria 41 dni jest zagrożona! 🦉 Zrób jedną lekcję węgierskiego.",
    "other", "noise", "pl")

# ---------------------------------------------------------------- Wed 03-05
mod("03-05 07:08", INPOST, "inpost-sony", "Paczka w drodze 🚚",
    "Przesyłka od AudioPunkt dotrze dziś do Paczkomatu WAW231M, ul. Racławicka 99 (przy Żabce).",
    "other", "keep", "pl", ref="sony_transit")
add("03-05 07:55", WA, "Yıldızlar 🏠",
    "Babam: Emre oğlum, annen nisanda sana gelmek istiyor. 10 Nisan için bilet bakıyoruz, sen o "
    "hafta izin alabilir misin?",
    "social", "keep", "tr", ref="mom0")
add("03-05 08:31", MEDICOVER, "Przypomnienie o wizycie",
    "11.03.2025, godz. 10:30 – Stomatologia, lek. dent. Paweł Grabowski. Medicover Atrium, "
    "al. Jana Pawła II 27. Odwołaj w aplikacji, jeśli nie możesz przyjść.",
    "health_and_fitness", "keep", "pl", ref="dent1")
add("03-05 09:02", WA, "Annem",
    "Oğlum babanın mesajını gördün mü? Çok heyecanlandım, Magda'nın ailesiyle de tanışırım "
    "artık inşallah",
    "social", "noise", "tr")
add("03-05 09:38", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Muistutus: 4.2-release on edelleen suunniteltu perjantaille 14.3. Kaikki "
    "blokkerit pitää olla Jirassa keskiviikkoon 12.3. mennessä.",
    "social", "keep", "fi", ref="release1")
add("03-05 10:15", MSGR, "Bence Farkas",
    "Dóra mondta, hogy magyarul tanulsz 😂 Na, mondd szépen: egészségedre!",
    "social", "noise", "hu")
add("03-05 12:39", INPOST, "Paczka czeka na odbiór 📦",
    "Paczkomat WAW231M, ul. Racławicka 99. Kod odbioru: 583904. Odbierz do pt. 7.03, 12:39.",
    "other", "secret", "pl", secrets=["583904"], key="inpost-sony-ready", ref="sony_code")
rem("03-05 12:40", INPOST, "inpost-sony")
add("03-05 13:18", WA, "Magda ❤️",
    "Pamiętasz, że w środę 12.03 idę do dentysty? Dentim na Puławskiej, 17:30, dr Zielińska. "
    "Wrócę późno, zjedz beze mnie",
    "social", "keep", "pl", ref="mdent1")
add("03-05 14:02", TRENDYOL, "Siparişin teslim edildi ✅",
    "Karaca Hatır çaydanlık siparişin teslim edildi. Ürünü değerlendirmeyi unutma!",
    "other", "keep", "tr", ref="trendyol_deliv")
add("03-05 15:29", LIDL, "Lidl Plus",
    "Kupon tygodnia: -30% na kawę ziarnistą ☕ Aktywuj w aplikacji do niedzieli.",
    "other", "noise", "pl")
rem("03-05 17:47", INPOST, "inpost-sony-ready")
add("03-05 19:20", WA, "Annem",
    "Oğlum çaydanlık geldi, çok güzelmiş 😍 Kutusu biraz ezilmişti ama içi sapasağlam, "
    "sağ ol yavrum",
    "social", "keep", "tr", ref="kettle")
add("03-05 21:03", WA, "Yıldızlar 🏠",
    "Can: Ben söze gelemeyebilirim ya 😕 18 Mayıs'ta finalim var, sabah 9'da sınavdayım",
    "social", "keep", "tr", ref="can_exam")

# ---------------------------------------------------------------- Thu 03-06
add("03-06 08:03", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Huom! Näsijärvi onkin varattu, joten katselmointi pidetään "
    "Pyhäjärvi-huoneessa (3. krs). Aika pysyy samana, teillä klo 13.",
    "social", "keep", "fi", ref="room2")
mod("03-06 08:05", OUTLOOK, "outlook-s14", "Zaktualizowane zaproszenie: Sprint 14 – katselmointi",
    "to 6.3.2025 klo 13.00–14.00 · Neuvotteluhuone Pyhäjärvi (3. krs), Varsovan toimisto / Teams",
    "schedule", "keep", "fi", sub="Jussi Heikkinen", ref="room2b")
add("03-06 09:14", SMS, "GARANTI BBVA",
    "Garanti BBVA: 06.03.2025 09:14 internet bankaciligi girisiniz icin tek kullanimlik "
    "sifreniz: 731406. Bu sifreyi kimseyle paylasmayiniz.",
    "social", "secret", "tr", secrets=["731406"], key="garanti-otp-0306")
add("03-06 09:16", SMS, "GARANTI BBVA",
    "Garanti BBVA: 4.500,00 TL tutarindaki FAST isleminiz ELIF YILDIZ adina basariyla "
    "gerceklestirilmistir.",
    "social", "keep", "tr", ref="fast_elif")
rem("03-06 09:20", SMS, "garanti-otp-0306", cat="social")
add("03-06 10:31", WA, "Elif",
    "Abi para geldi, çok sağ ol 🙏🙏 Cumartesi Mert'le yüzükleri almaya gidiyoruz, fotoğraf atarım",
    "social", "noise", "tr", ref="elif_money")
add("03-06 11:47", REDDIT, "r/QualityAssurance",
    "Is Selenium dead in 2025? Honest opinions please (212 comments)",
    "social", "noise", "en")
add("03-06 14:28", TEAMS, "Aino Laaksonen",
    "Kiitos demosta, hyvin meni! 👏 Muuten: lento laskeutuu Chopinin kentälle ti 11.3. klo 10.05 "
    "(AY741), tulen sieltä suoraan toimistolle.",
    "social", "keep", "fi", ref="aino_flight")
add("03-06 16:18", WA, "Halı Saha Varşova ⚽",
    "Burak: Beyler bu akşam 20:00 Orlik Szczęśliwice, 10 kişiyiz. Serkan topu unutma!",
    "social", "keep", "tr", ref="foot1")
add("03-06 17:31", STRAVA, "Strava",
    "Tomek i 3 inne osoby dały kudos za Twój bieg „Poranny bieg – Pole Mokotowskie”.",
    "health_and_fitness", "noise", "pl")
add("03-06 22:27", WA, "Halı Saha Varşova ⚽",
    "Serkan: İyi maçtı beyler 👏 Haftaya perşembe aynı saat, 20:00",
    "social", "keep", "tr", ref="foot1b")

# ---------------------------------------------------------------- Fri 03-07
add("03-07 07:02", SMS, "Andrzej Kowalczyk",
    "Dzień dobry Panie Emre, piszę w sprawie umowy. Od 1 kwietnia muszę niestety podnieść czynsz "
    "do 3400 zł, bo wspólnota podniosła zaliczki, a do tego wzrósł podatek od nieruchomości. "
    "Media bez zmian, rozliczamy jak dotąd według liczników. Wiem, że to spora podwyżka, więc "
    "jeśli chcą Państwo porozmawiać, jestem dostępny w weekend pod telefonem. Przy okazji proszę "
    "o przesłanie zdjęć liczników wody do 10 marca. Pozdrawiam serdecznie, Andrzej Kowalczyk",
    "social", "keep", "pl", ref="rent1")
add("03-07 08:10", WA, "Annem",
    "Hayırlı Cumalar oğlum 🌹🌹",
    "social", "noise", "tr")
add("03-07 08:44", TEAMS, "Priya Nair",
    "Hey Emre, heads up: the staging DB is down for maintenance on Saturday 8:00–12:00 CET, in "
    "case you planned any weekend runs.",
    "social", "keep", "en", ref="priya_db")
add("03-07 10:08", ZALANDO, "Zamówienie wysłane 📦",
    "Adidas Samba OG, rozm. 39 – dostawa do Paczkomatu InPost WAW18A (ul. Odyńca 41). "
    "Przewidywana dostawa: pon. 10.03.",
    "other", "keep", "pl", ref="zal1")
add("03-07 12:13", ZABKA, "Żabka",
    "Hot-dog + napój za 7,99 zł tylko dziś 🌭 Pokaż kod w aplikacji przy kasie.",
    "other", "noise", "pl")
add("03-07 13:40", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Sziasztok! Megvan a szállás: Király utca 26, VII. kerület, három háló, péntektől "
    "vasárnapig. Fejenként kb. 95 euró. Aki jön, pls írja meg ide csütörtökig, hogy "
    "véglegesíteni tudjam!",
    "social", "keep", "hu", ref="apt1")
add("03-07 13:52", MSGR, "Bence 30 – Budapest 🎂",
    "Réka: Én is megyek, de csak szombat reggel érkezem, pénteken dolgozom 😕",
    "social", "keep", "hu", ref="reka1")
add("03-07 14:58", SMS, "mBank",
    "mBank: Haslo 3D Secure do platnosci 389,98 PLN w WIZZAIR.COM: 5620 1183. Nie podawaj go "
    "nikomu.",
    "social", "secret", "pl", secrets=["5620 1183"], key="mbank-3ds-0307")
add("03-07 15:02", WIZZ, "Rezerwacja potwierdzona ✈️",
    "Kod rezerwacji: QX7P2M. W6 1327 WAW → BUD, pt. 21.03, odlot 18:40. W6 1328 BUD → WAW, "
    "nd. 23.03, odlot 20:15. Pasażerowie: 2.",
    "other", "keep", "pl", ref="wizz1")
rem("03-07 15:05", SMS, "mbank-3ds-0307", cat="social")
add("03-07 17:19", WA, "Magda ❤️",
    "Kupiłeś już loty? 😍 To ja biorę wolne w piątek od 15",
    "social", "noise", "pl")
add("03-07 18:29", BOLT, "Kierowca w drodze",
    "Rafał przyjedzie za 4 min · Toyota Corolla, szara, WX 4821K",
    "location", "noise", "pl", key="bolt-0307")
mod("03-07 18:33", BOLT, "bolt-0307", "Kierowca czeka",
    "Rafał czeka na Ciebie · Toyota Corolla, szara, WX 4821K",
    "location", "noise", "pl")
add("03-07 20:44", GLOVO, "Glovo",
    "Głodny? -40% na sushi tylko dziś wieczorem 🍣",
    "other", "noise", "pl")
add("03-07 23:09", WA, "Burak",
    "Abi yarın 10 değil 11'de gel, kamyoncu aradı, 11.30'a kaydırdı. Önce eski eve gel, "
    "Belgijska 6, oradan beraber geçeriz Grochów'a",
    "social", "keep", "tr", ref="move2")

# ---------------------------------------------------------------- Sat 03-08
add("03-08 07:30", WEATHER, "Słoneczna sobota ☀️",
    "Warszawa: do 12°C, bez opadów. Idealny dzień na spacer.",
    "news", "noise", "pl")
add("03-08 08:02", PKP, "Bilet kupiony 🎫",
    "EIP 1302 Warszawa Centralna 08:35 → Kraków Główny 10:57, sob. 15.03. Wagon 7, miejsca 45 i "
    "46. Pasażerowie: 2.",
    "other", "keep", "pl", ref="pkp1")
add("03-08 09:21", WA, "Magda ❤️",
    "Dzięki za bilety do Krakowa 😘 Powrót kupiłam ja, niedziela 16.03 o 17:05 z Głównego. Ola "
    "prosi, żebyśmy byli u niej przed 19",
    "social", "keep", "pl", ref="krk_magda")
add("03-08 10:05", WA, "Yıldızlar 🏠",
    "Can: Günaydın ailem ☀️ Hafta sonu planı olan var mı, ben kütüphanedeyim yine 😩",
    "social", "noise", "tr")
add("03-08 14:02", WA, "Yıldızlar 🏠",
    "Elif: 📷 Yüzükler alındı!! 💍💍 Mert'inki biraz büyük geldi, küçülttüreceğiz",
    "social", "noise", "tr")
add("03-08 14:06", WA, "Yıldızlar 🏠",
    "Annem: 🧿🧿🧿😍😍",
    "social", "noise", "und")
add("03-08 16:41", SMS, "Teresa Wrona",
    "Emre, zmiana planów: jutro obiad jednak o 13:00, bo dziadek musi wcześniej wracać do "
    "Grójca. Jakby nas nie było przy furtce, kod ten sam co zawsze: 1946#",
    "social", "secret", "pl", secrets=["1946#"], ref="obiad2")
add("03-08 18:19", CLASH, "Clash Royale",
    "Twoja skrzynia jest gotowa do otwarcia! 🏆",
    "entertainment", "noise", "pl")
add("03-08 19:33", MSGR, "Bence Farkas",
    "Láttam, megvettétek a jegyet 😎 Szombat este a Mazel Tovban vacsorázunk, 8-ra foglaltam "
    "asztalt 12 főre",
    "social", "keep", "hu", ref="dinner1")
add("03-08 21:02", ONET, "Onet",
    "Pilne: TOPR ostrzega przed lawinami w Tatrach. Obowiązuje trzeci stopień zagrożenia.",
    "news", "noise", "pl")
add("03-08 21:40", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Hyvää naistenpäivää kaikille! 🌷",
    "social", "noise", "fi")

# ---------------------------------------------------------------- Sun 03-09
add("03-09 08:12", WA, "Annem",
    "Oğlum bugün kayınvalidenlere gidiyormuşsunuz, benden çok selam söyle. Magda'ya da "
    "öpücükler 😘",
    "social", "noise", "tr")
add("03-09 10:00", GCAL, "Obiad u rodziców Magdy",
    "Dziś 14:00–17:00 · Piaseczno, ul. Kościuszki 14",
    "schedule", "keep", "pl", ref="obiad_cal")
add("03-09 11:47", WA, "Magda ❤️",
    "Mama prosi, żeby kupić po drodze sernik z Lidla 😅 Wyjeżdżamy 12:20",
    "social", "noise", "pl", key="wa-magda-sernik")
mod("03-09 11:49", WA, "wa-magda-sernik", "Magda ❤️",
    "Mama prosi, żeby kupić po drodze sernik z Lidla 😅 Wyjeżdżamy 12:10",
    "social", "noise", "pl")
add("03-09 12:04", DIAL, "Teresa Wrona",
    "Połączenie przychodzące",
    "incoming_call", "noise", "pl", key="call-0309")
rem("03-09 12:05", DIAL, "call-0309", cat="incoming_call")
add("03-09 12:14", UBER, "Uber",
    "Kierowca Marek przyjedzie za 3 min · Škoda Octavia, WY 7730C",
    "location", "noise", "pl")
add("03-09 15:31", WA, "Yıldızlar 🏠",
    "Can: Ankara'da lapa lapa kar yağıyor millet ❄️❄️ Mart ayındayız ya",
    "social", "noise", "tr")
add("03-09 17:02", MACKOLIK, "Göztepe 2-0 Kasımpaşa (MS)",
    "Göztepe ikinci yarıda bulduğu gollerle 3 puanı aldı.",
    "news", "noise", "tr")
add("03-09 19:42", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Véglegesítettem a szállást! 🎉 Király utca 26, 2. emelet 8. A bejutásról a "
    "szállásadó pár nappal előtte ír.",
    "social", "keep", "hu", ref="apt2")
add("03-09 20:15", WA, "Babam",
    "Emre maçı izledin mi? Göztepe bu sene ligde kalır inşallah 😄",
    "social", "noise", "tr")
add("03-09 22:01", SPOTIFY, "Spotify",
    "Twoja playlista „Odkryj w tym tygodniu” jest gotowa.",
    "entertainment", "noise", "pl")

# ---------------------------------------------------------------- Mon 03-10
add("03-10 07:52", JAK, "Odjazd za 5 min",
    "Tramwaj 18 → Żerań Wschodni odjeżdża o 07:57 z przystanku Racławicka 01.",
    "location", "noise", "pl")
add("03-10 08:20", SMS, "Medicover",
    "Medicover: Wizyta 11.03 godz. 10:30 u lek. dent. P. Grabowskiego zostala przeniesiona z "
    "powodu choroby lekarza. Nowy termin: 13.03 godz. 16:00, Medicover Atrium. Jesli termin nie "
    "pasuje, zmien go w aplikacji.",
    "social", "keep", "pl", ref="dent2")
add("03-10 10:14", INPOST, "Zmiana Paczkomatu 🔁",
    "Paczkomat WAW18A (ul. Odyńca 41) jest pełny. Przesyłkę od Zalando dostarczymy do "
    "Paczkomatu WAW40M, ul. Puławska 122 (stacja Orlen).",
    "other", "keep", "pl", ref="zal2")
add("03-10 11:08", TEAMS, "QA-tiimi 🧪",
    "Aino Laaksonen: Huomenna nähdään Varsovassa! Tuon teille Fazerin sinistä 😄",
    "social", "noise", "fi")
add("03-10 11:50", TEAMS, "Aino Laaksonen",
    "Moi! Tässä vähän tarkempi suunnitelma mun Varsovan-reissulle: tiistaina tulen kentältä "
    "suoraan toimistolle ja iltapäivällä käydään Priyan kanssa läpi testiympäristöt. "
    "Keskiviikkona aamupäivällä on meidän regressiosessio, ja iltapäivällä haluaisin nähdä, "
    "miten te ajatte maksutestit käsin. Torstaina ehditään vielä aamukahville, lähden kentälle "
    "kolmelta. Majoitun muuten Hotel Indigossa Nowy Świat -kadulla, jos sitä tarvitsee tietää. "
    "Voisitko varata meille keskiviikoksi illallisen johonkin hyvään puolalaiseen paikkaan? "
    "Pierogeja on pakko saada! 😄 Kiitos jo etukäteen, tästä tulee hyvä viikko!",
    "social", "keep", "fi", ref="aino_agenda")
add("03-10 12:28", WA, "Halı Saha Varşova ⚽",
    "Burak: Beyler bu perşembe maç yok, Orlik'te okulların turnuvası var. Cuma 19:00'a aldım, "
    "aynı yer. Gelemeyen yazsın",
    "social", "keep", "tr", ref="foot2")
add("03-10 13:41", INPOST, "Paczka czeka na odbiór 📦",
    "Paczkomat WAW40M, ul. Puławska 122 (stacja Orlen). Kod odbioru: 207415. Odbierz do śr. "
    "12.03, 13:41.",
    "other", "secret", "pl", secrets=["207415"], key="inpost-zal-ready", ref="zal_code")
add("03-10 16:33", WA, "Magda ❤️",
    "Przyszły moje sambisy?? 😍 Odbierzesz jak będziesz wracał? Tylko uważaj, nie ten paczkomat "
    "pod domem, tylko ten na Puławskiej przy Orlenie",
    "social", "keep", "pl", ref="magda_shoes")
add("03-10 18:02", SMS, "Teresa Wrona",
    "Dziękujemy za wczoraj, kochani ❤️ Magda zostawiła u nas zielony szalik, oddam Wam w "
    "Wielkanoc",
    "social", "keep", "pl", ref="scarf")
rem("03-10 19:12", INPOST, "inpost-zal-ready")
add("03-10 19:13", INPOST, "Paczka odebrana ✔️",
    "Przesyłka od Zalando została odebrana z Paczkomatu WAW40M.",
    "other", "noise", "pl", ref="zal_picked")
add("03-10 20:31", MSGR, "Bence Farkas",
    "Emre, tudnátok hozni lengyel vodkát? Egy Żubrówkát kérnék a szülinapomra 😁",
    "social", "keep", "hu", ref="vodka")
add("03-10 21:15", WA, "Deniz",
    "Emre abi selam! Erasmus için Varşova'yı düşünüyorum, SGH mi daha iyi sence yoksa Politechnika "
    "mı? Bir de yurtlar pahalı mı oralarda?",
    "social", "keep", "tr", ref="deniz")

# ---------------------------------------------------------------- Tue 03-11
add("03-11 06:50", WEATHER, "Warszawa: 9°C, przejaśnienia",
    "Najcieplejszy dzień tygodnia, po południu nawet 12°C.",
    "news", "noise", "pl")
add("03-11 07:41", SMS, "Andrzej Kowalczyk",
    "Dzień dobry, przypominam o zdjęciach liczników (termin minął wczoraj 🙂). I proszę dać znać "
    "w sprawie czynszu.",
    "social", "noise", "pl")
add("03-11 08:15", SMS, "Microsoft",
    "Kod zabezpieczający konta Microsoft: 418227. Jeśli to nie Ty, zignoruj tę wiadomość.",
    "social", "secret", "pl", secrets=["418227"], key="ms-code-0311")
rem("03-11 08:18", SMS, "ms-code-0311", cat="social")
add("03-11 09:31", TEAMS, "Aino Laaksonen",
    "Kone lähti Helsingistä puolitoista tuntia myöhässä 😩 Oon toimistolla vasta joskus puoli "
    "kahdeltatoista.",
    "social", "keep", "fi", ref="aino_late")
add("03-11 10:06", TEAMS, "QA-tiimi 🧪",
    "Mikko Rantanen: Kuka on taas kaatanut stagingin? 😅 Kaikki testit punaisella",
    "social", "noise", "fi")
add("03-11 10:22", TEAMS, "QA-tiimi 🧪",
    "Mikko Rantanen: Stagingin admin-tunnus on nyt qa_admin / Talvi#2025, vaihdetaan "
    "perjantaina. Älkää laittako tätä mihinkään muualle 🙏",
    "social", "secret", "fi", secrets=["Talvi#2025"], ref="staging_pw")
add("03-11 11:20", WA, "Yıldızlar 🏠",
    "Babam: Emre, annenin biletini aldık. THY, 10 Nisan Perşembe, İzmir–İstanbul–Varşova. "
    "Varşova'ya saat 16:40'ta iniyor. PNR: TXK4LM",
    "social", "keep", "tr", ref="mom1")
add("03-11 11:26", WA, "Yıldızlar 🏠",
    "Annem: Oğlum havaalanına sen gelirsin di mi? Ben o kadar İngilizce bilmem, kaybolurum 😅",
    "social", "keep", "tr", ref="mom_airport")
add("03-11 12:40", TEAMS, "QA-tiimi 🧪",
    "Priya Nair: Aino, guest wifi is VIREO-GUEST, password kawa4Ever! Welcome to Warsaw 😄",
    "social", "secret", "en", secrets=["kawa4Ever!"])
add("03-11 14:10", GITHUB, "vireo/checkout-web",
    "CI failed on main: e2e/payment.spec.ts – 3 failing, 141 passed",
    "other", "noise", "en")
add("03-11 17:08", HURRIYET, "Son Dakika",
    "İzmir Bayraklı açıklarında 4,3 büyüklüğünde deprem. AFAD: Deprem 7 km derinlikte meydana "
    "geldi.",
    "news", "noise", "tr")
add("03-11 17:13", WA, "Yıldızlar 🏠",
    "Elif: Biz iyiyiz, merak etmeyin! Biraz sallandı sadece, kimseye bir şey olmadı",
    "social", "keep", "tr", ref="quake_ok")
add("03-11 17:19", WA, "Annem",
    "Oğlum korkma biz iyiyiz, babanla zaten bahçedeydik. Sen aklını buraya takma",
    "social", "noise", "tr")
add("03-11 19:02", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Ikäviä uutisia, porukka. Release 4.2 siirtyy perjantailta 14.3. "
    "keskiviikolle 19.3. Syy on se, että maksupalvelun tarjoaja muuttaa rajapintaansa vasta ensi "
    "maanantaina, eikä meidän kannata julkaista ennen kuin uusi integraatio on testattu kunnolla. "
    "Blokkerit pitää nyt kirjata Jiraan maanantaihin 17.3. mennessä. Varsovan porukka: Emre ja "
    "Priya, te otatte maksupuolen regressiot, Tampereella Mikko hoitaa mobiilin. Code freeze on "
    "tiistaina klo 12 Suomen aikaa. Kysykää, jos jokin on epäselvää!",
    "social", "keep", "fi", ref="release2")
add("03-11 20:11", WA, "Varşova Türk Topluluğu 🇹🇷🇵🇱",
    "Hakan: Değerli üyeler, geleneksel iftar yemeğimiz 15 Mart Cumartesi 17:45'te Wola'daki "
    "Anatolia Restaurant'ta (ul. Wolska 88). Kişi başı 90 zł, katılmak isteyenler 12 Mart "
    "akşamına kadar bana yazsın 🙏",
    "social", "keep", "tr", ref="iftar1")
add("03-11 21:33", CANDY, "Candy Crush Saga",
    "Nowe wydarzenie: Słodka Wiosna 🌸 Zagraj teraz!",
    "entertainment", "noise", "pl")

# ---------------------------------------------------------------- Wed 03-12
add("03-12 08:58", TEAMS, "Aino Laaksonen",
    "Oon jo Wisłassa, kahvi odottaa ☕",
    "social", "noise", "fi")
add("03-12 10:44", SMS, "Pierogarnia Stary Młyn",
    "Rezerwacja potwierdzona: śr. 12.03, godz. 19:00, 4 os., na nazwisko Yildiz. ul. Nowy Świat "
    "41. W razie zmian prosimy o kontakt.",
    "social", "keep", "pl", ref="pierog_res")
add("03-12 11:30", SMS, "Restauracja Akacja",
    "Rezerwacja potwierdzona: wt. 18.03, godz. 19:30, 2 os., na nazwisko Yildiz. ul. Chmielna 7. "
    "Odwołanie: odpisz ANULUJ.",
    "social", "keep", "pl", ref="resto1")
add("03-12 12:16", SMS, "Andrzej Kowalczyk",
    "Hydraulik, pan Sławek, przyjdzie we wtorek 18.03 między 10 a 12 w sprawie cieknącego kranu w "
    "łazience. Czy ktoś będzie w domu?",
    "social", "keep", "pl", ref="plumb1")
add("03-12 13:31", GMAIL, "mBank",
    "Twój miesięczny wyciąg z rachunku eKonto jest dostępny w serwisie transakcyjnym.",
    "email", "noise", "pl", sub="Wyciąg z rachunku za luty 2025")
add("03-12 14:59", MSGR, "Bence 30 – Budapest 🎂",
    "Bence: Emberek, aki pénteken este érkezik a reptérre: a 100E busszal jöjjetek be a Deák "
    "térig, onnan 5 perc gyalog a lakás",
    "social", "keep", "hu", ref="bus100e")
add("03-12 16:05", WA, "Varşova Türk Topluluğu 🇹🇷🇵🇱",
    "Hakan: Arkadaşlar önemli değişiklik! Anatolia'da tadilat çıktı, iftar aynı gün aynı saatte "
    "Ochota'daki Dostluk Salonu'nda yapılacak: ul. Grójecka 124. Şimdiden 46 kişiyiz 🌙",
    "social", "keep", "tr", ref="iftar2")
add("03-12 17:19", WA, "Magda ❤️",
    "Wizyta przesunięta na piątek 14:00, dr Zielińska się rozchorowała 🙄 Czyli dziś jednak idę "
    "z Wami na pierogi!",
    "social", "keep", "pl", ref="mdent2")
add("03-12 18:42", WA, "Burak",
    "Abi geçen cumartesi için sağ ol, kanepeyi tek başıma taşıyamazdım 😂 Ev partisi 22 Mart "
    "Cumartesi akşamı, mutlaka gelin!",
    "social", "keep", "tr", ref="party1")
add("03-12 20:14", ALLEGRO, "Obserwowana oferta potaniała 🔥",
    "Powerbank Anker 737 20000 mAh – teraz 229 zł (było 279 zł).",
    "other", "noise", "pl")
add("03-12 22:21", TEAMS, "Aino Laaksonen",
    "Kiitos illasta! Pierogit oli ihan mahtavia, ja Magda on ihana 😊",
    "social", "noise", "fi")

# ---------------------------------------------------------------- Thu 03-13
add("03-13 07:12", MEDICOVER, "Wizyta dziś 🦷",
    "Dziś o 16:00 – Stomatologia, lek. dent. Paweł Grabowski. Medicover Atrium, al. Jana Pawła II "
    "27, gab. 214.",
    "health_and_fitness", "keep", "pl", ref="dent3")
add("03-13 08:41", OUTLOOK, "Vireo Travel (Satu Mäkelä)",
    "Hei Emre! Lennot ja hotelli on nyt varattu. Lähtö ma 7.4. klo 7.05 Varsovasta (AY742, vaihto "
    "Helsingissä), paluu ke 9.4. klo 18.30 Tampereelta. Hotelli: Original Sokos Hotel Villa, "
    "Sorinkatu 6. Terveisin, Satu",
    "email", "keep", "fi", sub="Matkavaraus vahvistettu: Tampere 7.–9.4.", ref="tampere")
add("03-13 09:28", TEAMS, "Jussi Heikkinen",
    "Moi! Tuutko siis huhtikuussa Tampereelle? Mennään tiistai-iltana Rauhaniemen "
    "kansankylpylään saunomaan ja avantoon, ota uikkarit mukaan 😄",
    "social", "keep", "fi", ref="sauna")
add("03-13 09:42", TEAMS, "Aino Laaksonen",
    "Kiitos kun esittelit Varsovaa! Lähden kentälle kolmelta. Regressiosetti on nyt "
    "Confluencessa, linkki kanavalla.",
    "social", "noise", "fi")
add("03-13 11:02", JIRA, "QA-1317 moved to Done",
    "Checkout: discount code not applied after currency switch – resolved by aino-l.",
    "other", "noise", "en")
add("03-13 11:41", DIAL, "Nieodebrane połączenie",
    "Annem · komórka",
    "missed_call", "noise", "pl", key="missed-0313")
add("03-13 12:22", GMAIL, "T.C. Varşova Büyükelçiliği",
    "Sayın Emre YILDIZ, 19.03.2025 tarihli saat 10:40 pasaport randevunuz onaylanmıştır. "
    "Randevuya gelirken eski pasaportunuzu, nüfus cüzdanınızı ve 1 adet biyometrik fotoğrafınızı "
    "getirmeniz gerekmektedir. Harç ödemesi yalnızca banka kartı ile yapılabilmektedir. Randevu "
    "numaranız: 77124.",
    "email", "keep", "tr", sub="Konsolosluk randevunuz onaylandı", ref="konsolos")
add("03-13 12:30", WA, "Annem",
    "Oğlum aradım açmadın, önemli değil. Pasaportun ne zaman bitiyordu? Sakın unutma",
    "social", "noise", "tr")
rem("03-13 12:31", DIAL, "missed-0313", cat="missed_call")
add("03-13 15:44", GCAL, "Dentysta 🦷",
    "Dziś 16:00–16:45 · Medicover Atrium",
    "schedule", "keep", "pl", ref="dent_cal")
add("03-13 17:28", SMS, "Medicover",
    "Medicover: Dziekujemy za wizyte. Kolejna wizyta kontrolna: 10.04.2025 godz. 8:15, lek. dent. "
    "P. Grabowski, Medicover Atrium.",
    "social", "keep", "pl", ref="dent_next")
add("03-13 18:05", SLACK, "#events · Warsaw Testers",
    "Ana Kowalska: Next meetup: “Testing payments without tears” – Thu 27 March, 18:30 at Spaces "
    "Rondo ONZ, 12th floor. Pizza provided, RSVP on Meetup!",
    "social", "keep", "en", ref="meetup1")
add("03-13 19:11", GLOVO, "Smacznego! 🍜",
    "Twoje zamówienie z Thai Wok zostało dostarczone.",
    "location", "noise", "pl")
add("03-13 20:18", WA, "Halı Saha Varşova ⚽",
    "Serkan: Yarın 19:00 unutmayın, yeni formaları getirin",
    "social", "noise", "tr")
add("03-13 21:55", NETFLIX, "Netflix",
    "Kontynuuj oglądanie: „Pod Wawelem” – odc. 4",
    "entertainment", "noise", "pl")

# ---------------------------------------------------------------- Fri 03-14
add("03-14 08:14", WA, "Elif",
    "Abi günaydın. Kötü bir haberim var aslında, ama çok da kötü değil 😅 Mert'in babaannesi "
    "hastanede, ameliyat olacak ve doktorlar en az üç hafta dinlenmesi gerektiğini söyledi. O "
    "yüzden sözü 17 Mayıs'tan 24 Mayıs'a aldık, yine Cumartesi, yine akşam 7'de, yer de "
    "değişmedi, bizim evde. Bileti aldıysan değiştirebilir misin? Değiştiremezsen söyle, farkını "
    "ben öderim. Magda'ya da söyle lütfen, onu çok görmek istiyorum. Annemlere henüz söylemedim, "
    "akşam söyleyeceğim, sen de şimdilik bir şey deme 🙏",
    "social", "keep", "tr", ref="soz2")
add("03-14 08:40", WA, "Annem",
    "Hayırlı Cumalar 🌹 Allah oruçlarımızı kabul etsin",
    "social", "noise", "tr")
add("03-14 10:05", SMS, "Uber",
    "Twój kod Uber: 3391. Nie udostępniaj go nikomu.",
    "social", "secret", "pl", secrets=["3391"], key="uber-code-0314")
rem("03-14 10:08", SMS, "uber-code-0314", cat="social")
add("03-14 10:30", OUTLOOK, "Nowe zaproszenie: Vireo All Hands Q1",
    "Vireo All Hands Q1 — Tue 25 Mar 2025, 14:00–15:00 CET · Teams Live Event",
    "schedule", "keep", "en", sub="Internal Comms", ref="th1")
add("03-14 13:02", WA, "Magda ❤️",
    "Jestem po dentyście, wszystko ok, tylko za pół roku kontrola 🦷 Zielińska mówi, że mam super "
    "zęby haha",
    "social", "noise", "pl", ref="mdent_done")
add("03-14 14:20", MBANK, "Przelew wykonany",
    "Zlecenie stałe: 3 200,00 zł do Andrzej Kowalczyk, tytuł: Czynsz 03/2025 – Odyńca 37/12.",
    "business_and_finance", "keep", "pl", ref="rent_march")
add("03-14 15:32", MSGR, "Bence 30 – Budapest 🎂",
    "Bence: Változás! A Mazel Tov 8-ra nem tud 12 főt leültetni, úgyhogy szombaton 7-re "
    "megyünk, ugyanoda. Ne késsetek 😄",
    "social", "keep", "hu", ref="dinner2")
add("03-14 16:58", WA, "Halı Saha Varşova ⚽",
    "Burak: Bugün 19:00 Orlik Szczęśliwice, B sahası. 12 kişiyiz, gelemeyen hemen yazsın!",
    "social", "noise", "tr", ref="foot3")
add("03-14 18:10", HURRIYET, "Son Dakika",
    "Meteoroloji'den İstanbul için kuvvetli yağış uyarısı: Yarın öğleden sonra sağanak bekleniyor.",
    "news", "noise", "tr")
add("03-14 20:05", ALLEGRO, "Dziękujemy za zakup!",
    "Powerbank Anker 737 20000 mAh – zamówienie opłacone. Dostawa: Paczkomat InPost WAW231M, "
    "przewidywana pon. 17.03.",
    "other", "keep", "pl", ref="pb_order")
add("03-14 22:05", STEAM, "Steam",
    "An item on your wishlist is on sale! Balatro is now 25% off.",
    "entertainment", "noise", "en")

# ---------------------------------------------------------------- Sat 03-15
add("03-15 06:29", PKP, "Zmiana miejsc w pociągu 🔁",
    "EIP 1302 Warszawa Centralna 08:35 → Kraków Główny: z powodu zmiany składu Twoje nowe miejsca "
    "to wagon 4, miejsca 61 i 63. Bilet pozostaje ważny.",
    "other", "keep", "pl", ref="pkp2")
add("03-15 07:45", WEATHER, "Kraków: 10°C, zachmurzenie",
    "Przelotny deszcz po południu. Weź parasol ☂️",
    "news", "noise", "pl")
add("03-15 10:31", WA, "Urodziny Oli 🎈",
    "Ola: Kochani, zbiórka o 19:00 w Alchemii na Kazimierzu, stolik na nazwisko Mazur. Prezentów "
    "nie trzeba, serio 😅",
    "social", "keep", "pl", ref="ola")
add("03-15 11:02", WA, "Urodziny Oli 🎈",
    "Tom: Can't wait to see you guys tonight! I'll be the tall ginger guy at the bar 😄",
    "social", "noise", "en")
add("03-15 12:05", WA, "Yıldızlar 🏠",
    "Annem: Elif anlattı, söz 24'üne kaymış. Hayırlısı olsun, Mert'in babaannesine de geçmiş "
    "olsun 🙏",
    "social", "keep", "tr", ref="soz3")
add("03-15 12:20", WA, "Yıldızlar 🏠",
    "Can: Oh be, o zaman ben de gelebilirim 😎 24'ünde sınavım yok",
    "social", "keep", "tr", ref="can_ok")
add("03-15 13:28", BOOKING, "Zameldowanie dziś 🏨",
    "Apartamenty Józefińska, ul. Józefińska 12, Kraków. Zameldowanie od 14:00. Numer "
    "potwierdzenia: 4821339115, PIN: 7712.",
    "other", "secret", "pl", secrets=["7712"], ref="krk_booking")
add("03-15 14:16", SMS, "Apartamenty Józefińska",
    "Dzień dobry! Klucze są w skrzynce na szyfr przy bramie, po lewej stronie. Kod: 3581. "
    "Apartament nr 6, 2 piętro. Miłego pobytu w Krakowie!",
    "social", "secret", "pl", secrets=["3581"], ref="krk_key")
add("03-15 16:02", MACKOLIK, "Göztepe 0-2 Fenerbahçe (İY)",
    "İlk yarı sona erdi.",
    "news", "noise", "tr")
add("03-15 17:55", WA, "Varşova Türk Topluluğu 🇹🇷🇵🇱",
    "Hakan: Hayırlı iftarlar herkese 🌙 Dostluk Salonu'ndayız, gelen arkadaşlar kapı kodu 2580, "
    "ikinci kat",
    "social", "secret", "tr", secrets=["2580"], ref="iftar_code")

# ---------------------------------------------------------------- Sun 03-16
add("03-16 11:03", SMS, "Teresa Wrona",
    "Jak tam Kraków? Pozdrówcie Olę! Przypominam, że Wielkanoc u nas, 20 kwietnia, zaczynamy "
    "śniadaniem o 10. Twoja mama też niech przyjdzie, jeśli jeszcze będzie w Warszawie",
    "social", "keep", "pl", ref="easter")
add("03-16 12:33", MSGR, "Bence 30 – Budapest 🎂",
    "Bence: Összeszedtem a hétvégi programot, hogy mindenki lássa: péntek este érkezés, mindenki "
    "a Király utcai lakásba jön, ott iszunk egyet. Szombaton 11-kor találkozunk a Széchenyi fürdő "
    "főbejáratánál, a jegyet mindenki magának veszi, kb. 11 000 forint. Utána lángos a "
    "Nagycsarnokban, délután szabad program, este 7-kor vacsora a Mazel Tovban. Vasárnap délelőtt, "
    "aki akar, feljöhet velünk a Gellért-hegyre. Ja, és hozzatok papucsot meg törölközőt, mert "
    "a fürdőben csak drágán lehet bérelni! 🙂",
    "social", "keep", "hu", ref="bp_program")
add("03-16 13:10", WA, "Can",
    "Abi bir şey soracağım, bu ay burs gecikti 😔 1000 TL atabilir misin? Ayın 25'inde geri "
    "veririm. IBAN: TR33 0006 1005 1978 6457 8413 26",
    "social", "secret", "tr", secrets=["TR33 0006 1005 1978 6457 8413 26"], ref="can_iban")
add("03-16 15:10", PKP, "Opóźnienie pociągu ⏱️",
    "EIP 1313 Kraków Główny 17:05 → Warszawa Centralna: przewidywane opóźnienie ok. 25 min.",
    "other", "keep", "pl", ref="pkp_delay")
add("03-16 19:21", WA, "Yıldızlar 🏠",
    "Can: Abi Varşova'da öğrenci odası ne kadar? Yaz stajı için bakıyorum, temmuz-ağustos",
    "social", "keep", "tr", ref="can_intern")
add("03-16 22:10", WA, "Annem",
    "Oğlum Kraków nasıldı? Magda'yla ikinizin bir fotoğrafını at, özledim",
    "social", "noise", "tr")

# ---------------------------------------------------------------- Mon 03-17
add("03-17 08:38", INPOST, "Paczka czeka na odbiór 📦",
    "Paczkomat WAW231M, ul. Racławicka 99 (przy Żabce). Kod odbioru: 660281. Odbierz do śr. "
    "19.03, 08:38.",
    "other", "secret", "pl", secrets=["660281"], key="inpost-pb-ready", ref="pb_code")
add("03-17 09:02", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Blokkerilista näyttää hyvältä 👍 Release menee siis ke 19.3. klo 10 Suomen "
    "aikaa, pidetään samalla release-palaveri Teamsissa.",
    "social", "keep", "fi", ref="release3")
add("03-17 10:16", GMAIL, "Kasia Wójcik (HR Vireo)",
    "Hi all, as announced at the town hall, the Warsaw office moves from the 4th to the 6th floor "
    "of the same building (Prosta 20) over the weekend of 29–30 March. Please pack your desk by "
    "Friday 28 March, 15:00; crates will be delivered on Wednesday. New access cards will be "
    "handed out on Monday 31 March at the main reception on the ground floor. Meeting rooms keep "
    "their names. Questions to office.waw@vireo.fi. Thanks, Kasia",
    "email", "keep", "en", sub="Office move: Warsaw team relocates to floor 6", ref="office_move")
add("03-17 11:05", TEAMS, "QA-tiimi 🧪",
    "Saara Nieminen: Muistakaa kirjata työtunnit perjantaihin mennessä, kiitos! 🙏",
    "social", "noise", "fi")
add("03-17 12:44", WA, "Magda ❤️",
    "Jutro moje urodziny, więc nie planuj nic po 19 😉 I nie mów, że zapomniałeś!",
    "social", "keep", "pl", ref="bday")
add("03-17 13:09", SMS, "Restauracja Akacja",
    "Dzień dobry, niestety 18.03 o 19:30 restauracja jest zamknięta z powodu imprezy "
    "okolicznościowej. Możemy zaproponować 20:15 tego samego dnia albo środę 19.03 o 19:30. "
    "Prosimy o odpowiedź SMS.",
    "social", "keep", "pl", ref="resto2")
add("03-17 13:26", SMS, "Restauracja Akacja",
    "Dziękujemy! Rezerwacja zmieniona: wt. 18.03, godz. 20:15, 2 os., stolik przy oknie. Do "
    "zobaczenia w Akacji!",
    "social", "keep", "pl", ref="resto3")
add("03-17 16:20", WA, "Burak",
    "Abi ev partisini 29 Mart Cumartesi'ye aldım, siz Budapeşte'desiniz diye 😄 Akşam 8 gibi. "
    "Kimse bir şey getirmesin, sadece sizi istiyorum. Bina kapısının kodu 0412, 3. kat sağdaki "
    "kapı",
    "social", "secret", "tr", secrets=["0412"], ref="party2")
add("03-17 17:49", DIAL, "Poczta głosowa",
    "„Dzień dobry, tu Sławomir, hydraulik od pana Kowalczyka. Jutro niestety nie dam rady, "
    "możemy w czwartek o ósmej rano? Proszę oddzwonić albo napisać SMS-a. Dziękuję.”",
    "voicemail", "keep", "pl", sub="+48 601 *** 228 · 0:21", ref="plumb2")
add("03-17 18:31", SMS, "Sławomir Hydraulik",
    "Dzień dobry, potwierdzam czwartek 20.03 godz. 8:00, ul. Odyńca 37/12. Jeśli dalej cieknie, "
    "proszę zakręcić zawór pod umywalką. Pozdrawiam, Sławomir",
    "social", "keep", "pl", ref="plumb3")
add("03-17 18:36", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Megírta a szállásadó: a kulcs egy kódos dobozban lesz a kapu mellett, a kód 2604. "
    "Bejelentkezés pénteken 15 órától.",
    "social", "secret", "hu", secrets=["2604"], ref="keycode1")
add("03-17 18:40", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: A szállás fejenként 95 €, légyszi csütörtökig küldjétek Revolutra vagy erre a "
    "számlára: HU42 1177 3016 1111 1018 0000 0000",
    "social", "secret", "hu", secrets=["HU42 1177 3016 1111 1018 0000 0000"], ref="dora_iban")
add("03-17 20:29", HURRIYET, "Son Dakika",
    "Süper Lig'de haftanın programı belli oldu: Derbi Pazar 20:00'de.",
    "news", "noise", "tr")

# ---------------------------------------------------------------- Tue 03-18
add("03-18 07:11", WA, "Yıldızlar 🏠",
    "Annem: Magda kızımın doğum günü kutlu olsun 🎂🎉 Emre, ona benden sıkıca sarıl",
    "social", "noise", "tr")
add("03-18 08:32", SMS, "Teresa Wrona",
    "Emre, kupiliśmy z Zbyszkiem dla Magdy ten ekspres do kawy, o którym mówiłeś. Przywieziemy go "
    "w Wielkanoc, żeby nie psuć niespodzianki, więc nic jej nie mów 😉",
    "social", "keep", "pl", ref="gift")
rem("03-18 09:14", INPOST, "inpost-pb-ready")
add("03-18 10:02", TEAMS, "Priya Nair",
    "Emre, could you cover my regression run on Thursday afternoon? I have a doctor's appointment "
    "at 14. The checklist is in Confluence under Release 4.2 → Payments.",
    "social", "keep", "en", ref="priya_cover")
add("03-18 11:38", WIZZ, "Zmiana rozkładu lotu ✈️",
    "Lot W6 1327 WAW → BUD w pt. 21.03 odleci o 19:25 zamiast 18:40. Przylot do Budapesztu o "
    "20:55. Kod rezerwacji: QX7P2M.",
    "other", "keep", "pl", ref="wizz2")
add("03-18 11:40", GMAIL, "Wizz Air",
    "Godzina odlotu Twojego lotu uległa zmianie. Sprawdź szczegóły rezerwacji QX7P2M w aplikacji.",
    "email", "noise", "pl", sub="Ważne: zmiana rozkładu Twojego lotu")
add("03-18 13:12", REVOLUT, "Przelew wysłany 💸",
    "190 € do Dóra Kiss · „szállás Budapest – Emre + Magda”",
    "business_and_finance", "keep", "pl", ref="paid")
add("03-18 14:33", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Emre, megjött a pénz, köszi! 👍",
    "social", "noise", "hu")
add("03-18 14:50", MSGR, "Bence Farkas",
    "Boldog szülinapot Magdának tőlünk! 🎂🥂",
    "social", "noise", "hu")
add("03-18 16:02", AIRBNB, "Zsófia",
    "Hi everyone! Small change: the cleaners need more time on Friday, so check-in will be from "
    "16:00 instead of 15:00. The key box code stays the same. Sorry for the trouble, see you soon!",
    "social", "keep", "en", ref="checkin2")
add("03-18 17:31", GCAL, "Kolacja urodzinowa – Akacja 🎂",
    "Dziś 20:15 · ul. Chmielna 7",
    "schedule", "keep", "pl", ref="resto_cal")
add("03-18 20:40", WA, "Magda ❤️",
    "❤️❤️❤️",
    "social", "noise", "und")

# ---------------------------------------------------------------- Wed 03-19
add("03-19 08:40", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Release-palaveri alkaa 20 minuutin päästä, linkki on kalenterissa",
    "social", "noise", "fi")
add("03-19 09:03", WA, "Annem",
    "Oğlum bugün konsolosluk randevun vardı di mi? Fotoğrafı unutma",
    "social", "noise", "tr")
add("03-19 10:09", SMS, "T.C. Varsova BE",
    "Sn. EMRE YILDIZ, 10:40 randevunuz icin lutfen 10:25'te bekleme salonunda hazir bulununuz. "
    "Sira no: 14",
    "social", "noise", "tr", ref="kons_sms")
add("03-19 11:31", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: 4.2 on tuotannossa 🎉 Kiitos kaikille hyvästä työstä! Perjantaina kakkua "
    "Tampereella, Varsovaan lähetetään Fazerin laatikko.",
    "social", "keep", "fi", ref="release_done")
add("03-19 12:47", GMAIL, "T.C. Varşova Büyükelçiliği",
    "Sayın Emre YILDIZ, pasaport başvurunuz alınmıştır. Pasaportunuz yaklaşık 3-4 hafta içinde "
    "Ankara'dan Büyükelçiliğe gönderilecek, hazır olduğunda SMS ile bilgilendirileceksiniz. Teslim "
    "alırken eski pasaportunuzu yanınızda getiriniz.",
    "email", "keep", "tr", sub="Pasaport başvurunuz alındı", ref="passport")
add("03-19 14:05", SMS, "e-Devlet",
    "e-Devlet Kapisi tek kullanimlik giris sifreniz: 902551. Bu sifreyi kimseyle paylasmayiniz.",
    "social", "secret", "tr", secrets=["902551"], key="edevlet-0319")
rem("03-19 14:09", SMS, "edevlet-0319", cat="social")
add("03-19 15:28", WA, "Halı Saha Varşova ⚽",
    "Burak: Beyler bu hafta normal düzene dönüyoruz, yarın perşembe 20:00 Orlik Szczęśliwice",
    "social", "keep", "tr", ref="foot4")
add("03-19 17:02", MSGR, "Bence Farkas",
    "Megvan a Żubrówka? 😄 Ha belefér a bőröndbe, hozzatok egy kis kabanoszt is",
    "social", "keep", "hu", ref="kabanos")
add("03-19 20:05", WA, "Magda ❤️",
    "Kup te bilety do Széchenyi na mojej karcie, bo Twoja ma blokadę na płatności zagraniczne: "
    "4921 8830 1275 6604, ważna do 08/27. CVC wyślę Ci osobno 😘",
    "social", "secret", "pl", secrets=["4921 8830 1275 6604"], ref="magda_card")
add("03-19 20:16", WA, "Magda ❤️",
    "Spakowałam już strój kąpielowy i klapki na te baseny. Ty pamiętaj o ładowarce i dowodzie!",
    "social", "noise", "pl")

# ---------------------------------------------------------------- Thu 03-20
add("03-20 06:45", WEATHER, "Pierwszy dzień wiosny 🌷",
    "Warszawa: 13°C, słonecznie. Idealna pogoda na spacer.",
    "news", "noise", "pl")
add("03-20 08:02", WIZZ, "Odprawa online otwarta ✈️",
    "W6 1327 WAW → BUD, pt. 21.03, odlot 19:25. Odpraw się teraz i pobierz kartę pokładową.",
    "other", "keep", "pl", ref="wizz3")
add("03-20 09:22", TEAMS, "Priya Nair",
    "Thanks a lot for covering today! I owe you a coffee ☕",
    "social", "noise", "en")
add("03-20 10:40", SLACK, "#events · Warsaw Testers",
    "Ana Kowalska: Heads up! The March meetup moves to Thursday 3 April, same time and venue. "
    "Our speaker caught the flu 🤒",
    "social", "keep", "en", ref="meetup2")
add("03-20 11:55", MEDIUM, "Medium",
    "Daily Digest: 7 Playwright tricks you wish you knew earlier",
    "news", "noise", "en")
add("03-20 13:31", WA, "Yıldızlar 🏠",
    "Annem: Emre oğlum, baban bilet işini halletti ama bir değişiklik oldu. 10 Nisan'da Nurten "
    "teyzenin oğlunun düğünü çıktı, ona gitmeden olmaz, biliyorsun ne kadar alınır. O yüzden baban "
    "biletimi 12 Nisan Cumartesi'ye değiştirdi. Yine İstanbul aktarmalı, Varşova'ya öğleden sonra "
    "16:40'ta iniyormuşum, uçuş numarası aynı galiba, sen bir kontrol et. 26 Nisan'a kadar "
    "kalacağım, Magda'nın annesiyle de artık tanışmak istiyorum. Sana kurutulmuş patlıcan ve "
    "biber getiriyorum, bir de tarhana. Başka bir şey istersen söyle oğlum.",
    "social", "keep", "tr", ref="mom2")
add("03-20 15:21", TEAMS, "Jussi Heikkinen",
    "Sori, laitoin äsken väärän linkin. Retro on huomenna klo 10 meidän aikaa, eli teillä klo 9. "
    "Oikea linkki on kalenterikutsussa.",
    "social", "keep", "fi", ref="retro")
add("03-20 16:05", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Pár gyakorlati dolog holnapra: a lakásban van hajszárító, törölköző és kávéfőző, "
    "úgyhogy ezeket nem kell hozni. A sarki Spar este 10-ig van nyitva. Lift nincs, a második "
    "emeletre gyalog kell felmenni, szóval ne hozzatok túl nagy bőröndöt. A Széchenyi-jegyet "
    "online olcsóbb megvenni, kb. 10 500 forint. Vasárnap 11-ig ki kell jelentkezni, a kulcsot "
    "tegyétek vissza a dobozba! Aki késve érkezik, szóljon előre, hogy valaki lent várja.",
    "social", "keep", "hu", ref="dora_long")
add("03-20 17:02", TRENDYOL, "Sepetindeki ürünler tükenmek üzere! 🛒",
    "Favorilerindeki Karaca Türk kahvesi makinesi şimdi %20 indirimde.",
    "other", "noise", "tr")
add("03-20 18:29", SMS, "Andrzej Kowalczyk",
    "Dobry wieczór Panie Emre, przemyślałem naszą rozmowę. Zgoda, od kwietnia 3300 zł, media bez "
    "zmian. Aneks prześlę jutro mailem, proszę podpisać i odesłać skan.",
    "social", "keep", "pl", ref="rent2")
add("03-20 19:52", WA, "Halı Saha Varşova ⚽",
    "Serkan: Beyler maç iptal! Orlik'in ışıkları bozulmuş, görevli şimdi aradı 😡 Haftaya "
    "perşembe görüşürüz",
    "social", "keep", "tr", ref="foot5")
add("03-20 22:30", REDDIT, "r/warsaw",
    "Where to get a proper Turkish breakfast in Warsaw? (34 comments)",
    "social", "noise", "en")

# ---------------------------------------------------------------- Fri 03-21
add("03-21 08:55", OUTLOOK, "Przypomnienie: Sprint 15 – retro",
    "pe 21.3. klo 9.00–9.45 (CET) · Teams",
    "schedule", "noise", "fi")
add("03-21 10:31", SMS, "Andrzej Kowalczyk",
    "Aneks wysłany mailem. Numer konta bez zmian: PL61 1140 2004 0000 3502 7730 4188, od kwietnia "
    "proszę przelewać 3300 zł do 10. dnia miesiąca. Pozdrawiam",
    "social", "secret", "pl", secrets=["PL61 1140 2004 0000 3502 7730 4188"], ref="rent_iban")
add("03-21 12:40", GMAIL, "Vireo Internal Comms",
    "Hi all, because of an overlap with the board meeting, the Q1 All Hands moves to Wednesday "
    "26 March at 15:00 CET (16:00 in Finland). Same Teams link, the invite has been updated.",
    "email", "keep", "en", sub="All Hands moved to Wednesday", ref="th2")
add("03-21 15:29", MSGR, "Bence 30 – Budapest 🎂",
    "Réka: Mégis jövök ma este!! Sikerült elcserélni a műszakot 🎉 Kb. 10-re érek a lakáshoz",
    "social", "keep", "hu", ref="reka2")
add("03-21 16:44", UBER, "Uber",
    "Kierowca Adam jest na miejscu · Toyota Prius, WZ 5512P",
    "location", "noise", "pl")
add("03-21 21:38", MSGR, "Bence 30 – Budapest 🎂",
    "Bence: Megérkeztetek? A kapunál várok 😄",
    "social", "noise", "hu")
add("03-21 21:52", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Wifi: KiralyHome26, jelszó: Budapest2025! (a felkiáltójel is kell 😅)",
    "social", "secret", "hu", secrets=["Budapest2025!"], ref="wifi")
add("03-21 22:03", WA, "Annem",
    "Oğlum indiniz mi? Bir haber ver",
    "social", "noise", "tr")

# ---------------------------------------------------------------- Sat 03-22
add("03-22 00:05", MSGR, "Bence 30 – Budapest 🎂",
    "Réka: Boldog 30. szülinapot, Bence!!! 🥳🎂",
    "social", "noise", "hu")
add("03-22 09:02", WEATHER, "Budapeszt: 15°C, słonecznie ☀️",
    "Ciepły i pogodny dzień, wieczorem 8°C.",
    "news", "noise", "pl")
add("03-22 10:14", MSGR, "Bence 30 – Budapest 🎂",
    "Dóra: Ne feledjétek: 11-kor a Széchenyi főbejáratánál! Papucs, törölköző 🩴",
    "social", "keep", "hu", ref="dora_reminder")
add("03-22 11:33", REVOLUT, "Płatność kartą",
    "11 800 HUF · Széchenyi Gyógyfürdő, Budapeszt",
    "business_and_finance", "noise", "pl")
add("03-22 13:42", WA, "Yıldızlar 🏠",
    "Elif: Davetiyeler geldi!! 😍 24 Mayıs Cumartesi, saat 19:00, Karşıyaka. Size de dijital "
    "olarak atıyorum",
    "social", "keep", "tr", ref="soz4")
add("03-22 13:48", WA, "Yıldızlar 🏠",
    "Annem: 👏👏👏❤️",
    "social", "noise", "und")
add("03-22 15:03", INSTA, "Instagram",
    "bence.farkas dodał 12 zdjęć.",
    "social", "noise", "pl")
add("03-22 18:33", MSGR, "Bence 30 – Budapest 🎂",
    "Bence: 10 perc és indulunk a Mazel Tovba, aki késik, az fizet 😂",
    "social", "noise", "hu")
add("03-22 20:10", WA, "Annem",
    "Oğlum bayramın ilk günü 30 Mart Pazar, sabah 10'da görüntülü arayalım, bizim saatle 11. "
    "Bütün aile burada olacak, teyzenler de gelecek",
    "social", "keep", "tr", ref="bayram")

# ---------------------------------------------------------------- Sun 03-23
add("03-23 09:59", SMS, "Teresa Wrona",
    "Kochani, jak Budapeszt? Zbyszek pyta, czy w przyszłą niedzielę, 30.03, przyjdziecie na "
    "pierogi? Kuba przyjeżdża z Gdańska. Tak koło 15",
    "social", "keep", "pl", ref="pierogi")
add("03-23 10:45", AIRBNB, "Zsófia",
    "Good morning! Just a reminder: check-out is at 11:00 today. Please leave the keys in the key "
    "box and close the windows. Thank you for staying with us!",
    "social", "keep", "en", ref="checkout")
add("03-23 13:58", MSGR, "Bence Farkas",
    "Köszi, hogy eljöttetek, ez volt életem legjobb szülinapja ❤️ A Żubrówka már félig elfogyott 😂",
    "social", "noise", "hu")
add("03-23 14:05", MSGR, "Bence Farkas",
    "🥳🥳🎉",
    "social", "noise", "und")
add("03-23 19:33", WA, "Yıldızlar 🏠",
    "Babam: Oğlum annenin uçuşunu kontrol ettim: TK1765, 12 Nisan Cumartesi, İstanbul'dan 15:00'te "
    "kalkıyor, Varşova'ya 16:40'ta iniyor. PNR aynı, TXK4LM",
    "social", "keep", "tr", ref="mom3")
add("03-23 22:37", LOT, "PLL LOT",
    "Wiosenna promocja: Tokio od 2999 zł w obie strony ✈️ Tylko do środy.",
    "other", "noise", "pl")


# ---------------------------------------------------------------- extra everyday traffic
# (written in a second pass, kept apart here; _build.py sorts everything by time)
add("03-04 09:20", HURRIYET, "Son Dakika",
    "Akaryakıta indirim: Benzinin litresinde 1,20 TL indirim bu gece pompaya yansıyacak.",
    "news", "noise", "tr")
add("03-04 13:05", WA, "Yıldızlar 🏠",
    "Elif: Anne akşam iftara teyzemler de geliyormuş, haberin olsun",
    "social", "noise", "tr")
add("03-04 13:07", WA, "Yıldızlar 🏠",
    "Annem: Biliyorum kızım, dolmayı ben yapıyorum zaten 😊",
    "social", "noise", "tr")
add("03-04 15:30", TEAMS, "QA-tiimi 🧪",
    "Mikko Rantanen: Ilves voitti Tapparan 4–2!! 🏒🔥",
    "social", "noise", "fi")
add("03-05 16:10", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Tampereella sataa taas lunta, kevät on peruttu ❄️",
    "social", "noise", "fi")
add("03-05 18:30", MACKOLIK, "İddaa'da haftanın kuponu hazır! 🎯",
    "Editörlerimizin seçtiği 5 maçlık kuponu hemen incele.",
    "news", "noise", "tr")
add("03-06 12:00", TRENDYOL, "Bahar indirimleri başladı! 🌸",
    "Seçili ürünlerde %60'a varan indirim seni bekliyor.",
    "other", "noise", "tr")
add("03-07 14:15", TEAMS, "QA-tiimi 🧪",
    "Saara Nieminen: Hyvää viikonloppua kaikille! 🌞",
    "social", "noise", "fi")
add("03-07 20:10", WA, "Halı Saha Varşova ⚽",
    "Serkan: 📷 Dünkü maçtan 😎 Burak'ın o golü hâlâ ofsayttı bu arada",
    "social", "noise", "tr")
add("03-07 20:13", WA, "Halı Saha Varşova ⚽",
    "Burak: Ofsayt falan yok, kıskançlık bunlar 😂",
    "social", "noise", "tr")
add("03-08 11:00", MSGR, "Bence 30 – Budapest 🎂",
    "Gergő: Úristen, már 30 leszel? 😂 Öregszünk, emberek",
    "social", "noise", "hu")
add("03-09 09:30", WA, "Yıldızlar 🏠",
    "Babam: Hayırlı pazarlar 🌹",
    "social", "noise", "tr")
add("03-10 07:10", WA, "Annem",
    "Günaydın oğlum, sahura kalktık, şimdi biraz uyuyacağım. Sen de kahvaltını yap, aç gitme işe",
    "social", "noise", "tr")
add("03-10 09:05", TEAMS, "QA-tiimi 🧪",
    "Mikko Rantanen: Staging on taas pystyssä, sori viikonlopusta 🙈",
    "social", "noise", "fi")
add("03-11 22:30", WA, "Deniz",
    "Abi sağ ol, çok yardımcı oldun 🙏 Annemlere de söyleyeceğim",
    "social", "noise", "tr")
add("03-12 06:20", HURRIYET, "Son Dakika",
    "İzmir'de 3,1 büyüklüğünde artçı sarsıntı. AFAD: Can kaybı ya da hasar bildirilmedi.",
    "news", "noise", "tr")
add("03-13 07:30", SMS, "GARANTI BBVA",
    "Garanti BBVA: Bonus kartinizla Mart ayi boyunca market alisverislerinize 300 TL'ye varan "
    "bonus! Detaylar mobil subede.",
    "social", "noise", "tr")
add("03-13 18:40", MSGR, "Bence Farkas",
    "Láttad, mit írtam a csoportba? Mindenki jön, 12-en leszünk! 🎉",
    "social", "noise", "hu")
add("03-14 11:20", SMS, "GARANTI BBVA",
    "Garanti BBVA: HEPSIBURADA 1.249,00 TL tutarindaki islem icin 3D Secure dogrulama kodunuz: "
    "557203. Kodu kimseyle paylasmayiniz.",
    "social", "secret", "tr", secrets=["557203"])
add("03-14 15:10", TEAMS, "QA-tiimi 🧪",
    "Jussi Heikkinen: Perjantaipulma: kuka keksii parhaan nimen seuraavalle sprintille? 😄",
    "social", "noise", "fi")
add("03-15 20:30", WA, "Annem",
    "Oğlum iftarı ettik, teyzenler buradaydı, seni çok sordular ❤️",
    "social", "noise", "tr")
add("03-16 09:15", WA, "Yıldızlar 🏠",
    "Can: Günaydın, ben bugün ilk defa sahura kalkamadım 😅",
    "social", "noise", "tr")
add("03-17 13:40", WA, "Elif",
    "Abi Magda'nın yüzük ölçüsünü biliyor musun? 😏 Şaka şaka, annem sordu sadece 😂",
    "social", "noise", "tr")
add("03-17 15:20", GITHUB, "vireo/checkout-web",
    "aino-l approved your pull request #487 Add PLN→EUR discount regression test",
    "other", "noise", "en")
add("03-18 09:40", TEAMS, "QA-tiimi 🧪",
    "Mikko Rantanen: Code freeze alkaa nyt, ei enää mergejä mainiin ilman Jussin lupaa 🥶",
    "social", "noise", "fi")
add("03-19 12:30", MSGR, "Bence 30 – Budapest 🎂",
    "Gergő: Hozok társasjátékot péntek estére, Catan vagy Codenames? 🎲",
    "social", "noise", "hu")
add("03-19 16:20", TEAMS, "Saara Nieminen",
    "Moi Emre! Tampereen toimiston ovikoodi on 4471#, kulkukortti tulee vasta paikan päällä. "
    "Vastaanotto on kolmannessa kerroksessa, kysy sieltä Satua.",
    "social", "secret", "fi", secrets=["4471#"], ref="ovikoodi")
add("03-19 22:10", WA, "Burak",
    "Abi yarın maça geliyor musun? Kadro eksik, Serkan'ın dizi yine ağrıyormuş",
    "social", "noise", "tr")
add("03-20 10:05", WA, "Annem",
    "Oğlum söyle bakalım Türkiye'den ne istiyorsun, baban yarın çarşıya çıkacak",
    "social", "noise", "tr")
add("03-21 08:15", WA, "Annem",
    "Hayırlı Cumalar oğlum 🌹 Yolculuğunuz hayırlı olsun, inince haber ver",
    "social", "noise", "tr")
add("03-21 10:05", TEAMS, "QA-tiimi 🧪",
    "Aino Laaksonen: Kiitos retrosta! Laitoin action pointit Confluenceen.",
    "social", "noise", "fi")
add("03-22 16:40", WA, "Yıldızlar 🏠",
    "Can: Abi Budapeşte nasıl? Macarlar bize hâlâ akraba diyor mu 😂",
    "social", "noise", "tr")
add("03-23 11:30", WA, "Annem",
    "Oğlum dönüş uçağınız kaçta? İnince yaz, merak ederim",
    "social", "noise", "tr")


add("03-12 15:40", ZABKA, "Żabka",
    "Kawa z Żabki Café 2 za 1 do końca tygodnia ☕ Zeskanuj aplikację przy kasie.",
    "other", "noise", "pl")
add("03-18 21:15", TRENDYOL, "Senin için seçtik ✨",
    "Son baktığın ürünlere benzer ürünler şimdi kargo bedava!",
    "other", "noise", "tr")
add("03-20 20:40", MSGR, "Bence 30 – Budapest 🎂",
    "Gergő: Holnap este a reptéren valaki? Én 9 körül érek be 🚆",
    "social", "noise", "hu")
add("03-22 19:50", REDDIT, "r/budapest",
    "Is the Széchenyi worth it or is Gellért better? (58 comments)",
    "social", "noise", "en")


# ================================================================ questions
QUESTIONS = []


def q(asked, lang, text, answers, sup=(), long=False):
    QUESTIONS.append(dict(asked=asked, lang=lang, question=text, answers=list(answers),
                          superseded=list(sup), long=long))


q("03-04 08:00", "pl", "Do kiedy siedemnastka i trzydziestka trójka jeżdżą objazdem?", ["tram"])
q("03-04 19:00", "en", "When's my sister's engagement thing in Izmir?", ["soz1"])
q("03-04 21:00", "hu", "Mikor lesz Bence szülinapi hétvégéje Budapesten?", ["bence_trip"])
q("03-05 11:00", "fi", "Mihin päivään mennessä blokkerit piti kirjata Jiraan?", ["release1"])
q("03-05 12:00", "en", "Which parcel locker are my Sony headphones going to?",
  ["sony_transit", "allegro_sony"])
q("03-05 14:00", "pl", "Jaki jest kod do odbioru słuchawek z paczkomatu?", ["sony_code"])
q("03-05 22:00", "tr", "Anneme aldığım çaydanlık sağlam ulaşmış mı?", ["kettle", "trendyol_deliv"])
q("03-06 09:00", "en", "Who's coming over from Tampere next week, and on which days?", ["aino_visit"])
q("03-06 10:00", "fi", "Missä huoneessa sprintin katselmointi tänään pidetään?",
  ["room2", "room2b"], ["room1"])
q("03-06 20:00", "tr", "Elif'e ne kadar para göndermiştim?", ["fast_elif"])
q("03-07 09:00", "pl", "Czy staging będzie działał w sobotę rano?", ["priya_db"])
q("03-07 16:00", "hu", "Mennyibe kerül fejenként a budapesti szállás?", ["apt1"])
q("03-07 19:00", "pl", "Jaki mamy kod rezerwacji na lot do Budapesztu?", ["wizz1"])
q("03-07 20:00", "pl", "Kto z ekipy Bence dojedzie do Budapesztu dopiero w sobotę rano?", ["reka1"])
q("03-08 08:00", "pl", "Na którą i pod jaki adres mam dziś jechać do Buraka?", ["move2"], ["move1"])
q("03-08 10:00", "pl", "Do kiedy właściciel chciał zdjęcia liczników wody?", ["rent1"], long=True)
q("03-08 20:00", "hu", "Hány órára foglalt Bence asztalt szombat estére?", ["dinner1"])
q("03-09 11:00", "en", "What time is lunch at Magda's parents' today?",
  ["obiad2"], ["obiad1", "obiad_cal"])
q("03-09 11:30", "pl", "Jaki jest kod do furtki u teściów?", ["obiad2"])
q("03-10 18:00", "en", "What's the pickup code for Magda's Sambas?", ["zal_code"])
q("03-10 17:00", "pl", "Z którego paczkomatu mam w końcu odebrać buty Magdy?",
  ["zal2", "zal_code", "magda_shoes"], ["zal1"])
q("03-10 20:00", "fi", "Missä hotellissa Aino majoittuu Varsovassa?", ["aino_agenda"], long=True)
q("03-10 21:00", "pl", "Kiedy w końcu mam tego dentystę?", ["dent2"], ["dent1"])
q("03-10 22:00", "tr", "Bu hafta halı saha hangi gün, saat kaçta?", ["foot2"], ["foot1b", "foot1"])
q("03-11 10:00", "fi", "Mihin aikaan Aino ehtii tänään toimistolle?", ["aino_late"], ["aino_flight"])
q("03-11 12:00", "tr", "Annem Varşova'ya hangi gün geliyor?", ["mom1"])
q("03-11 20:00", "tr", "Depremden sonra İzmir'deki ailem iyi mi?", ["quake_ok"])
q("03-11 21:00", "pl", "Kiedy wychodzi wersja 4.2?", ["release2"], ["release1"], long=True)
q("03-11 22:00", "en", "Which Jira ticket got assigned to me last week and what's it about?",
  ["jira1317"])
q("03-12 08:00", "en", "What's the staging admin password Mikko shared?", ["staging_pw"])
q("03-12 12:00", "fi", "Mihin ravintolaan ja mihin aikaan mennään tänään Ainon kanssa syömään?",
  ["pierog_res"])
q("03-13 08:00", "tr", "Magda dişçiye hangi gün gidiyor?", ["mdent2"], ["mdent1"])
q("03-13 12:00", "hu", "Mit kért Bence a szülinapjára?", ["vodka"])
q("03-13 19:00", "pl", "Kiedy mam następną kontrolę u dentysty?", ["dent_next"])
q("03-13 21:00", "pl", "Jakim autobusem mamy jechać z lotniska w Budapeszcie?", ["bus100e"])
q("03-14 09:00", "en", "So when is Elif's engagement now, and why did it move?",
  ["soz2"], ["soz1"], long=True)
q("03-14 10:00", "fi", "Missä hotellissa majoitun Tampereella?", ["tampere"])
q("03-14 12:00", "pl", "Co mam zabrać na wizytę w konsulacie?", ["konsolos"])
q("03-14 19:00", "hu", "Hánykor kezdődik most a szombati vacsora?", ["dinner2"], ["dinner1"])
q("03-15 07:00", "pl", "W którym wagonie i na jakich miejscach jedziemy do Krakowa?",
  ["pkp2"], ["pkp1"])
q("03-15 13:00", "en", "Where's Ola's birthday tonight?", ["ola"])
q("03-15 14:30", "pl", "Jaki jest kod do skrzynki z kluczami w Krakowie?", ["krk_key"])
q("03-15 17:00", "en", "Where is the Turkish community iftar tonight?", ["iftar2"], ["iftar1"])
q("03-16 13:00", "tr", "Budapeşte'de cumartesi saat kaçta, nerede buluşuyoruz?",
  ["bp_program"], long=True)
q("03-16 14:00", "pl", "Co mamy zabrać ze sobą na baseny w Budapeszcie?", ["bp_program"], long=True)
q("03-16 15:30", "pl", "O której i z jakim opóźnieniem wracamy dziś z Krakowa?",
  ["krk_magda", "pkp_delay"])
q("03-17 09:30", "pl", "Jaki jest kod do odbioru powerbanka?", ["pb_code"])
q("03-17 11:00", "tr", "Ofis hangi kata taşınıyor, ne zaman?", ["office_move"], long=True)
q("03-18 18:00", "pl", "Na którą mamy dziś w końcu stolik w Akacji?", ["resto3", "resto_cal"], ["resto1"])
q("03-17 19:00", "hu", "Mi a kód a kulcsos dobozhoz?", ["keycode1"])
q("03-17 20:00", "en", "When's Burak's housewarming now?", ["party2"], ["party1"])
q("03-17 21:00", "tr", "Can'ın IBAN'ı neydi?", ["can_iban"])
q("03-18 07:30", "en", "When is the plumber coming?", ["plumb3", "plumb2"], ["plumb1"])
q("03-18 12:00", "fi", "Mihin aikaan huominen release on Varsovan aikaa?", ["release3"])
q("03-18 20:00", "tr", "Budapeşte'deki eve saat kaçta girebiliyoruz?", ["checkin2"], ["keycode1"])
q("03-20 12:00", "hu", "Hánykor indul holnap a gépünk Budapestre?", ["wizz2", "wizz3"], ["wizz1"])
q("03-19 19:00", "en", "What does Bence want us to bring him from Poland?", ["vodka", "kabanos"])
q("03-19 20:00", "fi", "Onko 4.2 jo tuotannossa?", ["release_done"])
q("03-20 09:00", "pl", "Czyją regresję mam dziś przejąć i gdzie jest checklista?", ["priya_cover"])
q("03-20 20:30", "en", "Is football on tonight?", ["foot5"], ["foot4"])
q("03-20 21:00", "tr", "Annem hangi gün geliyor artık, ne kadar kalacak?",
  ["mom2"], ["mom1", "mom0"], long=True)
q("03-20 22:00", "pl", "Czy w mieszkaniu w Budapeszcie jest suszarka i do której trzeba się "
  "wymeldować?", ["dora_long"], long=True)
q("03-21 08:00", "hu", "Hánykor kell vasárnap kijelentkezni a lakásból?", ["dora_long"], long=True)
q("03-21 09:00", "fi", "Mihin aikaan retro on tänään?", ["retro"])
q("03-21 18:00", "hu", "Mikor ér Réka a lakáshoz?", ["reka2"], ["reka1"])
q("03-21 22:00", "tr", "Budapeşte'deki evin wifi şifresi neydi?", ["wifi"])
q("03-22 10:30", "en", "What time and where are we meeting for the baths?",
  ["bp_program", "dora_reminder"], long=True)
q("03-23 12:00", "tr", "Teresa bizi hangi pazar, saat kaçta pierogiye çağırdı?", ["pierogi"])
q("03-25 09:00", "en", "When is the All Hands now?", ["th2"], ["th1"])
q("03-25 20:00", "tr", "Budapeşte'deki ev için Dóra'ya ne kadar göndermiştim?", ["paid"])
q("03-26 20:00", "tr", "Test meetup'ı yarın mı?", ["meetup2"], ["meetup1"])
q("03-28 19:00", "tr", "Burak'ın ev partisi yarın saat kaçta, bina kapısının kodu neydi?",
  ["party2"], ["party1"])
q("03-29 10:00", "pl", "Ile wynosi czynsz od kwietnia i na jakie konto go przelewać?",
  ["rent2", "rent_iban"], ["rent1"])
q("03-29 21:00", "en", "When are we video-calling my family for Bayram?", ["bayram"])
q("03-31 08:30", "pl", "Gdzie odbieramy nowe karty wejściowe do biura?", ["office_move"], long=True)
q("04-01 19:00", "tr", "Pasaportum ne zaman hazır olur demişlerdi?", ["passport"])
q("04-02 20:00", "fi", "Mihin aikaan maanantain lento lähtee Varsovasta?", ["tampere"])
q("04-03 12:00", "en", "Where does Jussi want to take me for a sauna in Tampere?", ["sauna"])
q("04-03 19:00", "tr", "Can yazın Varşova'ya ne için gelmek istiyordu?", ["can_intern"])
q("04-05 10:00", "pl", "Którego mama przylatuje i o której ląduje w Warszawie?",
  ["mom3", "mom2"], ["mom1", "mom0"], long=True)
q("04-06 21:00", "tr", "Tampere'de hangi otelde kalıyorum?", ["tampere"])
q("04-08 20:00", "en", "When is my dental check-up?", ["dent_next"])
q("04-11 21:00", "tr", "Annemin uçuş numarası neydi?", ["mom3"])
q("04-14 19:00", "tr", "Elif'in sözü hangi tarihte, saat kaçta?", ["soz4", "soz2", "soz3"], ["soz1"],
  long=True)
q("04-15 20:00", "pl", "Co rodzice Magdy kupili jej na urodziny?", ["gift"])
q("04-19 21:00", "en", "What time does Easter breakfast at Magda's parents start tomorrow?",
  ["easter"])
q("04-19 21:30", "tr", "Magda atkısını nerede unutmuştu?", ["scarf"])
q("03-13 15:50", "en", "Which room is my dentist appointment in today?", ["dent3"])
q("03-24 10:00", "en", "Is my brother going to make it to Elif's engagement after all?",
  ["can_ok"], ["can_exam"])
q("04-06 20:00", "fi", "Mikä olikaan Tampereen toimiston ovikoodi?", ["ovikoodi"])
