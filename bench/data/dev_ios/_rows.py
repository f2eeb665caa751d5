# Hand-written rows for dev_ios. Times are local Europe/Vienna (CEST, UTC+2).
# A(handle, key, app, title, subtitle, body, time, label, lang, secrets, cat)
# M(handle, key, app, title, subtitle, body, time, label, lang, secrets)  -> modified
# X(key, app, time)                                                    -> removed

ROWS = []


def A(h, key, app, title, sub, body, t, label, lang, secrets=(), cat=None):
    ROWS.append(dict(h=h, kind="added", key=key, app=app, title=title, subtitle=sub, body=body,
                     t=t, label=label, lang=lang, secrets=list(secrets), cat=cat))


def M(h, key, app, title, sub, body, t, label, lang, secrets=()):
    ROWS.append(dict(h=h, kind="modified", key=key, app=app, title=title, subtitle=sub, body=body,
                     t=t, label=label, lang=lang, secrets=list(secrets), cat=None))


def X(key, app, t):
    ROWS.append(dict(h=None, kind="removed", key=key, app=app, title="", subtitle="", body="",
                     t=t, label="noise", lang="und", secrets=[], cat=None))


# ---------------------------------------------------------------- Mon 6 Oct
A(None, "wx-1006-0631", "WEATHER", "Wetter", "Wien", "Leichter Regen beginnt in etwa 15 Minuten und hält bis 09:00 an.", "10-06 06:31", "noise", "de")
A(None, "orf-1006-0652", "ORF", "ORF.at", "", "Budget: Regierung legt Sparpfad bis 2027 vor – Opposition kritisiert Kürzungen bei Förderungen", "10-06 06:52", "noise", "de")
A(None, "wa-3b-1006-0705", "WA", "Station 3B Pflege 💉", "", "Elif Yıldız: Guten Morgen ihr Lieben ☕ Wer hat heute Frühdienst mit mir?", "10-06 07:05", "noise", "de")
X("wa-3b-1006-0705", "WA", "10-06 07:31")
A("A1", "sms-lechner-1006", "SMS", "ZA Dr. Lechner", "", "Erinnerung: Ihr Termin bei Dr. Karin Lechner ist am Do, 09.10. um 08:30 (Kontrolle + Mundhygiene). Bitte e-card mitbringen. Absagen bitte bis 24 h vorher unter 01 271 88 40.", "10-06 09:12", "keep", "de")
A(None, "george-1006-1040", "GEORGE", "George", "Kartenzahlung", "−4,80 € bei ANKER 1210 WIEN, Debitkarte ••• 4417", "10-06 10:40", "noise", "de")
A("Q4", "dienst-1006-1100", "DIENST", "Dienstplan 3B", "Dienstplan November veröffentlicht", "Wunschdienste für November können bis Mi, 15.10. eingetragen werden. Danach wird der Plan fixiert.", "10-06 11:00", "keep", "de")
A("B1", "kiga-1006-1320", "KIGA", "Kindergarten Regenbogen", "Elternabend Marienkäfer", "Liebe Eltern, unser Elternabend findet am Mi, 15.10. um 18:00 im Bewegungsraum statt. Themen: Laternenfest, Ausflüge, Vorschule. Bitte bis Freitag in der App anmelden. Eine Kinderbetreuung können wir leider nicht anbieten.", "10-06 13:20", "keep", "de")
A("G1", "zalo-me-1006-1430", "ZALO", "Mẹ", "", "Con ơi, Chủ nhật này 12/10 cả nhà gọi video lúc 7 giờ tối giờ Hà Nội nhé, có cả bà ngoại. Nhớ cho Leo chào bà nhé.", "10-06 14:30", "keep", "vi")
A("P1", "cal-swim-1006", "CAL", "Schwimmkurs Leo", "Hallenbad Floridsdorf", "Heute, 16:30 – 17:15", "10-06 15:45", "keep", "de")
A(None, "ig-1006-1710", "IG", "Instagram", "", "camille.lyon hat ein Foto gepostet: „Premier jour d'automne à Lyon 🍂“", "10-06 17:10", "noise", "de")
A(None, "duo-1006-1802", "DUO", "Duolingo", "", "Dein 112-Tage-Streak ist in Gefahr! 🦉 Nur 5 Minuten Japanisch heute?", "10-06 18:02", "noise", "de")
A("E1", "wa-reka-1006-1945", "WA", "Réka Szabó", "", "Szia Minh Anh! Péntek este 19:00 vacsora a Café Dobosban (Neubaugasse 24)? Már foglaltam asztalt kettőnknek 😊 Végre csak mi ketten!", "10-06 19:45", "keep", "hu")
A("E2", "wa-reka-1006-1947", "WA", "Réka Szabó", "", "🥂😘", "10-06 19:47", "noise", "und")
X("duo-1006-1802", "DUO", "10-06 20:10")
A(None, "billa-1006-2030", "BILLA", "BILLA", "", "Nur bis Samstag: −25 % auf alle Joghurts mit dem jö Bonus Club 🥛", "10-06 20:30", "noise", "de")
X("wa-reka-1006-1947", "WA", "10-06 21:05")
A("K1", "wechat-liting-1006", "WECHAT", "李婷", "", "Minh Anh，这周三（10月8日）晚上六点半我们还是在Hauptbücherei见面吗？这次想练习医院里用的德语词汇，好不好？", "10-06 21:30", "keep", "zh")
A(None, "nflx-1006-2215", "NFLX", "Netflix", "", "Neu auf Netflix: Staffel 2 von „Grenzland“ – jetzt ansehen.", "10-06 22:15", "noise", "de")

# ---------------------------------------------------------------- Tue 7 Oct
A(None, "std-1007-0640", "STD", "DER STANDARD", "", "U6: Störung zwischen Floridsdorf und Jägerstraße, Ersatzverkehr mit Bussen eingerichtet", "10-07 06:40", "noise", "de")
A("I1", "post-zalando-1007", "POST", "Post", "Sendung von Zalando", "Ihre Sendung wird heute zugestellt, voraussichtlich zwischen 11:00 und 14:00 Uhr.", "10-07 07:55", "keep", "de")
A("L1", "sakura-1007-0900", "SAKURA", "さくら日本語オンライン", "", "今週のレッスンは10月7日（火）19:30からです。教科書の第8課を予習してきてください。", "10-07 09:00", "keep", "ja")
A("S1", "wa-sandra-1007", "WA", "Sandra (Noahs Mama)", "", "Hallo Minh Anh! Noah wird 6 🎉 Wir feiern am Sa, 11.10. von 15 bis 18 Uhr in der Spielwelt Kagran (Wagramer Straße 150). Leo ist herzlich eingeladen! Bitte Stoppersocken mitgeben. Sag mir bis Mittwoch Bescheid 😊", "10-07 09:31", "keep", "de")
M("I1m", "post-zalando-1007", "POST", "Post", "Sendung von Zalando", "Ihre Sendung wird heute zugestellt, voraussichtlich zwischen 12:30 und 13:30 Uhr.", "10-07 10:40", "keep", "de")
A(None, "wa-3b-1007-1102", "WA", "Station 3B Pflege 💉", "", "Jürgen Pichler: Hat wer mein Ladekabel gesehen? Das weiße, lange 🙈", "10-07 11:02", "noise", "de")
A("Q1", "wa-3b-1007-1230", "WA", "Station 3B Pflege 💉", "", "Sabine Moser: Teambesprechung am Do, 9.10. um 14:00 im Seminarraum 2. Thema: neue Sturzprophylaxe-Richtlinie. Bitte alle, die Dienst haben! 🙏", "10-07 12:30", "keep", "de")
A("I2", "post-zalando-1007-b", "POST", "Post", "Sendung von Zalando", "Wir haben Sie leider nicht angetroffen. Ihre Sendung liegt ab morgen 10:00 bei der Post Partner Trafik Novak, Leopoldauer Straße 17, bis 21.10. zur Abholung bereit. Abholcode: 7Q4-KM2", "10-07 13:40", "secret", "de", ["7Q4-KM2"])
X("post-zalando-1007", "POST", "10-07 13:41")
A("D1", "wa-tereza-1007-1510", "WA", "Tereza Horáková", "", "Ahoj Minh Anh, prosím tě, nevyměnila by sis se mnou službu? Já bych vzala tvou ranní v sobotu 11. 10. a ty bys za mě šla noční v neděli 19. 10. Sabine o tom ví a souhlasí. Dej vědět 🙏", "10-07 15:10", "keep", "cs")
A(None, "wa-tereza-1007-1531", "WA", "Tereza Horáková", "", "Děkuju moc!!! ❤️ Jsi poklad", "10-07 15:31", "noise", "cs")
A("O1", "gmail-oeticket-1007", "GMAIL", "oeticket", "Ihre Tickets: Kammerorchester Leopoldstadt – Mozart & Haydn", "Sa, 18.10.2025, 19:30 · Wiener Konzerthaus, Mozart-Saal · Reihe 7, Plätze 11 und 12 · 2 × 49,00 € · Ihre Tickets finden Sie im Anhang.", "10-07 16:20", "keep", "de")
A(None, "strava-1007-1805", "STRAVA", "Strava", "", "Florian Gruber hat einen Lauf hochgeladen: 8,4 km auf der Donauinsel 🏃", "10-07 18:05", "noise", "de")
A("F1", "wa-camille-1007-2030", "WA", "Camille 🇫🇷", "", "Coucou Minh Anh ! J'espère que vous allez bien tous les trois. Ici c'est la folie avec la rentrée d'Inès, mais on a enfin pris nos billets pour Vienne ! On arrive le vendredi 17 octobre avec le vol OS 412 qui atterrit à 14h35, Matthias a déjà hâte. Pour ne pas vous déranger, on a réservé quatre nuits au Motel One près de la gare centrale (Hauptbahnhof). Matthias veut absolument vous emmener dans un Heuriger, il en parle depuis des semaines 😄 Dis-moi si Leo a besoin de quelque chose, on peut apporter des livres en français. Bisous à vous trois !", "10-07 20:30", "keep", "fr")
A(None, "wa-camille-1007-2048", "WA", "Camille 🇫🇷", "", "Ah, et Inès demande si Leo a toujours son dinosaure vert 🦖😄", "10-07 20:48", "noise", "fr")
A(None, "zalo-fam-1007-2110", "ZALO", "Gia đình 🏠", "", "Dì Hạnh: [Hình ảnh]", "10-07 21:10", "noise", "vi")
A(None, "temu-1007-2240", "TEMU", "Temu", "", "🎁 Dein Überraschungsgeschenk wartet! Bis zu −90 % – nur noch heute.", "10-07 22:40", "noise", "de")

