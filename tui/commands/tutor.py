"""`noema tutor`: a tutoring session as a plain terminal chat, its sessions and its logs.

    noema tutor                       pick subject / topic / subtopic (or a concept) and chat
    noema tutor --concept NAME        tutor one concept note
    noema tutor --resume SESSION      continue a session where it stopped (id or id prefix)
    noema tutor sessions              list sessions
    noema tutor logs SESSION [--text] [--agent planner|executor|evaluator|finish]
                             [--summary] [--page N] [--per-page N]

In the chat, `/hint` shows the hints of the current question and `/quit` leaves (the session
can be resumed later).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from core.flows.tutor.agents import AGENTS as AGENT_NAMES
from tui.commands import (
    CommandError,
    err,
    open_flows,
    plain,
    require_vault,
    run_async,
    settings_from,
    vault_of,
)

USAGE = """noema tutor [-h] [--concept NAME | --resume SESSION]
       noema tutor sessions
       noema tutor logs SESSION [--text] [--agent AGENT] [--summary] [--page N] [--per-page N]"""
"""The chat needs no sub-command (argparse's own usage line would show COMMAND as required)."""

if TYPE_CHECKING:
    from core.curriculum import Lesson
    from core.events import RunEvent
    from core.flows.tutor.sessions import SessionRow
    from core.services import Services

ReadLine = Callable[[str], Awaitable[str | None]]
Write = Callable[[str], None]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tutor",
        help="a tutoring session in the terminal",
        description=plain(__doc__),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage=USAGE,
    )
    parser.add_argument("--resume", metavar="SESSION", help="continue this session")
    parser.add_argument("--concept", metavar="NAME", help="tutor this concept note")
    parser.set_defaults(func=run_chat)
    sub = parser.add_subparsers(title="tutor commands", metavar="COMMAND")
    sessions = sub.add_parser("sessions", help="list tutoring sessions")
    sessions.set_defaults(func=run_sessions)
    logs = sub.add_parser("logs", help="a session's agent logs")
    logs.add_argument("session", help="session id (or a unique prefix)")
    logs.add_argument("--text", action="store_true", help="the readable log instead of JSON")
    logs.add_argument("--agent", choices=AGENT_NAMES, help="only this agent's steps")
    logs.add_argument(
        "--summary",
        action="store_true",
        help="per agent: steps, model calls, tokens, mean latency, errors",
    )
    logs.add_argument("--page", type=int, metavar="N", help="only page N of the entries")
    logs.add_argument(
        "--per-page", type=int, default=20, metavar="N", help="entries per page (default 20)"
    )
    logs.set_defaults(func=run_logs)


# -- sessions and logs -----------------------------------------------------------------------


