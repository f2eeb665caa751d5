"""A small German <-> English glossary of everyday words, for cross-language recall.

The device is sold in Europe: the phone shows German notifications and the owner (or
the agent) asks in English, and the other way round. `GLOSS` pairs everyday German
words with English ones (travel, health, family, home, shopping, money, time, the
week and the year). The search index adds the other language's words next to a word
it finds (`memory.search_text`), so "Gleis 7" is also found by "platform" and
"dentist" by "Zahnarzt". A German compound is split against the glossary's German
words ("Zahnarzttermin" -> zahnarzt + termin).

Changing this table changes what the index holds: a change needs a new migration
that rebuilds the index (see `memory.schema`).
"""

from __future__ import annotations

_PAIRS = """
# travel and transport
zug train|bahn train railway|gleis platform track|bahnsteig platform|abfahrt departure departs
ankunft arrival arrives|verspätung delay delayed late|verspätet delayed late|ausfall cancelled
fällt cancelled|ersatzverkehr replacement bus|umstieg change connection|anschluss connection
fahrkarte ticket|ticket ticket|sitzplatz seat|platz seat place|reservierung reservation booking
wagen coach car|flug flight|flughafen airport|abflug departure takeoff|flugsteig gate
gepäck luggage baggage
koffer suitcase luggage|reise trip journey travel|urlaub holiday vacation|hotel hotel
zimmer room
unterkunft accommodation stay|ferienwohnung holiday apartment flat|schlüssel key|fahrt ride trip
fahrer driver|taxi taxi cab|auto car|parkplatz parking|tankstelle petrol station
werkstatt garage repair
bus bus|haltestelle stop|straßenbahn tram|ubahn subway underground|sbahn train
fahrrad bike bicycle
# health
arzt doctor|ärztin doctor|zahnarzt dentist|zahnärztin dentist|tierarzt vet veterinarian
tierärztin vet
tierarztpraxis vet|praxis practice surgery clinic|termin appointment|sprechstunde consultation
krankenhaus hospital|klinik clinic hospital|apotheke pharmacy|rezept prescription recipe
impfung vaccination vaccine
untersuchung checkup examination|behandlung treatment|krank sick ill|fieber fever
allergie allergy|allergisch allergic
laktose lactose dairy|milch milk dairy|milchprodukte dairy|glutenfrei gluten free|nüsse nuts
erdnüsse peanuts
vegan vegan|vegetarisch vegetarian|medikament medicine medication|tabletten pills tablets
blut blood
kinderarzt pediatrician doctor|augenarzt optician eye doctor|physiotherapie physiotherapy physio
überweisung referral transfer
# family and people
kind child kid|kinder children kids|sohn son|tochter daughter|mutter mother mum mom
vater father dad
mama mum mom|papa dad|oma grandma grandmother|opa grandpa grandfather|schwester sister
bruder brother
freund friend boyfriend|freundin friend girlfriend|kollege colleague|kollegin colleague
chef boss manager
nachbar neighbour neighbor|nachbarin neighbour neighbor|hund dog|katze cat|haustier pet
baby baby
kita daycare nursery kindergarten|kindergarten kindergarten daycare|schule school|lehrer teacher
lehrerin teacher
eltern parents|elternabend parents evening meeting|hochzeit wedding|geburtstag birthday
party party|feier party celebration
# home
wohnung flat apartment|haus house home|adresse address|umzug move moving|vermieter landlord
hausverwaltung property management landlord
miete rent|nebenkosten utilities service charges|heizung heating|wasser water
strom electricity power
handwerker tradesman workman plumber|klempner plumber|installateur plumber
elektriker electrician|reparatur repair
müll rubbish garbage trash|abholung pickup collection|schlüsseldienst locksmith
keller basement cellar|balkon balcony
küche kitchen|bad bathroom|internet internet|router router|hausmeister caretaker janitor
# shopping, parcels and money
paket parcel package|sendung parcel shipment delivery|lieferung delivery|zustellung delivery
zugestellt delivered
abholen pick collect|abholcode pickup code|packstation parcel locker|paketshop parcel shop
filiale branch post office
bestellung order|bestellt ordered|versand shipping shipped|versendet shipped|rücksendung return
retoure return
rechnung bill invoice|betrag amount|zahlung payment|überweisung transfer|konto account
karte card
geld money|preis price|kosten cost|gebühr fee charge|erstattung refund|gutschrift refund credit
mahnung reminder overdue|lastschrift direct debit|abbuchung debit|kaufen buy
einkaufen shopping groceries
supermarkt supermarket|laden shop store|geschäft shop store business|gutschein voucher coupon
vertrag contract|kündigung cancellation termination|versicherung insurance|steuer tax
kundennummer customer number
# work and school
arbeit work job|büro office|besprechung meeting|meeting meeting|sitzung meeting|raum room
konferenz conference
projekt project|frist deadline|abgabe deadline submission|bewerbung application
vorstellungsgespräch interview
urlaubsantrag holiday request|homeoffice home office|dienstreise business trip
kunde client customer|präsentation presentation
# changes
verschoben moved postponed rescheduled|verlegt moved relocated|geändert changed|änderung change
abgesagt cancelled canceled|storniert cancelled canceled|neu new|neue new|alte old|statt instead
stattdessen instead
bestätigt confirmed|bestätigung confirmation|erinnerung reminder|absage cancellation
später later|früher earlier
# food and going out
essen food dinner meal eat|abendessen dinner|mittagessen lunch|frühstück breakfast
restaurant restaurant
kuchen cake|geschenk present gift|kino cinema movies|konzert concert|theater theatre theater
treffen meet meeting
# time words
heute today|morgen tomorrow morning|übermorgen day after tomorrow|gestern yesterday|woche week
wochenende weekend
monat month|jahr year|uhr clock time|abend evening|nachmittag afternoon|vormittag morning
mittag noon
nacht night|früh early|spät late|täglich daily|wöchentlich weekly|nächste next|nächsten next
montag monday|dienstag tuesday|mittwoch wednesday|donnerstag thursday|freitag friday
samstag saturday|sonnabend saturday|sonntag sunday
januar january|februar february|märz march|april april|mai may|juni june|juli july|august august
september september|oktober october|november november|dezember december
# places
münchen munich|köln cologne|nürnberg nuremberg|wien vienna|mailand milan|rom rome|venedig venice
prag prague|warschau warsaw
brüssel brussels|genf geneva|zürich zurich|hauptbahnhof central station main station
bahnhof station
# more everyday German
spülmaschine dishwasher|geschirrspüler dishwasher|waschmaschine washing machine|trockner dryer
kühlschrank fridge refrigerator|herd stove cooker|ofen oven|heizkörper radiator|fenster window
tür door|klingel doorbell bell|briefkasten mailbox letterbox|aufzug lift elevator
treppenhaus stairwell
wartung maintenance service|leitung pipe line|leitungen pipes|rohr pipe
wasserschaden water damage
auftrag order job|auftragsnummer order number|vorgangsnummer reference number|nummer number
techniker technician|monteur technician fitter|schaden damage|defekt broken faulty|kaputt broken
schwimmkurs swimming lesson class|schwimmen swim swimming|schwimmbad pool swimming
halle hall pool
kurs course class lesson|unterricht lesson class|training training|turnen gym gymnastics
fußball football soccer
bibliothek library|bücherei library|buch book|bücher books|ausleihe loan
leihfrist loan period due
fällig due|rückgabe return|zurückgeben return|verlängern renew extend
verlängerung extension renewal
einschulung school entry|einschulungsuntersuchung school entry health check exam
gesundheitsamt health office
ausflug outing trip excursion|mitbringen bring|matschhose rain trousers|brotdose lunchbox
wechselsachen spare clothes
schließtag closing day closed|geschlossen closed|fortbildung training course
teamfortbildung staff training
elternabend parents evening|erzieherin teacher carer|erzieher teacher carer
hort after school club
steuer tax|steuern taxes|einkommensteuer income tax|steuerbescheid tax assessment
bescheid notice decision
auszahlung payout payment|gehalt salary pay|lohn wages pay|bonus bonus|rente pension
laptop laptop|notebook laptop notebook|rechner computer|handy phone mobile|telefon phone
nummer number
abholen pick collect|abholung pickup collection|gerät device|bildschirm screen|drucker printer
kette necklace chain|ring ring|armband bracelet|uhrmacher watchmaker|schmuck jewellery jewelry
bestellen order|kleid dress|schuhe shoes|jacke jacket|hose trousers pants|größe size
hautarzt dermatologist skin doctor|hautärztin dermatologist|frauenarzt gynaecologist
orthopäde orthopaedist
knie knee|operation surgery operation|op surgery|narkose anaesthesia|röntgen x-ray|mrt mri scan
zahn tooth|zähne teeth|zahnreinigung dental cleaning|füllung filling|kontrolle checkup
impftermin vaccination appointment|hund dog|gassi walk dog|futter food|leine lead leash
tierfutter pet food
schwiegermutter mother in law|schwiegervater father in law|enkel grandchild|tante aunt
onkel uncle|cousine cousin
kaffee coffee|kuchen cake|bienenstich cake|torte cake|brunch brunch|grillen barbecue
picknick picnic
landen land landing|gelandet landed|abholen pick up|bahnsteig platform|umsteigen change trains
verspätung delay|pünktlich on time|zugbindung fixed train|sitzplatzreservierung seat reservation
mietwagen rental car|carsharing car sharing|flugsteig gate|gate gate|boarding boarding
bordkarte boarding pass
# other European languages, for the words events are made of
feest party|fête party|festa party|fiesta party|verjaardag birthday|anniversaire birthday
compleanno birthday
cumpleaños birthday|diner dinner|dîner dinner|cena dinner|déjeuner lunch|pranzo lunch
almuerzo lunch
lunch lunch|verplaatst moved|déplacé moved|spostato moved|trasladado moved|afgelast cancelled
annulé cancelled|annullato cancelled|cancelado cancelled|morgen tomorrow|demain tomorrow
domani tomorrow
mañana tomorrow|vandaag today|aujourd'hui today|oggi today|hoy today|vanavond tonight
ce soir tonight
stasera tonight|esta noche tonight|fiets bike bicycle|vélo bike bicycle|bici bike bicycle
bicicleta bike bicycle
sleutel key|clé key|chiave key|llave key|huis house home|maison house home|casa house home
trein train|gare station|stazione station|estación station|vlucht flight|vol flight|volo flight
vuelo flight
aankomst arrival|arrivée arrival|arrivo arrival|llegada arrival|vertrek departure
départ departure
partenza departure|salida departure|adres address|adresse address|indirizzo address
dirección address
# weather and other
wetter weather|regen rain|schnee snow|sturm storm|unwetter storm warning|gewitter thunderstorm
"""


def _parse(text: str) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for entry in line.split("|"):
            words = entry.split()
            if len(words) >= 2:
                key = words[0]
                table[key] = tuple(dict.fromkeys((*table.get(key, ()), *words[1:])))
    return table


GLOSS: dict[str, tuple[str, ...]] = _parse(_PAIRS)
"""German word (lower case, with umlauts) -> English words."""
