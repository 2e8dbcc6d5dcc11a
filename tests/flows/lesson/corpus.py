"""A labeled corpus of lessons: clean ones in eight languages, and copies with planted defects.

Clean lessons mix prose with code blocks, inline code and Latin technical terms (API, React,
JSON) — what must pass. Defects are planted one kind at a time so recall is per kind.
Used by the heuristic tests and by `bench/lesson_review.py`.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

PARAGRAPHS: dict[str, list[str]] = {
    "en": [
        "Recursion solves a problem by reducing it to a smaller instance of the same problem. Every recursive function needs a base case that stops the descent, otherwise the call stack grows until Python raises a `RecursionError`. Thinking in terms of the smallest input first usually reveals that base case quickly.",
        "An HTTP API exposes resources through URLs and verbs. A client sends a GET request to read a resource and a POST request to create one, and the server answers with a status code and usually a JSON body. Good APIs keep their URLs stable and document every field they return.",
        "Version control with Git records the history of a project as a chain of commits. Each commit stores a snapshot of the files together with a message that explains why the change was made. Branches let you try an idea without disturbing the main line of work.",
        "A React component is a function that returns a description of the interface. When its state changes through `useState`, React renders the component again and updates only the parts of the DOM that differ. Keeping components small makes this process easy to follow and to test.",
        "Unit tests check one small piece of behaviour at a time. A good test arranges its inputs, performs a single action and asserts the expected result, so that a failure points straight at the broken code. Running the whole suite before every commit catches regressions early.",
        "A database index works like the index at the back of a book. Instead of scanning every row, the engine follows a sorted structure such as a B-tree to the matching records. Indexes speed up reads considerably, but every insert and update must maintain them as well.",
    ],
    "es": [
        "La recursión resuelve un problema reduciéndolo a una instancia más pequeña del mismo problema. Toda función recursiva necesita un caso base que detenga el descenso; de lo contrario, la pila de llamadas crece hasta que Python lanza un `RecursionError`. Pensar primero en la entrada más pequeña suele revelar ese caso base.",
        "Una API HTTP expone recursos mediante direcciones y verbos. El cliente envía una petición GET para leer un recurso y una petición POST para crearlo, y el servidor responde con un código de estado y normalmente un cuerpo en JSON. Las buenas interfaces mantienen sus direcciones estables y documentan cada campo.",
        "El control de versiones con Git registra la historia de un proyecto como una cadena de commits. Cada commit guarda una instantánea de los archivos junto con un mensaje que explica por qué se hizo el cambio. Las ramas permiten probar una idea sin alterar la línea principal de trabajo.",
        "Un componente de React es una función que devuelve una descripción de la interfaz. Cuando su estado cambia mediante `useState`, React vuelve a dibujar el componente y actualiza solo las partes del DOM que son distintas. Mantener los componentes pequeños hace que este proceso sea fácil de seguir.",
        "Las pruebas unitarias comprueban un pequeño comportamiento cada vez. Una buena prueba prepara sus datos, realiza una sola acción y verifica el resultado esperado, de modo que un fallo señala directamente el código roto. Ejecutar todas las pruebas antes de cada commit detecta los errores pronto.",
        "Un índice de base de datos funciona como el índice al final de un libro. En lugar de recorrer todas las filas, el motor sigue una estructura ordenada, como un árbol B, hasta los registros buscados. Los índices aceleran mucho las lecturas, pero cada inserción debe mantenerlos también.",
    ],
    "de": [
        "Rekursion löst ein Problem, indem sie es auf eine kleinere Instanz desselben Problems zurückführt. Jede rekursive Funktion braucht einen Basisfall, der den Abstieg beendet, sonst wächst der Aufrufstapel, bis Python einen `RecursionError` auslöst. Wer zuerst an die kleinste Eingabe denkt, findet diesen Basisfall meist schnell.",
        "Eine HTTP-API stellt Ressourcen über Adressen und Verben bereit. Ein Client sendet eine GET-Anfrage, um eine Ressource zu lesen, und eine POST-Anfrage, um eine neue anzulegen. Der Server antwortet mit einem Statuscode und meistens mit einem JSON-Dokument, dessen Felder gut dokumentiert sein sollten.",
        "Versionsverwaltung mit Git speichert die Geschichte eines Projekts als Kette von Commits. Jeder Commit enthält einen Schnappschuss der Dateien und eine Nachricht, die erklärt, warum die Änderung nötig war. Mit Zweigen kann man eine Idee ausprobieren, ohne die Hauptlinie der Arbeit zu stören.",
        "Eine React-Komponente ist eine Funktion, die eine Beschreibung der Oberfläche zurückgibt. Wenn sich ihr Zustand über `useState` ändert, zeichnet React die Komponente neu und aktualisiert nur die Teile des DOM, die sich unterscheiden. Kleine Komponenten machen diesen Vorgang leicht verständlich.",
        "Unit-Tests prüfen jeweils ein kleines Stück Verhalten. Ein guter Test bereitet seine Eingaben vor, führt eine einzige Aktion aus und prüft das erwartete Ergebnis, sodass ein Fehlschlag direkt auf den fehlerhaften Code zeigt. Wer alle Tests vor jedem Commit ausführt, entdeckt Fehler früh.",
        "Ein Datenbankindex funktioniert wie das Register am Ende eines Buches. Statt jede Zeile zu durchsuchen, folgt die Datenbank einer sortierten Struktur wie einem B-Baum bis zu den passenden Einträgen. Indizes beschleunigen das Lesen erheblich, müssen aber bei jedem Einfügen mitgepflegt werden.",
    ],
    "fr": [
        "La récursivité résout un problème en le ramenant à une instance plus petite du même problème. Toute fonction récursive a besoin d'un cas de base qui arrête la descente ; sinon la pile d'appels grandit jusqu'à ce que Python lève une `RecursionError`. Penser d'abord à la plus petite entrée révèle souvent ce cas de base.",
        "Une API HTTP expose des ressources à travers des adresses et des verbes. Le client envoie une requête GET pour lire une ressource et une requête POST pour en créer une, puis le serveur répond avec un code d'état et le plus souvent un corps JSON. Une bonne interface garde des adresses stables.",
        "Le contrôle de version avec Git enregistre l'histoire d'un projet sous la forme d'une chaîne de commits. Chaque commit conserve un instantané des fichiers avec un message qui explique pourquoi le changement a été fait. Les branches permettent d'essayer une idée sans perturber la ligne principale du travail.",
        "Un composant React est une fonction qui renvoie une description de l'interface. Lorsque son état change grâce à `useState`, React affiche de nouveau le composant et ne met à jour que les parties du DOM qui diffèrent. Garder des composants petits rend ce processus facile à suivre et à tester.",
        "Les tests unitaires vérifient un petit comportement à la fois. Un bon test prépare ses données, effectue une seule action et vérifie le résultat attendu, de sorte qu'un échec désigne directement le code fautif. Lancer toute la suite avant chaque commit permet de détecter les régressions très tôt.",
        "Un index de base de données fonctionne comme l'index à la fin d'un livre. Au lieu de parcourir chaque ligne, le moteur suit une structure triée, comme un arbre B, jusqu'aux enregistrements recherchés. Les index accélèrent beaucoup les lectures, mais chaque insertion doit aussi les mettre à jour.",
    ],
    "ru": [
        "Рекурсия решает задачу, сводя её к меньшему экземпляру той же задачи. Каждой рекурсивной функции нужен базовый случай, который останавливает спуск, иначе стек вызовов растёт, пока Python не выбросит `RecursionError`. Если сначала подумать о самом маленьком входе, базовый случай обычно становится очевидным.",
        "HTTP API открывает доступ к ресурсам через адреса и методы. Клиент отправляет запрос GET, чтобы прочитать ресурс, и запрос POST, чтобы создать новый, а сервер отвечает кодом состояния и обычно телом в формате JSON. Хороший интерфейс сохраняет адреса стабильными и документирует каждое поле.",
        "Система контроля версий Git хранит историю проекта как цепочку коммитов. Каждый коммит содержит снимок файлов и сообщение, которое объясняет, зачем было сделано изменение. Ветки позволяют проверить идею, не нарушая основную линию работы, а затем аккуратно слить изменения обратно.",
        "Компонент React — это функция, которая возвращает описание интерфейса. Когда его состояние меняется через `useState`, React заново отрисовывает компонент и обновляет только те части DOM, которые отличаются. Небольшие компоненты делают этот процесс понятным и упрощают их тестирование.",
        "Модульные тесты проверяют одно небольшое поведение за раз. Хороший тест подготавливает данные, выполняет одно действие и проверяет ожидаемый результат, поэтому сбой сразу указывает на сломанный код. Запуск всех тестов перед каждым коммитом помогает рано находить регрессии и ошибки.",
        "Индекс базы данных работает как предметный указатель в конце книги. Вместо того чтобы просматривать каждую строку, движок идёт по упорядоченной структуре, например по B-дереву, прямо к нужным записям. Индексы заметно ускоряют чтение, но каждая вставка должна их поддерживать.",
    ],
    "zh": [
        "递归通过把问题化简为同一问题的更小实例来解决它。每个递归函数都需要一个终止条件来结束下降过程，否则调用栈会不断增长，直到 Python 抛出 `RecursionError`。先思考最小的输入，通常就能很快找到这个终止条件，并且让整个函数的逻辑变得清楚。",
        "HTTP API 通过地址和方法来公开资源。客户端发送 GET 请求来读取资源，发送 POST 请求来创建新的资源，服务器则返回状态码，通常还会返回 JSON 格式的内容。好的接口会保持地址稳定，并且为返回的每一个字段都写清楚说明文档。",
        "使用 Git 进行版本控制时，项目的历史被记录为一串提交。每次提交都保存文件的快照，以及一条说明为什么要做这次修改的信息。分支让你可以尝试新的想法，而不会打扰主线上的工作，完成之后再把修改合并回来。",
        "React 组件是一个返回界面描述的函数。当它的状态通过 `useState` 发生变化时，React 会重新渲染这个组件，并且只更新 DOM 中真正不同的部分。让组件保持小巧，可以使这个过程更容易理解，也更容易为它编写测试。",
        "单元测试一次只检查一小段行为。一个好的测试会准备输入数据，执行一个动作，然后断言预期的结果，这样一旦失败就能直接指向出错的代码。在每次提交之前运行全部测试，可以尽早发现回归问题，保持代码库的稳定。",
        "数据库索引就像书末尾的索引一样工作。数据库引擎不必扫描每一行，而是沿着一种有序的结构，比如 B 树，直接找到匹配的记录。索引能够大大加快读取速度，但是每一次插入和更新也都必须同时维护这些索引结构。",
    ],
    "ja": [
        "再帰は、問題を同じ問題のより小さなインスタンスに還元することで解決します。すべての再帰関数には下降を止める基底ケースが必要で、それがないと呼び出しスタックが伸び続け、Python は `RecursionError` を送出します。まず最小の入力を考えると、基底ケースはたいていすぐに見つかります。",
        "HTTP API はアドレスとメソッドを通じてリソースを公開します。クライアントはリソースを読むために GET リクエストを送り、新しいリソースを作るために POST リクエストを送ります。サーバーはステータスコードと、多くの場合 JSON 形式の本文で応答します。良いインターフェースはアドレスを安定させます。",
        "Git によるバージョン管理は、プロジェクトの履歴をコミットの連なりとして記録します。各コミットはファイルのスナップショットと、なぜその変更を行ったのかを説明するメッセージを保存します。ブランチを使うと、メインの作業を乱さずに新しいアイデアを試すことができます。",
        "React のコンポーネントは、画面の説明を返す関数です。`useState` によって状態が変わると、React はコンポーネントを再び描画し、DOM のうち異なる部分だけを更新します。コンポーネントを小さく保つと、この流れが理解しやすくなり、テストも書きやすくなります。",
        "ユニットテストは一度に小さな振る舞いを一つだけ確認します。良いテストは入力を準備し、一つの操作を実行し、期待される結果を検証するので、失敗するとすぐに壊れたコードを指し示します。コミットの前にすべてのテストを実行すると、問題を早く見つけられます。",
        "データベースのインデックスは、本の巻末にある索引のように働きます。エンジンはすべての行を調べる代わりに、B ツリーのような整列された構造をたどって、目的のレコードに直接たどり着きます。インデックスは読み取りを大きく速くしますが、挿入のたびに更新が必要です。",
    ],
    "ar": [
        "تحل العودية المشكلة عن طريق اختزالها إلى نسخة أصغر من المشكلة نفسها. تحتاج كل دالة عودية إلى حالة أساسية توقف النزول، وإلا فإن مكدس الاستدعاءات يكبر حتى يرفع Python الخطأ `RecursionError`. التفكير أولاً في أصغر مدخل ممكن يكشف هذه الحالة الأساسية بسرعة في أغلب الأحيان.",
        "تعرض واجهة HTTP API الموارد من خلال العناوين والأفعال. يرسل العميل طلب GET لقراءة مورد وطلب POST لإنشاء مورد جديد، ويرد الخادم برمز حالة ومحتوى بصيغة JSON في أغلب الأحيان. الواجهة الجيدة تحافظ على ثبات عناوينها وتوثق كل حقل تعيده بوضوح.",
        "يسجل نظام التحكم في الإصدارات Git تاريخ المشروع على شكل سلسلة من الإيداعات. يحفظ كل إيداع لقطة من الملفات مع رسالة تشرح سبب إجراء التغيير. تسمح الفروع بتجربة فكرة جديدة دون الإخلال بالخط الرئيسي للعمل، ثم دمج التغييرات لاحقاً بعد مراجعتها.",
        "مكوّن React هو دالة تعيد وصفاً للواجهة. عندما تتغير حالته عبر `useState` يعيد React رسم المكوّن ويحدّث فقط أجزاء DOM المختلفة. إبقاء المكوّنات صغيرة يجعل هذه العملية سهلة الفهم والمتابعة، كما يسهّل كتابة الاختبارات لكل جزء منها على حدة.",
        "تتحقق اختبارات الوحدة من سلوك صغير واحد في كل مرة. يجهز الاختبار الجيد مدخلاته وينفذ إجراءً واحداً ثم يتأكد من النتيجة المتوقعة، بحيث يشير الفشل مباشرة إلى الشيفرة المعطلة. تشغيل جميع الاختبارات قبل كل إيداع يكشف الأخطاء في وقت مبكر جداً.",
        "يعمل فهرس قاعدة البيانات مثل الفهرس في نهاية الكتاب. بدلاً من فحص كل صف، يتبع المحرك بنية مرتبة مثل شجرة B حتى يصل إلى السجلات المطلوبة مباشرة. تسرّع الفهارس عمليات القراءة كثيراً، لكن يجب تحديثها مع كل عملية إدراج أو تعديل للبيانات.",
    ],
}

HARD: dict[str, list[str]] = {
    "en": [
        "Big-O notation describes how running time grows with input, e.g. O(n) for a linear scan and O(log n) for binary search. Constants are dropped, i.e. O(2n) is written O(n), and nested loops cost O(n²).",
    ],
    "es": [
        'En *Atomic Habits*, James Clear propone que los hábitos son el interés compuesto de la mejora personal. Según el libro, "you do not rise to the level of your goals", es decir, caemos al nivel de nuestros sistemas.',
        "Usa un *habit tracker* sencillo o un *framework* de estudio: marca cada día con `git commit` o con tarjetas de Anki y no rompas la cadena.",
    ],
    "de": [
        "Quicksort braucht im Durchschnitt O(n log n) Vergleiche, im schlechtesten Fall aber O(n²). Viele Bibliotheken nutzen deshalb Timsort, wie Python mit `sorted()`, oder ein Machine-Learning-Framework wie PyTorch.",
    ],
    "fr": [
        "Le machine learning permet d'apprendre des modèles à partir des données ; un framework comme PyTorch ou TensorFlow fournit les briques de base, du tenseur à la descente de gradient, avec une API en Python.",
    ],
    "ru": [
        "Single Page Application (SPA) загружает одну страницу и обновляет её через JavaScript. Фреймворки React, Vue и Angular упрощают эту работу, а сервер отдаёт данные через REST API или GraphQL.",
    ],
    "zh": [
        "在 Visual Studio Code 中安装 GitHub Copilot 插件后，编辑器会根据上下文给出代码建议，但你仍然需要理解每一行代码的含义。"
    ],
    "ja": [
        "Visual Studio Code に GitHub Copilot を入れると、エディタが文脈からコードを提案しますが、各行の意味は自分で理解する必要があります。"
    ],
    "ar": [
        "بعد تثبيت إضافة GitHub Copilot في Visual Studio Code يقترح المحرر شيفرة حسب السياق، لكن عليك أن تفهم معنى كل سطر بنفسك."
    ],
}
"""Harder clean prose: quoted English, anglicisms, math notation, product names."""

TITLES = {
    "en": (
        "Programming foundations",
        ["Introduction", "Core idea", "Worked example", "Practice", "Summary"],
    ),
    "es": (
        "Fundamentos de programación",
        ["Introducción", "Idea central", "Ejemplo resuelto", "Práctica", "Resumen"],
    ),
    "de": (
        "Grundlagen der Programmierung",
        ["Einführung", "Kernidee", "Beispiel", "Übung", "Zusammenfassung"],
    ),
    "fr": (
        "Bases de la programmation",
        ["Introduction", "Idée centrale", "Exemple", "Pratique", "Résumé"],
    ),
    "ru": ("Основы программирования", ["Введение", "Главная идея", "Пример", "Практика", "Итоги"]),
    "zh": ("编程基础", ["简介", "核心思想", "示例", "练习", "总结"]),
    "ja": ("プログラミングの基礎", ["はじめに", "中心となる考え", "例題", "練習", "まとめ"]),
    "ar": ("أساسيات البرمجة", ["مقدمة", "الفكرة الأساسية", "مثال محلول", "تمرين", "خلاصة"]),
}
LISTS = {
    "en": [
        "Read the error message first.",
        "Reproduce the bug with a test.",
        "Fix the smallest thing.",
    ],
    "es": [
        "Lee primero el mensaje de error.",
        "Reproduce el fallo con una prueba.",
        "Corrige lo más pequeño.",
    ],
    "de": [
        "Lies zuerst die Fehlermeldung.",
        "Reproduziere den Fehler mit einem Test.",
        "Behebe das Kleinste.",
    ],
    "fr": [
        "Lis d'abord le message d'erreur.",
        "Reproduis le bug avec un test.",
        "Corrige le plus petit point.",
    ],
    "ru": [
        "Сначала прочитайте сообщение об ошибке.",
        "Воспроизведите ошибку тестом.",
        "Исправьте самое малое.",
    ],
    "zh": ["先阅读错误信息。", "用测试重现这个问题。", "修复最小的部分。"],
    "ja": [
        "まずエラーメッセージを読みます。",
        "テストでバグを再現します。",
        "最小の部分を直します。",
    ],
    "ar": ["اقرأ رسالة الخطأ أولاً.", "أعد إنتاج الخطأ باختبار.", "أصلح أصغر جزء."],
}
CODE = [
    "```python\ndef factorial(n: int) -> int:\n    # base case first\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)\n```",
    "```js\nconst [count, setCount] = useState(0);\n// TODO in code is fine: render on click\nfetch('/api/items').then((r) => r.json());\n```",
    '```bash\ngit checkout -b feature/login\ngit commit -m "Add login form"\n```',
]
LANGUAGES = list(PARAGRAPHS)
DEFECTS = ("language_mixing", "truncation", "short_section", "artifact", "placeholder")
DETECTING_CHECK = {
    "language_mixing": "language_consistency",
    "truncation": "content_truncation",
    "short_section": "min_section_length",
    "artifact": "chatbot_artifacts",
    "placeholder": "placeholders",
}
"""The check that must fire for each planted defect."""


@dataclass
class Sample:
    """One lesson of the corpus and its label."""

    language: str
    body: str
    defect: str | None
    """None for a clean lesson, else one of DEFECTS."""
    detail: str = ""


def clean_lesson(language: str, rng: random.Random, sections: int = 3) -> str:
    """A clean lesson: each section two paragraphs, with a code block or a list between."""
    title, names = TITLES[language]
    paragraphs = PARAGRAPHS[language]
    parts = [f"# {title}"]
    pairs = list(itertools.permutations(range(len(paragraphs)), 2))
    for n in range(sections):
        first, second = rng.choice(pairs)
        parts.append(f"## {names[n % len(names)]}")
        parts.append(paragraphs[first])
        if rng.random() < 0.5:
            parts.append(rng.choice(CODE))
        else:
            parts.append("\n".join(f"- {item}" for item in LISTS[language]))
        parts.append(paragraphs[second])
        if rng.random() < 0.35:
            parts.append(rng.choice(HARD[language]))
    return "\n\n".join(parts) + "\n"


def build_corpus(per_language: int = 25, seed: int = 7) -> list[Sample]:
    """`per_language` clean lessons per language, and one copy per defect kind of each."""
    from tests.flows.lesson.corpus_defects import plant

    rng = random.Random(seed)
    samples: list[Sample] = []
    for language in LANGUAGES:
        for _ in range(per_language):
            body = clean_lesson(language, rng, sections=rng.choice((2, 3, 4)))
            samples.append(Sample(language, body, None))
            for defect in DEFECTS:
                planted, detail = plant(defect, body, language, rng)
                samples.append(Sample(language, planted, defect, detail))
    return samples