def format_sessions(rows: list[SessionRow]) -> str:
    """The sessions as a table, then how to continue the latest one left to continue."""
    from core.flows.tutor.sessions import RESUMABLE

    if not rows:
        return "no tutoring sessions"
    table = [("ID", "STATUS", "MASTERY", "STEPS", "TURNS", "UPDATED", "TOPIC")]
    for row in rows:
        table.append(
            (
                row.id[:8],
                row.state or row.status,
                f"{row.mastery:.0%}",
                f"{row.steps_completed}/{row.steps_total}",
                str(row.turns),
                row.updated_at[:16],
                row.title,
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in table]
    left = next((row for row in rows if row.state in RESUMABLE), None)
    if left is not None:
        lines.append(f"\ncontinue a session with: noema tutor --resume {left.id[:8]}")
    return "\n".join(lines)


def run_sessions(args: argparse.Namespace) -> int:
    from core.flows.tutor.sessions import list_sessions
    from core.store import open_store

    store = open_store(settings_from(args))
    try:
        print(format_sessions(list_sessions(store)))
    finally:
        store.close()
    return 0


def run_logs(args: argparse.Namespace) -> int:
    from core.flows.tutor import logs
    from core.flows.tutor.sessions import find_session
    from core.store import open_store

    settings = settings_from(args)
    store = open_store(settings)
    try:
        session = find_session(store, args.session).id
        if args.summary:
            print(logs.summary_text(logs.summary(store, settings.data_dir, session)))
            return 0
    except KeyError as exc:
        raise CommandError(str(exc.args[0])) from None
    finally:
        store.close()
    page = None
    if args.page is not None:
        page = logs.Page(args.page, args.per_page)
        total = len(logs.read(settings.data_dir, session, args.agent))
        if not 1 <= args.page <= page.count(total) or args.per_page < 1:
            raise CommandError(
                f"no page {args.page}: {total} entries, "
                f"{page.count(total)} page(s) of {args.per_page}"
            )
        err(f"page {args.page} of {page.count(total)} ({total} entries)")
    if args.text:
        print(logs.read_text(settings.data_dir, session, args.agent, page), end="")
    else:
        for item in logs.read(settings.data_dir, session, args.agent, page):
            print(json.dumps(item, ensure_ascii=False))
    return 0


# -- the chat --------------------------------------------------------------------------------


async def terminal_line(prompt: str) -> str | None:
    """One line typed by the user (None at end of input)."""
    try:
        import asyncio

        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


def terminal_write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


async def pick(read: ReadLine, write: Write, title: str, options: list[str]) -> int | None:
    """A numbered menu; the chosen index, or None when input ends."""
    write(f"\n{title}\n" + "".join(f"  {i}. {o}\n" for i, o in enumerate(options, 1)))
    while True:
        answer = await read("number> ")
        if answer is None:
            return None
        if answer.strip().isdigit() and 1 <= int(answer) <= len(options):
            return int(answer) - 1
        write(f"choose 1-{len(options)}\n")


async def choose_lesson(
    services: Services, read: ReadLine, write: Write, concept: str | None
) -> Lesson | None:
    """The lesson to tutor: a concept by name, or subject -> topic -> subtopic (or a concept)."""
    from core.curriculum import list_concepts, resolve_concepts, subjects, subtopics, topics
    from core.flows.tutor.session import concept_session_lesson, curriculum

    vault, store = vault_of(services), services.store
    import asyncio

    await asyncio.to_thread(vault.index.sync_files)
    if concept:
        found = resolve_concepts(store, [concept])
        if not found:
            raise CommandError(f"no concept note named {concept!r}")
        return concept_session_lesson(vault, store, found[0].id)
    lessons = curriculum(vault, store)
    names = subjects(lessons)
    choice = await pick(read, write, "Subject:", [*names, "(a concept note)"])
    if choice is None:
        return None
    if choice == len(names):
        concepts = list_concepts(store)
        if not concepts:
            raise CommandError("the vault has no concept notes")
        index = await pick(read, write, "Concept:", [c.title for c in concepts])
        return None if index is None else concept_session_lesson(vault, store, concepts[index].id)
    subject = names[choice]
    topic_names = topics(lessons, subject)
    t = await pick(read, write, f"{subject} - topic:", topic_names)
    if t is None:
        return None
    options = subtopics(lessons, subject, topic_names[t])
    s = await pick(read, write, f"{topic_names[t]} - subtopic:", [x.title for x in options])
    return None if s is None else options[s]


def show_event(event: RunEvent, write: Write) -> None:
    """Stream tokens, feedback and plan changes as they happen."""
    from core.events import Failed, NodeFinished, Progress
    from core.flows.tutor.nodes import STAND_IN

    if isinstance(event, Progress) and "token" in event.data:
        write(event.data["token"])
    elif isinstance(event, Progress) and event.data.get("replanned"):
        write("\n[the plan changed]\n")
    elif isinstance(event, Progress) and event.data.get("notice"):
        write(f"\n[{event.data['notice']}]\n")
    elif isinstance(event, NodeFinished) and event.node == "evaluator":
        for message in event.update.get("conversation", []):
            write(f"\n{message['content']}\n")
    elif isinstance(event, NodeFinished) and event.node == "executor":
        for message in event.update.get("conversation", []):
            if message["content"].startswith(STAND_IN):  # no token came: the stand-in, said
                write(message["content"])
    elif isinstance(event, Failed):
        write(f"\n[the turn failed: {event.error}]\n")


async def chat(services: Services, session_id: str, read: ReadLine, write: Write) -> dict[str, Any]:
    """Run turns until the session ends or the learner leaves; returns the last state."""
    from core.flows.tutor.session import needs_retry, session_values
    from core.flows.tutor.summary import summary_text

    runtime = services.runtime
    values = await session_values(runtime, session_id)
    text: str | None = None
    if values.get("conversation") and not needs_retry(runtime, session_id):
        write(f"\ntutor> {values['conversation'][-1]['content']}\n")
    while not values.get("is_complete"):
        if text is not None or needs_retry(runtime, session_id):
            await _turn(services, session_id, text, write)
            values = await session_values(runtime, session_id)
            if values.get("is_complete") or needs_retry(runtime, session_id):
                break
        text = await read_answer(read, write, values)
        if text is None:
            write(f"\nsession saved; continue with: noema tutor --resume {session_id[:8]}\n")
            return values
    if values.get("summary"):
        write("\n== Session summary ==\n" + summary_text(values["summary"]) + "\n")
    return values


async def _turn(services: Services, session_id: str, text: str | None, write: Write) -> None:
    """One turn: while the model works and nothing shows, stderr says what it is doing
    (`model_wait`); `tutor> ` opens the reply when its first words come."""
    from core.flows.tutor.session import turn
    from tui.commands.model_wait import model_wait_lines

    write("\n")
    async with model_wait_lines(services.activity) as waiting:
        opened = False

        def reply(piece: str) -> None:
            nonlocal opened
            waiting.clear()
            if not opened:
                write("tutor> ")
                opened = True
            write(piece)
            waiting.written(piece)

        async for event in turn(services.runtime, session_id, text):
            show_event(event, reply)
    write("\n")


async def read_answer(read: ReadLine, write: Write, values: dict[str, Any]) -> str | None:
    """The learner's next answer; `/hint` shows hints, `/quit` or end of input leaves."""
    while True:
        line = await read("you> ")
        if line is None or line.strip() in ("/quit", "/q"):
            return None
        if line.strip() == "/hint":
            asked = (m for m in reversed(values.get("conversation", [])) if m.get("hints"))
            hints: list[str] = next((m["hints"] for m in asked), [])
            write("".join(f"  hint: {h}\n" for h in hints) or "  no hints for this question\n")
            continue
        if line.strip():
            return line


async def open_and_chat(args: argparse.Namespace, read: ReadLine, write: Write) -> int:
    from core.flows.tutor.session import needs_retry, start_session
    from core.flows.tutor.sessions import find_session

    settings = settings_from(args)
    require_vault(settings)
    async with open_flows(settings) as services:
        if args.resume:
            try:
                session_id = find_session(services.store, args.resume).id
            except KeyError as exc:
                raise CommandError(str(exc.args[0])) from None
        else:
            lesson = await choose_lesson(services, read, write, args.concept)
            if lesson is None:
                return 0
            session_id = start_session(services.runtime, lesson, settings).id
            write(f"session {session_id[:8]}: {lesson.title}\n")
        await chat(services, session_id, read, write)
        if needs_retry(services.runtime, session_id):
            raise CommandError(
                f"the tutor's turn failed; continue with: noema tutor --resume {session_id[:8]}"
            )
    return 0


def run_chat(args: argparse.Namespace) -> int:
    return run_async(open_and_chat(args, terminal_line, terminal_write))
