"""Every workflow end to end on the real local model: what the user waits for, and why.

    python bench/local_model.py [--slots N] [--only extraction,tutor] [--startup-runs 3]
                                [--baseline-code DIR]

With `--baseline-code DIR` (a checkout of the code to compare with, e.g. main; it needs the
traces' token figures, from commit "bench/local_model.py: every workflow end to end"), the
same workflows run first on that code, then on this tree, and the figures are printed side by
side ("before" / "after"); the JSON line holds both.

The bundled model (llama.cpp's server + Gemma 3 270M, `provider = "local"`, the demo's
settings) serves a copy of the sample vault with one more source note of ten quotes
(`bench/data/Cómo aprendemos.md`, written by hand). The app's own services run, as `noema`
runs them: one chat server and one embedding server started on first use, the SQLite
checkpointer and store, every flow with its default settings. In order:

- start-up: bench/startup.py's figures (`noema --help`, `noema doctor`, litellm's import),
  then the chat server's start and its first answer, the vault's index (embeddings);
- extraction of the ten-quote source up to its review;
- normalization of the sample vault (to its review of merges);
- a lesson generated from a concept note (escalations accepted);
- a rubric evaluation of a concept note (to its review);
- a tutoring session: the opening turn (plan, first question) and two answers.

Per workflow, from every model request's trace: wall time, requests, invalid answers and
re-asks, answers cut at the token limit, prompt tokens sent / evaluated / served from the
server's cache, tokens generated, the time some request was in flight (model time) and the
rest (noema's own time: wall - model time). Extraction also gives calls and tokens per concept.
Each figure is printed beside its target; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CODE = Path(os.environ.get("NOEMA_BENCH_CODE") or ROOT)
"""The noema being measured: this tree, or a baseline's (`--baseline-code`; bench/ is a
namespace package, so this tree's bench/model_figures.py serves both)."""
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(CODE))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.model_figures import Collector, figures_of  # noqa: E402
from core.events import Interrupted, Progress  # noqa: E402
from core.flows.registry import open_app  # noqa: E402
from core.settings import Settings  # noqa: E402
from local_llm import probe  # noqa: E402
from tui.demo import LOCAL_MODELS, sample_vault  # noqa: E402

SOURCE_NOTE = ROOT / "bench" / "data" / "Cómo aprendemos.md"
SOURCE = "03 - Sources/Cómo aprendemos.md"
LESSON_CONCEPT = "Práctica de recuperación"
RUBRIC_NOTE = "08 - Ideas/Práctica de recuperación.md"
TUTOR_ANSWERS = (
    "Creo que es mejor intentar recordarlo sin mirar los apuntes, aunque cueste.",
    "Porque al esforzarme en recordar, el recuerdo se fortalece más que al releer.",
)
WORKFLOWS = ("extraction", "extraction_spec", "normalization", "lesson", "rubric", "tutor")
SPEC_DESIGN = {"duplicate_checks": "per_candidate"}
"""`extraction_spec`: the same extraction in the specification's design (one call per
candidate per step), on a server of its own (a fresh prompt cache), for comparison."""
TARGETS = {
    "extraction_wall_s": 120.0,
    "invalid_pct": 5.0,
    "cut": 0,
    "extraction_cached_pct": 50.0,
    "tutor_first_question_s": 20.0,
    "own_pct": 2.0,
}


@dataclass
class Outcome:
    """What one workflow did besides its model calls (for the report)."""

    status: str
    details: dict[str, Any] = field(default_factory=dict)


def make_settings(base: Path, slots: int, extraction: dict[str, Any] | None = None) -> Settings:
    vault = base / "vault"
    shutil.copytree(sample_vault(), vault)
    shutil.copy(SOURCE_NOTE, vault / SOURCE)
    models = {**LOCAL_MODELS}
    if slots != 1:
        models["local_slots"] = slots
    flows = {"flows": {"extraction": extraction}} if extraction else {}
    return Settings(
        vault={"path": vault}, data={"directory": base / "data"}, models=models, **flows
    )


# -- the workflows ----------------------------------------------------------------------------


