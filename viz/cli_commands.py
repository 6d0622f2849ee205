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
from collections.abc import Callable
from typing import Any

from .cli_errors import layout, visible

TRACE_FRAMES = 20


class Terminated(BaseException):
    """SIGTERM arrived where a command cleans up first (sweep's workers): exit 143, as a shell reports it."""


def on_sigterm_raise() -> object:
    """From now on SIGTERM raises Terminated here, so `finally` and `with` blocks run; the old handler."""
    import signal

    def terminated(signum, frame) -> None:
        raise Terminated
    return signal.signal(signal.SIGTERM, terminated)


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


def err(*lines: str) -> None:
    """Each message on stderr, laid out within 80 columns (viz/cli_errors.py).

    A message can hold a path, a lesson id or a value someone typed: each control, bidi or
    invisible character in it is shown as its escape (cli_errors.visible), never sent.
    """
    for line in lines:
        print(*layout(visible(line)), sep="\n", file=sys.stderr)


def put(*lines: str) -> None:
    """Lines on stdout (paths written, check results), escaped as `err` escapes them."""
    print(*(visible(line) for line in lines), sep="\n")


# -- loading ---------------------------------------------------------------------
def load(name: str, broken_code: int = 2):
    """A lesson by id or path, or a CliError with the loader's one-line message."""
    from models.lesson import LessonError, LessonNotFound, find_lesson, load_lesson
    try:
        try:
            lesson = find_lesson(name)
        except LessonNotFound:
            if not os.path.exists(name):
                raise
            lesson = load_lesson(name)      # `rxviz run lessons` or a file without .yaml
    except LessonNotFound as e:
        from models.lesson.schema import did_you_mean
        known = ", ".join(e.known) or "(none)"
        raise CliError(f"unknown lesson {e.name!r}{did_you_mean(e.name, e.known)}; "
                       f"known lessons (`rxviz list`): {known}", 2) from None
    except LessonError as e:
        more = f"; and {len(e.more)}{'+' if e.dropped else ''} more problem(s): `rxviz check {e.path}` lists them" \
            if e.more else ""
        raise CliError(str(e) + more, broken_code) from None
    if lesson.problems:
        err(f"rxviz: note: {len(lesson.problems)} problem(s) in the text of {lesson.path} (control, bidi or "
            f"invisible characters, markup), shown as written; `rxviz check {lesson.path}` says where")
    return lesson


def _variants(lesson, names: list[str]) -> list[str]:
    from models.lesson.schema import did_you_mean
    out: list[str] = []
    for n in names:
        if n not in lesson.variants:
            raise CliError(f"lesson {lesson.id!r} has no variant {n!r}{did_you_mean(n, lesson.variants)}; "
                           f"its variants are {', '.join(lesson.variants)}", 2)
        if n not in out:
            out.append(n)
    return out


