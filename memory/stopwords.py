"""The function words a question's search leaves out, per locale: data for `memory.recall`.

A question's articles, prepositions, pronouns, auxiliaries and question words ("¿A qué
hora es el cumple?", "Quando vai faltar água?") match every memory in its language, so
a search that kept them ranks a chat in that language above the memory that answers.
This module holds the words (tables only; `tests/memory/test_stopwords.py` checks each
one) and `dropped`, which picks the tables a question speaks.

English and German are always left out (`BASE`, as recall has done since its first
release). Another locale's words are left out only when the question speaks it: at
least two of its words are in the locale's table (one, for a word outside the Latin
letters) and more than are in the base tables.
So "What did Dan say to Ada?" keeps both names (Malay "dan" and "ada" are function
words, but the question is English), while "Bila Faizal mula kerja sekarang?" drops
"bila" and "sekarang".

Words are stored as `memory.search_text.fold` writes them (lower case, no accents), the
form a question's words are compared in. Content words that double as a question word
in one language ("jam" and "pukul" in "jam berapa", "giờ" in "mấy giờ": the hour) are
not listed: a memory that names an hour is what such a question wants. Chinese,
Japanese, Korean and Thai have no table: their text is searched by character bigrams
or whole runs, which a function word of one character does not form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from companion_memory.memory.search_text import fold

_RAW: dict[str, str] = {
    "en": """
        a about above after again against all am an and any are as at be because been
        before being below between both but by can could did do does doing down during
        each few for from further had has have having he her here hers herself him himself
        his how i if in into is it its itself just me more most my myself no nor not now of
        off on once only or other our ours ourselves out over own same she should so some
        such than that the their theirs them themselves then there these they this those
        through to too under until up very was we were what when where which while who whom
        why will with would you your yours yourself yourselves s t don doesn didn isn wasn
        weren won wouldn shouldn couldn ll re ve d m o y tell remind remember know anything
        something please
    """,
    "de": """
        wann wo wer was wie welche welcher welches ist sind der die das den dem des ein eine
        einen einem einer mein meine meinen meinem mir mich ich du wir ihr sie er es und
        oder nicht noch schon fur mit von zu zum zur auf an im am um bei aus uber hat habe
        haben wird werden war muss soll kann
    """,
    "es": """
        a al algo ante antes aqui asi cada como con contra cual cuales cuando cuanto cuanta
        cuantos cuantas de del desde donde el ella ellas ellos en entre era es esa ese eso
        esta estan estas este esto fue ha han hasta hay la las le les lo los mas me mi mis
        muy ni no nos o para pero por porque que quien quienes se sea ser si sin sobre son
        su sus tambien te tengo tiene tienen tu tus un una uno unos unas usted y ya yo ahora
    """,
    "pt": """
        a ao aos as ate com como da das de do dos e ela elas ele eles em entre era essa
        esse isso esta estao este eu foi ha ja la lhe mais mas me meu minha meus minhas
        muito na nas nao nem no nos num numa o os ou para pela pelo por porque quando que
        qual quais quanto quanta quantos quantas quem se sem ser seu sua seus suas so
        tambem te tem teu tua um uma umas uns voce voces vai vao onde agora aqui ainda
    """,
    "fr": """
        a au aux avec ce ces cet cette dans de des du elle elles en est et ete etre il ils
        je la le les leur leurs lui ma mais me mes moi mon ne nous on ou par pas pour qu
        que quel quelle quels quelles qui quoi quand comment combien sa sans se ses son
        sont sur ta te tes toi ton tu un une vos votre vous y ai as avons avez ont etait
        sera va vont maintenant encore deja aussi
    """,
    "it": """
        a ad al alla alle ai agli allo anche che chi ci come con cosa cui da dal dalla dei
        del della delle di dove e ed era gli ha hanno ho i il in io la le lei li lo loro
        lui ma mi mia mie miei mio ne nel nella nelle noi non o per perche piu quale quali
        quando quanto quanti questa questo qui si sia sono su sua sue suo suoi ti tu tra
        tuo tua un una uno vi voi ora ancora gia
    """,
    "nl": """
        aan al als bij dan dat de den der die dit door een en er had heb heeft hem het hij
        hoe hun ik in is je jij kan maar me met mij mijn na naar niet nog nu of om onder
        ons ook op over te tot u uit van voor waar wanneer wat was we wie wij wil worden
        wordt zal ze zij zijn zo welke hoeveel
    """,
    "pl": """
        a aby ale bo by być co czy dla do gdy gdzie i ich ile im ja jak jaki jaka jakie
        jest jego jej już kiedy kto która który które której ma mi mnie mój moja moje na
        nad nie nim o od on ona one oni po pod przez przy się są ta tak tam te ten to tu
        ty u w we z za ze żeby czym
    """,
    "cs": """
        a aby ale ani by co či do i jak jaký jaká jaké je jeho její jsem jsi jsou k kde kdo
        kdy když ke má mám mi mně můj moje na nad ne než o od on ona oni po pod pro proč
        při s se si své ta tak také tam te ten to tu ty u v ve z za ze již už kolik který
        která které
    """,
    "hu": """
        a az és egy hogy nem is van volt ki mi mit mikor hol hova hány mennyi melyik de
        meg már még csak vagy ez azt ezt én te ő ti ők kell lesz fog
    """,
    "tr": """
        ve ile bir bu şu o ne neden nasıl nerede nereye zaman kaç kim hangi mi mı mu mü da
        de ki için gibi çok daha en ama veya ya benim senin onun bana sana ona ben sen biz
        siz onlar var yok şimdi hâlâ artık
    """,
    "ru": """
        а без бы был была были было в вам вас весь во вот все всё вы где да для до его её
        если есть ещё же за и из или им их к как какой какая какие когда кто ли мне мой моя
        мы на над не нет ни но о об он она они от по под при с со так там то того только ты
        у уже что чтобы эта это этот я сколько куда откуда почему зачем
    """,
    "uk": """
        а але без би був була були було в вам вас ви від вже все де для до його її з за і
        й із їх коли котра котрий котрі куди лише мене мені ми мій моя на над не ні о об
        він вона вони по під при про с та так там те то ти у хто чи що щоб це цей ця як
        який яка які скільки чому
    """,
    "id": """
        ada adalah akan aku apa atau bagaimana bahwa belum berapa bisa dan dari dengan di
        dia ini itu juga kami kamu kapan ke kenapa ketika mana mereka oleh pada saya sudah
        tidak untuk yang sekarang siapa dimana masih
    """,
    "ms": """
        ada adalah akan aku apa atau bagaimana bahawa belum berapa bila boleh dan dari
        dengan di dia ini itu juga kami kamu kau ke kenapa ketika mana mereka oleh pada
        saya sudah tidak untuk yang sekarang siapa masih
    """,
    "vi": """
        khi nào ở đâu bao nhiêu của là có không các những một và với cho đến tôi em anh
        chị ai gì sao thế được đã sẽ đang thì mà này đó rồi chưa nhé ạ ơi vậy lúc tại
        trong trên
    """,
    "ar": """
        في من على إلى عن مع هذا هذه ذلك تلك هو هي هم أنا أنت نحن ما ماذا متى أين كيف كم
        لماذا هل أي التي الذي الذين كان كانت قد لا لم لن أن إن و أو ثم بعد قبل عند كل بين
        حتى
    """,
}


def _table(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


LOCALES: Mapping[str, frozenset[str]] = MappingProxyType(
    {code: _table(text) for code, text in _RAW.items()}
)
"""Each locale's function words, folded."""

BASE = ("en", "de")
"""The locales whose words every question leaves out."""

BASE_WORDS: frozenset[str] = frozenset().union(*(LOCALES[code] for code in BASE))

MIN_SPOKEN = 2
"""A question speaks a locale when at least this many of its words are in its table
(and more than are in the base tables); one is enough when no word found is in Latin
letters ("Когда приедет Олена?")."""


def dropped(folded_words: Iterable[str]) -> frozenset[str]:
    """Which of a question's words (folded) its search leaves out: the base locales'
    function words, and those of each other locale the question speaks."""
    words = set(folded_words)
    base = words & BASE_WORDS
    out = set(base)
    for code, table in LOCALES.items():
        if code in BASE:
            continue
        hits = words & table
        # a word of another script cannot be an English word or name: one is enough
        need = 1 if hits and not any(w.isascii() for w in hits) else MIN_SPOKEN
        if len(hits) >= need and len(hits) > len(base):
            out |= hits
    return frozenset(out)
