"""The cue words of `voice`, per language (regular expressions, matched case-insensitively).

Each class is a discourse function (see `voice`); the words are the closed set that carries it
in each language: pronouns and unambiguous first-person verb forms (for the pro-drop
languages), reply particles, the vocabulary of asking and sending ("request", "you asked me",
"you sent me"), offers ("if you want, I can", "just tell me"), the closing hope formula, AI
self-reference, presentatives naming the lesson as a product, the writer's report of its own
edits ("I have simplified"), and the learners named as the requester's ("your students").
"""

from __future__ import annotations

CUES: dict[str, dict[str, str]] = {
    "en": {
        "speaker": r"(?-i:\bI\b)|\bI'(?:m|ve|ll|d)\b|\b(?:me|my|myself)\b|\bon my (?:part|side)\b",
        "assent": r"^(?:sure|certainly|of course|absolutely|gladly|great|okay|ok|alright|"
        r"happy to help|good question|great question|perfect|no problem)\b",
        "request": r"\bas (?:you )?(?:requested|asked(?: for)?|wished|discussed|agreed)\b|"
        r"\byou (?:\w+ly )?(?:asked|requested|sent|gave|told|showed) (?:for|me|about)\b|\bas you "
        r"(?:mentioned|said|noted|pointed out|suggested)\b|\b(?:the|level of) \w+ you "
        r"(?:mentioned|asked for|requested)\b|\b(?:per|at|in) "
        r"(?:your|the) request\b|\byour (?:request|brief|prompt|instructions)\b",
        "offer": r"\bhappy to help\b|\bhere to help\b|\bat your (?:service|disposal)\b|\b(?:you'd|you would) like me to\b|\bwant me to\b|"
        r"\blet me know\b|\bjust (?:tell|ask) me\b|\bfeel free to (?:ask|reach|tell)\b|"
        r"\bif (?:you(?:'d)? (?:like|want|prefer|wish)|needed|necessary|desired)"
        r"[^.!?]{0,60}\bI\b|\bI (?:can|could) (?:also |easily |gladly )?(?:add|provide|"
        r"create|prepare|make|expand|adjust|write|include|extend|shorten)\b|"
        r"\b(?:would you like|shall I|do you want) (?:me|a|an|more)\b",
        "hope": r"\bI hope\b|\bhope (?:this|it|that) helps\b",
        "ai": r"\bas an? (?:AI|artificial intelligence|(?:large )?language model|AI (?:model|"
        r"assistant)|assistant|chatbot)\b|\bI(?:'m| am) (?:an? |just an? )?(?:AI|language "
        r"model|AI assistant)\b",
        "presentative": r"\bhere(?:'s| is| are| comes)\b|\bbelow (?:is|are)\b",
        "present": r"\b(?:here(?:'s| is| are)|below (?:is|you will find))\b[^.!?]{0,40}\b(?:lesson|"
        r"course|version|material|worksheet|handout|answer|response)\b",
        "edit": r"\bI(?:'ve| have)? (?:\w+ly )?(?:added|included|simplified|chosen|chose|kept|"
        r"structured|organi[sz]ed|written|wrote|tried|focused|left out|omitted|removed|"
        r"cut|dropped|prepared|divided|split|quoted|paraphrased|translated)\b",
        "client": r"\byour (?:students|pupils|class|learners)\b|\bfor (?:students|pupils) "
        r"(?:in|of|at)\b|\bwith your (?:students|pupils|class)\b",
    },
    "fr": {
        "speaker": r"\b(?:je|moi|me)\b|\b[jm]['’]|\bde ma part\b|\b(?:mon|ma|mes) (?:avis|choix)\b",
        "assent": r"^(?:bien sûr|avec plaisir|volontiers|très bien|d['’]accord|parfait|"
        r"entendu|absolument|certainement|bonne question|excellente question)\b",
        "request": r"\bcomme (?:vous (?:me )?l['’]avez|tu (?:me )?l['’]as) demandé\b|\bcomme "
        r"(?:demandé|convenu)\b|\b(?:à|selon|dans) (?:votre|ta|la) demande\b|"
        r"\bcomme (?:vous (?:l['’])?avez|tu (?:l['’])?as) (?:mentionné|dit|indiqué|précisé|"
        r"souligné)\b|\b(?:vous m['’]avez|tu m['’]as) (?:\w+ )?(?:demandé|envoyé|transmis|donné|"
        r"fourni|indiqué|montré)\b|\b(?:votre|ta) (?:demande|consigne|requête)\b",
        "offer": r"\b(?:reste|suis|serai) à (?:votre|ta) (?:entière )?disposition\b|\bje reste disponible\b|\bravie? de vous aider\b|"
        r"\b(?:si (?:vous (?:le )?(?:souhaitez|voulez|préférez|désirez)|tu (?:le )?"
        r"(?:souhaites|veux|préfères)|besoin)|au besoin)[^.!?]{0,60}\b(?:je|j['’])|"
        r"\bn['’]hésitez pas à me\b|\bdites-(?:le-)?moi\b|\bdis-(?:le-)?moi\b|"
        r"\bfaites-moi savoir\b|\bje (?:peux|pourrais) (?:\w+ ){0,2}(?:préparer|ajouter|"
        r"proposer|fournir|rédiger|développer|adapter|faire|compléter)\b|"
        r"\b(?:voulez|souhaitez)-vous que je\b",
        "hope": r"\bj['’]espère\b",
        "ai": r"\ben tant qu['’](?:IA|intelligence artificielle|assistant)\b|\ben tant que "
        r"(?:modèle de langage|modèle d['’]IA|assistant|IA)\b|\bje (?:suis|ne suis qu['’]) "
        r"(?:une? )?(?:IA|intelligence artificielle|modèle de langage|assistant)\b",
        "presentative": r"\bvoici\b|\bvoilà\b|\bci-dessous\b",
        "present": r"\b(?:voici|voilà|ci-dessous)\b[^.!?]{0,40}\b(?:leçon|cours|version|fiche|"
        r"support|proposition|réponse|séquence)\b",
        "edit": r"\bj['’]ai (?:\w+ment )?(?:ajouté|inclus|simplifié|choisi|gardé|conservé|"
        r"structuré|organisé|rédigé|essayé|préparé|divisé|omis|retiré|supprimé|enlevé|"
        r"coupé|privilégié|reformulé|cité|résumé|découpé|traduit)\b",
        "client": r"\b(?:vos|tes) (?:élèves|étudiants|apprenants|classes?)\b|\bpour (?:des|les|"
        r"un public d['’]?) ?(?:élèves|étudiants|apprenants)\b|\bavec (?:vos|tes) "
        r"(?:élèves|étudiants)\b",
    },
    "de": {
        "speaker": r"\b(?:ich|mir|mich|mein(?:e|en|em|er|es)?)\b|\bmeinerseits\b",
        "assent": r"^(?:gerne?|klar|natürlich|selbstverständlich|sehr gerne?|alles klar|okay|ok|"
        r"prima|gute frage|sicher|aber gerne?|perfekt|kein problem)\b",
        "request": r"\bwie (?:gewünscht|besprochen|erbeten|angefragt|vereinbart|abgesprochen)\b|"
        r"\b(?:Ihrem|deinem|eurem) Wunsch\b|\b(?:Sie haben|du hast|ihr habt) (?:mich|mir) "
        r"(?:\w+ )?(?:gebeten|gefragt|geschickt|geschrieben|gegeben|gesendet)\b|"
        r"\b(?:Ihre[rn]?|deine[rn]?|der) (?:Anfrage|Bitte|Vorgabe)\b|\bwie (?:Sie|du) "
        r"(?:\w+ )?(?:erwähnt|gesagt|geschrieben|angemerkt)\b",
        "offer": r"\bstehe (?:ich )?(?:Ihnen |dir |euch )?(?:gern(?:e)? )?zur Verfügung\b|\bgerne? behilflich\b|\bhelfe (?:ich )?(?:Ihnen |dir )?gerne?\b|"
        r"\b(?:falls|wenn) (?:Sie|du|ihr) (?:möchten|möchtest|wollen|willst|wünschen|"
        r"mögen)[^.!?]{0,60}\b(?:ich|mir)\b|\b(?:bei Bedarf|auf Wunsch|falls gewünscht|"
        r"wenn gewünscht)[^.!?]{0,60}\bich\b|\bsag(?:en Sie)? (?:mir )?(?:einfach )?"
        r"Bescheid\b|\blass(?:en Sie)? mich wissen\b|\bmelden Sie sich\b|\b(?:kann|könnte) "
        r"ich (?:Ihnen |dir |euch )?(?:gern(?:e)? )?(?:noch|auch|zusätzlich|gerne?)\b",
        "hope": r"\bich hoffe\b|\bhoffentlich hilft\b",
        "ai": r"\bals (?:KI|künstliche Intelligenz|Sprachmodell|KI-Modell|KI-Assistent|"
        r"Assistent)\b|\bich bin (?:nur )?(?:eine? )?(?:KI|Sprachmodell|KI-Assistent)\b",
        "presentative": r"\bhier (?:ist|sind|kommt|kommen|folgt)\b",
        "present": r"\b(?:hier (?:ist|kommt|sind|folgt)|anbei|im Folgenden (?:finden Sie|"
        r"findest du))\b[^.!?]{0,40}\b(?:Lektion|Unterrichtseinheit|Stunde|Version|"
        r"Fassung|Material|Arbeitsblatt|Antwort)\b",
        "edit": r"\bich habe\b[^.!?]{0,80}\b(?:ge\w+(?:t|en)|\w+iert)\b",
        "client": r"\b(?:Ihre[rn]?|deine[rn]?|eure[rn]?) (?:Schüler\w*|Klasse|Lerngruppe|"
        r"Studierenden)\b|\bUnterrichtsvorbereitung\b|\bim Unterricht\b|\bmit (?:Ihren|"
        r"deinen) (?:Schüler\w*|Klassen?)\b",
    },
    "es": {
        "speaker": r"\b(?:yo|me|mí|conmigo)\b|\bpor mi parte\b|\bvoy a\b|\b(?:puedo|quiero|espero|intenté|"
        r"incluí|añadí|preparé|elegí|decidí|mantuve|simplifiqué|procuré|quité)\b",
        "assent": r"^¡?(?:claro|por supuesto|desde luego|con gusto|perfecto|excelente|genial|"
        r"muy bien|vale|de acuerdo|buena pregunta|cómo no|sin problema|listo)\b",
        "request": r"\bcomo (?:me )?(?:pediste|pidió|pidieron|pedías|solicitaste|solicitó)\b|"
        r"\b(?:según|a|por|en) (?:tu|su) (?:petición|solicitud|pedido)\b|\bcomo (?:lo )?"
        r"(?:habíamos )?(?:acordado|hablado)\b|\bcomo (?:me )?(?:mencionaste|mencionó|dijiste|"
        r"comentaste|comentó|indicaste)\b|\bme (?:\w+ )?(?:pediste|pidió|enviaste|"
        r"envió|mandaste|mandó|diste|dio|indicaste|indicó|pasaste)\b",
        "offer": r"\b(?:quedo|estoy) a (?:tu|su) (?:entera )?disposición\b|\baquí para ayudar(?:te|le)\b|\bencantad[oa] de ayudar\b|"
        r"\b(?:si (?:quieres|lo deseas|deseas|prefieres|lo prefieres|necesitas|quiere|"
        r"desea|prefiere|hace falta)|si lo necesitas)[^.!?]{0,60}\b(?:puedo|(?:te|se|lo|la) "
        r"(?:preparo|añado|hago|escribo|amplío|incluyo|paso|envío|mando))\b|\bavísame\b|\bdímelo\b|"
        r"\bdime si\b|\bno dudes en (?:pedirme|preguntarme|decírmelo)\b|\b¿?quieres que "
        r"(?:te )?(?:prepare|añada|haga|escriba)\b|\bpuedo (?:\w+ ){0,2}(?:preparar|añadir|"
        r"incluir|ampliar|hacer|escribir)\b",
        "hope": r"\bespero que\b",
        "ai": r"\bcomo (?:una )?(?:IA|inteligencia artificial|modelo de lenguaje|asistente)\b|"
        r"\bsoy (?:solo )?(?:una? )?(?:IA|inteligencia artificial|modelo de lenguaje)\b",
        "presentative": r"\baquí (?:tienes|tiene|está|están|va)\b|\ba continuación\b",
        "present": r"\b(?:aquí (?:tienes|tiene|está|va)|a continuación (?:tienes|te presento|"
        r"encontrarás))\b[^.!?]{0,40}\b(?:lección|clase|versión|material|ficha|"
        r"respuesta|unidad)\b",
        "edit": r"\bhe (?:\w+mente )?(?:intentado|incluido|añadido|simplificado|elegido|"
        r"mantenido|preferido|organizado|dividido|preparado|omitido|quitado|eliminado|"
        r"resumido|redactado|citado|traducido)\b",
        "client": r"\b(?:tus|sus) (?:alumnos|estudiantes|clases?)\b|\bpara (?:alumnos|"
        r"estudiantes) de\b|\bcon (?:tus|sus) (?:alumnos|estudiantes)\b",
    },
    "it": {
        "speaker": r"\b(?:io|me|mio|mia|miei|mie)\b|\bda parte mia\b|\b(?:posso|voglio|spero|"
        r"preferisco)\b|\b(?:l['’])?ho (?:\w+ )?\w+(?:ato|uto|ito|olto|esso|otto)\b",
        "assent": r"^(?:certo|certamente|volentieri|perfetto|ottimo|benissimo|va bene|"
        r"d['’]accordo|sicuro|con piacere|ottima domanda|nessun problema)\b",
        "request": r"\b(?:mi )?(?:hai|ha|avete|avevi|aveva|avevate) (?:\w+ )?(?:chiesto|"
        r"richiesto)\b|\bmi (?:hai|ha|avete|avevi|aveva) (?:\w+ )?(?:inviato|mandato|"
        r"dato|detto|scritto|fornito|indicato|passato)\b|\bcome (?:mi )?(?:hai|ha|avete) "
        r"(?:detto|accennato|indicato|scritto|menzionato)\b|\bcome (?:richiesto|"
        r"concordato)\b|\b(?:su|nella) (?:tua|sua|vostra) richiesta\b",
        "offer": r"\b(?:resto|sono) a (?:tua |sua |vostra )?(?:completa )?disposizione\b|\bfelice di aiutar|"
        r"\b(?:se (?:vuoi|preferisci|desideri|ti serve|vuole|preferisce|desidera|serve)|"
        r"all['’]occorrenza|su richiesta)[^.!?]{0,60}\b(?:posso|(?:lo|la|li|le|te|ve) "
        r"\w+(?:o|isco))\b|\bfammi sapere\b|\bmi faccia sapere\b|\bdimmi se\b|"
        r"\bnon esit(?:are|i) a\b|\bposso (?:\w+ ){0,2}(?:preparare|aggiungere|inserire|"
        r"ampliare|fare|scrivere)\b",
        "hope": r"\bspero che\b",
        "ai": r"\bcome (?:un['’]|una )?(?:IA|intelligenza artificiale|modello linguistico|"
        r"modello di linguaggio|assistente)\b|\bin quanto (?:IA|modello)\b|\bsono (?:solo )?"
        r"(?:un['’]|una |un )?(?:IA|intelligenza artificiale|modello linguistico)\b",
        "presentative": r"\becco\b|\bqui (?:trovi|hai|c['’]è)\b",
        "present": r"\b(?:ecco|qui (?:trovi|c['’]è|hai)|di seguito (?:trovi|la))\b[^.!?]{0,40}"
        r"\b(?:lezione|versione|scheda|materiale|risposta|unità)\b",
        "edit": r"\b(?:l['’])?ho (?:\w+mente )?(?:cercato|incluso|aggiunto|semplificato|scelto|"
        r"mantenuto|preferito|organizzato|diviso|preparato|omesso|tolto|rimosso|"
        r"eliminato|riassunto|scritto|citato|tradotto)\b",
        "client": r"\b(?:i tuoi|i suoi|ai tuoi|ai suoi|con i tuoi|con i suoi) (?:studenti|"
        r"alunni|ragazzi)\b|\bper (?:studenti|alunni) d",
    },
    "pt": {
        "speaker": r"\b(?:eu|me|mim|comigo)\b|\bda minha parte\b|\b(?:posso|quero|espero|vou)\b",
        "assent": r"^(?:claro|com certeza|certamente|perfeito|ótimo|excelente|muito bem|com "
        r"prazer|boa pergunta|sem problemas?|pronto)\b",
        "request": r"\bcomo (?:você )?(?:me )?(?:pediu|solicitou)\b|\bcomo (?:me )?pediste\b|"
        r"\bconforme (?:solicitado|pedido|combinado)\b|\ba (?:seu|teu) pedido\b|"
        r"\ba pedido (?:seu|teu)\b|\bno (?:seu|teu) pedido\b|\b(?:você|tu) me "
        r"(?:\w+ )?(?:pediu|pediste|enviou|enviaste|mandou|mandaste|deu|deste)\b|\bcomo "
        r"(?:você )?(?:me )?(?:comentou|mencionou|disse|falou|indicou)\b",
        "offer": r"\b(?:fico|estou) à (?:sua |tua )?(?:inteira )?disposição\b|\bfeliz em ajudar\b|"
        r"\bse (?:quiser|preferir|desejar|precisar|for preciso)[^.!?]{0,60}\b(?:posso|"
        r"eu)\b|\b(?:me avise|avise-me|diga-me|me diga)\b|\bfique à vontade para (?:me )?"
        r"(?:pedir|perguntar)\b|\bnão hesite em\b|\bposso (?:\w+ ){0,2}(?:preparar|"
        r"adicionar|acrescentar|incluir|ampliar|fazer|escrever)\b",
        "hope": r"\bespero que\b",
        "ai": r"\bcomo (?:uma )?(?:IA|inteligência artificial|modelo de linguagem|assistente)\b|"
        r"\bsou (?:apenas )?(?:uma? )?(?:IA|inteligência artificial|modelo de linguagem)\b",
        "presentative": r"\baqui (?:está|estão|vai|tem)\b|\bsegue\b",
        "present": r"\b(?:aqui (?:está|estão|vai|tem)|segue|a seguir (?:está|apresento))\b"
        r"[^.!?]{0,40}\b(?:lição|aula|versão|material|ficha|resposta|unidade)\b",
        "edit": r"\b(?:preparei|incluí|adicionei|acrescentei|escolhi|tentei|procurei|mantive|"
        r"simplifiquei|organizei|dividi|resumi|optei|citei|retirei|removi|tirei|traduzi)\b",
        "client": r"\b(?:seus|teus) (?:alunos|estudantes)\b|\bpara (?:alunos|estudantes) d|"
        r"\bcom (?:seus|teus|os seus) (?:alunos|estudantes)\b",
    },
    "ru": {
        "speaker": r"\b(?:я|мне|меня|мной|мною)\b|\bс моей стороны\b|\b(?:могу|хочу|постараюсь)\b",
        "assent": r"^(?:конечно|разумеется|отлично|хорошо|с удовольствием|без проблем|"
        r"безусловно|прекрасно|замечательно)\b",
        "request": r"\bкак (?:вы|ты) (?:и )?(?:просили|просил[аи]?|хотели|хотел[аи]?)\b|\b(?:по|"
        r"согласно) (?:вашей|твоей) (?:просьбе|заявке)\b|\bкак (?:и )?договаривались\b|"
        r"\b(?:вы|ты) (?:мне )?(?:прислали|прислал[аи]?|отправили|дали|просили|"
        r"показали)\b|\bв (?:вашем |твоём |твоем )?(?:запросе|задании)\b|\bкак (?:вы|ты) "
        r"(?:\w+ )?(?:упомянули|упомянул[аи]?|сказали|писали|отметили)\b",
        "offer": r"\bобращайтесь(?:,| с вопросами| если)|\bбуду рад[аы]? помочь\b|\bготов[аы]? помочь\b|"
        r"\b(?:если (?:хотите|хочешь|нуж\w+|потребуется|понадобится|захотите)|при "
        r"желании|по желанию)[^.!?]{0,60}\b(?:я|могу)\b|\bдайте "
        r"(?:мне )?знать\b|\b(?:просто|только) (?:скажите|напишите)\b|\bнапишите(?:,| "
        r"мне)|\b(?:я )?(?:могу|смогу) (?:\w+ ){0,2}(?:добавить|подготовить|составить|"
        r"сделать|написать|расширить|сократить|дополнить)\b",
        "hope": r"\bнадеюсь\b",
        "ai": r"\bкак (?:языковая модель|ии|искусственный интеллект|нейросеть|ассистент)\b|"
        r"\bбудучи (?:языковой моделью|ии)\b|\bя (?:—|являюсь|всего лишь|лишь)? ?(?:языковая "
        r"модель|ии|искусственный интеллект|нейросеть)\b",
        "presentative": r"\bвот\b|\bниже\b",
        "present": r"\b(?:вот|ниже)\b[^.!?]{0,40}\b(?:урок|конспект|материал|верси\w+|"
        r"разработк\w+|ответ)\b",
        "edit": r"\bя (?:\w+о )?(?:постарал\w+|добавил\w*|упростил\w*|выбрал\w*|включил\w*|"
        r"написал\w*|разделил\w*|подготовил\w*|сократил\w*|опустил\w*|убрал\w*|"
        r"привёл|привел\w*|сохранил\w*|перевёл|перевел\w*)\b",
        "client": r"\b(?:ваших|твоих|для) (?:учеников|учащихся|школьников|студентов)\b|\bна "
        r"занятии\b|\bс (?:вашими |твоими )?(?:учениками|учащимися|школьниками)\b",
    },
    "uk": {
        "speaker": r"\b(?:я|мені|мене|мною)\b|\bз мого боку\b|\b(?:можу|хочу|постараюся)\b",
        "assent": r"^(?:звісно|звичайно|авжеж|чудово|добре|із задоволенням|з радістю|"
        r"безумовно|гаразд)\b",
        "request": r"\bяк (?:ви|ти) (?:і )?(?:просили|просив|просила|хотіли)\b|\b(?:на|за) "
        r"(?:вашим|твоїм) (?:проханням|запитом)\b|\bна ваше прохання\b|\bяк (?:і )?"
        r"домовлялися\b|\b(?:ви|ти) (?:мені )?(?:надіслали|надіслав|надіслала|"
        r"дали|просили|показали)\b|\b(?:в|у) (?:вашому |твоєму )?(?:запиті|завданні)\b|\bяк "
        r"(?:ви|ти) (?:\w+ )?(?:згадали|згадав|сказали|писали|зазначили)\b",
        "offer": r"\bзвертайтеся(?:,| з питаннями| якщо)|\bрад(?:ий|а) допомогти\b|\bготов(?:ий|а) допомогти\b|"
        r"\b(?:якщо (?:хочете|хочеш|потрібн\w*|треба|знадобиться|бажаєте)|за "
        r"бажання|на бажання)[^.!?]{0,60}\b(?:я|можу)\b|\bдайте "
        r"(?:мені )?знати\b|\b(?:лише|просто|тільки) (?:скажіть|напишіть)\b|"
        r"\bнапишіть(?:,| мені)|\b(?:я )?(?:можу|зможу) (?:\w+ ){0,2}(?:додати|"
        r"підготувати|скласти|зробити|написати|розширити|скоротити|доповнити)\b",
        "hope": r"\bсподіваюс[яь]\b",
        "ai": r"\bяк (?:мовна модель|ші|штучний інтелект|нейромережа|асистент)\b|\bя "
        r"(?:—|є|лише|всього лише)? ?(?:мовна модель|ші|штучний інтелект|нейромережа)\b",
        "presentative": r"\bось\b|\bнижче\b",
        "present": r"\b(?:ось|нижче)\b[^.!?]{0,40}\b(?:урок|конспект|матеріал|версі\w+|"
        r"розробк\w+|відповідь)\b",
        "edit": r"\bя (?:\w+о )?(?:постарав\w*|намагав\w*|додав\w*|спростив\w*|обрав\w*|"
        r"вибрав\w*|включив\w*|написав\w*|розділив\w*|підготував\w*|скоротив\w*|"
        r"прибрав\w*|залишив\w*|зберіг|зберегла|переклав\w*)\b",
        "client": r"\b(?:ваших|твоїх|для) (?:учнів|учениць|школярів|студентів)\b|\bз "
        r"(?:вашими |твоїми )?(?:учнями|ученицями|школярами)\b",
    },
    "zh": {
        "speaker": r"我(?!们)",
        "assent": r"^(?:当然|好的|没问题|可以的|很高兴|非常乐意)",
        "request": r"(?:按照|根据|应)(?:你|您)的(?:要求|需求)|如(?:你|您)所(?:要求|需)|"
        r"(?:你|您)(?:发给|给|要求)我|(?:你|您)的(?:请求|要求)",
        "offer": r"随时(?:为你|为您)?(?:服务|效劳)|乐意(?:为你|为您)?(?:帮忙|效劳)|"
        r"如果(?:你|您)(?:还)?(?:需要|想要|希望)[^。！？]{0,30}我|(?:如有需要|如需)"
        r"[^。！？]{0,30}我|请(?:随时)?告诉我|欢迎(?:随时|继续)?(?:提问|告诉我)|"
        r"我(?:还)?可以(?:再|为(?:你|您)|帮(?:你|您))",
        "hope": r"希望(?:这|本|以上)[^。！？]{0,15}(?:帮助|有用)",
        "ai": r"作为(?:一个|一名)?(?:AI|人工智能|语言模型|AI助手|智能助手)|我(?:只)?是(?:一个)?(?:AI|人工智能|"
        r"语言模型|AI助手)",
        "presentative": r"以下是|下面是|这是",
        "present": r"(?:以下是|下面是|这是)[^。！？]{0,15}(?:课|讲义|教案|课程|教学内容|说明|讲解)",
        "edit": r"我(?:已经|特意|尽量|有意)?(?:添加|加入|简化|选择|保留|整理|删去|删除|省略|准备|翻译)了",
        "client": r"(?:你|您)的(?:学生|课堂|班级|课上)|(?:和|与)学生们?(?:一起)?的?课",
    },
    "ja": {
        "speaker": r"私|わたし|僕",
        "assent": r"^(?:もちろん|かしこまりました|承知しました|了解しました|喜んで)",
        "request": r"ご(?:要望|依頼|指定|指示)[^。！？]{0,8}(?:に|の|どおり|とおり|通り)|お求めの|"
        r"(?:いただいた|頂いた)(?:ご依頼|資料|原稿)",
        "offer": r"いつでも(?:お|ご)?(?:声|相談)|お手伝い(?:します|いたします)|"
        r"(?:必要であれば|必要なら|ご希望があれば|ご希望でしたら)[^。！？]{0,30}(?:ます|ください)|"
        r"お気軽に|お知らせください|お申し付けください",
        "hope": r"(?:お役に立てれば|参考になれば)|幸いです",
        "ai": r"(?:AI|人工知能|言語モデル|AIアシスタント)として|私は(?:AI|人工知能|言語モデル)",
        "presentative": r"以下は|こちらが|こちらは",
        "present": r"(?:以下は|こちらは|こちらが)[^。！？]{0,15}(?:レッスン|教材|授業|解説|説明)",
        "edit": r"(?:追加|簡略化|省略|整理|削除)しました",
        "client": r"(?:生徒|学生)さん(?:たち)?(?:に|の|向け)",
    },
    "ar": {
        "speaker": r"(?:^|\s)(?:أنا|لي|نفسي)(?=\s|$)|(?:^|\s)(?:يمكنني|أستطيع|حاولت|أضفت|اخترت)(?=\s|$)",
        "assent": r"^(?:بالتأكيد|بكل سرور|طبعا|طبعًا|حسنا|حسنًا|بالطبع)",
        "request": r"كما (?:طلبت|طلبتم|ذكرت)|(?:حسب|بناء على) طلبك",
        "offer": r"لا تتردد|أخبرني|إذا (?:أردت|كنت ترغب)[^.!?؟]{0,60}(?:يمكنني|أستطيع)",
        "hope": r"آمل أن|أتمنى أن",
        "ai": r"(?:كنموذج|بصفتي نموذج|بصفتي) (?:لغوي|ذكاء اصطناعي)|كذكاء اصطناعي",
        "presentative": r"إليك|فيما يلي",
        "present": r"(?:إليك|إليكم|فيما يلي)[^.!?؟]{0,40}(?:الدرس|درس|شرح)",
        "edit": r"(?:قمت ب|لقد )(?:إضافة|تبسيط|اختيار|حذف|أضفت|بسطت)",
        "client": r"(?:طلابك|تلاميذك)",
    },
}
