"""Who is speaking: the cues of an assistant addressing the person who asked for the lesson.

A lesson speaks to the learner about the subject ("Try it yourself!", "Prenons un exemple").
Chatter speaks to the requester about the lesson as a product, and its cues are discourse
functions, each a small closed set per language:

- `speaker`: the writer as "I" (pronouns; in pro-drop languages, unambiguous first-person verb
  forms). Teachers rarely write "I" in a lesson; alone it is not enough (philosophy lessons
  reason in the first person).
- `assent`: a reply particle opening the text ("Sure!", "Bien sûr !", "Gerne!", "Конечно!"):
  the text answers a request. Weighs more when it stands alone as the first sentence.
- `request`: a reference to the request itself ("as you asked", "wie gewünscht", "как вы
  просили").
- `offer`: an offer of further service or a call for feedback ("let me know", "dites-moi",
  "если хотите, я могу").
- `hope`: the closing formula "I hope (this helps)".
- `ai`: the writer naming itself an AI or a language model.
- `present`: a presentative naming the lesson as a product ("here is the lesson", "voici la
  leçon", "вот урок").
- `edit`: the writer reporting what it did to the text ("I have simplified", "j'ai ajouté").
- `client`: the learners named in the third person as the requester's ("your students",
  "vos élèves"): the text speaks to their teacher, not to them.

Quotations, italic examples, code and tables are removed first (`notation.own_voice`): a
grammar example "*Je veux que tu viennes.*" is not the writer speaking.
"""

from __future__ import annotations

import re
from functools import cache

from core.flows.lesson.heuristics.scripts import base_language

WEIGHTS = {"speaker": 1, "assent": 1, "request": 2, "offer": 2, "hope": 1, "ai": 2, "present": 1,
           "edit": 2, "client": 1}  # fmt: skip
CHATTER_SCORE = 2
"""A sentence with cues weighing this much is chatter."""

