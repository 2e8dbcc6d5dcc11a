"""What a tutor turn does once that it need not do on every turn, counted (bench/tutor.py
measures the time; these say the work is gone)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from core import degenerate
from core.degenerate import RepeatWatch, repeated_sentence
from tests.flows.tutor.scripted import TutorScript, Writes


def record_schemas(t: Any) -> list[type]:
    """The answer classes the turns hand to the model client, in order."""
    given: list[type] = []
    structured = t.services.llm.structured

    async def recording(messages, schema, **kwargs):
        given.append(schema)
        return await structured(messages, schema, **kwargs)

    t.services.llm.structured = recording
    return given


async def test_the_evaluators_answer_class_is_built_once_not_every_turn(tutor) -> None:
    """A pydantic class was built for every learner's answer (its check reads the answer):
    about 1 ms of every turn. One class now, and each turn's check still reads its own answer."""

    class Parrot(TutorScript):
        """Hands the learner's answer back from the third answer on."""

        answered = 0

        def evaluate(self):
            self.answered += 1
            answer = super().evaluate()
            if self.answered >= 3:  # and every re-ask of it
                answer |= {"feedback": "la fracción de arriba"}
            return answer

    async with tutor(Parrot(["partial"] * 8), correct_to_complete=10) as t:
        given = record_schemas(t)
        await t.turn()
        for text in ("un medio", "dos cuartos", "la fracción de arriba, creo"):
            await t.turn(text)
        evaluators = [s for s in given if s.__name__ == "EvaluatorAnswer"]
        assert len(evaluators) == 3
        assert len(set(evaluators)) == 1
        values = await t.values()
        assert "not_evaluated" in values["last_evaluation"]  # the third, handed back: refused
        asked_again = [c for c in t.backend.calls if "repeats the learner's answer" in str(c)]
        assert asked_again  # the re-ask named the problem the check found in the third answer


STREAMED = [
    # a teacher's message: no sentence said twice
    "Una fracción representa partes iguales de un todo, como las porciones de una pizza. "
    "Si cortas la pizza en cuatro partes y tomas una, tienes un cuarto.\n\n"
    "¿Qué fracción es mayor, 1/2 o 1/4? 🍕",
    # a loop, the second time said with other case and accents
    "Una fracción es una parte de un todo. una fraccion es una parte de un todo. Y más.",
    # a loop across a blank line, in Russian, ending without a full stop
    "Дробь — это часть целого.\n\nДробь — это часть целого",
    # Chinese sentence ends, an ellipsis, short sentences said twice (not loops: < 3 words)
    "分数是整体的一部分。 Sí. Sí. Wait… the whole is cut in parts. The whole is cut in parts!",
    # a sentence said again later, not in a row, with runs of spaces and newlines
    "Look at the top number.  The bottom one counts the parts.\nLook at the top   number.",
]


@pytest.mark.parametrize("text", STREAMED)
@pytest.mark.parametrize("size", [1, 4, 7])
def test_watching_a_stream_for_a_loop_finds_what_the_whole_text_check_finds(
    text: str, size: int
) -> None:
    """The same finding at the same token as `repeated_sentence` on everything streamed so far."""
    watch, shown = RepeatWatch(), ""
    for start in range(0, len(text), size):
        piece = text[start : start + size]
        shown += piece
        assert watch.feed(piece) == repeated_sentence(shown, times=2), repr(shown)


async def test_streaming_a_long_message_folds_each_sentence_about_once(tutor, monkeypatch) -> None:
    """The loop check folded everything streamed so far on every token: 40 ms of the event
    loop for a 750-character message in 4-character tokens, growing with its square."""
    sentence = "La pizza {} se corta en partes iguales para compartirla entre amigos."
    message = " ".join(sentence.format(n) for n in range(12)) + "\nHint: cuenta las porciones"
    folded: list[int] = []
    real_fold = degenerate.fold

    def counted(text: str) -> str:
        folded.append(len(text))
        return real_fold(text)

    monkeypatch.setattr(degenerate, "fold", counted)
    async with tutor(Writes(message)) as t:
        events = await t.turn()  # the plan's checks, then the message streamed
    assert t.tokens(events).strip() == message.split("\nHint")[0]
    assert sum(folded) < 15 * len(message)  # the whole text again on every token: ~100 x