# ---------------------------------------------------------------- Wed 8 Oct
A(None, "wx-1008-0615", "WEATHER", "Wetter", "Wien", "Regen beginnt in etwa 20 Minuten.", "10-08 06:15", "noise", "de")
X("temu-1007-2240", "TEMU", "10-08 07:00")
X("wx-1008-0615", "WEATHER", "10-08 07:02")
A("O2", "wa-flo-1008-0720", "WA", "Florian ❤️", "", "Mama kann am 18. babysitten 👍 Sie kommt um 18:30 zu uns, dann schaffen wir das Konzert locker.", "10-08 07:20", "keep", "de")
A("A2", "cal-lechner-0910", "CAL", "Zahnarzt Dr. Lechner", "Brünner Straße 41, 1210 Wien", "Morgen, 08:30 – 09:30", "10-08 08:30", "keep", "de")
A("D3", "dienst-1008-1000", "DIENST", "Dienstplan 3B", "Diensttausch genehmigt", "Sa 11.10. Frühdienst 06:45–15:15 → T. Horáková · So 19.10. Nachtdienst 19:00–07:00 → M. A. Nguyen", "10-08 10:00", "keep", "de")
A(None, "george-1008-1015", "GEORGE", "George", "Dauerauftrag ausgeführt", "−1.120,00 € Miete Oktober an Heimbau Wohnungsgenossenschaft", "10-08 10:15", "noise", "de")
A("A3", "sms-lechner-1008-1140", "SMS", "ZA Dr. Lechner", "", "Liebe Patientin, Dr. Lechner muss krankheitsbedingt alle Termine am Do, 09.10. absagen. Wir können Ihnen Di, 14.10. um 16:15 anbieten. Bitte mit JA bestätigen oder anrufen.", "10-08 11:40", "keep", "de")
A("A4", "sms-lechner-1008-1205", "SMS", "ZA Dr. Lechner", "", "Danke! Ihr neuer Termin: Di, 14.10., 16:15, Dr. Karin Lechner, Brünner Straße 41. Bis dann!", "10-08 12:05", "keep", "de")
X("cal-lechner-0910", "CAL", "10-08 12:10")
A("G2", "zalo-huy-1008", "ZALO", "Huy", "", "Chị ơi, mẹ gửi cho chị ít đồ qua cô Lan nhé. Có 2 gói miến dong, 1 hũ mắm tôm, ô mai Hàng Đường và cái áo len mẹ tự đan cho Leo. Cô Lan là bạn cùng cơ quan cũ của mẹ, cô bay sang Vienna ngày 16/10 để thăm con gái, ở quận 10 (Favoriten). Cô bảo chị qua lấy chiều thứ Bảy 18/10 là tiện nhất, số của cô là +43 660 418 2297. Chị nhớ mang theo túi to vì hơi nhiều đồ. Mẹ dặn ăn ô mai ít thôi kẻo ho 😄", "10-08 13:05", "keep", "vi")
A(None, "wa-mk-1008-1412", "WA", "Marienkäfer Eltern 🐞", "", "Melanie: Weiß wer, ob morgen Turnen ist? Lina hat ihren Turnbeutel daheim vergessen 🙈", "10-08 14:12", "noise", "de")
A("K2", "wechat-liting-1008", "WECHAT", "李婷", "", "不好意思😭 我今天要加班，来不了了。改到下周三（15号）同一时间可以吗？", "10-08 16:50", "keep", "zh")
A(None, "ios-update-1008", "SETTINGS", "Softwareupdate", "", "iOS 26.0.1 ist verfügbar. Heute Nacht installieren?", "10-08 17:30", "noise", "de")
X("wa-mk-1008-1412", "WA", "10-08 18:40")
A(None, "wa-sandra-1008-1955", "WA", "Sandra (Noahs Mama)", "", "Super, ich trag Leo ein! 🎈", "10-08 19:55", "noise", "de")
A("J1", "wh-bike-1008", "WH", "willhaben", "Kinderfahrrad 16 Zoll woom 3", "Stefan K.: Hallo, ist das Rad noch zu haben? Würde 50 € bieten und könnte am Samstag um 10 Uhr abholen.", "10-08 21:15", "keep", "de")

# ---------------------------------------------------------------- Thu 9 Oct
X("ios-update-1008", "SETTINGS", "10-09 02:10")
A(None, "orf-1009-0650", "ORF", "ORF.at", "", "Pensionen: Einigung auf Anpassung für 2026 – Seniorenrat zeigt sich enttäuscht", "10-09 06:50", "noise", "de")
A("J2", "wh-bike-1009", "WH", "willhaben", "Kinderfahrrad 16 Zoll woom 3", "Stefan K.: Okay, treffen wir uns in der Mitte: 55 €. Samstag 10:00 passt. Schickst du mir die Adresse?", "10-09 07:30", "keep", "de")
A(None, "meinesv-1009-0940", "MEINESV", "e-Impfpass", "", "Für die Saison 2025/26 wird Ihnen die Influenza-Impfung empfohlen. Impftermine finden Sie unter impfservice.wien.", "10-09 09:40", "noise", "de")
A("L2", "gmail-tanaka-1009", "GMAIL", "田中 由美", "来週のレッスンについて", "ミンアンさん、こんにちは。火曜日のレッスン、お疲れさまでした。敬語の練習、とても上手になりましたね。さて、来週のことですが、私の出張のため、レッスンを火曜日ではなく10月15日（水）の20:00からに変更させてください。宿題は第9課の練習問題1から3までと、自己紹介の作文（200字くらい）です。作文はレッスンの前日までにメールで送ってください。分からないことがあれば、いつでも聞いてくださいね。よろしくお願いします。田中", "10-09 10:15", "keep", "ja")
A("Q2", "wa-3b-1009-1100", "WA", "Station 3B Pflege 💉", "", "Sabine Moser: Achtung, Seminarraum 2 ist doppelt gebucht → wir treffen uns heute um 14:00 im Stationszimmer. Kaffee gibt's trotzdem ☕", "10-09 11:00", "keep", "de")
A(None, "wa-3b-1009-1120", "WA", "Station 3B Pflege 💉", "", "Elif Yıldız: 👍", "10-09 11:20", "noise", "und")
A("B2", "wa-mk-1009-1230", "WA", "Marienkäfer Eltern 🐞", "", "Sandra: Achtung Leute, der Elternabend ist verschoben auf Do 16.10., 18:30! Frau Aigner ist krank. Steht sicher gleich auch in der App.", "10-09 12:30", "keep", "de")
A("B3", "kiga-1009-1248", "KIGA", "Kindergarten Regenbogen", "Terminänderung", "Der Elternabend der Gruppe Marienkäfer wird auf Donnerstag, 16.10., 18:30 Uhr verschoben. Der Ort (Bewegungsraum) bleibt gleich. Danke für euer Verständnis!", "10-09 12:48", "keep", "de")
A("Q6", "mail-arbmed-1009", "MAIL", "Arbeitsmedizin Stadtklinik", "Einladung zur arbeitsmedizinischen Untersuchung", "Sehr geehrte Frau Nguyen, Ihr Termin: Mo, 13.10., 07:15, Pavillon C, 1. Stock, Zimmer 112. Bitte nüchtern erscheinen (Blutabnahme) und den Impfpass mitbringen.", "10-09 15:30", "keep", "de")
A("H1", "tg-galina-1009", "TG", "Галина Ивановна", "", "Минь Ань, добрый вечер! Извините, что беспокою. Я в следующий вторник уезжаю к дочери в Грац, с 14 по 18 октября, у неё родился второй ребёнок. Не могли бы вы поливать мои цветы во вторник и в пятницу? Ключ я оставлю в вашем почтовом ящике в понедельник вечером. Если вам неудобно, скажите честно, я попрошу кого-нибудь другого. Спасибо вам большое, вы такая хорошая соседка!", "10-09 17:00", "keep", "ru")
A(None, "fitness-1009-1840", "FITNESS", "Fitness", "", "Fast geschafft! Noch 12 Minuten Training, um deinen Trainingsring zu schließen.", "10-09 18:40", "noise", "de")
A("Pcard", "wa-flo-1009-1920", "WA", "Florian ❤️", "", "Die Nachzahlung für Leos Schwimmkurs sind 45 €. Zahl's einfach online mit meiner Kreditkarte: 4921 8830 1174 5529, gültig bis 09/27, Prüfziffer 762", "10-09 19:20", "secret", "de", ["4921 8830 1174 5529", "762"])
A("E3", "wa-reka-1009-2110", "WA", "Réka Szabó", "", "Bocs, Lili belázasodott 🤒, a péntek nem fog menni. Szombaton 19:30 jó neked? Áttettem a foglalást szombatra, ugyanott.", "10-09 21:10", "keep", "hu")
A(None, "wa-reka-1009-2112", "WA", "Réka Szabó", "", "Bocs még egyszer 🙈 Lili már alszik.", "10-09 21:12", "noise", "hu")
A(None, "ig-1009-2205", "IG", "Instagram", "", "reka.szabo hat dir ein Reel gesendet.", "10-09 22:05", "noise", "de")

