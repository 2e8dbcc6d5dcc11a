"""Nothing outside the vault is read: every path is resolved (symlinks followed) and must stay
under the vault's resolved root."""

from __future__ import annotations

from pathlib import Path


def inside(root: Path, path: Path) -> bool:
    """Whether `path` (resolved) is the resolved `root` or below it."""
    return path == root or root in path.parents


def contained(root: Path, rel: str) -> Path | None:
    """The absolute path of a vault-relative path when, symlinks resolved, it stays inside the
    vault; None when it leads out (or cannot be resolved: a symlink loop)."""
    base = Path(root).resolve()
    try:
        full = (base / rel).resolve()
    except (OSError, RuntimeError):
        return None
    return full if inside(base, full) else None
