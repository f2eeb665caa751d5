"""The words the structural code finder of `memory.secrets` needs, per language: data only.

`memory.secrets` finds a one-time, login or door code by the shape of the message (a
short code joined to its word, a code before its word, a message that is nothing but
a code); these tables say which words name a code and which mark it as one-time.
Adding a language means adding its words here; no pattern changes.

How an entry is written (lowercase; matched case-insensitively):

- `word`: the whole word ("pin" is not "ping");
- `word*`: the word with an ending of up to seven letters ("kod*" is "kodu", "kodunuz",
  "kodem"; "код*" is "кода", "кодом");
- `*word`: the last part of a compound of three or more letters before it
  ("*code" is "Abholcode", "VerifyCode", "verificatiecode"; "Barcode" is ruled out by
  `NOT_SECRET`);
- a space: any run of spaces or hyphens, or none ("sign in" is "sign-in", "signin"); in
  a phrase each word may carry its own `*` ("onay kodu*");
- words in scripts written without spaces between words (Chinese, Japanese, Korean,
  Thai) and in Arabic, Hebrew and Devanagari, where particles and suffixes join the
  word, match anywhere in the text; the markers do not apply to them.
"""

from __future__ import annotations

CODE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("*code*", "pin", "pins", "pincode*", "*passcode*", "otp", "tan", "2fa", "mfa",
           "pass code"),
    "de": ("*code*", "pin", "*tan", "mtan", "otp", "geheimzahl", "*kennzahl"),
    "fr": ("*code*", "pin", "otp", "digicode*"),
    "es": ("*código*", "*codigo*", "pin", "nip", "otp", "clave*", "token"),
    "it": ("*codice*", "codici", "pin", "otp"),
    "pt": ("*código*", "*codigo*", "pin", "otp", "senha*", "token"),
    "nl": ("*code*", "pin", "pincode*", "otp"),
    "pl": ("kod*", "*kod", "pin", "otp", "blik"),
    "cs": ("kód*", "*kód", "kod*", "pin", "otp"),
    "sk": ("kód*", "*kód", "pin", "otp"),
    "sv": ("kod*", "*kod", "*koden", "pin", "pinkod*", "otp"),
    "da": ("kode*", "*kode", "*koden", "pin", "pinkode*", "otp"),
    "no": ("kode*", "*kode", "*koden", "pin", "pinkode*", "otp"),
    "fi": ("koodi*", "*koodi*", "tunnusluku*", "pin", "otp"),
    "tr": ("kod*", "*kod*", "şifre*", "sifre*", "pin", "otp"),
    "ru": ("код*", "*код", "пин*", "пароль*", "otp"),
    "uk": ("код*", "*код", "пін*", "пароль*", "otp"),
    "el": ("κωδικ*", "otp", "pin"),
    "ro": ("cod*", "pin", "otp"),
    "hu": ("kód*", "*kód*", "pin", "otp"),
    "vi": ("mã", "otp", "pin"),
    "id": ("kode*", "otp", "pin", "token"),
    "ar": ("رمز", "الرمز", "كود", "الكود", "رقم التحقق", "الرقم السري"),
    "he": ("קוד", "הקוד", "סיסמה"),
    "hi": ("कोड", "ओटीपी", "पिन"),
    "th": ("รหัส",),
    "zh": ("验证码", "驗證碼", "校验码", "校驗碼", "动态码", "動態碼", "动态密码",
           "登录码", "登錄碼", "确认码", "確認碼", "安全码", "取件码", "提货码", "密码",
           "密碼", "口令"),
    "ja": ("コード", "認証番号", "確認番号", "暗証番号", "パスワード", "パスコード"),
    "ko": ("코드", "인증번호", "승인번호", "비밀번호", "확인번호"),
}
"""Words that name a code (the value follows, joined or a few words later, or comes
first: "VerifyCode:519204", "Kod:5521", "7702 is your code", "583920は認証コードです")."""