# ---------------------------------------------------------------- Fri 10 Oct
A(None, "std-1010-0710", "STD", "DER STANDARD", "", "Friedensnobelpreis wird heute in Oslo bekanntgegeben – wer als Favorit gilt", "10-10 07:10", "noise", "de")
A("N1", "mail-bzp-1010", "MAIL", "Bildungszentrum Pflege OÖ", "Anmeldebestätigung Seminar Wundversorgung", "Sehr geehrte Frau Nguyen, wir bestätigen Ihre Teilnahme am Seminar „Moderne Wundversorgung“ am Mi, 22.10.2025, 09:00–16:30, Bildungszentrum Pflege Linz, Raum 2.14. Bitte bringen Sie Ihren Dienstausweis mit.", "10-10 08:30", "keep", "de")
A("S2", "wa-sandra-1010", "WA", "Sandra (Noahs Mama)", "", "Kleine Änderung für Samstag: wir starten erst um 15:30 (die Spielwelt hatte früher keinen Tisch mehr), Abholung dann 18:30. Socken nicht vergessen 🧦", "10-10 09:20", "keep", "de")
A(None, "george-1010-1002", "GEORGE", "George", "Kartenzahlung", "−23,17 € bei BILLA DANKT 1210, Debitkarte ••• 4417", "10-10 10:02", "noise", "de")
A("ITpw", "mail-it-1010", "MAIL", "IT-Service Stadtklinik", "Ihr Zugang zu CareDoc", "Ihr Initialpasswort für CareDoc lautet: Stk#4821Lp – bitte beim ersten Login ändern. Das Passwort ist 72 Stunden gültig.", "10-10 11:30", "secret", "de", ["Stk#4821Lp"])
A("C1", "kiga-1010-1405", "KIGA", "Kindergarten Regenbogen", "Ausflug in den Tiergarten 🦒", "Liebe Eltern der Marienkäfer! Der Herbst ist da und wir haben in den letzten Wochen viel darüber gelernt, wie Tiere den Winter verbringen. Deshalb machen wir am Freitag, 17.10. einen Ausflug in den Tiergarten Schönbrunn. Wir treffen uns um 8:00 im Kindergarten und fahren gemeinsam mit der U-Bahn, zurück sind wir gegen 15:00. Bitte gebt euren Kindern eine Jause, eine Trinkflasche und wetterfeste Kleidung (Gummistiefel!) mit. Der Eintritt kostet 6 € pro Kind und wird bis Mittwoch bar in der Gruppe eingesammelt. Wer als Begleitperson mitkommen möchte, meldet sich bitte bei Frau Aigner. Liebe Grüße, euer Marienkäfer-Team", "10-10 14:05", "keep", "de")
A("S3", "wa-flo-1010-1640", "WA", "Florian ❤️", "", "Hab das Geschenk für Noah: Lego Duplo Feuerwehrstation (34,99 €). Liegt im Vorzimmerkasten ganz oben.", "10-10 16:40", "keep", "de")
A(None, "food-1010", "FOOD", "foodora", "", "Deine Bestellung bei Phở Saigon wird zubereitet 🍜", "10-10 18:10", "noise", "de")
M(None, "food-1010", "FOOD", "foodora", "", "Dein Rider ist unterwegs – Ankunft ca. 18:45.", "10-10 18:26", "noise", "de")
X("food-1010", "FOOD", "10-10 19:00")
A(None, "wa-niv-1010-1930", "WA", "Nurses in Vienna 🇦🇹", "", "Joy: Anyone know if the Nostrifikation office is open on Fridays? 🙃", "10-10 19:30", "noise", "en")
A("M1", "book-1010-2210", "BOOK", "Booking.com", "Buchung bestätigt ✅", "Casa Ferri – Appartamento sul Mare, Triest · 27.–31. Okt. · 4 Nächte · 2 Erwachsene, 1 Kind · Gesamtpreis 512 € · Buchungsnummer 4127.559.831 · PIN 6620", "10-10 22:10", "secret", "de", ["6620"])
A("M1b", "gmail-booking-1010", "GMAIL", "Booking.com", "Ihre Buchung ist bestätigt: Casa Ferri", "Check-in: Mo, 27. Okt. 2025, ab 15:00 · Check-out: Fr, 31. Okt. 2025, bis 10:00 · Adresse: Via del Monte 7, 34122 Triest", "10-10 22:14", "keep", "de")

# ---------------------------------------------------------------- Sat 11 Oct
A("J3", "wh-bike-1011", "WH", "willhaben", "Kinderfahrrad 16 Zoll woom 3", "Stefan K.: Sorry, mein Auto springt nicht an 😩 Geht es morgen (Sonntag) um 11:00? Zahle dann bar.", "10-11 08:20", "keep", "de")
A(None, "wx-1011-0845", "WEATHER", "Wetter", "Wien", "Nebel löst sich bis etwa 10:00 auf, danach sonnig.", "10-11 08:45", "noise", "de")
A(None, "wa-flo-1011-1015", "WA", "Florian ❤️", "", "Bin mit Leo am Markt – brauchen wir noch Eier oder Milch?", "10-11 10:15", "noise", "de")
A("P2", "sms-delfin-1011", "SMS", "Schwimmschule Delfin", "", "Liebe Eltern! Wegen Wartungsarbeiten im Hallenbad Floridsdorf entfällt der Kurs am Mo, 13.10. Ersatztermin: Mi, 15.10., 16:30, gleiches Bad. Bitte Badehaube mitnehmen!", "10-11 11:05", "keep", "de")
A(None, "ig-like-1011", "IG", "Instagram", "", "reka.szabo und 3 weitere haben deinen Beitrag mit „Gefällt mir“ markiert.", "10-11 13:00", "noise", "de")
M(None, "ig-like-1011", "IG", "Instagram", "", "reka.szabo und 7 weitere haben deinen Beitrag mit „Gefällt mir“ markiert.", "10-11 14:30", "noise", "de")
A("G4", "zalo-me-1011", "ZALO", "Mẹ", "", "Con ơi, mai gọi muộn hơn nhé, 9 giờ tối giờ mình, tức là 4 giờ chiều bên con. Bố đi đám cưới con bác Tư về muộn.", "10-11 15:30", "keep", "vi")
A("E4", "wa-reka-1011-1730", "WA", "Réka Szabó", "", "Fél 8-kor ott vagyok! Az asztal a nevemen van (Szabó), ha előbb érsz oda 😊", "10-11 17:30", "keep", "hu")
A(None, "george-1011-1800", "GEORGE", "George", "Kartenzahlung", "−7,90 € bei SPIELWELT KAGRAN, Debitkarte ••• 4417", "10-11 18:00", "noise", "de")
X("ig-like-1011", "IG", "10-11 19:10")
A(None, "strava-1011-2045", "STRAVA", "Strava", "", "Deine Woche: 3 Aktivitäten, 14,2 km – 20 % mehr als letzte Woche 💪", "10-11 20:45", "noise", "de")
A(None, "wa-reka-1011-2310", "WA", "Réka Szabó", "", "Köszi a mai estét ❤️ Legközelebb nálunk!", "10-11 23:10", "noise", "hu")

# ---------------------------------------------------------------- Sun 12 Oct
A("ZaloOTP", "sms-zalo-1012", "SMS", "Zalo", "", "Mã xác thực Zalo của bạn là 6284. Vui lòng không chia sẻ mã này với bất kỳ ai.", "10-12 08:10", "secret", "vi", ["6284"])
A("I5", "amz-1012-0930", "AMZ", "Amazon", "", "Versendet: „Regenhose Kinder 110/116“ – Zustellung voraussichtlich Mi, 15. Okt.", "10-12 09:30", "keep", "de")
A(None, "wh-bike-1012-1050", "WH", "willhaben", "Kinderfahrrad 16 Zoll woom 3", "Stefan K.: Bin in 10 Minuten da.", "10-12 10:50", "noise", "de")
X("wh-bike-1012-1050", "WH", "10-12 11:02")
A(None, "wh-sold-1012", "WH", "willhaben", "", "Deine Anzeige „Kinderfahrrad 16 Zoll woom 3“ wurde als verkauft markiert. Bewerte jetzt Stefan K.!", "10-12 11:40", "noise", "de")
A(None, "tg-rv-1012", "TG", "Русская Вена", "", "Где купить настоящую гречку и творог в Вене: наш список магазинов 🛒", "10-12 12:30", "noise", "ru")
A(None, "zalo-me-1012-1545", "ZALO", "Mẹ", "", "Con ơi 15 phút nữa nhé, bà ngoại ngồi chờ rồi 😄", "10-12 15:45", "noise", "vi")
X("zalo-me-1012-1545", "ZALO", "10-12 16:05")
A(None, "std-1012-1830", "STD", "DER STANDARD", "", "Wetter: Frost in den Alpentälern, im Osten bleibt es mild", "10-12 18:30", "noise", "de")
A(None, "duo-1012-1910", "DUO", "Duolingo", "", "Diese Erinnerungen scheinen nicht zu wirken. Wir hören jetzt auf, dir welche zu senden. 🦉", "10-12 19:10", "noise", "de")
A(None, "screentime-1012", "SETTINGS", "Bildschirmzeit", "", "Wochenbericht: Deine Bildschirmzeit ist um 12 % gesunken, durchschnittlich 3 Std. 41 Min. pro Tag.", "10-12 20:00", "noise", "de")
A(None, "ig-1012-2100", "IG", "Instagram", "", "Sieh dir an, was camille.lyon und 4 andere in ihrer Story geteilt haben.", "10-12 21:00", "noise", "de")

