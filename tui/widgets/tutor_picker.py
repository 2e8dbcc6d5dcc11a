"""Pick what to learn: subject -> topic -> subtopic from the curriculum, or any concept note
(found by typing: `ConceptSearch`)."""

from __future__ import annotations

from typing import Unpack

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Label, Select

from core.curriculum import ConceptRef, Lesson, subjects, subtopics, topics
from tui.widgets.concept_search import ConceptSearch
from tui.widgets.options import WidgetOptions


class LessonPicker(Vertical):
    """Selects for the curriculum and for concepts; posts `Chosen` when the learner starts."""

    DEFAULT_CSS = """
    LessonPicker { height: auto; border: round $accent; padding: 0 1; }
    LessonPicker Horizontal { height: auto; }
    LessonPicker Select { width: 1fr; }
    LessonPicker Button { margin: 0 1; }
    LessonPicker ConceptSearch { width: 1fr; }
    LessonPicker Label.section { margin: 1 1 0 0; }
    """

    class Chosen(Message):
        """The learner chose a subtopic (`lesson`) or a concept (`concept_id`)."""

        def __init__(self, lesson: Lesson | None = None, concept_id: str = "") -> None:
            super().__init__()
            self.lesson = lesson
            self.concept_id = concept_id

    def __init__(self, **kwargs: Unpack[WidgetOptions]) -> None:
        super().__init__(**kwargs)
        self.border_title = "What would you like to learn?"
        self.lessons: list[Lesson] = []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Select([], prompt="Subject", id="subject")
            yield Select([], prompt="Topic", id="topic")
            yield Select([], prompt="Subtopic", id="subtopic")
            yield Button("Start", id="start", variant="primary")
        with Horizontal():
            yield Label("or a concept note:", classes="section")
            yield ConceptSearch(id="concept")

    def load(self, lessons: list[Lesson], concepts: list[ConceptRef]) -> None:
        """Fill the pickers (subject first; topics follow the chosen subject)."""
        self.lessons = lessons
        self.query_one("#subject", Select).set_options([(s, s) for s in subjects(lessons)])
        self.query_one(ConceptSearch).load(concepts)

    @on(Select.Changed, "#subject")
    def _subject(self, event: Select.Changed) -> None:
        names = topics(self.lessons, event.value) if isinstance(event.value, str) else []
        self.query_one("#topic", Select).set_options([(t, t) for t in names])
        self.query_one("#subtopic", Select).set_options([])

    @on(Select.Changed, "#topic")
    def _topic(self, event: Select.Changed) -> None:
        subject = self.query_one("#subject", Select).value
        if not isinstance(subject, str) or not isinstance(event.value, str):
            return
        options = subtopics(self.lessons, subject, event.value)
        self.query_one("#subtopic", Select).set_options(
            [(x.title, i) for i, x in enumerate(self.lessons) if x in options]
        )

    @on(Button.Pressed, "#start")
    def _start(self) -> None:
        chosen = self.query_one("#subtopic", Select).value
        if isinstance(chosen, int):
            self.post_message(self.Chosen(lesson=self.lessons[chosen]))
        else:
            self.app.notify("choose a subject, a topic and a subtopic first", severity="warning")

    @on(ConceptSearch.Chosen)
    def _start_concept(self, message: ConceptSearch.Chosen) -> None:
        message.stop()
        self.post_message(self.Chosen(concept_id=message.concept.id))
