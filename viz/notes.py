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
and how to pick another (`--list`, `--session`).
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from viz.state import runtime_dir, write_json

PREFIX = "presenter-"
POLL = 0.2           # seconds between two looks at the presenter's file
_counter = itertools.count(1)


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

    def __init__(self, session: str | None = None, directory: Path | None = None) -> None:
        self.session = session or new_session()
        self.dir = directory or runtime_dir()
        self.path = self.dir / f"{PREFIX}{self.session}.json"
        self.started = time.time()
        self.error = ""

    def publish(self, lesson, step: int) -> None:
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


def asked(ask) -> dict[str, Any]:
    """A step's question as the speaker needs it: the choices, which one is right, and why."""
    return {"question": ask.question, "choices": list(ask.choices), "answer": ask.answer, "explain": ask.explain}


def _ask_lines(ask: Any, width: int) -> list[str]:
    """The question, its choices with the right one marked, and the explanation (for the speaker only)."""
    if not isinstance(ask, dict) or not isinstance(ask.get("choices"), list):
        return []
    lines = ["", *textwrap.wrap(f"ask the room: {ask.get('question', '')}", width)]
    for i, choice in enumerate(ask["choices"]):
        mark = "✓" if i == ask.get("answer") else " "
        lines += textwrap.wrap(f"{mark} {i + 1}. {choice}", width, subsequent_indent="     ")
    lines += textwrap.wrap(f"answer {int(ask.get('answer', 0)) + 1}: {ask.get('explain', '')}", width)
    return lines


def sessions(directory: Path | None = None) -> list[dict[str, Any]]:
    """The live presenters, most recently updated first."""
    directory = directory or runtime_dir()
    out = []
    for path in directory.glob(f"{PREFIX}*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue                    # being replaced, or not ours
        if isinstance(data, dict) and _alive(int(data.get("pid", 0) or 0)):
            out.append(data)
    return sorted(out, key=lambda d: -float(d.get("updated", 0)))


def pick(session: str | None, directory: Path | None = None) -> dict[str, Any] | None:
    live = sessions(directory)
    if session is None:
        return live[0] if live else None
    return next((d for d in live if d.get("session") == session), None)


def render(data: dict[str, Any], width: int = 80) -> str:
    """One step's notes as the follower prints them."""
    head = f"── {data['lesson']} · step {data['step']}/{data['total']} · {data['step_title']} "
    lines = [head + "─" * max(0, width - len(head))]
    notes = (data.get("notes") or "").strip() or "(no notes for this step)"
    for para in notes.split("\n"):
        lines += textwrap.wrap(para, width) or [""]
    lines += _ask_lines(data.get("ask"), width)
    if data.get("next_title"):
        lines += ["", f"next: {data['next_title']}"]
    elapsed = int(max(0, float(data.get("updated", 0)) - float(data.get("started", 0))))
    lines.append(f"talk time {elapsed // 60:02d}:{elapsed % 60:02d}")
    return "\n".join(lines)


def _others(live: list[dict[str, Any]], mine: str) -> str:
    """The line that says which presenter is followed and how to pick another, when there are several."""
    n = sum(1 for d in live if d.get("session") != mine)
    if not n:
        return ""
    return (f"following presenter {mine}, the most recently active; {n} other presenter"
            f"{'s' if n > 1 else ''} on this machine: `rxviz notes --list` lists them, "
            f"`rxviz notes --session ID` follows one")


def follow(session: str | None, out: Callable[[str], None], once: bool = False,
           directory: Path | None = None, sleep=time.sleep, limit: float | None = None) -> Iterator[int]:
    """Print each step's notes as the presenter reaches it; yields after each look (tests stop it).

    Without `session`, the follower locks onto the presenter most recently active when it
    first finds one and stays with it, however the others step: a talk's notes never jump to
    another presenter's. When that presenter quits, it waits for the next one to lock onto.
    """
    locked = session
    shown = None
    waited = False
    start = time.monotonic()
    while True:
        if locked is None:
            live = sessions(directory)
            if live:
                locked = live[0]["session"]
                if note := _others(live, locked):
                    out(note)
        data = pick(locked, directory) if locked is not None else None
        if data is None:
            if session is None and locked is not None:      # the followed presenter has quit
                if shown is not None:
                    out(f"presenter {locked} has ended; waiting for a presenter (rxviz play LESSON --present)…")
                    waited = True
                locked, shown = None, None
            if not waited:
                who = f"presenter session {session}" if session else "a presenter (rxviz play LESSON --present)"
                out(f"waiting for {who}…")
                waited = True
        else:
            key = (data["session"], data["lesson"], data["step"])
            if key != shown:
                shown = key
                out(render(data, min(100, shutil.get_terminal_size((80, 24)).columns)))
        yield 0
        if once or (limit is not None and time.monotonic() - start > limit):
            return
        sleep(POLL)


def cmd_notes(args) -> int:
    """`rxviz notes [--session ID] [--list] [--once]`."""
    if args.list:
        live = sessions()
        for d in live:
            print(f"{d['session']}  {d['lesson']}  step {d['step']}/{d['total']}")
        if not live:
            print("no presenter is running (start one with rxviz play LESSON --present)")
        return 0

    def out(text: str) -> None:
        if sys.stdout.isatty() and not args.once:
            print("\x1b[2J\x1b[H", end="")
        print(text, flush=True)

    try:
        for _ in follow(args.session, out, once=args.once):
            pass
    except KeyboardInterrupt:
        return 0
    return 0