# ---------------------------------------------------------------- Mon 13 Oct
A("Q6c", "cal-arbmed-1013", "CAL", "Arbeitsmedizin", "Pavillon C, Zimmer 112", "Heute, 07:15", "10-13 06:05", "keep", "de")
A(None, "phone-1013-0740", "PHONE", "Verpasster Anruf", "", "Tereza Horáková", "10-13 07:40", "noise", "de", cat="missed_call")
A(None, "phone-1013-0742", "PHONE", "Neue Voicemail", "", "Tereza Horáková (0:31)", "10-13 07:42", "noise", "de", cat="voicemail")
A("I3", "dhl-1013", "DHL", "DHL Paket", "", "Ihr Paket von Amazon kommt voraussichtlich am Mittwoch, 15.10., zwischen 9:00 und 13:00 Uhr.", "10-13 09:30", "keep", "de")
A("N2", "oebb-1013", "OEBB", "ÖBB", "Ticket gekauft", "Wien Hbf → Linz Hbf, Mi 22.10., ab 07:10, RJX 640, Wagen 24, Platz 65. Rückfahrt Linz Hbf ab 17:30. Gute Reise!", "10-13 10:05", "keep", "de")
A("D4", "wa-tereza-1013-1220", "WA", "Tereza Horáková", "", "Minh Anh, promiň, ještě změna 🙈 Neděli 19. mi nakonec vzala Petra. Mohla bys místo toho vzít moji noční v pátek 24. 10.? Sabine to přepíše v plánu.", "10-13 12:20", "keep", "cs")
A(None, "wa-tereza-1013-1224", "WA", "Tereza Horáková", "", "Promiň, že tě s tím pořád otravuju 😅", "10-13 12:24", "noise", "cs")
A("M2", "wa-giulia-1013", "WA", "Giulia Ferri", "", "Hello Minh Anh, this is Giulia, your host at Casa Ferri in Trieste! Thank you for booking with us, we are happy to welcome your family. The apartment is on the second floor of Via del Monte 7, there is no lift, sorry. If you come by car, the closest option is the Park San Giusto garage, where we have a guest rate of 12 euro per day, just show this message at the desk. Check-in is from 3 pm: the keys are in the small box next to the door, code 4719. Please write me when you leave Vienna so I know when to expect you. A presto!", "10-13 13:00", "secret", "en", ["4719"])
A(None, "wa-3b-1013-1500", "WA", "Station 3B Pflege 💉", "", "Jürgen Pichler: Kuchen im Stationszimmer 🎂 Bedient euch, bevor die Nachtschicht kommt!", "10-13 15:00", "noise", "de")
A("A5", "cal-lechner-1410", "CAL", "Zahnarzt Dr. Lechner", "Brünner Straße 41, 1210 Wien", "Morgen, 16:15 – 17:15", "10-13 16:15", "keep", "de")
A(None, "george-1013-1745", "GEORGE", "George", "Kartenzahlung", "−3,40 € bei STRÖCK 1210, Debitkarte ••• 4417", "10-13 17:45", "noise", "de")
A("H2", "tg-galina-1013", "TG", "Галина Ивановна", "", "Ключ в вашем ящике. Поливать только фикус в гостиной и помидоры на балконе, орхидеи не трогайте 🙂", "10-13 20:05", "keep", "ru")
M("H2m", "tg-galina-1013", "TG", "Галина Ивановна", "", "Ключ в вашем ящике. Поливать только фикус в гостиной, помидоры на балконе и базилик на кухне, орхидеи не трогайте 🙂", "10-13 20:07", "keep", "ru")
A("H2s", "tg-galina-1013-2009", "TG", "Галина Ивановна", "", "Если ключ не подойдёт – запасной в ключнице возле лифта, код 0815.", "10-13 20:09", "secret", "ru", ["0815"])
A(None, "wechat-liting-1013", "WECHAT", "李婷", "", "[动画表情]", "10-13 21:15", "noise", "zh")
A(None, "nflx-1013-2140", "NFLX", "Netflix", "", "Weiterschauen: „Grenzland“ S2:E3 wartet auf dich.", "10-13 21:40", "noise", "de")

# ---------------------------------------------------------------- Tue 14 Oct
A(None, "orf-1014-0700", "ORF", "ORF.at", "", "Wiener Linien: Neue Straßenbahnlinie fährt ab Samstag durch den 2. Bezirk", "10-14 07:00", "noise", "de")
A("D5", "dienst-1014-0815", "DIENST", "Dienstplan 3B", "Dienstplanänderung", "Nachtdienst So 19.10. (M. A. Nguyen) storniert. Neu: Fr 24.10. Nachtdienst 19:00–07:00, Station 3B → M. A. Nguyen.", "10-14 08:15", "keep", "de")
A("P3", "sms-sommer-1014", "SMS", "Ordination Dr. Sommer", "", "Terminbestätigung: Grippeimpfung (Nasenspray) für Leo Gruber am Di, 21.10., 10:00. Bitte e-card und Impfpass mitbringen.", "10-14 09:50", "keep", "de")
A("X2", "wa-niv-1014-1130", "WA", "Nurses in Vienna 🇦🇹", "", "Priya: Hi everyone! Quick update from the meeting with the nursing association yesterday, since a few of you asked. They are running a free info session about the Nostrifikation process and the German B2 requirement, and this time it is on Monday, 20 October at 18:00 at the Volkshochschule Brigittenau, room 3.04. You need to register by Friday via the link in their newsletter, places are limited to 40. Bring copies of your diploma and transcript if you want individual advice afterwards. I will be there too, happy to carpool from Floridsdorf!", "10-14 11:30", "keep", "en")
A("U1", "mail-hv-1014", "MAIL", "Hausverwaltung Berger & Partner", "Information: Wasserabsperrung am 15.10.", "Sehr geehrte Bewohnerinnen und Bewohner, im Zuge der Sanierung der Steigleitungen im Stiegenhaus 2 ist leider eine Unterbrechung der Wasserversorgung notwendig. Am Mittwoch, 15.10., wird das Wasser im gesamten Haus von 08:00 bis 12:00 Uhr abgedreht. Bitte füllen Sie sich vorab ausreichend Trinkwasser ab und benützen Sie in dieser Zeit keine Wasch- oder Geschirrspülmaschinen. Nach der Wiederinbetriebnahme kann das Wasser kurz bräunlich sein, bitte einige Minuten laufen lassen. Wir danken für Ihr Verständnis. Mit freundlichen Grüßen, Hausverwaltung Berger & Partner", "10-14 13:10", "keep", "de")
A("Q5", "mail-sabine-1014", "MAIL", "Sabine Moser", "Fortbildungen & Pflichtschulungen Q4", "Liebes Team, danke für euren Einsatz in den letzten Wochen, ich weiß, dass es durch die vielen Krankenstände nicht leicht war. Kurz zu den Schulungen: Die Pflichtschulung Reanimation (BLS) findet für Minh Anh, Jürgen und Elif am Do, 23.10. von 13:00 bis 15:00 im Simulationszentrum (Pavillon D) statt, bitte in Dienstkleidung kommen. Wer den Hygiene-E-Learning-Kurs noch nicht gemacht hat: Die Frist ist der 31.10. Die Dienstplanwünsche für Dezember bitte erst ab 1.11. eintragen. Bei Fragen bin ich ab Montag wieder erreichbar. Liebe Grüße, Sabine", "10-14 13:40", "keep", "de")
A(None, "phone-1014-1602", "PHONE", "Eingehender Anruf", "", "+43 1 271 88 40", "10-14 16:02", "noise", "de", cat="incoming_call")
A("A6", "sms-lechner-1014-1805", "SMS", "ZA Dr. Lechner", "", "Danke für Ihren Besuch! Mundhygiene 95,00 € wurde mit Karte bezahlt. Ihre nächste Kontrolle bitte im April 2026 vereinbaren.", "10-14 18:05", "keep", "de")
A("R4", "sms-erste-1014", "SMS", "Erste Bank", "", "s Identity: Freigabe für Überweisung 300,00 EUR an NGUYEN THI HOA. Ihr TAN: 748213. Geben Sie den TAN niemals weiter!", "10-14 18:30", "secret", "de", ["748213"])
A("K3", "wechat-liting-1014", "WECHAT", "李婷", "", "明天见！不过Hauptbücherei二楼在装修，我们改在Neubaugasse 9号的Kaffeehaus Lindner吧，还是六点半。", "10-14 20:10", "keep", "zh")
A(None, "gmail-medium-1014", "GMAIL", "Medium Daily Digest", "“Why night shifts change your brain” and 4 more stories", "Stories for Minh Anh: sleep science, nursing burnout, and learning kanji as an adult.", "10-14 20:40", "noise", "en")
A(None, "ig-1014-2200", "IG", "Instagram", "", "bence_sz_photo folgt dir jetzt.", "10-14 22:00", "noise", "de")

# ---------------------------------------------------------------- Wed 15 Oct
A(None, "wx-1015-0645", "WEATHER", "Wetter", "Wien", "Frost möglich: Tiefstwert heute Nacht 1°.", "10-15 06:45", "noise", "de")
A("F2", "wa-camille-1015-0750", "WA", "Camille 🇫🇷", "", "Petit changement 😩 Austrian a annulé notre vol de vendredi. On a été rebookés sur samedi 18, vol OS 414, arrivée à 10h50. Du coup, une nuit de moins à l'hôtel.", "10-15 07:50", "keep", "fr")
A(None, "wa-camille-1015-0805", "WA", "Camille 🇫🇷", "", "Désolée pour le bazar 🙈", "10-15 08:05", "noise", "fr")
A("Kschuh", "kiga-1015-0900", "KIGA", "Kindergarten Regenbogen", "Bitte beachten", "Bitte alle Hausschuhe und Gummistiefel mit Namen beschriften – wir haben schon 5 Paar ohne Besitzer 😉", "10-15 09:00", "keep", "de")
A("R5", "george-1015-0905", "GEORGE", "George", "Überweisung durchgeführt", "−300,00 € an NGUYEN THI HOA · Verwendungszweck: Tien cho Me", "10-15 09:05", "keep", "de")
A(None, "zalo-me-1015-1030", "ZALO", "Mẹ", "", "Mẹ nhận được tiền rồi nhé, cảm ơn con ❤️", "10-15 10:30", "noise", "vi")
A("U2", "mail-hv-1015", "MAIL", "Hausverwaltung Berger & Partner", "Update Wasserabsperrung", "Die Arbeiten dauern leider länger als geplant. Die Wasserversorgung wird voraussichtlich erst um 14:00 Uhr wiederhergestellt.", "10-15 11:30", "keep", "de")
A("I4", "dhl-1015", "DHL", "DHL Paket", "", "Ihr Paket wurde bei Ihrem Nachbarn abgegeben: Huber, Top 9.", "10-15 12:30", "keep", "de")
A("O3", "wa-flo-1015-1315", "WA", "Florian ❤️", "", "Weil Camille & Matthias jetzt erst Samstag kommen: Mama passt auf Leo UND Inès auf, kommt aber schon um 18:15.", "10-15 13:15", "keep", "de")
M("O3m", "wa-flo-1015-1315", "WA", "Florian ❤️", "", "Weil Camille & Matthias jetzt erst Samstag kommen: Mama passt auf Leo UND Inès auf, kommt aber schon um 18:00 (nicht 18:15, vertippt).", "10-15 13:17", "keep", "de")
A("H3", "tg-galina-1015", "TG", "Галина Ивановна", "", "Минь Ань, планы поменялись: я возвращаюсь уже в четверг вечером, так что в пятницу поливать не нужно. Ключ заберу у вас сама 🙏", "10-15 18:00", "keep", "ru")
A(None, "tg-galina-1015-1820", "TG", "Галина Ивановна", "", "Спасибо вам ещё раз! 🌷", "10-15 18:20", "noise", "ru")
A("L3", "sakura-1015-1945", "SAKURA", "さくら日本語オンライン", "", "まもなくレッスンが始まります（20:00〜）。Zoom ミーティングID：834 2291 0057　パスコード：sakura15", "10-15 19:45", "secret", "ja", ["sakura15"])
X("sakura-1015-1945", "SAKURA", "10-15 20:01")
A(None, "wechat-liting-1015", "WECHAT", "李婷", "", "今天聊得很开心！下次见👋", "10-15 21:50", "noise", "zh")

