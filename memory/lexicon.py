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
