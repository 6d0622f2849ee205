"""`rxviz exercise`: write the RX driver yourself, and have it checked as the kernel would.

    rxviz exercise list                 the exercises: id, lesson, what you write, done or not
    rxviz exercise start ID [DIR]       a skeleton DIR/driver.py (never over a file already there)
    rxviz exercise check DIR            run DIR/driver.py in a child process under limits and grade it
    rxviz exercise hint ID              the hint for your last failure (after a first check)
    rxviz exercise solution ID          the reference driver (after a first check)

Progress is kept beside the lessons' (viz.state: exercises.json): the directory each exercise
was started in, the attempts, the last failures, passed or not.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..exercises.catalog import BY_ID, EXERCISES, Exercise, hint
from ..messages import CliError, err
from ..progress import set_aside
from ..state import state_dir, write_json

MARKER = ".rxviz-exercise"
FILE = "driver.py"
WIDTH = 80                   # what a projector shows, as everything else rxviz prints
TASK_AT = 48                 # the column of WHAT YOU WRITE in `list`, which cuts it to fit


def add_parser(add: Any) -> None:
    p = add("exercise", run, "write an RX driver yourself with the kernel's API; rxviz checks it")
    sub = p.add_subparsers(dest="exercise_cmd", metavar="ACTION", required=True)
    sub.add_parser("list", help="the exercises, and which you have done").set_defaults(action=_list)
    s = sub.add_parser("start", help="write a skeleton driver.py for an exercise")
    s.add_argument("id", metavar="ID")
    s.add_argument("dir", metavar="DIR", nargs="?", help="where (default: ./rxviz-ID)")
    s.set_defaults(action=_start)
    s = sub.add_parser("check", help="run DIR/driver.py under the model's DMA-API checker and grade it")
    s.add_argument("dir", metavar="DIR")
    s.add_argument("--frames", type=int, default=0, help="frames to run (default: the lesson's)")
    s.set_defaults(action=_check)
    for name, what, action in (("hint", "a hint for your last failure", _hint),
                               ("solution", "the reference driver", _solution)):
        s = sub.add_parser(name, help=f"{what} (after a first check)")
        s.add_argument("id", metavar="ID")
        s.set_defaults(action=action)


# -- progress ---------------------------------------------------------------------------------
def _path() -> Path:
    return state_dir() / "exercises.json"


_kept = {"writable": True}       # False: the file could be neither read nor set aside: never written over


def load_progress() -> dict[str, dict[str, Any]]:
    """The exercises' progress. A file that cannot be used is set aside with a line on stderr, as the
    lessons' is (viz.progress), never written over: it may hold a learner's record."""
    path = _path()
    _kept["writable"] = True
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        return _unusable(path, getattr(exc, "strerror", None) or "it is not text")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return _unusable(path, str(exc) or "unreadable")
    out = data.get("exercises") if isinstance(data, dict) else None
    if not isinstance(out, dict):
        return _unusable(path, "no exercises in it")
    return {k: v for k, v in out.items() if isinstance(v, dict) and k in BY_ID}


def _unusable(path: Path, why: str) -> dict[str, dict[str, Any]]:
    try:
        aside = set_aside(path)
    except OSError as exc:
        _kept["writable"] = False
        err(f"rxviz: note: exercise progress file {path} is unusable ({why}) and could not be set aside "
               f"({exc.strerror}); this run's is not saved")
        return {}
    err(f"rxviz: note: exercise progress file was unusable ({why}): kept as {aside.name}, starting afresh")
    return {}


def _save(progress: dict[str, dict[str, Any]]) -> None:
    if not _kept["writable"]:
        return
    try:
        write_json(_path(), {"version": 1, "exercises": progress})
    except OSError:
        pass                      # progress is a convenience: never fail a check for it


def _exercise(ex_id: str) -> Exercise:
    ex = BY_ID.get(ex_id)
    if ex is None:
        raise CliError(f"exercise {ex_id!r}: no such exercise; `rxviz exercise list` shows them "
                       f"({', '.join(BY_ID)})", 2)
    return ex


# -- the actions ---------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    action: Callable[[argparse.Namespace], int] = args.action      # set by the ACTION's parser
    return action(args)


def fitted(*lines: str) -> str:
    """`lines` within WIDTH columns: a longer one wrapped at spaces, its further lines indented by two
    more than it (a kernel report's address or a path is never cut)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= WIDTH:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        out += textwrap.wrap(line, WIDTH, subsequent_indent=" " * (lead + 2),
                             break_long_words=False, break_on_hyphens=False)
    return "\n".join(out)