# ---------------------------------------------------------------- Thu 16 Oct
A(None, "std-1016-0650", "STD", "DER STANDARD", "", "Heizkosten: Was der Winter die Haushalte heuer kostet – ein Überblick", "10-16 06:50", "noise", "de")
A("F4", "wa-matthias-1016", "WA", "Matthias Gruber", "", "Servus! Heuriger am Sonntag 19.10. um 16:00 beim Weingut Hofbauer in Stammersdorf, hab für 5 Erwachsene und 2 Kinder reserviert. Mama kommt auch mit.", "10-16 08:10", "keep", "de")
A("T1", "sms-oeamtc-1016", "SMS", "ÖAMTC", "", "ÖAMTC Stützpunkt Floridsdorf: Ihr §57a-Begutachtungstermin für W-48213X ist am Mo, 20.10. um 07:30 bestätigt. Bitte Zulassungsschein mitbringen.", "10-16 09:20", "keep", "de")
A("L4", "sakura-1016-1040", "SAKURA", "さくら日本語オンライン", "", "お知らせ：中間テストは10月21日（火）19:30から行います。範囲は第1課〜第9課です。", "10-16 10:40", "keep", "ja")
A("Q3", "wa-3b-1016-1200", "WA", "Station 3B Pflege 💉", "", "Elif Yıldız: Psst 🤫 Sabine wird am 30.10. fünfzig! Wir sammeln 15 € pro Person bis Mi, 22.10. – bar bei mir oder per Überweisung an AT61 2011 1842 3156 7809 (Elif Yıldız). Geschenk: ein Thermengutschein.", "10-16 12:00", "secret", "de", ["AT61 2011 1842 3156 7809"])
A(None, "wa-3b-1016-1205", "WA", "Station 3B Pflege 💉", "", "Jürgen Pichler: Bin dabei 💸", "10-16 12:05", "noise", "de")
A("G5", "zalo-me-1016", "ZALO", "Mẹ", "", "Con ơi, hôm nay mẹ đi khám sức khỏe định kỳ ở bệnh viện gần nhà rồi. Bác sĩ bảo huyết áp mẹ hơi cao, 150/95, nên phải uống thuốc hạ huyết áp mỗi sáng và ăn nhạt hơn. Còn tim phổi với đường huyết thì bình thường cả, con đừng lo. Tháng 12 mẹ đi khám lại. Bố thì vẫn khỏe, sáng nào cũng đi bộ quanh hồ Thiền Quang. Con nhớ giữ ấm cho cả nhà nhé, bên đó sắp lạnh rồi.", "10-16 14:20", "keep", "vi")
A(None, "george-1016-1605", "GEORGE", "George", "Kartenzahlung", "−18,60 € bei DM DROGERIE MARKT 1210, Debitkarte ••• 4417", "10-16 16:05", "noise", "de")
A("T2", "wa-flo-1016-1800", "WA", "Florian ❤️", "", "Kannst du am Montag das Auto zum ÖAMTC bringen? Ich hab um 7:30 ein Meeting in St. Pölten. Schlüssel und Zulassungsschein liegen in der Lade beim Eingang.", "10-16 18:00", "keep", "de")
A("C2", "kiga-1016-1940", "KIGA", "Kindergarten Regenbogen", "Ausflug morgen", "Kleine Änderung für morgen: Wir treffen uns schon um 7:45, weil wir eine frühere U-Bahn nehmen. Bitte pünktlich sein – danke!", "10-16 19:40", "keep", "de")
A(None, "wa-mk-1016-2100", "WA", "Marienkäfer Eltern 🐞", "", "Melanie: Hat jemand zufällig eine Regenhose in 110 übrig? 😅", "10-16 21:00", "noise", "de")
X("wa-mk-1016-2100", "WA", "10-16 22:10")

# ---------------------------------------------------------------- Fri 17 Oct
A(None, "wx-1017-0655", "WEATHER", "Wetter", "Wien", "Regen ab Mittag möglich (60 %).", "10-17 06:55", "noise", "de")
A("P4", "sms-sommer-1017", "SMS", "Ordination Dr. Sommer", "", "Wegen einer Fortbildung ist die Ordination am Di, 21.10. geschlossen. Ihr Termin für Leo Gruber wurde auf Do, 23.10., 15:40 verlegt. Bei Verhinderung bitte anrufen.", "10-17 07:20", "keep", "de")
A("G3", "zalo-colan-1017", "ZALO", "Cô Lan", "", "Minh Anh ơi, cô sang tới nơi rồi. Thứ Bảy cô phải đi Salzburg với con gái, cháu qua lấy đồ tối nay (thứ Sáu) sau 7 giờ được không? Địa chỉ: Quellenstraße 88, cửa 12, tầng 3.", "10-17 09:00", "keep", "vi")
A("K4", "wechat-liting-1017", "WECHAT", "李婷", "", "早上好！昨天跟你聊完以后我想了很久，你说的护理培训的事情对我很有帮助。先告诉你一个消息：我十一月三日要回成都了，在家待三个星期，因为我妈妈要做膝盖手术，我得照顾她。所以十一月我们的语言交换要暂停一下。不过我回来以后想继续，每周三还是可以的。另外，我给Leo买了一本中文绘本，是关于熊猫的，下次见面给你。你有没有想要的成都特产？我可以帮你带回来！", "10-17 10:30", "keep", "zh")
A("P5", "wa-flo-1017-1240", "WA", "Florian ❤️", "", "Hab die SMS vom Kinderarzt gesehen – ich geh am Donnerstag mit Leo zur Impfung, hab mir den Nachmittag freigenommen.", "10-17 12:40", "keep", "de")
A("R2", "gmail-wienenergie-1017", "GMAIL", "Wien Energie", "Ihre Jahresabrechnung 2024/25", "Sehr geehrte Frau Nguyen, Ihre Jahresabrechnung ist da: Es ergibt sich eine Nachzahlung von 148,36 €, fällig am 31.10.2025. Ihre neue monatliche Teilbetragsvorschreibung beträgt 96,00 €.", "10-17 14:10", "keep", "de")
A("Kfoto", "kiga-1017-1520", "KIGA", "Kindergarten Regenbogen", "Fototag 📸", "Am Di, 21.10. kommt die Fotografin ab 9:00. Bitte bringt die Kinder bis 8:45. Gruppenfoto und Einzelporträts, bestellen könnt ihr danach über die App.", "10-17 15:20", "keep", "de")
A("Wlan", "wa-flo-1017-1530", "WA", "Florian ❤️", "", "Für Camille: Das Gäste-WLAN heißt „Gruber-Gast“, Passwort Marille-Stammersdorf-25. Kannst du's ihr schicken?", "10-17 15:30", "secret", "de", ["Marille-Stammersdorf-25"])
A(None, "spot-1017-1700", "SPOT", "Spotify", "", "Dein Release Radar ist da: neue Songs von Künstlern, denen du folgst.", "10-17 17:00", "noise", "de")
A("G3b", "zalo-colan-1017-1935", "ZALO", "Cô Lan", "", "Cô ở nhà rồi, cháu cứ lên tầng 3, bấm chuông số 12 nhé.", "10-17 19:35", "keep", "vi")
A(None, "zalo-me-1017-2045", "ZALO", "Mẹ", "", "Con lấy được đồ chưa? Áo len có vừa Leo không con?", "10-17 20:45", "noise", "vi")
A(None, "nflx-1017-2200", "NFLX", "Netflix", "", "Nur noch heute: „Das Dorf“ verlässt Netflix am 18. Oktober.", "10-17 22:00", "noise", "de")
A(None, "wa-niv-1017-2230", "WA", "Nurses in Vienna 🇦🇹", "", "Marco: Does anybody know a good Hausarzt in the 21st who speaks English?", "10-17 22:30", "noise", "en")

# ---------------------------------------------------------------- Sat 18 Oct
A("F3", "wa-flo-1018-0930", "WA", "Florian ❤️", "", "Fahr jetzt zum Flughafen, die beiden landen um 10:50, Terminal 3. Zum Mittagessen sind wir zurück.", "10-18 09:30", "keep", "de")
A(None, "findmy-1018-1025", "FINDMY", "Wo ist?", "", "Florian ist bei „Flughafen Wien (VIE)“ angekommen.", "10-18 10:25", "noise", "de")
A(None, "wa-camille-1018-1058", "WA", "Camille 🇫🇷", "", "On a atterri ! ✈️ On vous voit tout à l'heure", "10-18 10:58", "noise", "fr")
X("wa-camille-1018-1058", "WA", "10-18 11:30")
A("O4", "gmail-konzerthaus-1018", "GMAIL", "Wiener Konzerthaus", "Heute Abend: Ihr Konzertbesuch", "Einlass ab 18:45 · Garderobe im Untergeschoss · Bitte beachten Sie: Zu spät Kommende werden erst in der Pause eingelassen.", "10-18 12:00", "keep", "de")
A(None, "orf-1018-1400", "ORF", "ORF.at", "", "Bundesliga: Heimsieg im Wiener Derby vor ausverkauftem Haus", "10-18 14:00", "noise", "de")
A(None, "wa-oma-1018-1802", "WA", "Oma Gitti", "", "Bin da! 😊", "10-18 18:02", "noise", "de")
A(None, "wa-oma-1018-2240", "WA", "Oma Gitti", "", "Beide Kinder schlafen 😴 Inès wollte noch drei Geschichten.", "10-18 22:40", "noise", "de")
A(None, "gmaps-1018-2305", "GMAPS", "Google Maps", "", "Wie war Wiener Konzerthaus? Bewerte deinen Besuch ⭐", "10-18 23:05", "noise", "de")

