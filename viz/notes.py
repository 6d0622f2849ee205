"""Speaker notes in a second terminal: the presenter publishes where it is, `rxviz notes` follows.

`rxviz play LESSON --present` writes one small JSON file per presenter session
into the user's runtime directory (viz.state.runtime_dir: per user, private):

    presenter-<session>.json   {"session", "lesson", "title", "step", "total", "step_title",
                                "notes", "next_title", "ask", "started", "updated"}

`ask` is the step's question with its choices, the right one and why, so the
speaker can ask the room and knows the answer; it is never on the player's screen.

rewritten atomically on every step and removed when the presenter quits. Files
are used rather than a socket: nothing listens, nothing to clean up after a
crash but a stale file (a presenter whose process is gone is skipped), and
several presenters on one machine each have their own file. `rxviz notes`
locks onto the presenter most recently active when it starts (or the one
`--session` names) and stays with it, printing the notes of each step as that
presenter reaches it; with several presenters it says which one it follows
and how to pick another (`--list`, `--session`). It keeps to the terminal's
width: a resize prints the step again at the new width.

The directory is checked before it is used (viz.state.runtime_dir), and every
file in it is still read as untrusted: only a regular file of this user, not
a symlink, small, whose JSON has exactly the fields and kinds above, is
used; anything else is skipped, never a crash. Its strings are printed with
each control, bidi or invisible character shown as its escape, so a planted
file cannot retitle the terminal or write the clipboard (OSC 0, OSC 52).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import shutil
import stat
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from models.lesson.sanitize import shown
from models.lesson.schema import Ask, Lesson
from viz.state import runtime_dir, write_json

PREFIX = "presenter-"
POLL = 0.2           # seconds between two looks at the presenter's file
MAX_FILE = 256 * 1024    # a presenter's file is a few KiB: anything bigger is not one
_counter = itertools.count(1)
# The fields of a presenter's file and their kinds; a file with any other shape is skipped.
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "session": str, "pid": int, "lesson": str, "title": str, "step": int, "total": int, "step_title": str,
    "notes": str, "next_title": str, "ask": (dict, type(None)), "started": (int, float), "updated": (int, float)}
_SESSION = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def new_session() -> str:
    """An id unique on this machine: the process and a counter (tests run two presenters in one)."""
    return f"{os.getpid()}-{next(_counter)}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class NotesPublisher:
    """What one presenter tells its followers; `publish` on every step, `close` at exit."""

    def __init__(self, session: str | None = None, directory: Path | None = None,
                 notice: Callable[[str], None] | None = None) -> None:
        """Raises viz.state.Unusable when there is no directory to publish in (no notes, then)."""
        self.session = session or new_session()
        self.dir = directory or runtime_dir(notice)
        self.path = self.dir / f"{PREFIX}{self.session}.json"
        self.started = time.time()
        self.error = ""

    def publish(self, lesson: Lesson, step: int) -> None:
        total = len(lesson.steps)
        spec = lesson.steps[step - 1] if 1 <= step <= total else None
        nxt = lesson.steps[step] if step < total else None
        data = {"session": self.session, "pid": os.getpid(), "lesson": lesson.id, "title": lesson.title,
                "step": step, "total": total, "step_title": spec.title if spec else lesson.title,
                "notes": spec.notes if spec else "", "next_title": nxt.title if nxt else "",
                "ask": asked(spec.ask) if spec is not None and spec.ask is not None else None,
                "started": self.started, "updated": time.time()}
        try:
            write_json(self.path, data)
        except OSError as exc:          # the talk goes on without notes; say so once
            self.error = f"speaker notes not published: {exc.strerror or exc}"

    def close(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass


def asked(ask: Ask) -> dict[str, Any]:
    """A step's question as the speaker needs it: the choices, which one is right, and why."""
    return {"question": ask.question, "choices": list(ask.choices), "answer": ask.answer, "explain": ask.explain}


def _ask_ok(ask: Any) -> bool:
    """Whether a file's `ask` has the shape `asked` writes (or is null: the step has no question)."""
    if ask is None:
        return True
    return isinstance(ask, dict) and set(ask) == {"question", "choices", "answer", "explain"} \
        and all(isinstance(ask[k], str) and len(ask[k]) <= 64 * 1024 for k in ("question", "explain")) \
        and isinstance(ask["choices"], list) and 0 < len(ask["choices"]) <= 16 \
        and all(isinstance(c, str) and len(c) <= 4096 for c in ask["choices"]) \
        and isinstance(ask["answer"], int) and not isinstance(ask["answer"], bool) \
        and 0 <= ask["answer"] < len(ask["choices"])