CUES: dict[str, dict[str, str]] = {
    "en": {
        "speaker": r"(?-i:\bI\b)|\bI'(?:m|ve|ll|d)\b|\b(?:me|my|myself)\b",
        "assent": r"^(?:sure|certainly|of course|absolutely|gladly|great|okay|ok|alright|"
                  r"happy to help|good question|great question)\b",
        "request": r"\bas (?:you )?(?:requested|asked(?: for)?|wished|discussed|agreed)\b|"
                   r"\byou (?:asked|requested) (?:for|me)\b|\b(?:per|at) your request\b",
        "offer": r"\blet me know\b|\bfeel free to (?:ask|reach|tell)\b|\bif you(?:'d)? (?:like|"
                 r"want|prefer|wish)[^.!?]{0,50}\bI\b|\bI can (?:also |easily )?(?:add|provide|"
                 r"create|prepare|make|expand|adjust|write|include)\b|\b(?:would you like|shall "
                 r"I|do you want) (?:me|a|an|more)\b",
        "hope": r"\bI hope\b|\bhope (?:this|it|that) helps\b",
        "ai": r"\bas an? (?:AI|artificial intelligence|(?:large )?language model|AI (?:model|"
              r"assistant)|assistant|chatbot)\b",
        "present": r"\b(?:here(?:'s| is| are)|below (?:is|you will find))\b[^.!?]{0,40}\b(?:lesson|"
                   r"course|version|material|worksheet|handout|answer|response)\b",
        "edit": r"\bI(?:'ve| have)? (?:(?:deliberately|intentionally|also) )?(?:added|included|"
                r"simplified|chosen|chose|kept|structured|organi[sz]ed|written|wrote|tried|"
                r"focused|left out|omitted|prepared|divided|split|quoted|paraphrased)\b",
        "client": r"\byour (?:students|pupils|class|learners)\b|\bfor (?:students|pupils) "
                  r"(?:in|of|at)\b",
    },
    "fr": {
        "speaker": r"\b(?:je|moi|me)\b|\b[jm]['’]",
        "assent": r"^(?:bien sûr|avec plaisir|volontiers|très bien|d['’]accord|parfait|"
                  r"entendu|absolument|certainement|bonne question|excellente question)\b",
        "request": r"\bcomme (?:vous (?:me )?l['’]avez|tu (?:me )?l['’]as) demandé\b|\bcomme "
                   r"demandé\b|\b(?:à|selon) (?:votre|ta) demande\b|\b(?:vous m['’]avez|tu "
                   r"m['’]as) demandé\b|\bcomme convenu\b",
        "offer": r"\bsi (?:vous (?:le )?(?:souhaitez|voulez|préférez|désirez)|tu (?:le )?"
                 r"(?:souhaites|veux|préfères))[^.!?]{0,50}\bje\b|\bn['’]hésitez pas à me\b|"
                 r"\bdites-moi\b|\bdis-moi\b|\bfaites-moi savoir\b|\bje (?:peux|pourrais) "
                 r"(?:aussi |également )?(?:vous |te )?(?:préparer|ajouter|proposer|fournir|"
                 r"rédiger|développer|adapter|faire)\b|\b(?:voulez|souhaitez)-vous que je\b",
        "hope": r"\bj['’]espère\b",
        "ai": r"\ben tant qu['’](?:IA|intelligence artificielle|assistant)\b|\ben tant que "
              r"(?:modèle de langage|modèle d['’]IA|assistant|IA)\b",
        "present": r"\b(?:voici|voilà|ci-dessous)\b[^.!?]{0,40}\b(?:leçon|cours|version|fiche|"
                   r"support|proposition|réponse|séquence)\b",
        "edit": r"\bj['’]ai (?:(?:volontairement|délibérément|aussi|également) )?(?:ajouté|"
                r"inclus|simplifié|choisi|gardé|conservé|structuré|organisé|rédigé|essayé|"
                r"préparé|divisé|omis|privilégié|reformulé|cité|résumé|découpé)\b",
        "client": r"\b(?:vos|tes) (?:élèves|étudiants|apprenants|classes?)\b|\bpour (?:des|les|"
                  r"un public d['’]?) ?(?:élèves|étudiants|apprenants)\b",
    },
    "de": {
        "speaker": r"\b(?:ich|mir|mich|mein(?:e|en|em|er|es)?)\b",
        "assent": r"^(?:gerne?|klar|natürlich|selbstverständlich|sehr gerne?|alles klar|okay|ok|"
                  r"prima|gute frage|sicher|aber gerne?)\b",
        "request": r"\bwie (?:gewünscht|besprochen|erbeten|angefragt|vereinbart|abgesprochen)\b|"
                   r"\b(?:Ihrem|deinem|eurem) Wunsch\b|\b(?:Sie haben|du hast|ihr habt) "
                   r"(?:mich )?(?:gebeten|gefragt)\b",
        "offer": r"\b(?:falls|wenn) (?:Sie|du|ihr) (?:möchten|möchtest|wollen|willst|wünschen|"
                 r"mögen)[^.!?]{0,50}\b(?:ich|mir)\b|\bsag(?:en Sie)? (?:mir )?Bescheid\b|"
                 r"\blass(?:en Sie)? mich wissen\b|\bmelden Sie sich\b|\b(?:kann|könnte) ich "
                 r"(?:Ihnen |dir |euch )?(?:gern(?:e)? )?(?:noch|auch|zusätzlich|gerne?)\b",
        "hope": r"\bich hoffe\b|\bhoffentlich hilft\b",
        "ai": r"\bals (?:KI|künstliche Intelligenz|Sprachmodell|KI-Modell|KI-Assistent|"
              r"Assistent)\b",
        "present": r"\b(?:hier (?:ist|kommt|sind|folgt)|anbei|im Folgenden (?:finden Sie|"
                   r"findest du))\b[^.!?]{0,40}\b(?:Lektion|Unterrichtseinheit|Stunde|Version|"
                   r"Fassung|Material|Arbeitsblatt|Antwort)\b",
        "edit": r"\bich habe\b[^.!?]{0,80}\b(?:ge\w+(?:t|en)|\w+iert)\b",
        "client": r"\b(?:Ihre[rn]?|deine[rn]?|eure[rn]?) (?:Schüler\w*|Klasse|Lerngruppe|"
                  r"Studierenden)\b|\bUnterrichtsvorbereitung\b|\bim Unterricht\b",
    },
    "es": {
        "speaker": r"\b(?:yo|me|mí|conmigo)\b|\b(?:puedo|espero|intenté|incluí|añadí|preparé|"
                   r"elegí|decidí|mantuve|simplifiqué|procuré)\b",
        "assent": r"^¡?(?:claro|por supuesto|desde luego|con gusto|perfecto|excelente|genial|"
                  r"muy bien|vale|de acuerdo|buena pregunta|cómo no)\b",
        "request": r"\bcomo (?:me )?(?:pediste|pidió|pidieron|pedías|solicitaste|solicitó)\b|"
                   r"\b(?:según|a|por) (?:tu|su) (?:petición|solicitud)\b|\bcomo (?:lo )?"
                   r"(?:habíamos )?(?:acordado|hablado)\b",
        "offer": r"\bsi (?:quieres|lo deseas|deseas|prefieres|lo prefieres|necesitas|quiere|"
                 r"desea|prefiere)[^.!?]{0,50}\bpuedo\b|\bavísame\b|\bdímelo\b|\bdime si\b|"
                 r"\bno dudes en (?:pedirme|preguntarme|decírmelo)\b|\b¿?quieres que (?:te )?"
                 r"(?:prepare|añada|haga|escriba)\b",
        "hope": r"\bespero que\b",
        "ai": r"\bcomo (?:una )?(?:IA|inteligencia artificial|modelo de lenguaje|asistente)\b",
        "present": r"\b(?:aquí (?:tienes|tiene|está|va)|a continuación (?:tienes|te presento|"
                   r"encontrarás))\b[^.!?]{0,40}\b(?:lección|clase|versión|material|ficha|"
                   r"respuesta|unidad)\b",
        "edit": r"\bhe (?:intentado|incluido|añadido|simplificado|elegido|mantenido|preferido|"
                r"organizado|dividido|preparado|omitido|resumido|redactado|citado)\b",
        "client": r"\b(?:tus|sus) (?:alumnos|estudiantes|clases?)\b|\bpara (?:alumnos|"
                  r"estudiantes) de\b",
    },
    "it": {
        "speaker": r"\b(?:io|me)\b|\b(?:posso|spero|preferisco)\b",
        "assent": r"^(?:certo|certamente|volentieri|perfetto|ottimo|benissimo|va bene|"
                  r"d['’]accordo|sicuro|con piacere|ottima domanda)\b",
        "request": r"\bcome (?:mi )?(?:hai|ha|avete) (?:chiesto|richiesto)\b|\bcome richiesto\b|"
                   r"\bsu (?:tua|sua|vostra) richiesta\b|\bcome concordato\b",
        "offer": r"\bse (?:vuoi|preferisci|desideri|ti serve|vuole|preferisce|desidera)"
                 r"[^.!?]{0,50}\bposso\b|\bfammi sapere\b|\bmi faccia sapere\b|\bdimmi se\b|"
                 r"\bnon esit(?:are|i) a\b",
        "hope": r"\bspero che\b",
        "ai": r"\bcome (?:un['’]|una )?(?:IA|intelligenza artificiale|modello linguistico|"
              r"modello di linguaggio|assistente)\b|\bin quanto (?:IA|modello)\b",
        "present": r"\b(?:ecco|qui (?:trovi|c['’]è|hai)|di seguito (?:trovi|la))\b[^.!?]{0,40}"
                   r"\b(?:lezione|versione|scheda|materiale|risposta|unità)\b",
        "edit": r"\bho (?:(?:volutamente|anche) )?(?:cercato|incluso|aggiunto|semplificato|"
                r"scelto|mantenuto|preferito|organizzato|diviso|preparato|omesso|riassunto|"
                r"scritto|citato)\b",
        "client": r"\b(?:i tuoi|i suoi|ai tuoi|ai suoi) (?:studenti|alunni|ragazzi)\b|\bper "
                  r"(?:studenti|alunni) d",
    },
    "pt": {
        "speaker": r"\b(?:eu|me|mim|comigo)\b|\b(?:posso|espero)\b",
        "assent": r"^(?:claro|com certeza|certamente|perfeito|ótimo|excelente|muito bem|com "
                  r"prazer|boa pergunta|sem problemas?)\b",
        "request": r"\bcomo (?:você )?(?:pediu|solicitou)\b|\bcomo (?:me )?pediste\b|"
                   r"\bconforme (?:solicitado|pedido|combinado)\b|\ba (?:seu|teu) pedido\b|"
                   r"\ba pedido (?:seu|teu)\b",
        "offer": r"\bse (?:quiser|preferir|desejar|precisar)[^.!?]{0,50}\bposso\b|"
                 r"\b(?:me avise|avise-me|diga-me|me diga)\b|\bfique à vontade para (?:me )?"
                 r"(?:pedir|perguntar)\b|\bnão hesite em\b",
        "hope": r"\bespero que\b",
        "ai": r"\bcomo (?:uma )?(?:IA|inteligência artificial|modelo de linguagem|assistente)\b",
        "present": r"\b(?:aqui (?:está|estão|vai|tem)|segue|a seguir (?:está|apresento))\b"
                   r"[^.!?]{0,40}\b(?:lição|aula|versão|material|ficha|resposta|unidade)\b",
        "edit": r"\b(?:preparei|incluí|adicionei|acrescentei|escolhi|tentei|procurei|mantive|"
                r"simplifiquei|organizei|dividi|resumi|optei|citei)\b",
        "client": r"\b(?:seus|teus) (?:alunos|estudantes)\b|\bpara (?:alunos|estudantes) d",
    },
    "ru": {
        "speaker": r"\b(?:я|мне|меня|мной|мною)\b",
        "assent": r"^(?:конечно|разумеется|отлично|хорошо|с удовольствием|без проблем|"
                  r"безусловно|прекрасно|замечательно)\b",
        "request": r"\bкак (?:вы|ты) (?:и )?(?:просили|просил[аи]?|хотели|хотел[аи]?)\b|\b(?:по|"
                   r"согласно) (?:вашей|твоей) (?:просьбе|заявке)\b|\bкак (?:и )?договаривались\b",
        "offer": r"\bесли (?:хотите|хочешь|нужно|потребуется|понадобится|захотите)[^.!?]{0,50}"
                 r"\b(?:я|могу|напишите|скажите)\b|\bдайте (?:мне )?знать\b|\bнапишите(?:,| мне)|"
                 r"\bя (?:могу|смогу) (?:также |ещё |еще |тоже )?(?:добавить|подготовить|составить|"
                 r"сделать|написать|расширить|сократить|дополнить)\b",
        "hope": r"\bнадеюсь\b",
        "ai": r"\bкак (?:языковая модель|ии|искусственный интеллект|нейросеть|ассистент)\b|"
              r"\bбудучи (?:языковой моделью|ии)\b",
        "present": r"\b(?:вот|ниже)\b[^.!?]{0,40}\b(?:урок|конспект|материал|верси\w+|"
                   r"разработк\w+|ответ)\b",
        "edit": r"\bя (?:постарал\w+|добавил\w*|упростил\w*|выбрал\w*|включил\w*|написал\w*|"
                r"разделил\w*|подготовил\w*|сократил\w*|опустил\w*|привёл|привел\w*|сохранил\w*)\b",
        "client": r"\b(?:ваших|твоих|для) (?:учеников|учащихся|школьников|студентов)\b|\bна "
                  r"занятии\b",
    },
    "uk": {
        "speaker": r"\b(?:я|мені|мене|мною)\b",
        "assent": r"^(?:звісно|звичайно|авжеж|чудово|добре|із задоволенням|з радістю|"
                  r"безумовно|гаразд)\b",
        "request": r"\bяк (?:ви|ти) (?:і )?(?:просили|просив|просила|хотіли)\b|\b(?:на|за) "
                   r"(?:вашим|твоїм) (?:проханням|запитом)\b|\bна ваше прохання\b|\bяк (?:і )?"
                   r"домовлялися\b",
        "offer": r"\bякщо (?:хочете|хочеш|потрібно|треба|знадобиться|бажаєте)[^.!?]{0,50}"
                 r"\b(?:я|можу|напишіть|скажіть)\b|\bдайте (?:мені )?знати\b|\bнапишіть(?:,| "
                 r"мені)|\bя (?:можу|зможу) (?:також |ще |теж )?(?:додати|підготувати|скласти|"
                 r"зробити|написати|розширити|скоротити|доповнити)\b",
        "hope": r"\bсподіваюс[яь]\b",
        "ai": r"\bяк (?:мовна модель|ші|штучний інтелект|нейромережа|асистент)\b",
        "present": r"\b(?:ось|нижче)\b[^.!?]{0,40}\b(?:урок|конспект|матеріал|версі\w+|"
                   r"розробк\w+|відповідь)\b",
        "edit": r"\bя (?:постарав\w*|намагав\w*|додав\w*|спростив\w*|обрав\w*|вибрав\w*|"
                r"включив\w*|написав\w*|розділив\w*|підготував\w*|скоротив\w*|зберіг|зберегла)\b",
        "client": r"\b(?:ваших|твоїх|для) (?:учнів|учениць|школярів|студентів)\b",
    },
    "zh": {
        "speaker": r"我(?!们)",
        "assent": r"^(?:当然|好的|没问题|可以的|很高兴|非常乐意)",
        "request": r"(?:按照|根据|应)(?:你|您)的要求|如(?:你|您)所(?:要求|需)",
        "offer": r"如果(?:你|您)(?:还)?(?:需要|想要|希望)[^。！？]{0,30}我|请(?:随时)?告诉我|"
                 r"欢迎(?:随时|继续)?(?:提问|告诉我)|我(?:还)?可以(?:再|为(?:你|您)|帮(?:你|您))",
        "hope": r"希望(?:这|本|以上)[^。！？]{0,15}(?:帮助|有用)",
        "ai": r"作为(?:一个|一名)?(?:AI|人工智能|语言模型|AI助手|智能助手)",
        "present": r"(?:以下是|下面是|这是)[^。！？]{0,15}(?:课|讲义|教案|课程|教学内容)",
        "edit": r"我(?:已经|特意|尽量)?(?:添加|加入|简化|选择|保留|整理|删去|省略|准备)了",
        "client": r"(?:你|您)的学生",
    },
    "ja": {
        "speaker": r"私|わたし|僕",
        "assent": r"^(?:もちろん|かしこまりました|承知しました|了解しました|喜んで)",
        "request": r"ご(?:要望|依頼|指定)(?:に|の|どおり|通り)|お求めの",
        "offer": r"(?:必要であれば|必要なら|ご希望があれば|ご希望でしたら)[^。！？]{0,30}(?:ます|ください)|"
                 r"お気軽に|お知らせください|お申し付けください",
        "hope": r"(?:お役に立てれば|参考になれば)|幸いです",
        "ai": r"(?:AI|人工知能|言語モデル|AIアシスタント)として",
        "present": r"(?:以下は|こちらは|こちらが)[^。！？]{0,15}(?:レッスン|教材|授業|解説)",
        "edit": r"(?:追加|簡略化|省略|整理)しました",
        "client": r"(?:生徒|学生)さん(?:たち)?(?:に|の|向け)",
    },
}


@cache
def cues(language: str) -> dict[str, re.Pattern[str]]:
    """The compiled cues of `language` (English cues for an unknown language)."""
    table = CUES.get(base_language(language), CUES["en"])
    return {name: re.compile(pattern, re.IGNORECASE) for name, pattern in table.items()}


@cache
def any_cue(language: str) -> re.Pattern[str]:
    """One pattern for every cue of `language` (anchors dropped): a cheap first pass."""
    table = CUES.get(base_language(language), CUES["en"])
    return re.compile("|".join(f"(?:{p.lstrip('^')})" for p in table.values()), re.IGNORECASE)


def score(sentence: str, language: str, *, first: bool) -> tuple[int, list[str]]:
    """The cues a sentence carries and their weight; an assent standing alone as the first
    sentence of a block ("Bien sûr !") weighs double."""
    text = sentence.strip().lstrip("¡¿*_ ")
    found = [name for name, pattern in cues(language).items() if pattern.search(text)]
    total = sum(WEIGHTS[name] for name in found)
    if "assent" in found and first and len(text.split()) <= 3 and text.rstrip().endswith(("!", "！")):
        total += 1
    return total, found
