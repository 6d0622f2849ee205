"""The files rxviz writes for the user (screenshots, handouts): whole, and only where they belong.

`rxviz screenshot -o FILE` and `rxviz export -o DIR` often write into a
shared place (/tmp, a course's directory), and the lesson or the path may
come from someone else. So:

- a file is written to a fresh temporary file beside it (created with
  O_EXCL, so never one someone planted), flushed to disk, then renamed over
  the target: a reader sees the old file or the new one, and a full disk
  leaves the old one, never a truncated SVG;
- a target that is a symlink is refused, not followed: rxviz never writes
  through one (the rename would only replace the link itself, but a link
  where a screenshot is asked for is someone's trap or someone's mistake);
- a directory the handout goes into must be a real directory of this user
  (created if missing), not a symlink, not writable by others; a
  screenshot's directory must be this user's or a sticky one such as /tmp,
  where nobody else can replace a file once it is written.

New files get the permissions the user's umask gives (a handout is meant to
be shared), not mkstemp's 0600.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class Unsafe(Exception):
    """A place rxviz will not write to, with why (one sentence)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _mine(st: os.stat_result) -> bool:
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def own_dir(path: Path, create: bool = True) -> None:
    """`path` is (or, with `create`, is made) a directory this user owns that others cannot write into."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if create:
            path.mkdir(parents=True)
        return
    if stat.S_ISLNK(st.st_mode):
        raise Unsafe(f"{path} is a symlink; give the directory itself")
    if not stat.S_ISDIR(st.st_mode):
        raise Unsafe(f"{path} exists and is not a directory")
    if not _mine(st):
        raise Unsafe(f"{path} belongs to another user; give a directory of your own")
    if st.st_mode & stat.S_IWOTH:
        raise Unsafe(f"{path} can be written by every user; give a directory only you can write to")


def _check_parent(path: Path) -> None:
    parent = path.parent
    try:
        st = os.stat(parent)
    except FileNotFoundError:
        raise Unsafe(f"{parent} does not exist") from None
    if not stat.S_ISDIR(st.st_mode):
        raise Unsafe(f"{parent} is not a directory")
    shared = st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and not _mine(st))
    if shared and not st.st_mode & stat.S_ISVTX:
        raise Unsafe(f"{parent} can be written by other users and is not sticky: one could replace the file; "
                     f"write it into a directory of your own")


def check_target(path: Path) -> None:
    """Raises Unsafe when `write(path, ...)` would refuse (asked before the seconds a screenshot takes)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise Unsafe(f"{path} is a symlink; rxviz does not write through one")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise Unsafe(f"{path} exists and is not a regular file")
    _check_parent(path)


def write(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all, never through a symlink.

    Raises Unsafe for a place rxviz will not write to, OSError when the write fails (the
    file that was there, if any, is then left as it was).
    """
    path = Path(path)
    check_target(path)
    replace_whole(path, text, 0o666 & ~_umask())


def replace_whole(path: Path, text: str, mode: int) -> None:
    """`path` replaced by `text` (a file of `mode`): readers see the old file or the new one, never a part.

    The one way rxviz writes a file: the handouts and screenshots above, and its own state
    (progress, the presenter's notes: viz.state, private 0600)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        os.fchmod(fd, mode)
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