AUTH_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("verif*", "log in", "login*", "sign in", "signin", "one time", "onetime", "otp", "2fa",
           "mfa", "two factor", "two step", "authenticat*", "authoriz*", "authoris*", "tan",
           "security code*", "confirmation code*", "passcode*", "sms", "approve*",
           "transaction*"),
    "de": ("verifizier*", "bestätigungscode*", "bestätigungs code", "anmeldecode*", "anmelde code",
           "einmalcode*", "einmalpasswort*", "einmalkennwort*", "einmal", "sicherheitscode*",
           "freigabe*", "*tan", "mtan", "login*", "log in", "zwei faktor*", "authentifizier*",
           "anmeldung", "zur bestätigung", "bestätigen sie", "überweisung*"),
    "fr": ("vérification", "verification", "connexion", "validation", "authentification",
           "code de sécurité", "code de confirmation", "usage unique"),
    "es": ("verificación", "verificacion", "inicio de sesión", "acceso", "autenticación",
           "código de seguridad", "código de confirmación", "clave de firma", "un solo uso",
           "para operar", "operación", "transferencia"),
    "it": ("verifica", "accesso", "autenticazione", "codice di conferma", "codice di sicurezza",
           "monouso", "usa e getta"),
    "pt": ("verificação", "verificacao", "acesso", "autenticação", "código de confirmação",
           "código de segurança", "autorização", "login"),
    "nl": ("verificatie*", "inlog*", "bevestigingscode*", "beveiligingscode*", "eenmalig*",
           "sms code"),
    "pl": ("weryfikac*", "logowani*", "potwierdzaj*", "potwierdzenia transakcji", "jednorazow*",
           "autoryzac*", "uwierzytelni*", "przelew*"),
    "cs": ("ověřovací*", "overovaci*", "přihlá*", "prihla*", "potvrzovací*", "jednorázov*",
           "autorizač*"),
    "sk": ("overovací*", "prihlás*", "potvrdzovací*", "jednorazov*"),
    "sv": ("verifiering*", "engångs*", "inloggning*", "logga in", "bekräftelsekod*",
           "säkerhetskod*"),
    "da": ("bekræftelseskode*", "engangs*", "verificering*", "log ind", "logge ind", "login*",
           "sikkerhedskode*"),
    "no": ("bekreftelseskode*", "engangs*", "verifisering*", "logg inn", "logge inn",
           "innlogging*", "sikkerhetskode*"),
    "fi": ("vahvistuskoodi*", "kertakäyttö*", "kirjautumis*", "tunnistautumis*"),
    "tr": ("doğrulama*", "dogrulama*", "giriş*", "onay kodu*", "tek kullanımlık",
           "güvenlik kodu*"),
    "ru": ("подтверждения", "вход*", "одноразов*", "авторизац*", "проверочн*"),
    "uk": ("підтвердження", "вход*", "входу", "одноразов*", "авторизац*", "перевірк*"),
    "el": ("επαλήθευση*", "επαλήθευσης", "σύνδεση*", "σύνδεσης", "επιβεβαίωσης", "μιας χρήσης"),
    "ro": ("verificare*", "autentificare*", "cod de confirmare", "unică folosință"),
    "hu": ("ellenőrző*", "megerősítő*", "bejelentkez*", "egyszer használatos"),
    "vi": ("xác minh", "xác thực", "đăng nhập", "otp"),
    "id": ("verifikasi", "masuk", "otp", "otentikasi", "autentikasi"),
    "ar": ("التحقق", "تحقق", "الدخول", "تسجيل الدخول", "التأكيد", "لمرة واحدة"),
    "he": ("אימות", "האימות", "כניסה", "התחברות"),
    "hi": ("सत्यापन", "लॉगिन", "ओटीपी", "otp", "प्रमाणीकरण"),
    "th": ("ยืนยัน", "otp", "เข้าสู่ระบบ"),
    "zh": ("验证", "驗證", "校验", "动态", "動態", "登录", "登錄", "确认码", "確認碼", "安全码"),
    "ja": ("認証", "確認コード", "ログイン", "ワンタイム", "本人確認"),
    "ko": ("인증", "로그인", "본인확인", "일회용"),
}
"""Words that mark a code as one-time, for signing in or confirming something: a
message with one of them and nothing but its code is dropped whole. A code without one
(a door, key box or locker code) is a lasting fact with a secret in it: redacted."""