async def test_a_turn_wakes_the_event_loop_from_other_threads_a_few_times(tutor) -> None:
    """The checkpoints were written through aiosqlite: three to four hops to its thread for
    each of a turn's checkpoints and writes (statement, cursor, commit), about 30 wake-ups of
    the event loop and hand-overs of the GIL a turn. One hop a write now, the same rows."""
    async with tutor(TutorScript(["partial"] * 6), correct_to_complete=10) as t:
        await t.turn()
        await t.turn("un medio")
        loop = asyncio.get_running_loop()
        woken: list[str] = []
        real = loop.call_soon_threadsafe

        def counted(callback, *args, **kwargs):
            woken.append(getattr(callback, "__qualname__", repr(callback)))
            return real(callback, *args, **kwargs)

        loop.call_soon_threadsafe = counted
        try:
            for text in ("dos cuartos", "la de arriba"):
                await t.turn(text)
        finally:
            del loop.call_soon_threadsafe
        # (LangGraph hands each streamed token to its stream this way too, from the loop)
        from_threads = [name for name in woken if name != "Queue.put_nowait"]
        assert len(from_threads) <= 2 * 12, Counter(from_threads)  # was 2 * 37
        said = [m["content"] for m in (await t.values())["conversation"] if m["role"] == "student"]
        assert said[-2:] == ["dos cuartos", "la de arriba"]


async def test_a_turns_context_is_built_on_the_loop(tutor, monkeypatch) -> None:
    """Every turn built its context in a thread, for the note language read from the vault
    once per process: a thread hop (and, on a busy machine, a wait for a core) per turn. The
    tutor writes no note in the vault's language, so not even its first turn hops."""
    import core.runtime

    hops: list[str] = []
    to_thread = asyncio.to_thread

    async def counted(call, *args, **kwargs):
        hops.append(getattr(call, "__name__", repr(call)))
        return await to_thread(call, *args, **kwargs)

    async with tutor(TutorScript(["partial"] * 4), correct_to_complete=10) as t:
        build = t.services.runtime._context_factory
        monkeypatch.setattr(core.runtime.asyncio, "to_thread", counted)
        await t.turn()
        for text in ("un medio", "dos cuartos", "Дробь 🍕"):
            await t.turn(text)
        assert hops.count(build.__name__) == 0, hops
        said = [m["content"] for m in (await t.values())["conversation"] if m["role"] == "student"]
        assert said == ["un medio", "dos cuartos", "Дробь 🍕"]


async def test_a_session_never_pays_for_the_vaults_note_language(tutor, monkeypatch) -> None:
    """The first run of a process detected the vault's note language (lingua over its notes:
    1.4-1.6 s before the first model call of bench/local_model.py's first workflow) though
    only extraction and lessons write notes in it; the tutor talks in the learner's."""
    import core.note_language

    detected: list[object] = []
    monkeypatch.setattr(core.note_language, "vault_language", lambda *a: detected.append(a))
    async with tutor(TutorScript(["right"])) as t:
        await t.turn()
        await t.turn("un medio")
        assert not detected
        assert t.services.context("not-a-run").settings.flows.lesson.language  # others do
        assert detected


async def test_a_turn_does_not_read_its_runs_flow_again(tutor, monkeypatch) -> None:
    """Whether a run needs the note language was read from the runs table twice a turn (the
    runtime, then the context factory); a run's flow never changes."""
    async with tutor(TutorScript(["right", "right"])) as t:
        await t.turn()
        runs = t.services.runtime.runs
        reads: list[str] = []
        real = runs.get
        monkeypatch.setattr(runs, "get", lambda run_id: reads.append(run_id) or real(run_id))
        t.services.context(t.session_id)
        t.services.context(t.session_id)
        assert reads == []  # known since the first turn
