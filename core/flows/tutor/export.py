"""A tutoring session exported to a Markdown file the user chooses: the same text as its
session note (frontmatter, summary, plan, concepts, the whole conversation), also for a
session that is still going on."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.flows.tutor.state import SimplifiedState
from core.flows.tutor.summary import build_summary, note_text

if TYPE_CHECKING:
    from core.vault_handle import VaultHandle


class ExportError(ValueError):
    """The file cannot be written there (it exists, its folder does not...): one line."""


def session_text(values: Mapping[str, Any], session_id: str) -> str:
    """The session as its note reads; an unfinished session's summary says where it stands.
    `values` is the checkpointed state as front ends hold it (LangGraph hands it untyped)."""
    state: SimplifiedState = {
        "topic_info": values["topic_info"] if values.get("topic_info") else {},
        "study_plan": values["study_plan"] if values.get("study_plan") else {},
        "conversation": values.get("conversation") or [],
        "misconceptions": values.get("misconceptions") or [],
    }
    summary = values.get("summary") or build_summary(state, "in_progress")
    return note_text(state, summary, session_id)


def export_session(
    values: Mapping[str, Any], session_id: str, target: Path, vault: VaultHandle | None = None
) -> Path:
    """Write the session to `target` (`.md` added when it has no suffix); never over an
    existing file. Inside the vault the vault's writer writes it (one writer for the vault)."""
    target = Path(os.path.expanduser(str(target))).absolute()
    if not target.suffix:
        target = target.with_suffix(".md")
    text = session_text(values, session_id)
    if target.exists():
        raise ExportError(f"{target} exists: choose another name")
    if not target.parent.is_dir():
        raise ExportError(f"no folder {target.parent}")
    root = Path(vault.root).resolve() if vault is not None else None
    if vault is not None and root is not None and target.resolve().is_relative_to(root):
        vault.writer.create(target.resolve().relative_to(root).as_posix(), text)
        return target
    try:
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=target.parent, prefix=".noema-", suffix=".tmp", delete=False
        ) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)  # a file of the user's, not a private temporary one
        os.replace(handle.name, target)
    except OSError as exc:
        raise ExportError(f"not written to {target}: {exc.strerror or exc}") from exc
    return target
