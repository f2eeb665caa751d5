"""The words that name a day or a month, per locale: data for `agent.notifications.dates`.

This module holds tables only; how a word becomes a date is `dates.py`. A locale adds
its words here, and `tests/notifications/test_day_words.py` checks every table: each
weekday and each month named, offsets and numbers in range, no word with two meanings
across locales, every word in lower case as `key` writes it.

Per locale:
- `relative`: a word and the days from the posting day it names ("tomorrow": 1);
- `weekdays`: a weekday name (Monday 0 ... Sunday 6), in the forms a sentence uses
  (Polish "środę", Russian "пятницу");
- `next`: words before a weekday that name its next occurrence, a week on when it is
  today ("next Tuesday");
- `next_week`: words before a weekday that name that day of the next calendar week
  (下周一, 来週の月曜日, 다음 주 월요일);
- `every`: words before a weekday that make it a habit ("every Thursday", 每周一);
- `months`: month names (1 ... 12) in the forms a date uses ("22 marca", "22 de marzo").

Words of Chinese and Japanese are matched inside a run of characters (these scripts put
no spaces between words), Korean ones at a word start (particles follow them: 내일은);
every other word as a whole word.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class LocaleWords:
    """The day and month words of one locale (see the module docstring)."""

    relative: Mapping[str, int] = field(default_factory=dict)
    weekdays: Mapping[str, int] = field(default_factory=dict)
    next: tuple[str, ...] = ()
    next_week: tuple[str, ...] = ()
    every: tuple[str, ...] = ()
    months: Mapping[str, int] = field(default_factory=dict)


def key(word: str) -> str:
    """The form a word is looked up by: casefolded, Turkish dotted and dotless i as i
    (a matched "YARIN" finds "yarın")."""
    return word.casefold().replace("i\u0307", "i").replace("\u0131", "i")


def _week(*names: str) -> dict[str, int]:
    """Weekday names Monday first; a slot may hold several forms split by "|"."""
    return {form: day for day, forms in enumerate(names) for form in forms.split("|")}


def _year(*names: str) -> dict[str, int]:
    """Month names January first; a slot may hold several forms split by "|"."""
    return {form: month for month, forms in enumerate(names, 1) for form in forms.split("|")}


LOCALES: Mapping[str, LocaleWords] = MappingProxyType({
    "en": LocaleWords(
        relative={"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "day after tomorrow": 2},
        weekdays=_week("monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                       "sunday"),
        next=("next",),
        every=("every", "each"),
        months=_year("january|jan", "february|feb", "march|mar", "april|apr", "may",
                     "june|jun", "july|jul", "august|aug", "september|sep|sept",
                     "october|oct", "november|nov", "december|dec"),
    ),
    "de": LocaleWords(
        relative={"heute": 0, "heut": 0, "morgen": 1, "übermorgen": 2},
        weekdays=_week("montag", "dienstag", "mittwoch", "donnerstag", "freitag",
                       "samstag|sonnabend", "sonntag"),
        next=("nächsten", "nächste", "kommenden", "kommende"),
        every=("jeden", "jede", "immer"),
        months=_year("januar|jänner", "februar", "märz", "april", "mai", "juni", "juli",
                     "august", "september", "oktober", "november", "dezember"),
    ),
    "fr": LocaleWords(
        relative={"aujourd'hui": 0, "ce soir": 0, "demain": 1, "après-demain": 2},
        weekdays=_week("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi",
                       "dimanche"),
        next=("prochain",),
        every=("chaque", "tous les"),
        months=_year("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                     "septembre", "octobre", "novembre", "décembre"),
    ),
    "it": LocaleWords(
        relative={"oggi": 0, "stasera": 0, "domani": 1, "dopodomani": 2},
        weekdays=_week("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato",
                       "domenica"),
        next=("prossimo",),
        every=("ogni",),
        months=_year("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio",
                     "agosto", "settembre", "ottobre", "novembre", "dicembre"),
    ),
    "es": LocaleWords(
        relative={"hoy": 0, "esta noche": 0, "mañana": 1, "pasado mañana": 2},
        weekdays=_week("lunes", "martes", "miércoles", "jueves", "viernes", "sábado",
                       "domingo"),
        next=("próximo",),
        every=("cada", "todos los"),
        months=_year("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                     "septiembre|setiembre", "octubre", "noviembre", "diciembre"),
    ),
    "nl": LocaleWords(
        relative={"vandaag": 0, "vanavond": 0, "morgen": 1, "overmorgen": 2},
        weekdays=_week("maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag",
                       "zondag"),
        next=("volgende",),
        every=("elke", "iedere"),
        months=_year("januari", "februari", "maart", "april", "mei", "juni", "juli",
                     "augustus", "september", "oktober", "november", "december"),
    ),
    "pl": LocaleWords(
        relative={"dziś": 0, "dzisiaj": 0, "jutro": 1, "pojutrze": 2},
        weekdays=_week("poniedziałek", "wtorek", "środa|środę", "czwartek", "piątek",
                       "sobota|sobotę", "niedziela|niedzielę"),
        next=("przyszły", "przyszłą", "następny", "następną"),
        every=("każdy", "każdą"),
        months=_year("stycznia|styczeń", "lutego|luty", "marca|marzec", "kwietnia|kwiecień",
                     "maja|maj", "czerwca|czerwiec", "lipca|lipiec", "sierpnia|sierpień",
                     "września|wrzesień", "października|październik",
                     "listopada|listopad", "grudnia|grudzień"),
    ),
    "pt": LocaleWords(
        relative={"hoje": 0, "amanhã": 1, "depois de amanhã": 2},
        weekdays=_week("segunda-feira", "terça-feira", "quarta-feira", "quinta-feira",
                       "sexta-feira", "sábado", "domingo"),
        next=("próxima", "próximo"),
        every=("toda", "todo"),
        months=_year("janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho",
                     "agosto", "setembro", "outubro", "novembro", "dezembro"),
    ),
    "tr": LocaleWords(
        relative={"bugün": 0, "bu akşam": 0, "yarın": 1, "öbür gün": 2, "yarından sonra": 2},
        weekdays=_week("pazartesi", "salı", "çarşamba", "perşembe", "cuma", "cumartesi",
                       "pazar"),
        next=("gelecek", "önümüzdeki"),
        every=("her",),
        months=_year("ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz",
                     "ağustos", "eylül", "ekim", "kasım", "aralık"),
    ),
    "sv": LocaleWords(
        relative={"idag": 0, "i dag": 0, "ikväll": 0, "i kväll": 0, "imorgon": 1,
                  "i morgon": 1, "i övermorgon": 2, "övermorgon": 2},
        weekdays=_week("måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag", "söndag"),
        next=("nästa",),
        every=("varje",),
        months=_year("januari", "februari", "mars", "april", "maj", "juni", "juli",
                     "augusti", "september", "oktober", "november", "december"),
    ),
    "ru": LocaleWords(
        relative={"сегодня": 0, "завтра": 1, "послезавтра": 2},
        weekdays=_week("понедельник", "вторник", "среда|среду", "четверг", "пятница|пятницу",
                       "суббота|субботу", "воскресенье"),
        next=("следующий", "следующую", "следующее"),
        every=("каждый", "каждую", "каждое"),
        months=_year("января|январь", "февраля|февраль", "марта|март", "апреля|апрель",
                     "мая|май", "июня|июнь", "июля|июль", "августа|август",
                     "сентября|сентябрь", "октября|октябрь", "ноября|ноябрь",
                     "декабря|декабрь"),
    ),
    "ja": LocaleWords(
        relative={"今日": 0, "今夜": 0, "今晩": 0, "明日": 1, "あした": 1, "明後日": 2,
                  "あさって": 2},
        weekdays=_week("月曜日|月曜", "火曜日|火曜", "水曜日|水曜", "木曜日|木曜", "金曜日|金曜",
                       "土曜日|土曜", "日曜日|日曜"),
        next_week=("来週の", "来週"),
        every=("毎週",),
    ),
    "zh": LocaleWords(
        relative={"今天": 0, "今晚": 0, "明天": 1, "明晚": 1, "后天": 2, "後天": 2},
        weekdays=_week("星期一|周一|週一|礼拜一|禮拜一", "星期二|周二|週二|礼拜二|禮拜二",
                       "星期三|周三|週三|礼拜三|禮拜三", "星期四|周四|週四|礼拜四|禮拜四",
                       "星期五|周五|週五|礼拜五|禮拜五", "星期六|周六|週六|礼拜六|禮拜六",
                       "星期日|星期天|周日|週日|礼拜天|禮拜天|礼拜日|禮拜日"),
        next_week=("下个", "下個", "下"),
        every=("每个", "每個", "每"),
    ),
    "ko": LocaleWords(
        relative={"오늘": 0, "오늘밤": 0, "내일": 1, "모레": 2, "내일모레": 2},
        weekdays=_week("월요일", "화요일", "수요일", "목요일", "금요일", "토요일", "일요일"),
        next_week=("다음 주", "다음주"),
        every=("매주",),
    ),
})
"""Every locale's words, by language code."""