async def extraction(services: Any) -> Outcome:
    run = services.runtime.start("extraction", {"source": SOURCE}, target=SOURCE)
    events = await services.runtime.run_until_pause(run.id)
    last = events[-1]
    if not isinstance(last, Interrupted):
        return Outcome(type(last).__name__, {"error": getattr(last, "error", "")[-300:]})
    payload = last.payload
    return Outcome(
        "review",
        {
            "new_concepts": len(payload.get("concepts", [])),
            "linked_to_existing": len(payload.get("existing", [])),
            "relations": len(payload.get("relations", [])),
            "titles": [c.get("title", "") for c in payload.get("concepts", [])],
            "linked": [
                f"{e.get('candidate', '')} -> {e.get('title', '')}"
                for e in payload.get("existing", [])
            ],
        },
    )


async def normalization(services: Any) -> Outcome:
    run = services.runtime.start("normalization", {})
    events = await services.runtime.run_until_pause(run.id)
    last = events[-1]
    output = getattr(last, "output", {}) or {}
    return Outcome(type(last).__name__, {"errors": len(output.get("errors", []))})


async def lesson(services: Any) -> Outcome:
    from core.flows.lesson.driver import drive_lesson, start_lesson

    async def accept(_payload: dict[str, Any]) -> dict[str, str]:
        return {"action": "accept"}

    run_id = start_lesson(services, {"mode": "generate", "concept": LESSON_CONCEPT})
    outcome = await drive_lesson(services, run_id, accept)
    return Outcome(
        outcome.status, {"status": outcome.state.get("status", ""), "error": outcome.error[-300:]}
    )


async def rubric(services: Any) -> Outcome:
    from core.flows.rubric.driver import review_note

    async def later(_payload: dict[str, Any]) -> None:
        return None

    outcome = await review_note(services, RUBRIC_NOTE, None, later, lambda _line: None)
    evaluation = (outcome.payload or {}).get("evaluation") or {}
    return Outcome(
        outcome.status, {"overall": evaluation.get("overall_score"), "error": outcome.error[-300:]}
    )


async def tutor(services: Any) -> Outcome:
    from core.flows.tutor.session import curriculum, start_session, turn

    lessons = curriculum(services.vault, services.store)
    chosen = next((x for x in lessons if "recuperación" in x.title.lower()), lessons[0])
    started = time.perf_counter()
    session = start_session(services.runtime, chosen, services.settings)
    first_token = first_question = None
    turns = []
    for text in (None, *TUTOR_ANSWERS):
        began = time.perf_counter()
        async for event in turn(services.runtime, session.id, text):
            if first_token is None and isinstance(event, Progress) and event.data.get("token"):
                first_token = time.perf_counter() - started
        turns.append(round(time.perf_counter() - began, 2))
        if first_question is None:
            first_question = time.perf_counter() - started
    return Outcome(
        "done",
        {
            "lesson": chosen.title,
            "turn_s": turns,
            "first_token_s": round(first_token or 0.0, 2),
            "first_question_s": round(first_question or 0.0, 2),
        },
    )


RUNNERS: dict[str, Callable[[Any], Awaitable[Outcome]]] = {
    "extraction": extraction,
    "extraction_spec": extraction,
    "normalization": normalization,
    "lesson": lesson,
    "rubric": rubric,
    "tutor": tutor,
}


# -- start-up -----------------------------------------------------------------------------------


