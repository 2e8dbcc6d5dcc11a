"""The few words the checks need per language, each list justified by what the words do.

The checks work on shapes first (brackets, positions, endings, scripts). Two things have no
shape and need words, kept to closed classes:

- `FUNCTION_FINAL`: words that cannot end a sentence, so text ending on one was cut
  ("... un brin ancien et"). Only articles, coordinating and subordinating conjunctions and
  (where they cannot be stranded) prepositions: closed classes, the same in every lesson.
  Left out on purpose: one-letter words (math variables: "the value of a"), note names that are
  also articles or conjunctions (fr/es/it "la", "si"; ru/uk "до"), German prepositions (they end
  sentences as separable verb particles: "Er kommt an."), English prepositions (stranded: "what
  it is made of").
- `DEFERRAL` and `SELF_REFERENCE` (placeholders): a text that defers its own writing ("to be
  added", "sera rédigée plus tard", "будет написан позже") speaks of itself: a deferral
  expression, and usually a noun naming a part of the document ("this section", "ce
  paragraphe", "этот раздел"). Both are metatextual vocabulary, not lesson content.

The words a speaker uses to address the requester (chatter) are in `voice`.
"""

from __future__ import annotations

import re
from functools import cache

from core.flows.lesson.heuristics.scripts import base_language, words

FUNCTION_FINAL: dict[str, frozenset[str]] = {
    "en": words("the an and or but nor than because although whereas unless whose"),
    "fr": words(
        "le les un une des du au aux et ou mais ni car que qu dont lorsque puisque quand de d "
        "dans sur avec pour par en vers chez sans sous entre ce cette ces son sa ses leur leurs "
        "notre votre nos vos"
    ),
    "de": words(
        "der die das dem den des ein eine einen einem einer eines und oder aber sondern denn "
        "weil dass ob sowie bzw sowohl weder"
    ),
    "es": words(
        "el los las un una unos unas pero sino ni que porque aunque de del al en con por para "
        "sin sobre entre hacia desde cuyo cuya su sus"
    ),
    "it": words(
        "il lo gli un uno una ed ma né che perché di del della dei degli delle al alla da dal "
        "dalla in nel nella con su per tra fra"
    ),
    "pt": words(
        "os as um uma uns umas ou mas nem que porque embora de do da dos das no na nos nas em "
        "com por para pelo pela sem sobre entre"
    ),
    "ru": words(
        "но или либо что чтобы потому поскольку если который которая которое которые во на со "
        "ко об от по из за для без при про под над между через"
    ),
    "uk": words(
        "та але або чи щоб бо тому якщо який яка яке які на із зі від по за для без при про "
        "під над між через"
    ),
}
CJK_FUNCTION_FINAL: dict[str, tuple[str, ...]] = {
    "zh": ("和", "与", "或", "但", "而", "并且", "因为", "如果", "虽然", "以及"),
    "ja": ("を", "が", "や", "および", "または", "そして", "しかし"),
}
"""Chinese conjunctions and Japanese case particles that cannot end a sentence."""

LAST_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*$")


def ends_on_function_word(text: str, language: str) -> bool:
    """Whether `text` ends on a word that cannot end a sentence in `language`."""
    lang = base_language(language)
    if lang in CJK_FUNCTION_FINAL:
        return text.rstrip().endswith(CJK_FUNCTION_FINAL[lang])
    words = FUNCTION_FINAL.get(lang)
    match = LAST_WORD.search(text.rstrip())
    return bool(words and match and len(match.group()) > 1 and match.group().lower() in words)