WARNINGS: dict[str, tuple[str, ...]] = {
    "en": ("do not share", "don't share", "never share", "not share", "will never call",
           "will never ask", "didn't request", "did not request", "expires in", "valid for"),
    "de": ("nicht weiter*", "niemals weiter*", "mit niemandem", "niemandem", "gültig"),
    "fr": ("ne le partagez", "ne la partagez", "ne le communiquez", "ne le transmettez",
           "avec personne", "valable"),
    "es": ("no lo compartas", "no compartas", "no lo comparta", "no lo facilites", "con nadie",
           "a nadie", "nunca te lo", "nunca te la", "válido", "caduca"),
    "it": ("non condividerlo", "non condividere", "non comunicarlo", "a nessuno", "valido"),
    "pt": ("não compartilhe", "não partilhe", "com ninguém", "válido"),
    "nl": ("met niemand", "deel deze code", "deel de code", "geldig"),
    "pl": ("nie udostępniaj", "nikomu", "ważny", "ważna"),
    "cs": ("nikomu", "nesdělujte", "platný", "platnost"),
    "sk": ("nikomu", "neposkytujte", "platný"),
    "sv": ("dela aldrig", "dela inte", "lämna aldrig", "lämna inte", "med någon", "giltig*"),
    "da": ("del aldrig", "del ikke", "giv aldrig", "videregiv*", "med andre", "gyldig*"),
    "no": ("ikke del", "del aldri", "aldri oppgi", "ikke oppgi", "med noen", "til andre",
           "gyldig*"),
    "fi": ("älä kerro", "älä jaa", "voimassa"),
    "tr": ("kimseyle", "paylaşma*", "paylasma*", "geçerli*"),
    "ru": ("никому", "не сообщайте", "не говорите", "действителен", "действует"),
    "uk": ("нікому", "не повідомляйте", "дійсний", "діє"),
    "el": ("μην το", "σε κανέναν", "ισχύει"),
    "ro": ("nu îl", "nu-l", "cu nimeni", "valabil*"),
    "hu": ("senkinek", "ne add", "érvényes"),
    "vi": ("không chia sẻ", "không cung cấp", "hiệu lực"),
    "id": ("jangan berikan", "jangan bagikan", "siapa pun", "berlaku"),
    "ar": ("لا تشارك", "لا تشاركه", "لا تعطي", "مع أحد", "صالح"),
    "he": ("אין למסור", "אל תמסור", "אל תשתף", "בתוקף"),
    "hi": ("साझा न करें", "किसी के साथ", "किसी को न", "मान्य"),
    "th": ("ห้ามบอก", "อย่าบอก", "ห้ามเปิดเผย", "ภายใน"),
    "zh": ("请勿", "請勿", "切勿", "不要告诉", "不要告訴", "泄露", "有效"),
    "ja": ("教えないで", "絶対に", "他人に", "誰にも", "有効"),
    "ko": ("타인에게", "알려주지", "노출", "유효"),
}
"""What a code message says around its code (do not share it, it expires): with a code
and nothing else, the message is there only to deliver the code."""

