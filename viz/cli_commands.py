"""What each `rxviz` subcommand does, on top of `models`.

The commands only load lessons, run the model and print what it reports;
every number comes out of `models.runner`, `models.replay` or a `Sim`. Bad
input is turned into a `CliError` (a message and an exit code) as close as
possible to where it is detected, so viz/cli.py can print it as one line.
Tables live in viz/cli_tables.py; this module prints plain text and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

TRACE_FRAMES = 20


class CliError(Exception):
    """Bad input: printed as one `rxviz: <message>` line, then exit with `code`."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = " ".join(message.split())
        self.code = code


def fault_docs() -> dict[str, str]:
    """One line per fault of `--inject`, for `rxviz run --help`."""
    from models.calls import FAULTS
    return dict(FAULTS)


def positive_int(text: str) -> int:
    """argparse type for --frames."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {text!r}")
    return value


def seed_int(text: str) -> int:
    """argparse type for --seed."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number 0 or more, got {text!r}")
    return int(text)


def _err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


# -- loading ---------------------------------------------------------------------
def load(name: str, broken_code: int = 2):
    """A lesson by id or path, or a CliError with the loader's one-line message."""
    from models.lesson import LessonError, LessonNotFound, find_lesson, load_lesson
    try:
        try:
            return find_lesson(name)
        except LessonNotFound:
            if os.path.exists(name):        # `rxviz run lessons` or a file without .yaml
                return load_lesson(name)
            raise
    except LessonNotFound as e:
        raise CliError(str(e), 2) from None
    except LessonError as e:
        raise CliError(str(e), broken_code) from None


def _variants(lesson, names: list[str]) -> list[str]:
    from models.lesson.schema import did_you_mean
    out: list[str] = []
    for n in names:
        if n not in lesson.variants:
            raise CliError(f"lesson {lesson.id!r} has no variant {n!r}; its variants are "
                           f"{', '.join(lesson.variants)}{did_you_mean(n, lesson.variants)}", 2)
        if n not in out:
            out.append(n)
    return out


