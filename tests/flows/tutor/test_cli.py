"""`noema tutor`: the terminal chat (scripted input), sessions and logs commands."""

from __future__ import annotations

import argparse
import io
import re
import shutil
from pathlib import Path

import pytest

from core.flows.tutor.graph import SPEC
from core.flows.tutor.sessions import list_sessions
from core.services import open_services
from core.settings import Settings
from local_llm.testing import ScriptedBackend
from tests.flows.tutor.scripted import TutorScript
from tui.cli import build_parser
from tui.commands import tutor as cli

SAMPLE = Path(__file__).resolve().parents[3] / "tui" / "sample_vault"


def scripted_input(lines: list[str]):
    queue = list(lines)

    async def read(prompt: str) -> str | None:
        return queue.pop(0) if queue else None

    return read


@pytest.fixture
def vault_settings(tmp_path: Path) -> Settings:
    root = tmp_path / "vault"
    shutil.copytree(SAMPLE, root)
    return Settings(vault={"path": root}, data={"directory": tmp_path / "data"})


async def test_terminal_chat_picks_a_subtopic_and_resumes(vault_settings: Settings) -> None:
    out: list[str] = []
    backend = ScriptedBackend(TutorScript(["right", "right"], steps=3), stream_chunk=3)
    services = open_services(vault_settings, {"tutor": SPEC}, backend=backend)
    async with services:
        # subject 2 (Psicología del aprendizaje) -> topic 1 (Memoria) -> subtopic 1
        read = scripted_input(["2", "9", "1", "1", "/hint", "1/2", "/quit"])
        lesson = await cli.choose_lesson(services, read, out.append, None)
        assert lesson.title == "Práctica de recuperación"
        assert [c.title for c in lesson.concepts] == [
            "Práctica de recuperación",
            "Práctica intercalada",
        ]
        from core.flows.tutor.session import start_session

        session = start_session(services.runtime, lesson, vault_settings).id
        values = await cli.chat(services, session, read, out.append)
        text = "".join(out)
        assert "choose 1-2" in text  # "9" was refused
        assert "Question 1: what is bigger" in text and "hint: count the slices" in text
        assert "feedback 1 (right)" in text and "Question 2" in text
        assert "noema tutor --resume" in text
        assert len(values["conversation"]) == 4
        out.clear()
        values = await cli.chat(services, session, scripted_input(["again"]), out.append)
        assert "Question 2" in "".join(out)  # resumed where it stopped
        assert len(values["conversation"]) == 7
        rows = list_sessions(services.store)
        assert rows[0].id == session and rows[0].turns == 2
        assert cli.format_sessions(rows).splitlines()[1].startswith(session[:8])


def test_sessions_and_logs_commands(vault_settings: Settings, capsys, tmp_path: Path) -> None:
    import asyncio

    async def one_turn() -> str:
        backend = ScriptedBackend(TutorScript())
        async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
            from core.flows.tutor.session import start_session
            from tests.flows.tutor.scripted import lesson

            session = start_session(services.runtime, lesson(), vault_settings).id
            await cli.chat(services, session, scripted_input([]), lambda _t: None)
            return session

    session = asyncio.run(one_turn())
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text(
        f'[vault]\npath = "{vault_settings.vault.path}"\n[data]\ndirectory = "{vault_settings.data_dir}"\n'
    )
    base = argparse.Namespace(settings=str(settings_file))
    assert cli.run_sessions(base) == 0
    assert session[:8] in capsys.readouterr().out
    args = build_parser().parse_args(
        ["--settings", str(settings_file), "tutor", "logs", session[:6], "--agent", "planner"]
    )
    cli.run_logs(args)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and '"agent": "planner"' in lines[0]
    args.text, args.agent = True, None
    cli.run_logs(args)
    text = capsys.readouterr().out
    assert "PLANNER" in text and "EXECUTOR" in text
    args.session = "zzz"
    with pytest.raises(cli.CommandError):
        cli.run_logs(args)