NOT_SECRET: dict[str, tuple[str, ...]] = {
    "en": ("order*", "tracking", "track", "booking", "reservation", "reference", "ref",
           "confirmation number", "promo*", "discount", "coupon*", "voucher*", "gift", "referral",
           "invite", "invitation", "postal", "post", "postcode*", "zip*", "area", "country",
           "dial", "error", "status", "bar", "barcode*", "qr", "flight", "train", "seat",
           "invoice", "bill", "receipt", "customer", "member*", "ticket*", "serial", "model",
           "product", "item", "article", "sku", "ean", "isbn", "parcel", "package", "shipment",
           "review*", "conduct", "dress", "source", "sort", "swift", "bic", "iban", "html",
           "color", "colour", "issue", "commit", "case", "fund", "stock", "etf",
           "subscription", "appointment", "product code*", "fund code*"),
    "de": ("bestell*", "bestellung*", "sendung*", "sendungs*", "auftrag*", "rechnung*",
           "buchung*", "buchungs*", "reservierung*", "kunden*", "gutschein*", "rabatt*", "aktion*",
           "post", "postleit*", "artikel*", "strich*", "fehler*", "lager*", "farb*", "zoll*",
           "tarif*", "kleider*", "vorwahl", "länder*", "paket*", "aktenzeichen", "geschenk*",
           "werbe*", "einladungs*", "produkt*"),
    "fr": ("commande", "suivi", "réservation", "reservation", "facture", "colis", "promo*",
           "réduction", "reduction", "postal", "postale", "barres", "client", "cadeau",
           "parrainage", "vestimentaire", "erreur", "billet"),
    "es": ("pedido", "seguimiento", "reserva", "factura", "paquete", "promoción", "promocion*",
           "promocional", "descuento*", "postal", "barras", "cliente", "regalo", "error",
           "vestimenta", "billete"),
    "it": ("ordine", "d'ordine", "tracciamento", "spedizione", "prenotazione", "fattura",
           "pacco", "promo*", "promozionale", "sconto", "postale", "barre", "cliente", "regalo",
           "fiscale", "errore", "biglietto"),
    "pt": ("pedido", "encomenda", "rastreio", "rastreamento", "reserva", "fatura", "promoção",
           "promocional", "desconto", "postal", "barras", "cliente", "presente", "erro",
           "bilhete"),
    "nl": ("bestelling*", "bestel*", "zending*", "reservering*", "boeking*", "factuur*",
           "korting*", "kortings*", "post", "postcode*", "klant*", "cadeau*", "kado*",
           "uitnodigings*", "fout*", "pakket*"),
    "pl": ("zamówieni*", "zamowieni*", "przesyłk*", "przesylk*", "rezerwacj*", "faktur*",
           "rabat*", "rabatowy", "promocyjny", "pocztowy", "kreskowy", "klient*", "nr", "numer",
           "błędu", "paczk*"),
    "cs": ("objednávk*", "objednavk*", "zásilk*", "rezervac*", "faktur*", "sleva", "slevový",
           "poštovní", "postovni", "čárový", "zákazník*", "chyby", "balík*"),
    "sk": ("objednávk*", "zásielk*", "rezerváci*", "faktúr*", "zľav*", "poštov*", "zákazník*"),
    "sv": ("order*", "beställning*", "försändelse*", "paket*", "bokning*", "faktura*",
           "rabatt*", "post*", "kund*", "present*", "fel*", "streck*"),
    "da": ("ordre*", "bestilling*", "forsendelse*", "pakke*", "booking*", "faktura*",
           "rabat*", "post*", "kunde*", "gave*", "fejl*", "strege*"),
    "no": ("ordre*", "bestilling*", "sending*", "pakke*", "bestillings*", "faktura*",
           "rabatt*", "post*", "kunde*", "gave*", "feil*", "strek*"),
    "fi": ("tilaus*", "seuranta*", "lähetys*", "varaus*", "lasku*", "alennus*", "posti*",
           "asiakas*", "viivakoodi*", "paketti*"),
    "tr": ("sipariş*", "siparis*", "kargo*", "takip*", "rezervasyon*", "fatura*", "indirim*",
           "kupon*", "posta*", "müşteri*", "hediye*", "hata*", "barkod*", "bilet*"),
    "ru": ("заказ*", "отслеживани*", "трек*", "бронировани*", "брони*", "счёт*", "счет*",
           "промо*", "промокод*", "скидк*", "почтов*", "посылк*", "клиент*", "подар*", "ошибк*",
           "штрих*", "билет*", "номер*"),
    "uk": ("замовлення*", "відстеження*", "трек*", "бронювання*", "рахун*", "промо*",
           "знижк*", "поштов*", "посилк*", "клієнт*", "помилк*", "квит*"),
    "el": ("παραγγελί*", "αποστολή*", "κράτηση*", "κράτησης", "τιμολόγι*", "έκπτωση*",
           "ταχυδρομικ*", "πελάτη*", "δέματος"),
    "ro": ("comand*", "urmărire*", "rezervar*", "factur*", "reducere*", "poștal*", "postal*",
           "client*", "colet*"),
    "hu": ("rendelés*", "nyomkövet*", "foglalás*", "számla*", "kedvezmény*", "irányító*",
           "ügyfél*", "csomag*"),
    "vi": ("đơn hàng", "vận đơn", "mã đơn", "giảm giá", "khuyến mãi", "đặt chỗ", "bưu chính",
           "hóa đơn"),
    "id": ("pesanan", "resi", "pelacakan", "diskon", "promo", "pemesanan", "tagihan", "pos"),
    "ar": ("طلب", "الطلب", "طلبك", "الشحنة", "شحنة", "تتبع", "خصم", "الخصم", "الحجز", "حجز",
           "فاتورة", "البريدي", "ترويجي"),
    "he": ("הזמנה", "ההזמנה", "משלוח", "מעקב", "הנחה", "קופון", "מיקוד", "חשבונית"),
    "hi": ("ऑर्डर", "ट्रैकिंग", "बुकिंग", "डिस्काउंट", "कूपन", "पिन कोड", "पिनकोड", "बिल"),
    "th": ("คำสั่งซื้อ", "พัสดุ", "ติดตาม", "ส่วนลด", "การจอง", "ไปรษณีย์", "คูปอง",
           "ใบแจ้งหนี้"),
    "zh": ("订单", "訂單", "运单", "運單", "快递", "快遞", "物流", "优惠", "優惠", "邮编",
           "郵編", "邮政", "条形码", "條碼", "二维码", "發票", "发票", "预订", "預訂",
           "兑换码", "兌換碼", "邀请码", "邀請碼", "折扣码"),
    "ja": ("注文", "お問い合わせ番号", "問い合わせ番号", "追跡", "伝票", "予約", "クーポン",
           "郵便", "〒", "バーコード", "請求", "招待", "割引", "プロモーション"),
    "ko": ("주문", "송장", "운송장", "배송", "예약", "쿠폰", "할인", "우편", "바코드", "초대",
           "청구"),
}
"""Words around a number that make it an ordinary number, not a secret: an order,
tracking, booking or invoice number, a promo, discount or postal code, a code review.
One before a code word ("Promo code", "Bestellcode", "优惠码") or between a code word
and the number ("code review for PR 4821") keeps the number."""