def _settings(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    from models.runner import BadSetting, check_faults, parse_sets
    try:
        return parse_sets(args.set), check_faults(args.inject)
    except BadSetting as e:
        raise CliError(str(e), 2) from None


def _violation_exit(found: list[tuple[str, dict]]) -> int:
    if not found:
        return 0
    names = sorted({f"{v}: {x['name']}" for v, x in found})
    _err(f"rxviz: the checker reported {len(found)} violation(s): {'; '.join(names)}")
    return 3


# -- commands --------------------------------------------------------------------
def cmd_home(args: argparse.Namespace) -> int:
    from models.lesson import LessonError, load_lesson, loader
    print("rxviz: watch a Linux NIC driver receive packets, one RX buffer at a time.\n")
    print("Lessons:")
    paths = loader.lesson_paths()
    for p in paths:
        try:
            title = load_lesson(p).title
        except LessonError:
            title = f"(invalid: see `rxviz check {p}`)"
        print(f"  {p.stem:<24} {title}")
    if not paths:
        print("  (none yet)")
    print("""
Commands:
  rxviz list                 the lessons (--json)
  rxviz run LESSON           headless run: metrics, kernel counters, paper vs model
  rxviz trace LESSON         the event log, one kernel call a line
  rxviz graph [MACHINE]      a buffer lifecycle state machine (--format text|dot|mermaid)
  rxviz check [FILE...]      validate and replay lessons, run their checks

Open a lesson in the interactive player with `rxviz play LESSON` (in a terminal, `rxviz` alone opens the TUI's home screen).
Try `rxviz run rx-basics`; `rxviz COMMAND --help` explains each command.""")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from models.lesson import LessonError, load_lesson, loader
    lessons, problems = [], []
    for p in loader.lesson_paths():
        try:
            lessons.append(load_lesson(p))
        except LessonError as e:
            problems.append(str(e))
    if args.json:
        print(json.dumps([lesson_summary(x) for x in lessons], indent=2))
    elif lessons:
        from .cli_tables import print_lessons
        print_lessons(lessons)
    else:
        print(f"no lessons in {loader.lessons_dir()}")
    _err(*(f"rxviz: {p}" for p in problems))
    return 1 if problems else 0


def lesson_summary(lesson) -> dict[str, Any]:
    patch = lesson.patch
    return {
        "id": lesson.id, "title": lesson.title, "driver": lesson.driver, "summary": lesson.summary,
        "steps": len(lesson.steps), "variants": list(lesson.variants),
        "patch": None if patch is None else {"subject": patch.subject, "author": patch.author, "date": patch.date,
                                             "message_id": patch.message_id, "commit": patch.commit},
    }


def _unreadable(path: str) -> str:
    """Why `path` cannot be read as a lesson file at all, or ''."""
    if not os.path.lexists(path):
        return "no such file"
    if os.path.isdir(path):
        return "is a directory, expected a .yaml lesson file"
    if not os.path.isfile(path):
        return "not a regular file, expected a .yaml lesson file"
    if not os.access(path, os.R_OK):
        return "permission denied"
    return ""


def _check_paths(files: list[str]) -> list[str]:
    from models.lesson import loader
    if not files:
        if not loader.lessons_dir().is_dir():
            raise CliError(f"lessons directory {loader.lessons_dir()} is missing; give lesson files to check", 2)
        return [str(p) for p in loader.lesson_paths()]
    by_id = {p.stem: str(p) for p in loader.lesson_paths()}
    # An argument that is no file but a lesson id (`rxviz check rx-basics`) means that lesson.
    return [by_id[f] if not os.path.lexists(f) and f in by_id else f for f in files]


def check_one(path: str) -> tuple[int, list[str]]:
    """(exit code, lines) for one lesson file: 0 ok, 1 lesson problem, 2 unreadable."""
    from models.lesson import LessonError, load_lesson
    from models.replay import LessonRun
    why = _unreadable(path)
    if why:
        return 2, [f"rxviz: {path}: {why}"]
    try:
        lesson = load_lesson(path)
    except LessonError as e:
        return (2 if e.message.startswith("cannot read") else 1), [str(e)]
    run = LessonRun(lesson, trace=0)
    results = run.check_all()
    lines = []
    for note in run.notes:
        if not note.reached:
            step = lesson.steps[note.step - 1]
            lines.append(f"{path}:{step.line}: step {note.step} ({step.title}): run until {step.run.call} "
                         f"(count {step.run.count}) was not reached within {note.frames} frames "
                         f"(limit {step.run.limit})")
    lines += [f"{path}:{r.check.line}: check failed: {r.message}" for r in results if not r.ok]
    if lines:
        return 1, lines
    return 0, [f"ok  {lesson.id}  ({len(lesson.steps)} steps, {len(lesson.checks)} checks)"]


def cmd_check(args: argparse.Namespace) -> int:
    paths = _check_paths(args.files)
    if not paths:
        print("no lessons to check")
        return 0
    worst = 0
    for path in paths:
        code, lines = check_one(path)
        if code == 2:
            _err(*lines)
        else:
            print("\n".join(lines), flush=True)
        worst = max(worst, code)
    return worst


def cmd_run(args: argparse.Namespace) -> int:
    from models.runner import run_lesson
    lesson = load(args.lesson)
    variants = _variants(lesson, args.variant)
    sets, faults = _settings(args)
    from .cli_tables import print_run, status
    frames = args.frames or lesson.headline.frames
    with status(f"simulating {frames:,} frames x {len(variants or lesson.variants)} variant(s)"):
        result = run_lesson(lesson, variants=variants or None, frames=args.frames, seed=args.seed,
                            sets=sets, faults=faults)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_run(result, lesson)
    return _violation_exit([(n, v) for n, r in result["variants"].items() for v in r["violations"]])


def cmd_trace(args: argparse.Namespace) -> int:
    from models.runner import variant_params
    from models.sim import Sim
    from models.trace import render
    lesson = load(args.lesson)
    name = _variants(lesson, [args.variant])[0] if args.variant else next(iter(lesson.variants))
    sets, faults = _settings(args)
    frames = args.frames or TRACE_FRAMES
    sim = Sim(variant_params(lesson, name, sets), seed=args.seed, trace=frames * 60 + 1000, faults=tuple(faults))
    sim.run_frames(frames)
    events = list(sim.rec.events or ())
    if events:
        print(render(events))
    lost = sim.rec.seq - len(events)
    if lost > 0:
        _err(f"rxviz: note: the first {lost} events did not fit in the trace buffer")
    found = [(name, {"name": v.name, "message": v.message, "t_ns": v.t_ns}) for v in sim.rec.violations]
    if found:
        print(f"\nviolations reported by the checker in {lesson.id} / {name}:")
        for _, v in found:
            print(f"  {v['t_ns'] / 1000:12.3f}us  {v['name']}: {v['message']}")
    return _violation_exit(found)


def cmd_graph(args: argparse.Namespace) -> int:
    from models import lifecycle
    from models.lesson.schema import did_you_mean
    machines = lifecycle.MACHINES
    if not args.machine:
        width = max(map(len, machines))
        for name, (title, _, edges) in machines.items():
            print(f"{name:<{width}}  {title} ({len(edges)} transitions)")
        print("\nShow one with `rxviz graph MACHINE [--format text|dot|mermaid]`.")
        return 0
    if args.machine not in machines:
        raise CliError(f"unknown machine {args.machine!r}; known machines are {', '.join(machines)}"
                       f"{did_you_mean(args.machine, machines)}", 2)
    render = {"text": lifecycle.to_text, "dot": lifecycle.to_dot, "mermaid": lifecycle.to_mermaid}[args.format]
    print(render(args.machine))
    return 0


def _playable(lesson_id: str, step: int):
    """The lesson, checked before Textual takes the terminal: a bad one is one line, exit 2."""
    lesson = load(lesson_id)
    if step > len(lesson.steps):
        raise CliError(f"--step {step}: {lesson.id} has {len(lesson.steps)} steps (0 to {len(lesson.steps)})", 2)
    return lesson


def cmd_play(args: argparse.Namespace) -> int:
    _playable(args.lesson, args.step)
    from viz.app import run_app      # Textual only for the commands that need it

    return run_app(args.lesson, args.step, args.compare)


def cmd_screenshot(args: argparse.Namespace) -> int:
    lesson = _playable(args.lesson, args.step)
    from viz.screenshot import parse_size, screenshot_sync

    try:
        size = parse_size(args.size)
    except ValueError as e:
        raise CliError(f"--size: {e}", 2) from None
    out = args.output or f"{lesson.id}-step{args.step}{'-compare' if args.compare else ''}.svg"
    svg = screenshot_sync(args.lesson, args.step, size, args.compare)
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(svg)
    except OSError as e:
        raise CliError(f"cannot write {out}: {e.strerror}", 2) from None
    print(out)
    return 0


def cmd_start(args: argparse.Namespace) -> int:
    """`rxviz` alone: the home screen in a terminal, the usage text when piped."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from viz.app import run_app

        return run_app()
    return cmd_home(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "home": cmd_home, "list": cmd_list, "check": cmd_check, "run": cmd_run, "trace": cmd_trace,
    "graph": cmd_graph, "play": cmd_play, "screenshot": cmd_screenshot, "start": cmd_start,
}