def _settings(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    from models.runner import BadSetting, check_faults, parse_sets
    try:
        return parse_sets(args.set), check_faults(args.inject)
    except BadSetting as e:
        raise CliError(str(e), 2) from None


def _violation_exit(found: dict[str, dict[str, int]]) -> int:
    """Exit 3 and one line when the checker reported violations no variant `expect`s."""
    if not found:
        return 0
    total = sum(n for counts in found.values() for n in counts.values())
    names = sorted(f"{variant}: {name}" for variant, counts in found.items() for name in counts)
    err(f"rxviz: the checker reported {total:,} violation(s): {'; '.join(names)}")
    return 3


# -- commands --------------------------------------------------------------------
USAGE = """\
Commands:
  rxviz play LESSON          the interactive player (in a terminal)
  rxviz list                 the lessons (--json)
  rxviz run LESSON           headless: metrics, kernel counters, paper vs model
  rxviz trace LESSON         the event log, one kernel call a line
  rxviz sweep LESSON         a metric across the values of a parameter, plotted
  rxviz graph [MACHINE]      a buffer lifecycle state machine
  rxviz check [FILE...]      validate and replay lessons, run their checks
  rxviz stats FILE           a real page_pool dump beside the closest lesson
  rxviz screenshot LESSON    an SVG of the player at a step
  rxviz export LESSON        a handout: each step's text and screen, the
                             questions and answers, paper vs model
  rxviz serve                the player in a web browser (a classroom, a
                             projector without a terminal)
  rxviz notes                speaker notes following a `rxviz play --present`
  rxviz exercise ACTION      write an RX driver yourself; rxviz checks it
                             (list, start ID, check DIR, hint ID, solution ID)
  rxviz completion SHELL     a completion script for bash or zsh

In a terminal, `rxviz` alone opens the home screen of the player.
Try `rxviz run rx-basics`; `rxviz COMMAND --help` explains each command."""


def cmd_home(args: argparse.Namespace) -> int:
    import textwrap

    from models.lesson import LessonError, load_lesson, loader
    print("rxviz: watch a Linux NIC driver receive packets, one RX buffer at a time.\n")
    print("Lessons:")
    paths = loader.lesson_paths()
    width = max((len(p.stem) for p in paths), default=0) + 2
    for p in paths:
        try:
            title = load_lesson(p).title
        except LessonError:
            title = f"(invalid: see `rxviz check {p}`)"
        print(textwrap.fill(title, width=79, initial_indent=f"  {p.stem:<{width}}",
                            subsequent_indent=" " * (width + 2), break_long_words=False,
                            break_on_hyphens=False))
    if not paths:
        print("  (none yet)")
    print()
    print(USAGE)
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
    err(*(f"rxviz: {p}" for p in problems))
    return 1 if problems else 0


def lesson_summary(lesson) -> dict[str, Any]:
    patch = lesson.patch
    return {
        "id": lesson.id, "title": lesson.title, "driver": lesson.driver, "summary": lesson.summary,
        "steps": len(lesson.steps), "variants": list(lesson.variants),
        "patch": None if patch is None else {"subject": patch.subject, "author": patch.author, "date": patch.date,
                                             "message_id": patch.message_id, "commit": patch.commit},
    }


def cmd_run(args: argparse.Namespace) -> int:
    from models.runner import run_lesson, unexpected
    lesson = load(args.lesson)
    variants = _variants(lesson, args.variant)
    sets, faults = _settings(args)
    from .cli_progress import progress
    from .cli_tables import print_run
    frames = args.frames or lesson.headline.frames
    with progress(f"{frames:,} frames x {len(variants or lesson.variants)} variant(s)") as report:
        result = run_lesson(lesson, variants=variants or None, frames=args.frames, seed=args.seed,
                            sets=sets, faults=faults, progress=report)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_run(result, lesson)
    if faults:
        from . import cli_faults
        err(*cli_faults.notes(lesson.id, {n: (r["faults"], r.get("violation_counts") or {},
                                              r.get("warning_counts") or {})
                                          for n, r in result["variants"].items()}, faults))
    return _violation_exit(unexpected(result))


def cmd_trace(args: argparse.Namespace) -> int:
    from models.runner import variant_params
    from models.sim import Sim

    from .cli_trace import BUFFER, Stream, event_json, lines, problems
    lesson = load(args.lesson)
    if len(args.variant) > 1:
        raise CliError(f"trace: one --variant at a time, got {', '.join(args.variant)} "
                       f"(`rxviz run` compares variants)", 2)
    name = _variants(lesson, args.variant)[0] if args.variant else next(iter(lesson.variants))
    sets, faults = _settings(args)
    frames = args.frames or TRACE_FRAMES
    sim = Sim(variant_params(lesson, name, sets), seed=args.seed, trace=BUFFER,
              faults=lesson.faults_for(name, faults))
    setup_seq = sim.setup_seq           # the ring fill, before t=0
    # In time order, as ftrace merges its per-CPU buffers: each context keeps its own clock (the
    # device stamps a frame when it arrived, the reader runs on its own core), so the order the
    # model made the calls in is not the order they happened; the set-up, before t=0, comes first.
    # Streamed: a million frames take time, not memory (viz/cli_trace.py).
    events = Stream(sim, frames, setup_seq)
    write = sys.stdout.write
    if args.json:
        for e in events:
            write(json.dumps(event_json(e, setup_seq)) + "\n")
    else:
        for line in lines(events, setup_seq):
            write(line + "\n")
    if events.lost > 0:
        err(f"rxviz: note: {events.lost:,} events did not fit in the trace buffer and are not listed")
    if events.late > 0:
        err(f"rxviz: note: {events.late:,} events came too late to be sorted in and are printed where they came")
    if faults:
        from . import cli_faults
        mine = (sim.fault_hits, sim.rec.violations.counts, sim.rec.warnings.counts)
        err(*cli_faults.notes(lesson.id, {name: mine}, faults, where=f" in {frames:,} frames"))
    expect = lesson.expect.get(name, ())
    reports = sim.rec.violations
    shown = [v for v in reports if v.name in expect]
    found = [v for v in reports if v.name not in expect]
    if len(reports) < reports.total:
        err(f"rxviz: note: {reports.total} violations in all; the first {len(reports)} (and the first of each "
            f"kind) are listed")
    if args.json:
        pass        # violations are events of the stream (call "VIOLATION"); stdout stays one object a line
    elif shown:
        print("", *problems(f"violations {lesson.id} / {name} shows on purpose (the lesson expects them):",
                            shown), sep="\n")
    if found and not args.json:
        print("", *problems(f"violations reported by the checker in {lesson.id} / {name}:", found), sep="\n")
    counts = {kind: n for kind, n in reports.counts.items() if kind not in expect}
    return _violation_exit({name: counts} if counts else {})


def cmd_graph(args: argparse.Namespace) -> int:
    from models import lifecycle
    from models.lesson.schema import did_you_mean
    machines = lifecycle.MACHINES
    if not args.machine:
        width = max(map(len, machines))
        for name, (title, _, edges) in machines.items():
            print(f"{name:<{width}}  {title} ({len(edges)} transitions)")
        print("\nShow one with `rxviz graph MACHINE [--format text|dot|mermaid|json]`.")
        return 0
    if args.machine not in machines:
        raise CliError(f"unknown machine {args.machine!r}{did_you_mean(args.machine, machines)}; "
                       f"known machines are {', '.join(machines)}", 2)
    render = {"text": lifecycle.to_text, "dot": lifecycle.to_dot, "mermaid": lifecycle.to_mermaid,
              "json": lifecycle.to_json}[args.format]
    print(render(args.machine))
    return 0


def playable(lesson_id: str, step: int):
    """The lesson, checked before Textual takes the terminal: a bad one is one line, exit 2."""
    lesson = load(lesson_id)
    if step > len(lesson.steps):
        raise CliError(f"--step {step}: {lesson.id} has {len(lesson.steps)} steps (0 to {len(lesson.steps)})", 2)
    return lesson


def _app(name: str) -> Callable[[argparse.Namespace], int]:
    """A command that runs the Textual app (viz/cli_app.py), imported only when it runs."""
    def run(args: argparse.Namespace) -> int:
        from . import cli_app
        return getattr(cli_app, name)(args)
    return run


def cmd_check(args: argparse.Namespace) -> int:
    from .cli_check import cmd_check as check
    return check(args)


def cmd_stats(args: argparse.Namespace) -> int:
    from .cli_stats import cmd_stats as stats
    return stats(args)


def cmd_sweep(args: argparse.Namespace) -> int:
    from .cli_sweep import cmd_sweep as sweep
    return sweep(args)


def cmd_notes(args: argparse.Namespace) -> int:
    from .notes import cmd_notes as notes
    return notes(args)


def cmd_completion(args: argparse.Namespace) -> int:
    from .cli import build_parser
    from .cli_completion import script
    print(script(build_parser(), args.shell), end="")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "home": cmd_home, "list": cmd_list, "check": cmd_check, "run": cmd_run, "trace": cmd_trace,
    "graph": cmd_graph, "stats": cmd_stats, "sweep": cmd_sweep, "notes": cmd_notes,
    "completion": cmd_completion, "exercise": lambda a: __import__("viz.cli_exercise").cli_exercise.cmd_exercise(a),
    **{name: _app(f"cmd_{name}") for name in ("play", "screenshot", "export", "serve", "start")},
}