DEFERRAL: dict[str, str] = {
    "en": r"\bto be (?:added|written|completed|continued|expanded|filled in|inserted)\b|"
    r"\bcoming soon\b|\bwill be (?:added|written|completed|expanded|filled in|inserted) "
    r"(?:later|soon|here|in)\b|\b(?:in|with) (?:a|the) (?:future|later|next) (?:version|update|"
    r"revision|edition)\b|\bunder construction\b|\bnot (?:yet )?written\b|\b(?:insert|add|"
    r"write|fill in|paste|describe|explain|put|place) (?:\w+ ){0,5}here\b",
    "fr": r"\bà (?:compléter|rédiger|ajouter|insérer)\b|\bsera (?:\w+ )?(?:rédigée?|ajoutée?|"
    r"complétée?|développée?|écrite?|traitée?|insérée?) (?:plus tard|ultérieurement|"
    r"prochainement|dans une)\b|\b(?:prochaine|future|ultérieure) (?:version|mise à jour|"
    r"édition)\b|\ben cours de rédaction\b|\b(?:insérer|ajouter|mettre|compléter|écrire|"
    r"décrire|expliquer|présenter) (?:\w+ ){0,5}ici\b|\bici (?:\w+ ){0,4}(?:à insérer|"
    r"à ajouter|à décrire)\b",
    "de": r"\b(?:wird|werden) (?:\w+ ){0,3}(?:ergänzt|nachgereicht|nachgetragen)\b|\b(?:wird|"
    r"werden) (?:später|noch|demnächst|bald) (?:\w+ ){0,3}(?:hinzugefügt|ausgearbeitet|eingefügt|"
    r"geschrieben)\b|\bfolgt (?:später|noch|in Kürze|demnächst|bald)\b|\b(?:noch|später) zu "
    r"(?:ergänzen|schreiben|erstellen)\b|\bzu ergänzen\b|\b(?:hier|später|noch) (?:\w+ ){0,8}"
    r"(?:einfügen|ergänzen|nachtragen|beschreiben|erklären)\b|\b(?:nächsten|späteren|"
    r"künftigen) (?:Version|Fassung|Überarbeitung)\b|\bnoch nicht (?:geschrieben|ausgearbeitet)\b",
    "es": r"\bpor (?:completar|redactar|añadir|agregar|escribir)\b|\bse (?:completará|añadirá|"
    r"agregará|redactará|escribirá) (?:más adelante|próximamente|en)\b|\b(?:será|serán) "
    r"(?:\w+ )?(?:añadid|agregad|redactad|escrit|completad|desarrollad)[oa]s? (?:más adelante|"
    r"próximamente|en una)\b|\b(?:próxima|futura) (?:versión|actualización|edición)\b|"
    r"\ben redacción\b|\b(?:insertar|añadir|agregar|poner|escribir|describir|explicar) "
    r"(?:\w+ ){0,5}aquí\b",
    "it": r"\bda (?:completare|scrivere|aggiungere|inserire)\b|\bsarà (?:\w+ )?(?:aggiunt|"
    r"scritt|completat|inserit|sviluppat|redatt)[oa] (?:più avanti|in seguito|prossimamente|"
    r"in una)\b|\b(?:prossima|futura) (?:versione|revisione|edizione)\b|\b(?:inserire|"
    r"aggiungere|mettere|scrivere|descrivere|spiegare) (?:\w+ ){0,5}qui\b",
    "pt": r"\bpor (?:completar|escrever|adicionar|acrescentar)\b|\ba (?:completar|acrescentar)\b|"
    r"\bserá (?:\w+ )?(?:adicionad|acrescentad|escrit|completad|desenvolvid|redigid|inserid)"
    r"[oa] (?:mais tarde|depois|em breve|numa|em uma)\b|\b(?:próxima|futura) (?:versão|"
    r"atualização|edição)\b|\b(?:inserir|adicionar|acrescentar|colocar|escrever|descrever|"
    r"explicar) (?:\w+ ){0,5}aqui\b",
    "ru": r"\bбуд(?:ет|ут) (?:\w+ ){0,2}(?:написан|дописан|дополнен)\w*|\bбуд(?:ет|ут) "
    r"(?:\w+ ){0,2}(?:добавлен|подготовлен|вставлен|размещ[её]н)\w* (?:позже|позднее|"
    r"скоро|в следующ)|\b(?:дописать|доделать|дополнить позже)\b|\b(?:вставить|добавить|"
    r"написать|описать|объяснить) (?:\w+ ){0,3}(?:сюда|здесь)\b|\b(?:следующей|будущей|"
    r"новой) (?:версии|редакции)\b|\bв процессе написания\b|\bпоявится (?:позже|позднее|"
    r"скоро)\b",
    "uk": r"\bбуд(?:е|уть) (?:\w+ ){0,2}(?:написан|дописан|доповнен)\w*|\bбуд(?:е|уть) "
    r"(?:\w+ ){0,2}(?:додан|підготовлен|вставлен|розміщен)\w* (?:пізніше|згодом|незабаром|"
    r"в наступн|у наступн)|\b(?:дописати|доробити|доповнити пізніше)\b|\b(?:вставити|додати|"
    r"написати|описати|пояснити) (?:\w+ ){0,3}(?:сюди|тут)\b|\b(?:наступній|майбутній|новій) "
    r"(?:версії|редакції)\b|\bу процесі написання\b|\bз'явиться (?:пізніше|згодом|"
    r"незабаром)\b",
    "zh": r"待(?:补充|完善|添加|续|编写|撰写)|(?:稍后|以后|后续|之后)(?:再)?(?:补充|添加|完善|编写)|"
    r"(?:下一|未来的?|后续)版本|(?:正在|尚在)编写中|(?:此处|在此|这里)(?:插入|添加|补充|放置)|"
    r"(?:内容)?即将(?:推出|上线|补充)|尚未编写",
    "ja": r"(?:後|のち)(?:で|ほど)(?:追加|追記|補足|記述|作成)|追記予定|(?:作成|執筆)中|"
    r"(?:次|今後|将来)の(?:バージョン|版|改訂)|(?:ここ|こちら)に[^。！？]{0,20}(?:入れる|挿入|追加|"
    r"記入|載せる)|近日(?:公開|追加)|(?:記述|作成)予定",
}
"""Expressions by which a text defers its own writing."""