def startup_figures(runs: int) -> dict[str, Any]:
    """bench/startup.py's JSON line (help, doctor, litellm import), when it is there."""
    script = ROOT / "bench" / "startup.py"
    if runs <= 0 or not script.exists():
        return {}
    done = subprocess.run(
        [sys.executable, str(script), "--runs", str(runs)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=900,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": done.stderr[-300:]}


async def warm_up(services: Any, collector: Collector) -> dict[str, float]:
    """The chat server's start and first answer, then the vault's index (embeddings)."""
    started = time.perf_counter()
    with collector.labelled("start-up"):
        result = await probe.structured_round_trip(services.llm)
    server = time.perf_counter() - started
    started = time.perf_counter()
    with collector.labelled("index"):
        await services.vault.index.sync_async()
    return {
        "server_and_first_answer_s": round(server, 2),
        "first_answer_s": round(result, 2),
        "index_s": round(time.perf_counter() - started, 2),
    }


# -- report -----------------------------------------------------------------------------------


def row(name: str, f: dict[str, Any]) -> str:
    return (
        f"{name:<13} {f['wall_s']:>7.1f} s {f['calls']:>4} calls {f['invalid']:>3} inv "
        f"{f['cut']:>3} cut  prompt {f['prompt_tokens']:>6} (eval {f['evaluated_tokens']:>6}, "
        f"cache {f['cached_pct']:>5.1f}%)  gen {f['generated_tokens']:>5}  "
        f"model {f['model_s']:>6.1f} s  own {f['own_s']:>5.2f} s ({f['own_pct']:.2f}%)"
    )


def verdicts(per: dict[str, dict[str, Any]], totals: dict[str, Any]) -> dict[str, Any]:
    """Each target's figure and whether it is met."""
    ext = per.get("extraction", {})
    tut = per.get("tutor", {}).get("outcome", {})
    own = max((f["own_pct"] for f in per.values()), default=0.0)
    figures = {
        "extraction_wall_s": ext.get("wall_s"),
        "invalid_pct": totals["invalid_pct"],
        "cut": totals["cut"],
        "extraction_cached_pct": ext.get("cached_pct"),
        "tutor_first_question_s": tut.get("first_question_s"),
        "own_pct": own,
    }
    met = {}
    for key, value in figures.items():
        target = TARGETS[key]
        met[key] = (
            None if value is None else (value >= target if "cached" in key else value <= target)
        )
    return {"figures": figures, "met": met}


def print_report(per: dict[str, dict[str, Any]], totals: dict[str, Any], checks: dict) -> None:
    print()
    for name, f in per.items():
        print(row(name, f))
        print(f"{'':<13} {f['outcome']}")
    print(row("all", totals))
    print()
    for key, value in checks["figures"].items():
        mark = {True: "met", False: "NOT met", None: "not measured"}[checks["met"][key]]
        relation = ">=" if "cached" in key else "<="
        print(f"{key:<24} {value!s:>10}   target {relation} {TARGETS[key]:<6} {mark}")


async def run_all(args: argparse.Namespace, base: Path) -> dict[str, Any]:
    """The workflows asked for, on one app; `extraction_spec` after them on an app (and a
    chat server) of its own, so neither design finds the other's prompts in the cache."""
    names = [n for n in args.only if n != "extraction_spec"]
    result = await run_app(args, base / "app", names, None) if names else {"per": {}}
    if "extraction_spec" in args.only:
        spec = await run_app(args, base / "spec", ["extraction_spec"], SPEC_DESIGN)
        result["per"] |= spec["per"]
        result.setdefault("start", spec["start"])
    per = result["per"]
    product = [n for n in per if n != "extraction_spec"]  # the comparison is not the product
    result["totals"] = figures_of(
        [t for n in product for t in per[n]["traces"]], sum(per[n]["wall_s"] for n in product)
    )
    for name, figures in per.items():
        figures.pop("traces")
        if name.startswith("extraction"):
            figures["per_concept"] = per_concept(figures)
    return result


def print_designs(per: dict[str, dict[str, Any]]) -> None:
    """This design's extraction beside the specification's (one call per candidate)."""
    if "extraction" not in per or "extraction_spec" not in per:
        return
    print("\nextraction: this design vs the specification's (one call per candidate per step)")
    for key in ("wall_s", "calls", "prompt_tokens", "cached_pct", "generated_tokens"):
        print(f"  {key:<18} {per['extraction'][key]!s:>10} vs {per['extraction_spec'][key]!s:>10}")
    for key, value in per["extraction"]["per_concept"].items():
        spec = per["extraction_spec"]["per_concept"][key]
        print(f"  per concept {key:<18} {value!s:>6} vs {spec!s:>6}")
    for name in ("extraction", "extraction_spec"):
        outcome = per[name]["outcome"]
        print(f"  {name} titles: {outcome.get('titles')}; linked: {outcome.get('linked')}")


def per_concept(figures: dict[str, Any]) -> dict[str, Any]:
    """Calls and tokens per extracted concept (new ones and those linked to existing ones)."""
    outcome = figures["outcome"]
    concepts = outcome.get("new_concepts", 0) + outcome.get("linked_to_existing", 0)
    return {
        "concepts": concepts,
        **{
            key: round(figures[field] / concepts, 2 if key == "calls" else None)
            if concepts
            else None
            for key, field in (
                ("calls", "calls"),
                ("generated_tokens", "generated_tokens"),
                ("prompt_tokens", "prompt_tokens"),
                ("evaluated_tokens", "evaluated_tokens"),
            )
        },
    }


async def run_app(
    args: argparse.Namespace, base: Path, names: list[str], extraction: dict[str, Any] | None
) -> dict[str, Any]:
    """`names` in order on one app (its own servers, vault copy and data)."""
    base.mkdir(parents=True)
    settings = make_settings(base, args.slots, extraction)
    collector = Collector()
    services = open_app(settings)
    collector.attach(services.llm)
    per: dict[str, dict[str, Any]] = {}
    async with services:
        start = await warm_up(services, collector)
        print(f"start-up: {start}", flush=True)
        for name in names:
            began = time.perf_counter()
            with collector.labelled(name):
                try:
                    outcome = await RUNNERS[name](services)
                except Exception as exc:  # noqa: BLE001 - a failed workflow is a figure too
                    outcome = Outcome("crashed", {"error": f"{type(exc).__name__}: {exc}"[:300]})
            wall = time.perf_counter() - began
            per[name] = figures_of(collector.traces(name), wall)
            per[name]["outcome"] = {"status": outcome.status, **outcome.details}
            print(row(name, per[name]), flush=True)
            per[name]["traces"] = collector.traces(name)
    return {"start": start, "per": per}


def run_baseline(code: Path, argv: list[str]) -> dict[str, Any]:
    """This bench's JSON line, run on the code in `code` (its output streams through)."""
    env = {**os.environ, "NOEMA_BENCH_CODE": str(code), "PYTHONPATH": f"{code}{os.pathsep}{ROOT}"}
    print(f"== before: {code}", flush=True)
    done = subprocess.run(
        [sys.executable, __file__, *argv], env=env, cwd=code, stdout=subprocess.PIPE, text=True
    )
    print(done.stdout, end="", flush=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else {"error": f"exit {done.returncode}"}


COMPARED = (
    "wall_s",
    "calls",
    "invalid",
    "cut",
    "cached_pct",
    "evaluated_tokens",
    "generated_tokens",
    "own_pct",
)


def print_comparison(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Each workflow's main figures and each target's figure, before -> after."""
    print("\nbefore -> after")
    old = before.get("workflows", {})
    for name, figures in {**after["workflows"], "all": after["totals"]}.items():
        was = before.get("totals", {}) if name == "all" else old.get(name, {})
        cells = [f"{k} {was.get(k, '-')} -> {figures.get(k)}" for k in COMPARED]
        print(f"{name:<13} " + ", ".join(cells))
    for key, value in after["figures"].items():
        print(
            f"{key:<24} {before.get('figures', {}).get(key)!s:>10} -> {value!s:<10} "
            f"target {TARGETS[key]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=1, help="chat server slots")
    parser.add_argument("--only", default=",".join(WORKFLOWS), help="workflows, comma-separated")
    parser.add_argument(
        "--startup-runs", type=int, default=3, help="bench/startup.py runs (0: skip)"
    )
    parser.add_argument("--baseline-code", type=Path, help="a checkout to measure first (before)")
    args = parser.parse_args()
    argv = [
        "--slots",
        str(args.slots),
        "--only",
        args.only,
        "--startup-runs",
        str(args.startup_runs),
    ]
    args.only = [w for w in args.only.split(",") if w]
    before = run_baseline(args.baseline_code.resolve(), argv) if args.baseline_code else None
    if before is not None:
        print("== after: this tree", flush=True)
    load = [round(x, 2) for x in os.getloadavg()]
    startup = startup_figures(args.startup_runs)
    if startup:
        print(
            f"start-up (bench/startup.py): help {startup.get('help_s')} s, doctor own "
            f"{startup.get('doctor_own_s')} s, litellm import {startup.get('litellm_import_s')} s"
        )
    base = Path(tempfile.mkdtemp(prefix="noema-bench-local-"))
    try:
        result = asyncio.run(run_all(args, base))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    checks = verdicts(result["per"], result["totals"])
    print_report(result["per"], result["totals"], checks)
    print_designs(result["per"])
    line = {
        "bench": "local_model",
        "slots": args.slots,
        "cpus": os.cpu_count(),
        "load_average": {"start": load, "end": [round(x, 2) for x in os.getloadavg()]},
        "startup": {k: startup.get(k) for k in ("help_s", "doctor_own_s", "litellm_import_s")},
        "warm_up": result["start"],
        "workflows": result["per"],
        "totals": result["totals"],
        "targets": TARGETS,
        "figures": checks["figures"],
        "met": checks["met"],
    }
    if before is not None:
        print_comparison(before, line)
        line["before"] = {
            k: before.get(k)
            for k in ("load_average", "startup", "figures", "met", "totals", "workflows")
        }
    print(json.dumps(line, ensure_ascii=False))


if __name__ == "__main__":
    main()