def test_logs_summary_per_agent_and_pages(vault_settings: Settings, capsys, tmp_path) -> None:
    """Spec 004's logs API: a summary per agent (steps, calls, tokens, latency, errors) from
    the traces, and the entries page by page."""
    import asyncio

    async def three_turns() -> str:
        script = TutorScript(["wrong", "right"])
        backend = ScriptedBackend(script, latency_s=0.01)
        # the evaluator's first answer is invalid, then valid: one error, re-asked
        async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
            from core.flows.tutor.session import start_session
            from tests.flows.tutor.scripted import lesson

            session = start_session(services.runtime, lesson(), vault_settings).id
            broken = {"bad": True}
            original = script.evaluate
            replies = iter([broken])
            script.evaluate = lambda: next(replies, None) or original()
            await cli.chat(services, session, scripted_input(["1/4", "1/2"]), lambda _t: None)
            return session

    session = asyncio.run(three_turns())
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text(
        f'[vault]\npath = "{vault_settings.vault.path}"\n[data]\ndirectory = "{vault_settings.data_dir}"\n'
    )
    parse = build_parser().parse_args
    base = ["--settings", str(settings_file), "tutor", "logs", session[:8]]
    assert cli.run_logs(parse([*base, "--summary"])) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["AGENT", "STEPS", "CALLS", "TOKENS", "MEAN", "MS", "ERRORS"]
    rows = {line.split()[0]: line.split()[1:] for line in table[1:]}
    assert rows["planner"][:2] == ["1", "1"] and int(rows["planner"][2]) > 0
    assert rows["executor"][:2] == ["3", "3"]
    steps, calls, _tokens, mean_ms, errors = rows["evaluator"]
    assert (steps, calls, errors) == ("2", "3", "1") and float(mean_ms) >= 10
    assert cli.run_logs(parse([*base, "--page", "2", "--per-page", "2"])) == 0
    captured = capsys.readouterr()
    page = [line for line in captured.out.splitlines() if line]
    assert len(page) == 2 and '"agent": "evaluator"' in page[0]
    assert "page 2 of 3 (6 entries)" in captured.err
    with pytest.raises(cli.CommandError, match="no page 4"):
        cli.run_logs(parse([*base, "--page", "4", "--per-page", "2"]))


async def test_terminal_chat_says_when_the_plan_was_built_from_the_concepts(
    vault_settings: Settings,
) -> None:
    """Issue 12: every plan the model wrote was field names; the chat starts and says why."""
    from core.flows.tutor.session import start_session
    from tests.flows.tutor.test_plan_fallback import FieldNamePlans

    out: list[str] = []
    backend = ScriptedBackend(FieldNamePlans(), stream_chunk=3)
    async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
        lesson = await cli.choose_lesson(
            services, scripted_input(["2", "1", "1"]), out.append, None
        )
        session = start_session(services.runtime, lesson, vault_settings).id
        values = await cli.chat(services, session, scripted_input([]), out.append)
        text = "".join(out)
        assert "[The model's plan was unusable: a plan built from the concept.]" in text
        assert "Question 1: what is bigger" in text
        titles = [s["title"] for s in values["study_plan"]["todo_list"]]
        assert titles == [
            "Explain: Práctica de recuperación",
            "Explain: Práctica intercalada",
            "Apply both together",
        ]


async def test_terminal_chat_shows_the_stand_in_when_the_model_wrote_nothing(
    vault_settings: Settings,
) -> None:
    """In the walk the bundled model wrote no message twice: the chat showed an empty turn."""
    from core.flows.tutor.session import start_session
    from tests.flows.tutor.test_executor_output import Writes

    out: list[str] = []
    backend = ScriptedBackend(Writes(""), stream_chunk=3)
    async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
        lesson = await cli.choose_lesson(
            services, scripted_input(["2", "1", "1"]), out.append, None
        )
        session = start_session(services.runtime, lesson, vault_settings).id
        await cli.chat(services, session, scripted_input([]), out.append)
        assert (
            "tutor> (The tutor model wrote nothing, twice; here is the planned step.) P1 step 1"
            in "".join(out)
        )