# ---------------------------------------------------------------- Sun 19 Oct
A(None, "wx-warn-1019", "WEATHER", "Wetter", "Unwetterwarnung", "Starkregen in Wien ab 12:00, bis zu 30 l/m².", "10-19 07:30", "noise", "de")
A("F5", "wa-matthias-1019", "WA", "Matthias Gruber", "", "Es soll ab Mittag schütten 🌧 Hofbauer hat drinnen Platz für uns, aber nur ab 15:00 – also 15:00 statt 16:00, passt das?", "10-19 08:40", "keep", "de")
M(None, "wx-warn-1019", "WEATHER", "Wetter", "Unwetterwarnung", "Starkregen in Wien ab 11:00, bis zu 40 l/m². Gültig bis 20:00.", "10-19 09:15", "noise", "de")
A("WeChatOTP", "sms-wechat-1019", "SMS", "WeChat", "", "【微信】验证码：593017，用于登录验证，5分钟内有效。请勿泄露给他人。", "10-19 11:00", "secret", "zh", ["593017"])
A(None, "strava-1019-1215", "STRAVA", "Strava", "", "Matthias Gruber folgt dir jetzt auf Strava.", "10-19 12:15", "noise", "de")
A(None, "wa-camille-1019-1910", "WA", "Camille 🇫🇷", "", "Merci pour ce super après-midi ! Le Grüner Veltliner était parfait 🍷", "10-19 19:10", "noise", "fr")
A(None, "msgr-hanh-1019", "MSGR", "Dì Hạnh", "", "Chúc mừng ngày Phụ nữ Việt Nam 20/10! Chúc cháu luôn xinh đẹp, mạnh khỏe và hạnh phúc 🌹🌹🌹", "10-19 19:20", "noise", "vi")
A(None, "screentime-1019", "SETTINGS", "Bildschirmzeit", "", "Wochenbericht: Deine Bildschirmzeit ist um 8 % gestiegen, durchschnittlich 4 Std. 02 Min. pro Tag.", "10-19 20:00", "noise", "de")
A(None, "lidl-1019-2100", "LIDL", "Lidl Plus", "", "Deine neuen Coupons sind da: −30 % auf Kaffee 🔥", "10-19 21:00", "noise", "de")

# ---------------------------------------------------------------- Mon 20 Oct
A(None, "orf-1020-0640", "ORF", "ORF.at", "", "Verkehr: Nächtliche Baustelle auf der A23 ab heute", "10-20 06:40", "noise", "de")
A("IDA", "sms-ida-1020", "SMS", "ID Austria", "", "Ihr Bestätigungscode für die Anmeldung bei MeineSV: 9KX4-72LM. Gültig 5 Minuten.", "10-20 08:05", "secret", "de", ["9KX4-72LM"])
A("SV1", "meinesv-1020-0810", "MEINESV", "MeineSV", "Neues Dokument", "Kostenerstattung Wahlarzt: 38,20 € werden in den nächsten Tagen auf Ihr Konto überwiesen.", "10-20 08:10", "keep", "de")
A("T3", "sms-oeamtc-1020", "SMS", "ÖAMTC", "", "Ihr Fahrzeug W-48213X ist fertig: Begutachtung positiv, Plakette erteilt. Abholung bis 18:00 möglich. Betrag: 62,50 €.", "10-20 10:10", "keep", "de")
A("L5", "sakura-1020-1045", "SAKURA", "さくら日本語オンライン", "", "【日程変更】中間テストは10月21日（火）から10月23日（木）19:30に変更になりました。ご注意ください。", "10-20 10:45", "keep", "ja")
A("N4", "mail-bzp-1020", "MAIL", "Bildungszentrum Pflege OÖ", "Raumänderung Seminar 22.10.", "Aufgrund von Umbauarbeiten findet das Seminar „Moderne Wundversorgung“ im Raum 0.08 statt (Erdgeschoss, neben der Cafeteria). Beginn unverändert 09:00.", "10-20 11:10", "keep", "de")
A("R1", "george-1020-1230", "GEORGE", "George", "Lastschrift angekündigt", "A1 Telekom Austria AG: 54,90 € werden am 24.10. von Ihrem Konto abgebucht.", "10-20 12:30", "keep", "de")
A(None, "zalo-huy-1020", "ZALO", "Huy", "", "Chúc chị 20/10 vui vẻ 🌹 Anh Flo nhớ tặng hoa cho chị nhé 😆", "10-20 15:00", "noise", "vi")
A("X3", "wa-niv-1020-1640", "WA", "Nurses in Vienna 🇦🇹", "", "Priya: Reminder: the info session is tonight at 18:00, but it moved to room 1.10 on the ground floor!", "10-20 16:40", "keep", "en")
A(None, "ig-1020-1900", "IG", "Instagram", "", "bence_sz_photo ist jetzt live. Schau vorbei!", "10-20 19:00", "noise", "de")
A(None, "duo-1020-2030", "DUO", "Duolingo", "", "Neue Liga! Du bist jetzt in der Saphir-Liga 💎", "10-20 20:30", "noise", "de")
A(None, "wh-agent-1020", "WH", "willhaben", "Suchagent", "12 neue Anzeigen für „Kinderski 120 cm“", "10-20 21:15", "noise", "de")

# ---------------------------------------------------------------- Tue 21 Oct
A(None, "orf-1021-0630", "ORF", "ORF.at", "", "Nationalrat: Hitzige Debatte über Reform der Mietpreisbremse", "10-21 06:30", "noise", "de")
A(None, "sms-apple-1021", "SMS", "Apple", "", "Dein Apple Account-Code lautet: 482913. Gib diesen Code nicht weiter.", "10-21 09:15", "secret", "de", ["482913"])
A("M3", "wa-giulia-1021", "WA", "Giulia Ferri", "", "Buongiorno Minh Anh! Piccola modifica: lunedì 27 le pulizie finiscono tardi, quindi il check-in sarà possibile solo dalle 17:00. Mi dispiace tanto! La cassetta delle chiavi resta la stessa.", "10-21 11:00", "keep", "it")
A(None, "wa-giulia-1021-1140", "WA", "Giulia Ferri", "", "Grazie mille, a presto! 😊", "10-21 11:40", "noise", "it")
A(None, "kiga-1021-1330", "KIGA", "Kindergarten Regenbogen", "Danke!", "Danke für den schönen Fototag heute! 📸 Die Kinder waren super.", "10-21 13:30", "noise", "de")
A(None, "george-1021-1730", "GEORGE", "George", "Kartenzahlung", "−11,50 € bei BIPA 1210, Debitkarte ••• 4417", "10-21 17:30", "noise", "de")
A("N5", "oebb-1021-1900", "OEBB", "ÖBB", "Reiseerinnerung", "Morgen: Wien Hbf 07:10 → Linz Hbf 08:25, RJX 640, Wagen 24, Platz 65.", "10-21 19:00", "keep", "de")
A("Tlock", "wa-tereza-1021", "WA", "Tereza Horáková", "", "Ještě jedna věc na pátek: v mé skříňce č. 42 v šatně je náhradní plášť a klíč od sesterny, kód je 3179. Klidně si to vezmi.", "10-21 20:30", "secret", "cs", ["3179"])
A(None, "yt-1021-2200", "YT", "YouTube", "", "„Pflege mit Herz“ hat ein neues Video hochgeladen: 10 Tipps für den Nachtdienst", "10-21 22:00", "noise", "de")

# ---------------------------------------------------------------- Wed 22 Oct
A("N3", "oebb-1022-delay", "OEBB", "ÖBB", "RJX 640 verspätet", "Ihr Zug Wien Hbf ab 07:10 hat ca. 15 Minuten Verspätung. Voraussichtliche Abfahrt 07:25, Bahnsteig 8.", "10-22 06:20", "keep", "de")
M("N3m", "oebb-1022-delay", "OEBB", "ÖBB", "RJX 640 verspätet", "Ihr Zug Wien Hbf ab 07:10 hat ca. 25 Minuten Verspätung. Voraussichtliche Abfahrt 07:35, Bahnsteig 8.", "10-22 06:48", "keep", "de")
X("oebb-1022-delay", "OEBB", "10-22 07:40")
A("Fleo", "wa-flo-1022-0830", "WA", "Florian ❤️", "", "Leo hat Bauchweh und bleibt heute daheim. Ich arbeite von zuhause, alles gut, mach dir keine Sorgen.", "10-22 08:30", "keep", "de")
A(None, "wa-3b-1022-1030", "WA", "Station 3B Pflege 💉", "", "Elif Yıldız: Danke an alle fürs Einzahlen, wir haben schon 180 € 🎉", "10-22 10:30", "noise", "de")
A("Rparty", "wa-reka-1022-1240", "WA", "Réka Szabó", "", "Szombaton (25-én) Lili szülinapja lesz, 15 órától nálunk, Leót is nagyon várjuk! 🎂 Cím: Zieglergasse 31, 3. emelet, a kapukód: 2580.", "10-22 12:40", "secret", "hu", ["2580"])
A(None, "wa-reka-1022-1245", "WA", "Réka Szabó", "", "Lili nagyon izgatott 😍", "10-22 12:45", "noise", "hu")
A("N6", "oebb-1022-1645", "OEBB", "ÖBB", "Bahnsteigänderung", "Ihre Rückfahrt RJX 549 ab Linz Hbf 17:30 fährt heute von Bahnsteig 4 statt 2.", "10-22 16:45", "keep", "de")
A(None, "health-1022-1800", "HEALTH", "Health", "", "Schlaf: Du hast dein Schlafziel diese Woche an 3 von 7 Tagen erreicht.", "10-22 18:00", "noise", "de")
A(None, "duo-1022-2000", "DUO", "Duolingo", "", "🎉 Du hast heute 3 Lektionen geschafft – weiter so!", "10-22 20:00", "noise", "de")