def _list(args: argparse.Namespace) -> int:
    prog = load_progress()
    print(f"{'ID':<16} {'LESSON':<22} {'STATUS':<7} WHAT YOU WRITE")
    for ex in EXERCISES:
        p = prog.get(ex.id, {})
        status = "done" if p.get("passed") else ("tried" if p.get("attempts") else "-")
        task = textwrap.shorten(ex.task, WIDTH - TASK_AT, placeholder=" …")
        print(f"{ex.id:<16} {ex.lesson:<22} {status:<7} {task}")      # whole in `start` and `check`
    print("\nStart one with `rxviz exercise start ID`.")
    return 0


def _start(args: argparse.Namespace) -> int:
    ex = _exercise(args.id)
    d = Path(args.dir or f"rxviz-{ex.id}")
    f = d / FILE
    try:
        d.mkdir(parents=True, exist_ok=True)
        (d / MARKER).write_text(ex.id + "\n", encoding="utf-8")
        if f.exists():
            print(fitted(f"{f} exists: left as it is (rxviz never overwrites your driver)."))
        else:
            with f.open("x", encoding="utf-8") as out:          # "x": never over a file made meanwhile
                out.write(ex.skeleton_text())
            print(fitted(f"wrote {f}"))
    except OSError as e:
        raise CliError(f"exercise start: cannot write {f}: {e.strerror or e}", 2) from None
    prog = load_progress()
    prog.setdefault(ex.id, {})["dir"] = str(d.resolve())
    _save(prog)
    print("\n" + fitted(f"{ex.title} (lesson {ex.lesson}): {ex.task}.",
                        f"Edit {f} (the task is at its top), then: rxviz exercise check {d}"))
    return 0


def _check(args: argparse.Namespace) -> int:
    from ..exercises.grade import grade, run_child
    d = Path(args.dir)
    if not d.exists():          # else the message below would name its parent ('.')
        raise CliError(f"exercise check: {d}: no such directory; `rxviz exercise start ID {d}` makes one "
                       f"(`rxviz exercise list` gives the IDs)", 2)
    f = d / FILE if d.is_dir() else d
    marker = (f.parent / MARKER)
    try:
        ex_id = marker.read_text(encoding="utf-8").strip()
    except OSError:
        raise CliError(f"exercise check: {f.parent} was not made by `rxviz exercise start` "
                       f"(no {MARKER} in it)", 2) from None
    ex = _exercise(ex_id)
    if not f.is_file():
        raise CliError(f"exercise check: {f}: no such file; `rxviz exercise start {ex.id} {d}` writes one", 2)
    print(fitted(f"Checking {f} for exercise {ex.id} (lesson {ex.lesson}, variant {ex.variant}) ...") + "\n")
    v = grade(ex, run_child(ex, f.resolve(), args.frames), f.name)
    print(fitted(*v.lines))
    prog = load_progress()
    p = prog.setdefault(ex.id, {})
    p["attempts"] = int(p.get("attempts", 0)) + 1
    p["passed"] = bool(p.get("passed")) or v.passed
    p["last_failures"] = v.failures
    _save(prog)
    return 0 if v.passed else 1


def _after_attempt(ex: Exercise, what: str) -> dict[str, Any]:
    p = load_progress().get(ex.id, {})
    if not p.get("attempts"):
        raise CliError(f"exercise {what} {ex.id}: try it first (`rxviz exercise start {ex.id}`, then "
                       f"`rxviz exercise check DIR`)", 1)
    return p


def _hint(args: argparse.Namespace) -> int:
    ex = _exercise(args.id)
    p = _after_attempt(ex, "hint")
    kinds = p.get("last_failures") or ["slower"]
    if p.get("passed") and not p.get("last_failures"):
        print("Your last check passed. The reference is one command away: rxviz exercise solution " + ex.id)
        return 0
    print(fitted(f"{kinds[0]}: {hint(ex, kinds[0])}"))
    return 0


def _solution(args: argparse.Namespace) -> int:
    ex = _exercise(args.id)
    _after_attempt(ex, "solution")
    print(ex.solution_text(), end="")
    return 0