DURATION_UNITS: tuple[str, ...] = (
    "s", "sec", "secs", "second*", "m", "min", "mins", "minute*", "h", "hr", "hrs", "hour*",
    "minuten", "minute", "stunde*", "std", "sekunde*", "heure*", "seconde*", "minuto*",
    "minuti", "ore", "ora", "hora*", "segundo*", "uur", "minuut", "minut*", "godzin*",
    "sekund*", "hodin*", "timme*", "timmar", "time*", "tunti*", "minuutti*", "sekunti*",
    "dakika*", "dk", "saat*", "saniye*", "минут*", "мин", "час*", "секунд*", "хвилин*",
    "годин*", "λεπτ*", "ώρ*", "perc*", "óra*", "phút", "giờ", "giây", "menit", "jam", "detik",
    "دقائق", "دقيقة", "ساعة", "ثانية", "דקות", "דקה", "שעות", "मिनट", "घंटे", "सेकंड", "นาที",
    "ชั่วโมง", "วินาที", "分钟", "分鐘", "分", "小时", "小時", "秒", "分間", "時間", "분", "시간", "초",
)
"""Units after a number that make it a duration ("valid for 10 minutes", "5分钟内有效"),
not a fact worth keeping in a code message."""

CURRENCIES: tuple[str, ...] = (
    "€", "$", "£", "¥", "₹", "₽", "₩", "฿", "₺", "₫", "₪", "₴", "zł", "kč", "kr", "tl", "eur",
    "usd", "gbp", "chf", "inr", "pln", "czk", "rub", "uah", "sek", "dkk", "nok", "jpy",
    "cny", "rmb", "krw", "thb", "vnd", "idr", "rp", "rs", "aed", "sar", "egp", "руб*", "грн",
    "lei", "ron", "huf", "ft", "元", "円", "원", "บาท", "đ", "ريال", "درهم", "جنيه", "रुपये",
    "रु", "euro*", "dollar*", "złot*", "korun*",
)
"""Signs and names of money: a number next to one is a price, not a code."""