# ---------------------------------------------------------------- Thu 23 Oct
A(None, "wx-1023-0700", "WEATHER", "Wetter", "Wien", "Böiger Westwind ab Mittag, Spitzen bis 70 km/h.", "10-23 07:00", "noise", "de")
A(None, "wa-niv-1023-0900", "WA", "Nurses in Vienna 🇦🇹", "", "Joy: 😂😂😂", "10-23 09:00", "noise", "und")
A(None, "zalo-huy-1023", "ZALO", "Huy", "", "Cô Lan kể chị qua lấy đồ rồi, Leo mặc áo len có vừa không chị? 😄", "10-23 10:15", "noise", "vi")
A(None, "george-1023-1300", "GEORGE", "George", "Kartenzahlung", "−6,90 € bei MITARBEITERRESTAURANT STADTKLINIK, Debitkarte ••• 4417", "10-23 13:00", "noise", "de")
A("P6", "cal-sommer-1023", "CAL", "Kinderarzt Dr. Sommer – Impfung Leo", "Prager Straße 20, 1210 Wien", "Heute, 15:40", "10-23 14:40", "keep", "de")
A(None, "wechat-grp-1023", "WECHAT", "维也纳中德语言交换", "", "王磊: 周六有人去Naschmarkt吃早餐吗？", "10-23 21:30", "noise", "zh")
A(None, "amz-1023-2210", "AMZ", "Amazon", "", "Nur heute: Angebote für Kindersachen bis −40 %. Jetzt entdecken!", "10-23 22:10", "noise", "de")

# ---------------------------------------------------------------- Fri 24 Oct
A(None, "orf-1024-0700", "ORF", "ORF.at", "", "Herbstferien: ÖAMTC erwartet Staus auf der Südautobahn ab Samstag", "10-24 07:00", "noise", "de")
A("D6", "wa-tereza-1024", "WA", "Tereza Horáková", "", "Dneska ta noční – nezapomeň, že je tam nová kolegyně Lucie, máš ji zaučit. A díky ještě jednou, fakt mi to moc pomohlo!", "10-24 09:00", "keep", "cs")
A(None, "george-1024-1120", "GEORGE", "George", "Lastschrift", "−54,90 € A1 Telekom Austria AG", "10-24 11:20", "noise", "de")
A(None, "spot-1024-1200", "SPOT", "Spotify", "", "Neue Folge von „Servus Pflege“ ist verfügbar.", "10-24 12:00", "noise", "de")
A(None, "book-1024-1500", "BOOK", "Booking.com", "", "Noch 3 Tage bis Triest! Sieh dir die Check-in-Infos für Casa Ferri an.", "10-24 15:00", "noise", "de")
A(None, "wa-flo-1024-1730", "WA", "Florian ❤️", "", "Viel Glück heute Nacht! Leo und ich machen Pizza 🍕", "10-24 17:30", "noise", "de")
A(None, "wl-1024-1820", "WL", "WienMobil", "Störung U1", "Verzögerungen zwischen Kagran und Praterstern wegen eines Polizeieinsatzes.", "10-24 18:20", "noise", "de")
A(None, "wa-giulia-1024", "WA", "Giulia Ferri", "", "Buon weekend! Lunedì vi aspettiamo, ho lasciato anche un po' di caffè e biscotti per voi 😊", "10-24 19:00", "noise", "it")

# ---------------------------------------------------------------- questions
# (asked local time, lang, question, answer handles, superseded handles, long)
QUESTIONS = [
    ("10-07 12:00", "de", "Welches Kapitel soll ich für die Japanischstunde heute Abend vorbereiten?", ["L1"], [], False),
    ("10-07 20:00", "en", "What vocabulary did Li Ting want to practise with me this week?", ["K1"], [], False),
    ("10-07 20:10", "en", "Where can I pick up my Zalando parcel, and until when?", ["I2"], ["I1", "I1m"], False),
    ("10-08 20:00", "zh", "我和李婷改到哪天见面了？", ["K2"], ["K1"], False),
    ("10-09 12:00", "en", "Where's the team meeting this afternoon?", ["Q2"], ["Q1"], False),
    ("10-09 20:30", "en", "Why was my Japanese lesson next week moved, and to when?", ["L2"], [], True),
    ("10-09 22:00", "en", "So when am I having dinner with Réka now?", ["E3"], ["E1"], False),
    ("10-10 18:00", "hu", "Melyik étteremben vacsorázunk Rékával, és mi a címe?", ["E1"], [], False),
    ("10-10 19:00", "en", "Which shift did Tereza take over from me?", ["D1", "D3"], [], False),
    ("10-10 20:00", "en", "How much is the top-up for Leo's swimming course?", ["Pcard"], [], False),
    ("10-11 11:00", "en", "What present did we get for Noah, and where did Florian put it?", ["S3"], [], False),
    ("10-11 12:00", "de", "Wann muss ich Leo von Noahs Geburtstagsfeier abholen?", ["S2"], ["S1"], False),
    ("10-11 18:00", "en", "Whose name is the table at Café Dobos under?", ["E4"], [], False),
    ("10-11 20:00", "en", "When is the guy coming to pick up the bike now?", ["J3"], ["J2", "J1"], False),
    ("10-11 21:00", "de", "Um wie viel Uhr ist morgen der Videoanruf mit meiner Familie, nach Wiener Zeit?", ["G4"], ["G1"], False),
    ("10-12 19:30", "ru", "Когда Галина уезжает в Грац и когда возвращается?", ["H1"], [], True),
    ("10-12 20:00", "ja", "来週の宿題は何ですか？", ["L2"], [], True),
    ("10-12 20:30", "en", "When is the parents' evening at Leo's kindergarten?", ["B2", "B3"], ["B1"], False),
    ("10-12 21:00", "en", "Do I have to fast for the occupational health check tomorrow?", ["Q6"], [], False),
    ("10-13 19:30", "de", "Wie viel kostet der Eintritt beim Tiergarten-Ausflug und bis wann muss ich das Geld abgeben?", ["C1"], [], True),
    ("10-13 20:00", "de", "Was kostet das Parken in Triest pro Tag?", ["M2"], [], True),
    ("10-13 20:30", "vi", "Lịch hẹn nha sĩ của mình là khi nào?", ["A4", "A5"], ["A1", "A2"], False),
    ("10-13 20:45", "de", "Was soll ich zum Zahnarzt mitnehmen?", ["A1"], [], False),
    ("10-13 21:00", "en", "Until when can I enter my shift wishes for November?", ["Q4"], [], False),
    ("10-14 07:30", "ru", "Какие растения нужно поливать у Галины?", ["H2m"], ["H2"], False),
    ("10-14 07:40", "en", "Where is the spare key for Galina's flat if hers doesn't work?", ["H2s"], [], False),
    ("10-14 20:00", "en", "What did the building management say about using the washing machine during the water shutoff?", ["U1"], [], True),
    ("10-14 20:15", "en", "When is Leo's make-up swimming lesson?", ["P2"], [], False),
    ("10-14 21:00", "cs", "Kdy mám tu noční službu za Terezu?", ["D4", "D5"], ["D1", "D3"], False),
    ("10-14 21:30", "en", "Where am I meeting Li Ting tomorrow?", ["K3"], ["K1"], False),
    ("10-15 11:45", "en", "Until when is the water turned off today?", ["U2"], ["U1"], False),
    ("10-15 19:00", "en", "Where's my Amazon parcel?", ["I4"], [], False),
    ("10-15 19:50", "en", "What time does today's Japanese lesson start?", ["L2", "L3"], [], False),
    ("10-15 21:00", "vi", "Mẹ gửi những gì cho mình qua cô Lan?", ["G2"], [], True),
    ("10-15 21:15", "vi", "Buổi thông tin về Nostrifikation giới hạn bao nhiêu người?", ["X2"], [], True),
    ("10-15 21:30", "en", "What should people bring to the Nostrifikation info session for individual advice?", ["X2"], [], True),
    ("10-16 20:30", "en", "What does Leo need to bring for the zoo trip?", ["C1"], [], True),
    ("10-16 21:00", "en", "What time do I have to drop Leo off for the zoo trip tomorrow?", ["C2"], ["C1"], False),
    ("10-16 21:10", "de", "Muss ich am Freitag noch Galinas Blumen gießen?", ["H3"], ["H1"], False),
    ("10-16 21:20", "vi", "Camille và Matthias hạ cánh lúc mấy giờ, chuyến bay nào?", ["F2"], ["F1"], False),
    ("10-17 12:00", "en", "When and where do I pick up the package from cô Lan?", ["G3"], ["G2"], False),
    ("10-17 21:00", "vi", "Thứ Bảy mẹ của Florian mấy giờ đến?", ["O3m"], ["O2", "O3"], False),
    ("10-17 21:10", "en", "Which hotel are Camille and Matthias staying at?", ["F1"], [], True),
    ("10-18 09:45", "en", "Which terminal is Florian picking them up from?", ["F3"], [], False),
    ("10-18 17:00", "en", "Which seats do we have at the Konzerthaus tonight?", ["O1"], [], False),
    ("10-18 17:30", "de", "Ab wann ist heute Einlass im Konzerthaus?", ["O4"], [], False),
    ("10-18 20:00", "en", "How many people did Matthias book the Heuriger for?", ["F4"], [], False),
    ("10-18 21:00", "en", "How much are we chipping in for Sabine's birthday, and by when?", ["Q3"], [], False),
    ("10-19 09:30", "fr", "On se retrouve à quelle heure au Heuriger aujourd'hui ?", ["F5"], ["F4"], False),
    ("10-19 20:00", "de", "Wann ist Leos Grippeimpfung?", ["P4"], ["P3"], False),
    ("10-19 21:00", "en", "Where did Florian leave the car papers for the ÖAMTC appointment?", ["T2"], [], False),
    ("10-20 17:00", "en", "Which room is the Nostrifikation info session in tonight?", ["X3"], ["X2"], False),
    ("10-20 20:00", "en", "When is my resuscitation training?", ["Q5"], [], True),
    ("10-20 20:30", "ja", "中間テストはいつになりましたか？", ["L5"], ["L4"], False),
    ("10-20 21:00", "en", "What time should Leo be at kindergarten on photo day?", ["Kfoto"], [], False),
    ("10-21 21:00", "en", "Which room is the wound care seminar in tomorrow?", ["N4"], ["N1"], False),
    ("10-21 21:10", "en", "What do I need to bring to the seminar in Linz?", ["N1"], [], False),
    ("10-22 06:55", "de", "Wann fährt mein Zug nach Linz jetzt wirklich ab?", ["N3m"], ["N2", "N3", "N5"], False),
    ("10-22 20:30", "de", "Wann wird die A1-Rechnung abgebucht?", ["R1"], [], False),
    ("10-22 21:00", "en", "Who's taking Leo to his vaccination?", ["P5"], [], False),
    ("10-24 17:00", "cs", "Koho mám dneska v noci zaučit?", ["D6"], [], False),
    ("10-24 17:30", "en", "Which locker is Tereza's?", ["Tlock"], [], False),
    ("10-24 20:00", "hu", "Mikor és hol lesz Lili szülinapja?", ["Rparty"], [], False),
    ("10-24 21:00", "de", "Ab wann können wir in Triest in die Wohnung?", ["M3"], ["M1b", "M2"], False),
    ("10-25 19:00", "en", "Which floor is the Trieste apartment on, and is there a lift?", ["M2"], [], True),
    ("10-26 19:30", "en", "What was the name of the winery where we had the Heuriger with Camille and Matthias?", ["F4", "F5"], [], False),
    ("10-26 18:00", "it", "Quanto abbiamo pagato in totale per l'appartamento a Trieste?", ["M1"], [], False),
    ("10-26 20:00", "en", "How much did I pay for the dental cleaning?", ["A6"], [], False),
    ("10-27 20:00", "vi", "Bác sĩ nói gì về huyết áp của mẹ?", ["G5"], [], True),
    ("10-27 20:30", "en", "Why did Galina go to Graz?", ["H1"], [], True),
    ("10-27 21:00", "en", "What was the address where I picked up Mom's package from cô Lan?", ["G3"], [], False),
    ("10-28 20:00", "vi", "Mình đã chuyển cho mẹ bao nhiêu tiền?", ["R4", "R5"], [], False),
    ("10-28 20:30", "en", "How much was each concert ticket at the Konzerthaus?", ["O1"], [], False),
    ("10-29 19:00", "de", "Warum fliegt Li Ting nach Chengdu?", ["K4"], [], True),
    ("10-29 20:00", "en", "How much do we owe Wien Energie, and when is it due?", ["R2"], [], False),
    ("10-30 20:00", "en", "How much did Stefan pay for Leo's old bike in the end?", ["J2"], ["J1"], False),
    ("10-30 20:30", "en", "How much was the Pickerl inspection?", ["T3"], [], False),
    ("10-31 19:00", "ja", "中間テストの範囲は第何課まででしたか？", ["L4"], [], False),
    ("10-31 20:00", "en", "When is Li Ting flying back to Chengdu, and for how long?", ["K4"], [], True),
    ("10-31 20:30", "en", "What was the name of the new nurse I had to train on my night shift?", ["D6"], [], False),
    ("11-01 19:00", "en", "What did the team get Sabine for her birthday?", ["Q3"], [], False),
    ("11-02 19:30", "zh", "李婷给Leo买了什么书？", ["K4"], [], True),
    ("10-31 21:00", "en", "Why did Leo stay home from kindergarten on the 22nd?", ["Fleo"], [], False),
    ("10-25 20:30", "de", "Bis wann muss ich den Hygiene-E-Learning-Kurs machen?", ["Q5"], [], True),
    ("11-03 20:30", "en", "Which room was my occupational health check in?", ["Q6", "Q6c"], [], False),
]