SELF_REFERENCE: dict[str, str] = {
    "en": r"\b(?:this|the following|next) (?:section|part|chapter|paragraph|subsection|page)\b",
    "fr": r"\b(?:cette|la) (?:section|partie|sous-partie)\b|\b(?:ce|le) (?:chapitre|paragraphe|"
    r"passage)\b",
    "de": r"\b(?:dieser|diesem|dieses|der) (?:Abschnitt|Teil|Kapitel|Absatz|Unterabschnitt)\b|"
    r"\bdiese[rs]? (?:Abschnitts|Teils|Kapitels)\b",
    "es": r"\b(?:esta|la) (?:sección|parte|subsección)\b|\b(?:este|el) (?:apartado|capítulo|"
    r"párrafo)\b",
    "it": r"\b(?:questa|la) (?:sezione|parte)\b|\b(?:questo|il) (?:paragrafo|capitolo)\b",
    "pt": r"\b(?:esta|a) (?:seção|secção|parte)\b|\b(?:este|o) (?:capítulo|parágrafo)\b",
    "ru": r"\b(?:этот|данный) (?:раздел|параграф|пункт|подраздел)\b|\b(?:эта|данная) (?:часть|"
    r"глава)\b",
    "uk": r"\b(?:цей|даний) (?:розділ|параграф|пункт|підрозділ)\b|\b(?:ця|дана) (?:частина|"
    r"глава)\b",
    "zh": r"(?:本|这一?|此)(?:节|部分|章|段)",
    "ja": r"(?:この|本)(?:セクション|節|章|部分|項)",
}
"""Nouns by which a text names one of its own parts ("this section")."""


@cache
def deferral(language: str) -> re.Pattern[str] | None:
    """Deferral expressions of `language` and of English (placeholders are often English)."""
    lang = base_language(language)
    parts = [p for p in (DEFERRAL.get(lang), DEFERRAL["en"] if lang != "en" else None) if p]
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


@cache
def self_reference(language: str) -> re.Pattern[str] | None:
    lang = base_language(language)
    parts = [
        p for p in (SELF_REFERENCE.get(lang), SELF_REFERENCE["en"] if lang != "en" else None) if p
    ]
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None
