"""A process that exits while its backend is still warming waits for the import to end.

A daemon thread killed in the middle of an import during interpreter finalization can abort
the process (exit -6, seen with litellm when a short `noema merges apply` exited early).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from local_llm import LLMClient, ModelConfig

    marker = Path(sys.argv[1])

    class SlowWarm:
        def warm(self):
            time.sleep(1.0)
            import json  # stands for a heavy import
            marker.write_text("warmed")

    client = LLMClient({"default": ModelConfig()}, backends={"litellm": SlowWarm()})
    client.warm()
    print("exiting")  # exits at once, with the warm-up under way
    """
)


def test_exit_waits_for_a_warm_up_under_way(tmp_path: Path) -> None:
    marker = tmp_path / "warmed"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(marker)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "exiting"
    assert marker.read_text() == "warmed"


def test_commands_that_call_no_model_do_not_warm(tmp_path: Path) -> None:
    from core.flows.registry import open_app
    from core.settings import Settings

    settings = Settings(vault={"path": tmp_path / "v"}, data={"directory": tmp_path / "d"})
    (tmp_path / "v").mkdir()
    services = open_app(settings, warm=False)
    try:
        assert services.llm.warming is None
    finally:
        services.store.close()