# ---------------------------------------------------------------- more everyday noise (written after a first count)
A(None, "wa-mk-1006-0815", "WA", "Marienkäfer Eltern 🐞", "", "Sandra: Guten Morgen! Hat jemand die Liste, wer diese Woche Obst mitbringt? 🍏", "10-06 08:15", "noise", "de")
A(None, "gmail-medium-1006", "GMAIL", "Medium Daily Digest", "“I moved countries as a nurse — here's what nobody tells you” and 3 more", "Stories for Minh Anh based on your reading history.", "10-06 12:10", "noise", "en")
A(None, "zalo-baomoi-1007", "ZALO", "Báo Mới", "", "Giá vàng hôm nay tăng mạnh, vượt mốc 130 triệu đồng/lượng", "10-07 19:05", "noise", "vi")
A(None, "wa-niv-1008-0940", "WA", "Nurses in Vienna 🇦🇹", "", "Priya: Good morning from a very rainy Floridsdorf ☔", "10-08 09:40", "noise", "en")
A(None, "spot-1008-2220", "SPOT", "Spotify", "", "Neu für dich: „Herbstjazz am Abend“ – deine Playlist ist da.", "10-08 22:20", "noise", "de")
A(None, "wechat-grp-1009", "WECHAT", "维也纳中德语言交换", "", "Anna: 大家好！我是新来的，请多关照 😊", "10-09 08:20", "noise", "zh")
A(None, "sakura-1010-1530", "SAKURA", "さくら日本語オンライン", "", "新コース「看護の日本語」の受付が始まりました！早割は10月31日まで。", "10-10 15:30", "noise", "ja")
A(None, "billa-1011-0930", "BILLA", "BILLA", "", "Wochenend-Knaller: Äpfel aus Österreich 2 kg um 2,49 € 🍎", "10-11 09:30", "noise", "de")
A(None, "wa-camille-1011-1620", "WA", "Camille 🇫🇷", "", "Inès a fait un dessin pour Leo 🎨", "10-11 16:20", "noise", "fr")
A(None, "phone-1012-1400", "PHONE", "Verpasster Anruf", "", "Réka Szabó", "10-12 14:00", "noise", "de", cat="missed_call")
A(None, "wa-3b-1013-1115", "WA", "Station 3B Pflege 💉", "", "Elif Yıldız: Wer hat Lust, heute Mittag im Park zu essen? ☀️", "10-13 11:15", "noise", "de")
A(None, "wh-alarm-1013", "WH", "willhaben", "Preisalarm", "„Kinder-Hochbett Buche“ ist jetzt 120 € günstiger.", "10-13 19:00", "noise", "de")
A(None, "wl-1014-0750", "WL", "WienMobil", "Störung U6", "Unregelmäßige Intervalle zwischen Floridsdorf und Spittelau.", "10-14 07:50", "noise", "de")
A(None, "wechat-liting-1014-2014", "WECHAT", "李婷", "", "👌", "10-14 20:14", "noise", "und")
A(None, "ig-1015-1510", "IG", "Instagram", "", "reka.szabo hat 2 Fotos in ihrer Story geteilt.", "10-15 15:10", "noise", "de")
A(None, "temu-1015-1600", "TEMU", "Temu", "", "Blitzangebot: Artikel in deinem Warenkorb sind fast ausverkauft! ⏰", "10-15 16:00", "noise", "de")
X("temu-1015-1600", "TEMU", "10-15 16:30")
A(None, "wa-niv-1016-1000", "WA", "Nurses in Vienna 🇦🇹", "", "Joy: Thanks Priya!! 🙏 Registered.", "10-16 10:00", "noise", "en")
A(None, "wa-mk-1017-0820", "WA", "Marienkäfer Eltern 🐞", "", "Melanie: Viel Spaß heute im Zoo, ihr Mäuse! 🦁🐒", "10-17 08:20", "noise", "de")
A(None, "gmail-medium-1017", "GMAIL", "Medium Daily Digest", "“The quiet power of night-shift friendships” and 2 more", "Stories for Minh Anh: community, migration, sleep.", "10-17 11:40", "noise", "en")
A(None, "tg-rv-1018", "TG", "Русская Вена", "", "Афиша на выходные: концерты, выставки и ярмарки в Вене 🎭", "10-18 11:00", "noise", "ru")
A(None, "ig-1018-1520", "IG", "Instagram", "", "camille.lyon hat dich in einem Beitrag markiert.", "10-18 15:20", "noise", "de")
A(None, "zalo-fam-1019-1030", "ZALO", "Gia đình 🏠", "", "Huy: [Sticker]", "10-19 10:30", "noise", "vi")
A(None, "wa-mk-1021-0840", "WA", "Marienkäfer Eltern 🐞", "", "Sandra: Die Kinder sehen heute alle so schick aus 😍📸", "10-21 08:40", "noise", "de")
A(None, "wa-niv-1021-1500", "WA", "Nurses in Vienna 🇦🇹", "", "Priya: Thanks to everyone who came yesterday! The slides are in the group folder 🙂", "10-21 15:00", "noise", "en")
A(None, "wa-camille-1021-2130", "WA", "Camille 🇫🇷", "", "Bien rentrés à Lyon ! Merci encore pour tout ❤️", "10-21 21:30", "noise", "fr")
A(None, "wa-tereza-1022-0915", "WA", "Tereza Horáková", "", "Jasně, díky! 👍", "10-22 09:15", "noise", "cs")
A(None, "wa-giulia-1022-1410", "WA", "Giulia Ferri", "", "Ecco la vista dal balcone, vi aspetta! 🌅", "10-22 14:10", "noise", "it")
A(None, "wechat-liting-1024", "WECHAT", "李婷", "", "周末愉快！🌸", "10-24 08:10", "noise", "zh")
A(None, "sakura-1024-1330", "SAKURA", "さくら日本語オンライン", "", "中間テストの結果が出ました。アプリで確認してください。", "10-24 13:30", "noise", "ja")
A(None, "nflx-1024-2230", "NFLX", "Netflix", "", "Top 10 heute in Österreich: Sieh dir an, was alle schauen.", "10-24 22:30", "noise", "de")