def _read(path: Path) -> dict[str, Any] | None:
    """A presenter's file as its data, or None for anything that is not one (never raises)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE or \
                (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            data = json.loads(f.read(MAX_FILE + 1).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None                     # being replaced, or not ours
    if not isinstance(data, dict) or set(data) - set(_FIELDS) or set(_FIELDS) - set(data) - {"ask"}:
        return None
    data.setdefault("ask", None)          # a presenter from before questions were published
    for name, kind in _FIELDS.items():
        v = data[name]
        if not isinstance(v, kind) or isinstance(v, bool):
            return None
        if isinstance(v, float) and not math.isfinite(v) or isinstance(v, str) and len(v) > 64 * 1024:
            return None
    if not _SESSION.fullmatch(data["session"]) or not 0 < data["pid"] < 1 << 31 \
            or not 0 <= data["step"] <= data["total"] <= 10_000 or not _ask_ok(data["ask"]):
        return None
    return data


def sessions(directory: Path | None = None) -> list[dict[str, Any]]:
    """The live presenters, most recently updated first."""
    directory = directory or runtime_dir()
    out = []
    for path in directory.glob(f"{PREFIX}*.json"):
        data = _read(path)
        if data is not None and _alive(data["pid"]):
            out.append(data)
    return sorted(out, key=lambda d: -d["updated"])


def pick(session: str | None, directory: Path | None = None) -> dict[str, Any] | None:
    live = sessions(directory)
    if session is None:
        return live[0] if live else None
    return next((d for d in live if d.get("session") == session), None)


def render(data: dict[str, Any], width: int = 80) -> str:
    """One step's notes as the follower prints them, every line within `width` columns.

    The strings come from a file anyone with this user's rights could have written:
    each is shown with its control, bidi and invisible characters escaped.
    """
    width = max(20, width)

    def wrap(text: str, indent: str = "", room: int = width) -> list[str]:
        return textwrap.wrap(shown(text), room, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False) or [indent]

    # The heading's first line is "── " + text + " " + a rule: one column more than its wrapped text.
    head = wrap(f"{data['lesson']} · step {data['step']}/{data['total']} · {data['step_title']}", "   ", width - 1)
    first = "── " + head[0][3:] + " "
    lines = [first + "─" * max(0, width - len(first)), *head[1:]]
    notes = (data.get("notes") or "").strip() or "(no notes for this step)"
    for para in notes.split("\n"):
        lines += wrap(para)
    if ask := data.get("ask"):   # the question, its choices with the right one marked, and why: the speaker's only
        lines += ["", *wrap(f"ask the room: {ask['question']}")]
        for i, choice in enumerate(ask["choices"]):
            lines += textwrap.wrap(shown(f"{'✓' if i == ask['answer'] else ' '} {i + 1}. {choice}"), width,
                                   subsequent_indent="     ", break_on_hyphens=False)
        lines += wrap(f"answer {ask['answer'] + 1}: {ask['explain']}")
    if data.get("next_title"):
        lines += ["", *wrap(f"next: {data['next_title']}")]
    elapsed = int(max(0.0, min(1e9, float(data.get("updated", 0)) - float(data.get("started", 0)))))
    lines.append(f"talk time {elapsed // 60:02d}:{elapsed % 60:02d}")
    return "\n".join(lines)


def width() -> int:
    """The terminal's width now (at most 100: notes are read at a glance), 80 without one."""
    return min(100, shutil.get_terminal_size((80, 24)).columns)


def _others(live: list[dict[str, Any]], mine: str) -> str:
    """The line that says which presenter is followed and how to pick another, when there are several."""
    n = sum(1 for d in live if d.get("session") != mine)
    if not n:
        return ""
    return (f"following presenter {mine}, the most recently active; {n} other presenter"
            f"{'s' if n > 1 else ''} on this machine: `rxviz notes --list` lists them, "
            f"`rxviz notes --session ID` follows one")


def follow(session: str | None, out: Callable[[str], None], once: bool = False,  # noqa: C901 (older than the complexity rule)
           directory: Path | None = None, sleep: Callable[[float], None] = time.sleep, limit: float | None = None,
           columns: Callable[[], int] = width) -> Iterator[int]:
    """Print each step's notes as the presenter reaches it; yields after each look (tests stop it).

    Without `session`, the follower locks onto the presenter most recently active when it
    first finds one and stays with it, however the others step: a talk's notes never jump to
    another presenter's. When that presenter quits, it waits for the next one to lock onto.
    """
    locked = session
    seen = None
    waited = False
    start = time.monotonic()
    while True:
        if locked is None:
            live = sessions(directory)
            if live:
                locked = live[0]["session"]
                if note := _others(live, locked):
                    out(shown(note))
        data = pick(locked, directory) if locked is not None else None
        if data is None:
            if session is None and locked is not None:      # the followed presenter has quit
                if seen is not None:
                    out(f"presenter {locked} has ended; waiting for a presenter (rxviz play LESSON --present)…")
                    waited = True
                locked, seen = None, None
            if not waited:
                who = f"presenter session {session}" if session else "a presenter (rxviz play LESSON --present)"
                out(f"waiting for {who}…")
                waited = True
        else:
            # The same step again when the terminal was resized: printed anew at its width.
            key = (data["session"], data["lesson"], data["step"], columns())
            if key != seen:
                seen = key
                out(render(data, key[-1]))
        yield 1 if data is not None else 0
        if once or (limit is not None and time.monotonic() - start > limit):
            return
        sleep(POLL)
