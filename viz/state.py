"""Where rxviz keeps files between runs: progress (state) and the presenter's notes.

Two places, each the one the platform means for it (platformdirs):

- state: progress through the lessons, `$XDG_STATE_HOME/rxviz/` on Linux;
- runtime: what `rxviz notes` follows, `$XDG_RUNTIME_DIR/rxviz/` (per user, gone at logout),
  else a private directory in the temp dir, made 0700 so another user cannot read or plant files.

`RXVIZ_STATE_DIR` and `RXVIZ_RUNTIME_DIR` override them; the tests point both
at a temporary directory so they never touch a real home.

Files are written whole or not at all (`write_atomic`: a temporary file in the same directory,
then os.replace), so a crash mid-write never leaves half a progress file behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

APP = "rxviz"


def _dir(env: str, default) -> Path:
    override = os.environ.get(env)
    return Path(override) if override else Path(default())


def state_dir() -> Path:
    from platformdirs import user_state_dir
    return _dir("RXVIZ_STATE_DIR", lambda: user_state_dir(APP))


def runtime_dir() -> Path:
    """A directory only this user can use, for files that live as long as a presenter runs."""
    override = os.environ.get("RXVIZ_RUNTIME_DIR")
    if override:
        path = Path(override)
    elif os.environ.get("XDG_RUNTIME_DIR"):
        path = Path(os.environ["XDG_RUNTIME_DIR"]) / APP
    else:
        uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
        path = Path(tempfile.gettempdir()) / f"{APP}-{uid}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid") and path.stat().st_uid != os.getuid():
        raise PermissionError(f"{path} belongs to another user")
    return path


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
