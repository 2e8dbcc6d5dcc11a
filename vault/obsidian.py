"""The vault's own Obsidian settings: `.obsidian/app.json` and the Templates core plugin.

Read once when a vault is opened; noema's settings override any of them explicitly
(`core.ingest.layout_from_settings`). A missing file means Obsidian's defaults; a malformed
one is reported and read as the defaults, never a crash.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

LinkFormat = Literal["shortest", "relative", "absolute"]
LINK_FORMATS: tuple[LinkFormat, ...] = ("shortest", "relative", "absolute")


@dataclass(frozen=True)
class ObsidianConfig:
    """What noema follows from a vault's `.obsidian` folder (Obsidian's defaults when absent)."""

    use_markdown_links: bool = False
    """Files and links > "Use [[Wikilinks]]" turned off: new links are `[text](path.md)`."""
    new_link_format: LinkFormat = "shortest"
    """Files and links > "New link format": shortest unique path, relative, or absolute."""
    ignore_filters: tuple[str, ...] = ()
    """Files and links > "Excluded files": path prefixes, or `/regex/`."""
    attachment_folder: str = "/"
    """Files and links > "Default location for new attachments" (`/` root, `./` beside the
    note, `./sub` a subfolder beside the note, or a folder of the vault)."""
    templates_folder: str | None = None
    """Templates core plugin > "Template folder location" (None when not set)."""
    problems: list[str] = field(default_factory=list, compare=False)
    """Files that could not be read (malformed JSON): their settings are Obsidian's defaults."""

    @property
    def attachments_folder(self) -> str:
        """The one vault folder attachments go to, or "" when they go to the root or beside
        each note (then no folder is the attachments folder)."""
        folder = self.attachment_folder.strip().strip("/")
        if not folder or folder == "." or self.attachment_folder.strip().startswith("./"):
            return ""
        return folder


def _load(path: Path, problems: list[str]) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        problems.append(
            f"{path.parent.name}/{path.name}: unreadable ({exc}); Obsidian's defaults used"
        )
        return {}
    if not isinstance(data, dict):
        problems.append(
            f"{path.parent.name}/{path.name}: not a JSON object; Obsidian's defaults used"
        )
        return {}
    return data


def read_obsidian_config(root: Path) -> ObsidianConfig:
    """The settings of the vault at `root` (defaults when it has no `.obsidian` folder)."""
    folder = Path(root) / ".obsidian"
    problems: list[str] = []
    app = _load(folder / "app.json", problems)
    templates = _load(folder / "templates.json", problems)
    link_format = app.get("newLinkFormat", "shortest")
    filters = app.get("userIgnoreFilters") or []
    attachments = app.get("attachmentFolderPath", "/")
    templates_folder = templates.get("folder")
    return ObsidianConfig(
        use_markdown_links=app.get("useMarkdownLinks") is True,
        new_link_format=link_format if link_format in LINK_FORMATS else "shortest",
        ignore_filters=tuple(str(f) for f in filters if isinstance(f, str) and f.strip()),
        attachment_folder=attachments if isinstance(attachments, str) else "/",
        templates_folder=(
            templates_folder.strip().strip("/")
            if isinstance(templates_folder, str) and templates_folder.strip().strip("/")
            else None
        ),
        problems=problems,
    )


class IgnoreMatcher:
    """Obsidian's "Excluded files": a filter is a path prefix (`Private/`, `Drafts`) or a
    regular expression between slashes (`/\\.excalidraw\\.md$/`), matched against the
    vault-relative path."""

    def __init__(self, filters: tuple[str, ...]) -> None:
        self.prefixes: list[str] = []
        self.patterns: list[re.Pattern[str]] = []
        for raw in filters:
            text = raw.strip()
            if len(text) > 2 and text.startswith("/") and text.endswith("/"):
                try:
                    self.patterns.append(re.compile(text[1:-1]))
                except re.error:
                    continue
            elif text.lstrip("/"):
                self.prefixes.append(text.lstrip("/"))

    def __bool__(self) -> bool:
        return bool(self.prefixes or self.patterns)

    def matches(self, rel: str) -> bool:
        """Whether Obsidian excludes this vault-relative path (a file or a folder)."""
        if any(rel.startswith(p) or (p.endswith("/") and rel == p[:-1]) for p in self.prefixes):
            return True
        return any(p.search(rel) for p in self.patterns)
