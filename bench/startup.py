"""Start-up cost: `noema --help`, `noema doctor` and the litellm import, each in fresh processes.

    python bench/startup.py [--runs N]

What a person waits for before noema does anything. Everything runs as a subprocess (a fresh
interpreter, as the console script would), N times after one warm-up run, and the median is
reported. `noema doctor` runs against the fake Ollama server of the tests (tests/servers), so
the model's own answer time is milliseconds and is reported separately (doctor prints it).

Baselines measured in the same run:
- `python -c pass`: the interpreter alone;
- litellm imported eagerly before `--help` / `doctor` (what start-up cost when the backend was
  imported on the way in instead of lazily and in the background).

Targets (issue 17): `noema --help` under 0.3 s; `noema doctor` under 1.5 s plus the model's
own answer time (with the `ollama` provider, whose client is light; with the default litellm
provider doctor must import litellm for its structured check, which the figures show apart).
The last line is one JSON object with the figures and the targets.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers.handle import FakeServer  # noqa: E402

HELP_TARGET_S = 0.3
DOCTOR_TARGET_S = 1.5
EAGER = "import litellm; from tui.cli import main; import sys; sys.exit(main(sys.argv[1:]))"


def environment() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with bytecode caches, as installed
    return env


def timed(command: list[str], runs: int) -> tuple[float, str]:
    """Median wall seconds of `runs` runs (after one warm-up) and the last run's stdout."""
    env, times, out = environment(), [], ""
    subprocess.run(command, env=env, cwd=ROOT, capture_output=True, timeout=600)
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        times.append(time.perf_counter() - started)
        out = done.stdout
    return statistics.median(times), out


def model_seconds(doctor_output: str) -> float:
    """The model's own time as doctor reports it ("a valid answer in 0.0 s")."""
    found = re.search(r"structured output\s+a valid answer in ([0-9.]+) s", doctor_output)
    if not found:
        raise SystemExit(f"doctor did not get a structured answer:\n{doctor_output}")
    return float(found.group(1))


def settings_file(folder: Path, url: str, provider: str, model: str) -> Path:
    vault = folder / "vault"
    if not vault.exists():
        shutil.copytree(ROOT / "tui" / "sample_vault", vault)
    path = folder / f"{provider}.toml"
    path.write_text(
        f'[vault]\npath = "{vault}"\n[data]\ndirectory = "{folder / "data"}"\n'
        f'[models]\nprovider = "{provider}"\nmodel = "{model}"\nbase_url = "{url}"\n',
        encoding="utf-8",
    )
    return path


def measure(runs: int) -> dict[str, float]:
    py = sys.executable
    figures: dict[str, float] = {}
    figures["python_s"], _ = timed([py, "-c", "pass"], runs)
    figures["litellm_import_s"], _ = timed([py, "-c", "import litellm"], runs)
    figures["help_s"], _ = timed([py, "-m", "tui", "--help"], runs)
    figures["help_eager_litellm_s"], _ = timed([py, "-c", EAGER, "--help"], runs)
    with tempfile.TemporaryDirectory() as tmp, FakeServer.start("ollama") as ollama:
        folder = Path(tmp)
        light = settings_file(folder, ollama.url, "ollama", "llama3.2")
        default = settings_file(folder, ollama.url, "litellm", "ollama_chat/llama3.2")
        figures["doctor_s"], out = timed(
            [py, "-m", "tui", "--settings", str(light), "doctor"], runs
        )
        figures["doctor_model_s"] = model_seconds(out)
        figures["doctor_litellm_s"], out = timed(
            [py, "-m", "tui", "--settings", str(default), "doctor"], runs
        )
        figures["doctor_litellm_model_s"] = model_seconds(out)
        figures["doctor_eager_litellm_s"], _ = timed(
            [py, "-c", EAGER, "--settings", str(default), "doctor"], runs
        )
    return {key: round(value, 3) for key, value in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (median)")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    figures = measure(args.runs)
    doctor_own = figures["doctor_s"] - figures["doctor_model_s"]
    result = {
        **figures,
        "doctor_own_s": round(doctor_own, 3),
        "targets": {"help_s": HELP_TARGET_S, "doctor_own_s": DOCTOR_TARGET_S},
        "met": {
            "help_s": figures["help_s"] < HELP_TARGET_S,
            "doctor_own_s": doctor_own < DOCTOR_TARGET_S,
        },
        "runs": args.runs,
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
    }
    print(f"python alone          {figures['python_s']:.3f} s")
    print(f"import litellm        {figures['litellm_import_s']:.3f} s")
    print(
        f"noema --help          {figures['help_s']:.3f} s (target < {HELP_TARGET_S}); "
        f"with litellm imported eagerly {figures['help_eager_litellm_s']:.3f} s"
    )
    print(
        f"noema doctor (ollama) {figures['doctor_s']:.3f} s, of which the model "
        f"{figures['doctor_model_s']:.3f} s: own {doctor_own:.3f} s "
        f"(target < {DOCTOR_TARGET_S})"
    )
    print(
        f"noema doctor (litellm) {figures['doctor_litellm_s']:.3f} s (litellm warmed in the "
        f"background); importing it eagerly first {figures['doctor_eager_litellm_s']:.3f} s"
    )
    print(f"load average {result['load_average']} on {os.cpu_count()} cores")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