def test_sessions_lists_failed_and_interrupted_sessions_with_how_to_resume(
    vault_settings: Settings, tmp_path: Path
) -> None:
    """`noema tutor sessions` said "no tutoring sessions" while home listed failed tutor runs
    (issue 12 walk): a session whose first turn failed or was cut off has no row yet."""
    import asyncio
    import subprocess
    import sys

    from local_llm.errors import LocalModelError

    async def two_sessions() -> tuple[str, str]:
        down = LocalModelError("the bundled model's chat server did not start")
        backend = ScriptedBackend([down] * 20)
        async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
            from core.flows.tutor.session import needs_retry, start_session
            from tests.flows.tutor.scripted import lesson

            failed = start_session(services.runtime, lesson(), vault_settings).id
            await cli.chat(services, failed, scripted_input([]), lambda _t: None)
            assert needs_retry(services.runtime, failed)
            cut = start_session(services.runtime, lesson(), vault_settings).id
            services.runtime.runs.mark_interrupted(cut)  # noema quit during the first turn
            return failed, cut

    failed, cut = asyncio.run(two_sessions())
    settings_file = tmp_path / "settings.toml"
    settings_file.write_text(
        f'[vault]\npath = "{vault_settings.vault.path}"\n[data]\ndirectory = "{vault_settings.data_dir}"\n'
    )
    repo = Path(__file__).resolve().parents[3]
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli", "--settings", str(settings_file), "tutor", "sessions"],
        cwd=repo,
        env={**__import__("os").environ, "PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    rows = {line[:8]: line for line in result.stdout.splitlines()}
    assert "no tutoring sessions" not in result.stdout
    assert "failed" in rows[failed[:8]].split() and "interrupted" in rows[cut[:8]].split()
    assert rows[failed[:8]].endswith("Fractions") and rows[cut[:8]].endswith("Fractions")
    assert result.stdout.rstrip().endswith(
        f"continue a session with: noema tutor --resume {cut[:8]}"
    )
    from core.flows.tutor.sessions import find_session
    from core.store import open_store

    store = open_store(vault_settings)
    try:  # `noema tutor --resume PREFIX` finds them
        assert find_session(store, failed[:6]).id == failed
    finally:
        store.close()


async def test_terminal_chat_says_what_the_model_is_doing_while_it_plans(
    vault_settings: Settings, capsys
) -> None:
    """Issue-12 walk: `noema tutor` showed `tutor>` and nothing else for the 2-3 minutes the
    bundled model took to plan. Off a terminal, stderr now has a line when each unstreamed call
    starts and ends, and `tutor> ` opens the reply when its words come."""
    from core.flows.tutor.session import start_session

    out: list[str] = []
    backend = ScriptedBackend(TutorScript(), stream_chunk=3)
    async with open_services(vault_settings, {"tutor": SPEC}, backend=backend) as services:
        lesson = await cli.choose_lesson(
            services, scripted_input(["2", "1", "1"]), out.append, None
        )
        session = start_session(services.runtime, lesson, vault_settings).id
        await cli.chat(services, session, scripted_input([]), out.append)
    lines = capsys.readouterr().err.splitlines()
    assert any(
        re.fullmatch(r"\[planner: asking the model, prompt [\d,]+ tokens\]", x) for x in lines
    )
    assert any(re.fullmatch(r"\[planner: ok in \d+ s, [\d,]+ tokens\]", x) for x in lines), lines
    assert "".join(out).count("tutor> ") == 1


def test_on_a_terminal_the_wait_is_one_line_rewritten_then_cleared() -> None:
    from core.activity import ModelActivity
    from local_llm import CallActivity
    from tui.commands.model_wait import CLEAR, ModelWaitLines, waiting_text

    activity, screen = ModelActivity(), Terminal()
    lines = ModelWaitLines(activity, screen)
    call = CallActivity(
        1, "started", "tutor", "m", "structured", node="planner", prompt_tokens=2009, started=100.0
    )
    assert waiting_text(call, now=134.2) == "[planner · 34 s · prompt 2,009 tokens]"
    activity(call)
    lines(call)  # a terminal gets no start line: the live line says it
    lines.tick()
    assert screen.getvalue().startswith(CLEAR + "[planner · ")
    activity(CallActivity(1, "finished", "tutor", "m", "structured", node="planner"))
    lines.tick()
    assert screen.getvalue().endswith(CLEAR)


def test_the_live_line_waits_while_the_reply_has_an_unfinished_line() -> None:
    """Walk: the executor's live line was drawn after `tutor> [notice]` and the stand-in reply
    then ran on after it. The live line is drawn only at the start of a line, and makes way
    before the reply writes."""
    from core.activity import ModelActivity
    from local_llm import CallActivity
    from tui.commands.model_wait import ModelWaitLines

    activity, screen = ModelActivity(), Terminal()
    lines = ModelWaitLines(activity, screen)
    activity(CallActivity(2, "started", "tutor", "m", "stream", node="executor", started=1.0))
    lines.written("tutor> ")
    lines.tick()
    assert screen.getvalue() == ""  # `tutor> ` is open: nothing drawn over it
    lines.written("[a notice]\n")
    lines.tick()
    assert "[executor · " in screen.getvalue()


class Terminal(io.StringIO):
    """A stderr that is a terminal."""

    def isatty(self) -> bool:
        return True
