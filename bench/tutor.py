"""Benchmark: tutor turns with a scripted streaming model of fixed latency.

Measured in the same run:
- baseline: the turn's two model calls (evaluator + executor stream) made directly through the
  LLMClient, no graph: the model time a turn cannot avoid;
- headless turns through the runtime (SQLite checkpoints, logs, store): wall time per turn and
  the overhead beyond model time (wall - calls x latency);
- the Textual screen driven headless with Pilot: time from pressing Enter to the end of the
  first frame that draws the reply's first token, and the per-turn overhead there, the turn
  timed until the end of the first frame that draws the chat as the turn left it (frames are
  timed where Textual's compositor renders them); the session's opening turn runs before the
  measured ones.

Overheads are given beyond the model time (calls made x latency) and beyond the baseline's
median (the same two calls made directly, in the same run).

CPU time of this process per turn is reported too: on a shared machine it is the steadier
figure (the model's latency is a sleep and costs no CPU). Target: at most 20 ms overhead per
turn. The last line is one JSON object.

    .venv/bin/python bench/tutor.py [--turns 16] [--latency-ms 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.events import Done  # noqa: E402
from core.flows.tutor.graph import SPEC  # noqa: E402
from core.flows.tutor.prompts import EvaluatorAnswer, evaluator_schema  # noqa: E402
from core.flows.tutor.session import start_session, turn  # noqa: E402
from core.ingest import index_vault  # noqa: E402
from core.services import open_services  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm.testing import ScriptedBackend  # noqa: E402
from tests.flows.tutor.scripted import TutorScript, lesson  # noqa: E402
from tui.demo import sample_vault  # noqa: E402

TARGET_OVERHEAD_MS = 20.0
TYPING_S = 0.1
"""A pause between typing an answer on screen and pressing Enter: no learner answers within
100 ms of the question, and the frames that draw the last turn and the typed answer belong to
them, not to the next turn."""
TUTOR = {"correct_to_complete": 10}
"""Partial answers never complete a step, so every measured turn is evaluator + executor."""


def settings_for(base: Path) -> Settings:
    root = base / "vault"
    if not root.exists():
        shutil.copytree(sample_vault(), root)
    return Settings(vault={"path": root}, data={"directory": base / "data"}, flows={"tutor": TUTOR})


def backend(latency: float, turns: int) -> ScriptedBackend:
    return ScriptedBackend(
        TutorScript(["partial"] * (turns + 2)), latency_s=latency, stream_chunk=4
    )


async def baseline(latency: float, turns: int) -> list[float]:
    """The two model calls of a turn, straight through the client (ms per turn)."""
    from local_llm import LLMClient, ModelConfig

    scripted = backend(latency, turns)
    client = LLMClient({"default": ModelConfig(model="scripted")}, backend=scripted)
    evaluator = [
        {"role": "system", "content": "You are the EVALUATOR"},
        {"role": "user", "content": "x"},
    ]
    executor = [
        {"role": "system", "content": "You are the tutor"},
        {"role": "user", "content": "x"},
    ]
    times = []
    for _ in range(turns):
        start = time.perf_counter()
        await client.structured(evaluator, EvaluatorAnswer, json_schema=evaluator_schema())
        async for _piece in client.stream(executor):
            pass
        times.append((time.perf_counter() - start) * 1000)
    return times


async def headless(base: Path, latency: float, turns: int) -> tuple[list, list, list]:
    """(wall ms, overhead ms, CPU ms) of each answered turn through the runtime."""
    settings = settings_for(base)
    scripted = backend(latency, turns)
    walls, overheads, cpu = [], [], []
    async with open_services(settings, {"tutor": SPEC}, backend=scripted) as services:
        session = start_session(services.runtime, lesson(), settings).id
        [e async for e in turn(services.runtime, session)]
        for n in range(turns):
            calls = len(scripted.calls)
            start, start_cpu = time.perf_counter(), time.process_time()
            events = [e async for e in turn(services.runtime, session, f"answer {n}")]
            wall = (time.perf_counter() - start) * 1000
            if session_ended(events):
                break  # its summary, no reply: not a turn like the others
            cpu.append((time.process_time() - start_cpu) * 1000)
            model = (len(scripted.calls) - calls) * latency * 1000
            walls.append(wall)
            overheads.append(wall - model)
    return walls, overheads, cpu


def session_ended(events: list) -> bool:
    """Whether a turn ended the session (every step done: a summary comes, not a question)."""
    return any(isinstance(e, Done) and (e.output or {}).get("is_complete") for e in events)


async def on_screen(base: Path, latency: float, turns: int) -> tuple[list, list, list, list]:
    """(first token on screen beyond model latency, turn overhead, CPU, wall) per turn, in ms."""
    from tui.app import NoemaApp
    from tui.screens.tutor import TutorScreen
    from tui.widgets.tutor_chat import TutorChat

    settings = settings_for(base)
    scripted = backend(latency, turns)
    services = open_services(settings, {"tutor": SPEC}, backend=scripted)
    index_vault(settings, services.store)
    app = NoemaApp(settings, services=services, vault_label="bench", watch=False)
    app.settles_heap = True  # the heap settled as on a terminal (tui.heap), not as in tests
    first_token, overheads, cpu, walls = [], [], [], []
    async with app.run_test(size=(130, 40)) as pilot:
        while app.services is None:
            await pilot.pause(0.01)
        record = start_session(services.runtime, lesson(), settings)
        screen = TutorScreen(record.id)
        await app.push_screen(screen)
        chat = screen.query_one(TutorChat)
        frames = watch_frames(screen, chat)
        # the session's opening turn (plan + first question) runs on its own: let it end first
        await until(pilot, lambda: screen.conversation and not screen.busy)
        await until(pilot, lambda v=chat.version: drawn(frames, v) is not None)
        for n in range(turns):
            screen.query_one("#answer").value = f"answer {n}"
            await asyncio.sleep(TYPING_S)  # the learner reads the question and types an answer
            calls = len(scripted.calls)
            size = len(screen.conversation)
            start, start_cpu = time.perf_counter(), time.process_time()
            # Enter on the answer box (Pilot's own key-press machinery is not part of the app)
            await screen.query_one("#answer").action_submit()
            # the answer, the feedback and the next question, drawn: the turn ends on screen
            # with the first frame that draws the chat as the turn left it
            await until(pilot, lambda s=size: not screen.busy and len(screen.conversation) >= s + 3)
            if screen.values.get("is_complete"):
                break  # the session ended (its summary, no reply): not a turn like the others
            final = chat.version
            await until(pilot, lambda f=final, t=start: drawn(frames, f, t) is not None)
            wall = (drawn(frames, final, start) - start) * 1000
            cpu.append((time.process_time() - start_cpu) * 1000)
            # the first token follows the evaluator call and the executor's opening latency
            shown = drawn(frames, chat.first_token_version, start)
            first_token.append((shown - start) * 1000 - 2 * latency * 1000)
            overheads.append(wall - (len(scripted.calls) - calls) * latency * 1000)
            walls.append(wall)
    return first_token, overheads, cpu, walls


def watch_frames(screen, chat) -> list[tuple[float, int]]:
    """(end time, chat version drawn) of every frame the screen draws from now on.

    A frame ends when Textual's compositor has rendered it (`Screen._compositor_refresh`, the
    call that writes it to the terminal); the chat records which of its versions it rendered."""
    frames: list[tuple[float, int]] = []
    compose = screen._compositor_refresh

    def timed() -> None:
        compose()
        frames.append((time.perf_counter(), chat.drawn_version))

    screen._compositor_refresh = timed
    return frames


def drawn(frames: list[tuple[float, int]], version: int | None, after: float = 0.0):
    """When the first frame after `after` that drew `version` of the chat (or later) ended."""
    if version is None:
        return None
    return next((t for t, v in frames if t >= after and v >= version), None)


async def until(pilot, condition, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            screen = pilot.app.screen
            raise TimeoutError(
                f"the screen did not get there: {len(screen.conversation)} messages,"
                f" busy={screen.busy}"
            )
        await asyncio.sleep(0.002)  # not pilot.pause: its idle checks would load the loop


def quarters(values: list[float]) -> list[float]:
    """The median of each quarter of `values`, in turn order (what grows with the session)."""
    size = max(1, len(values) // 4)
    return [round(statistics.median(values[i : i + size]), 2) for i in range(0, 4 * size, size)]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 2),
        "max": round(max(values), 2),
        "mean": round(statistics.fmean(values), 2),
    }


async def main(turns: int, latency_ms: float) -> dict:
    latency = latency_ms / 1000
    base = await baseline(latency, turns)
    with tempfile.TemporaryDirectory() as tmp:
        walls, overheads, cpu = await headless(Path(tmp) / "headless", latency, turns)
        ttft, screen_overheads, screen_cpu, screen_walls = await on_screen(
            Path(tmp) / "screen", latency, turns
        )
    model_ms = 2 * latency_ms
    result = {
        "bench": "tutor",
        "turns": turns,
        "turns_measured": {"headless": len(walls), "screen": len(screen_walls)},
        "model_latency_ms_per_call": latency_ms,
        "baseline_direct_calls_ms": summary(base),
        "baseline_client_overhead_ms": round(statistics.median(base) - model_ms, 2),
        "headless_turn_ms": summary(walls),
        "headless_overhead_ms": summary(overheads),
        "headless_cpu_ms_per_turn": summary(cpu),
        "headless_cpu_ms_by_quarter": quarters(cpu),
        "screen_first_token_beyond_model_ms": summary(ttft),
        "screen_turn_overhead_ms": summary(screen_overheads),
        "screen_cpu_ms_per_turn": summary(screen_cpu),
        "screen_cpu_ms_by_quarter": quarters(screen_cpu),
        "headless_beyond_baseline_ms": round(statistics.median(walls) - statistics.median(base), 2),
        "screen_beyond_baseline_ms": round(
            statistics.median(screen_walls) - statistics.median(base), 2
        ),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "target_overhead_ms": TARGET_OVERHEAD_MS,
        "headless_meets_target": statistics.median(overheads) <= TARGET_OVERHEAD_MS,
        "screen_meets_target": statistics.median(screen_overheads) <= TARGET_OVERHEAD_MS,
    }
    return result


def report(result: dict) -> None:
    print(
        f"tutor turns: {result['turns']}, model latency {result['model_latency_ms_per_call']} ms/call"
    )
    print(f"  baseline (2 direct model calls): {result['baseline_direct_calls_ms']} ms")
    print(f"  headless turn: {result['headless_turn_ms']} ms")
    print(f"  headless overhead beyond model time: {result['headless_overhead_ms']} ms")
    print(f"  headless CPU per turn (this process): {result['headless_cpu_ms_per_turn']} ms")
    print(
        f"  screen: first token beyond model latency: {result['screen_first_token_beyond_model_ms']} ms"
    )
    print(f"  screen: turn overhead beyond model time: {result['screen_turn_overhead_ms']} ms")
    print(f"  screen: CPU per turn (this process): {result['screen_cpu_ms_per_turn']} ms")
    print(
        "  CPU per turn, median of each quarter of the turns (what slows as the session grows"
        f" shows here): headless {result['headless_cpu_ms_by_quarter']}"
        f" ms, screen {result['screen_cpu_ms_by_quarter']} ms"
    )
    print(
        f"  median turn beyond the baseline: headless {result['headless_beyond_baseline_ms']} ms,"
        f" screen {result['screen_beyond_baseline_ms']} ms"
    )
    print(f"  load average (1 min) during the run: {result['load_average_1m']}")
    print(f"  target: <= {result['target_overhead_ms']} ms overhead per turn")
    print(json.dumps(result))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=40.0)
    args = parser.parse_args()
    report(asyncio.run(main(args.turns, args.latency_ms)))