ACCOUNT_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("account", "acct", "a/c"),
    "de": ("konto", "kontos", "kontonummer", "kontonr"),
    "fr": ("compte",),
    "es": ("cuenta",),
    "pt": ("conta",),
    "it": ("conto",),
    "nl": ("rekening", "rekeningnummer"),
    "pl": ("konto", "konta", "koncie", "rachunek", "rachunku"),
    "cs": ("účet", "účtu", "účtem"),
    "tr": ("hesap", "hesaba", "hesabı", "hesabım", "hesabına", "hesabınız"),
    "ru": ("счёт", "счет", "счета", "счёта", "счету"),
    "uk": ("рахунок", "рахунку", "рахунка"),
    "id": ("rekening", "norek"),
    "ms": ("akaun",),
    "vi": ("tài khoản", "stk"),
    "th": ("บัญชี",),
    "zh": ("账号", "账户", "帐号", "帐户", "賬號", "賬戶"),
    "ja": ("口座",),
    "ko": ("계좌", "은행"),
    "ar": ("حساب",),
    "hi": ("खाता",),
}
"""Words that name a bank account, each form whole (a word in Latin or Cyrillic letters;
the others anywhere, as particles join them): a long number just after one ("เลขที่บัญชี
041-2-77310-8", "Kontonummer 1234567890", "account no. 0123 4567 89") is a domestic
account number, which has no checksum that would find it alone (an IBAN has one)."""

IDENTITY_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("ssn", "social security number", "social security no", "passport number",
           "passport no", "national insurance number", "aadhaar", "aadhar", "nric"),
    "de": ("personalausweisnummer", "ausweisnummer", "steuer id", "steueridentifikationsnummer",
           "sozialversicherungsnummer", "reisepassnummer"),
    "fr": ("numéro de sécurité sociale", "numéro fiscal", "numéro de passeport"),
    "es": ("curp", "número de pasaporte", "cédula"),
    "pt": ("cpf", "rg", "número do passaporte"),
    "it": ("codice fiscale",),
    "nl": ("bsn", "burgerservicenummer"),
    "pl": ("pesel", "numer dowodu", "nr dowodu", "dowód osobisty", "dowodu osobistego",
           "numer paszportu"),
    "tr": ("tc kimlik", "t.c. kimlik", "kimlik no", "kimlik numarası", "kimlik numaram",
           "kimlik numaranız", "tckn"),
    "ru": ("снилс", "инн", "паспорт", "паспорта"),
    "uk": ("іпн", "рнокпп", "паспорт", "паспорта", "ідентифікаційний код"),
    "id": ("nik", "ktp"),
    "ms": ("mykad",),
    "vi": ("cccd", "cmnd", "căn cước"),
    "th": ("บัตรประชาชน", "เลขประจำตัวประชาชน"),
    "zh": ("身份证", "身份證", "身分證", "身分证"),
    "ja": ("マイナンバー", "個人番号"),
    "ko": ("주민등록번호", "주민번호", "여권번호"),
    "ar": ("هوية", "هويتي", "الهوية", "الإقامة", "جواز"),
    "he": ("תעודת זהות",),
    "hi": ("आधार",),
}
"""Words that name a person's identity, tax or passport number, each form whole (a word
in Latin or Cyrillic letters; the others anywhere): a long number, or a few letters and
a long number, just after one ("TC kimlik no 38491720688", "mój PESEL 61081503372",
"マイナンバー、4073 1592 8462", "CCCD của mẹ là 001165012345") is such a number. Most
have a checksum too, but one that a phone number passes as often as not (PESEL, Aadhaar);
the word is what tells them apart."""
