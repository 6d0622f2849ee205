"""Where rxviz keeps files between runs: progress (state) and the presenter's notes.

Two places, each the one the platform means for it (platformdirs):

- state: progress through the lessons, `$XDG_STATE_HOME/rxviz/` on Linux;
- runtime: what `rxviz notes` follows, `$XDG_RUNTIME_DIR/rxviz/` (per user, gone at logout),
  else `rxviz-<uid>` in the temp dir.

The temp dir is shared, so `rxviz-<uid>` may have been made first by someone else, or be a
symlink to somewhere of theirs (or of ours they want written). The runtime directory is only
used when `lstat` shows a real directory (no symlink followed) of this user, private (0700; a
directory of ours with a looser mode is tightened); otherwise rxviz falls back, with one line
saying why, to `runtime/` in the state directory, which is under the user's home. When neither
can be used `runtime_dir` raises `Unusable`: `play --present` then runs without speaker notes,
and `rxviz notes` says why. What is inside is read as untrusted (viz.notes).

`RXVIZ_STATE_DIR` and `RXVIZ_RUNTIME_DIR` override them; the tests point both
at a temporary directory so they never touch a real home.

Files are written whole or not at all (`write_atomic`: a temporary file in the same directory,
then os.replace), so a crash mid-write never leaves half a progress file behind.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

APP = "rxviz"


def _dir(env: str, default: Callable[[], str]) -> Path:
    override = os.environ.get(env)
    return Path(override) if override else Path(default())


def state_dir() -> Path:
    from platformdirs import user_state_dir
    return _dir("RXVIZ_STATE_DIR", lambda: user_state_dir(APP))


class Unusable(Exception):
    """No runtime directory rxviz can trust; the message says why, in one line."""


def private_dir(path: Path) -> Path:
    """`path`, made if missing, checked to be a real directory only this user can use; else Unusable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(path)
    except OSError as e:
        raise Unusable(f"cannot make {path}: {e.strerror or e}") from None
    if stat.S_ISLNK(st.st_mode):
        raise Unusable(f"{path} is a symlink (to {os.readlink(path)}), not followed")
    if not stat.S_ISDIR(st.st_mode):
        raise Unusable(f"{path} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise Unusable(f"{path} belongs to another user (uid {st.st_uid})")
    if st.st_mode & 0o077:          # ours, but open to others: tightened (what is in it is checked anyway)
        try:
            os.chmod(path, 0o700, follow_symlinks=False)
        except OSError as e:
            raise Unusable(f"{path} is open to other users and cannot be made private: {e.strerror}") from None
    return path


def runtime_dir(notice: Callable[[str], None] | None = None) -> Path:
    """A directory only this user can use, for files that live as long as a presenter runs.

    `notice(line)` hears, once, why the first choice was not used. Raises Unusable.
    """
    override = os.environ.get("RXVIZ_RUNTIME_DIR")
    if override:
        return private_dir(Path(override))          # asked for by name: that one or none
    if os.environ.get("XDG_RUNTIME_DIR"):
        path = Path(os.environ["XDG_RUNTIME_DIR"]) / APP
    else:
        uid = os.getuid() if hasattr(os, "getuid") else os.getpid()
        path = Path(tempfile.gettempdir()) / f"{APP}-{uid}"
    try:
        return private_dir(path)
    except Unusable as first:
        fallback = state_dir() / "runtime"
        try:
            found = private_dir(fallback)
        except Unusable as second:
            raise Unusable(f"{first}; and {second}") from None
        if notice is not None:
            notice(f"{first}: speaker notes use {found} instead")
        return found


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` (private, 0600) so that readers see the old file or the new one, never a part."""
    from viz.files import replace_whole
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_whole(path, text, 0o600)


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
