"""The `rxviz` argument parser: one subparser per command, each bound to its module's `run`.

argparse's own usage errors are folded into the one-line shape of every other error
(`_Parser.error`). The command modules are imported here, and import nothing heavy at their
top (rich, the model, textual are imported inside `run`), so `rxviz --help` stays fast.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from models.params import Param

from ..messages import CliError
from ..param_text import spell, typed
from . import (
    check,
    completion,
    driver_option,
    exercise,
    export,
    graph,
    lessons,
    notes,
    play,
    run,
    screenshot,
    serve,
    stats,
    sweep,
    trace,
)
from .common import fault_docs, positive_int, seed_int


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one `rxviz: ...` line and exit 2, not a usage dump.

    `epilog_fn` builds the epilog only when help is printed, so ordinary runs
    do not import the model's parameter registry just to describe it.
    """

    def __init__(self, *args: Any, epilog_fn: Callable[[], str] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.epilog_fn = epilog_fn

    def format_help(self) -> str:
        if self.epilog_fn is not None and self.epilog is None:
            self.epilog = self.epilog_fn()
        return super().format_help()

    def error(self, message: str) -> None:  # type: ignore[override]
        where = self.prog.removeprefix("rxviz").strip()
        prefix = f"{where}: " if where else ""
        # argparse's "(choose from 'a', 'b', ...)" becomes a part of its own, so that a long list
        # goes below the first line (viz/messages.py), and the names lose their quotes.
        bad = re.fullmatch(r"argument (\S+): invalid choice: (.*?) \(choose from (.*)\)", message)
        if bad:
            arg, value, choices = bad.groups()
            choices = choices.replace("'", "")
            if arg == "COMMAND":
                from models.lesson.schema import did_you_mean
                hint = did_you_mean(value.strip("'"), choices.split(", "))
                message = f"unknown command {value}{hint}; the commands are {choices}"
            else:
                message = f"argument {arg}: invalid choice: {value}; choose from {choices}"
        raise CliError(f"{prefix}{message}; see '{self.prog} --help'", 2)


def _fmt_default(param: Param) -> str:
    """A parameter's default written the way a person would type it for --set."""
    return spell(param, param.default)


def _run_epilog(faults: bool = True) -> str:
    """Every scenario parameter (by group, with doc and default) and, unless told not to, every fault."""
    from models.params import PARAMS
    groups: dict[str, list[Param]] = {}
    for p in PARAMS.values():
        groups.setdefault(p.group, []).append(p)
    out = ["scenario parameters (--set KEY=VALUE; the same names lessons use):"]
    for group, params in groups.items():
        out.append(f"\n  {group}:")
        for p in params:
            default, doc = _fmt_default(p), p.describe()
            if p.default is None and p.group != "platform":
                default = "from the kernel version" if p.group == "kernel" else "from the platform"
            if p.default is None and p.group == "platform":
                # Cost fields default to the chosen profile; show the generic profile's value.
                from models.platform import PROFILES
                doc = doc.replace(" (default: from the platform profile)", "")
                value = getattr(PROFILES["x86-generic"], p.name, "?")
                default = f"the platform's; x86-generic {typed(value)}"
            text = doc + (f" [default: {default}]" if default else "")
            head = f"    {p.name:<22}"
            if len(head) > 26:
                out.append(head.rstrip())
                head = " " * 26
            out.append(textwrap.fill(text, width=79, initial_indent=head, subsequent_indent=" " * 26))
    if faults:
        out.append("\nfaults (--inject FAULT; each breaks one DMA-API rule on purpose):")
    for name, doc in fault_docs().items() if faults else ():
        out.append(textwrap.fill(doc, width=79, initial_indent=f"    {name:<22}", subsequent_indent=" " * 26))
    out.append("\nexit codes: 0 ok, 2 bad usage or unreadable lesson, 3 the checker reported a")
    out.append("violation the lesson does not expect")
    return "\n".join(out)


def _sim_options(p: argparse.ArgumentParser, frames_help: str) -> None:
    p.add_argument("lesson", metavar="LESSON", help="a lesson id (see `rxviz list`) or a path to a .yaml file")
    p.add_argument("--frames", type=positive_int, metavar="N", help=frames_help)
    p.add_argument("--seed", type=seed_int, default=0, metavar="N",
                   help="seed of the model's random source (default 0; today's scenarios draw nothing from it)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario parameter in every variant (repeatable), e.g. --set ram=8GiB")
    p.add_argument("--inject", action="append", default=[], metavar="FAULT",
                   help="inject a named fault (repeatable); see the list below")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rxviz", allow_abbrev=False,
                     description="Watch a Linux NIC driver receive packets: a deterministic simulation "
                                 "of RX buffers, with lessons built on real driver patches.",
                     epilog="Run `rxviz` with no arguments for the lessons and a short tour.")
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, run: Callable[[argparse.Namespace], int], help: str, **kw: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help, allow_abbrev=False, **kw)
        p.set_defaults(run=run)         # what main() calls: the command's own module, no name lookup
        return p

    p = add("list", lessons.run, "the lessons: id, driver, title, steps")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")

    p = add("check", check.run, "validate lessons, replay them and run their checks")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="lesson files (or ids); default: every lesson in the lessons directory")

    raw = argparse.RawDescriptionHelpFormatter
    p = add("run", run.run, "run a lesson headless: metrics, kernel counters and the paper-vs-model headline",
            formatter_class=raw, epilog_fn=_run_epilog)
    _sim_options(p, "frames per variant after a 10%% warm-up (default: the lesson's headline.frames)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="run only this variant (repeatable; default: every variant)")
    p.add_argument("--json", action="store_true",
                   help="print the result as JSON (lesson, frames, seed, variants, headline)")

    p = add("trace", trace.run, "the event log, one kernel call a line (or JSON, with its transitions)",
            formatter_class=raw, epilog_fn=_run_epilog)
    _sim_options(p, "frames to run (default 20)")
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="the variant to trace (default: the lesson's first); one only")
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line: the call, its time, context and cost, and the transitions "
                        "{machine, object, from, to, edge} it caused")

    p = add("sweep", sweep.run, "a metric against the values of one parameter, per variant, plotted in the terminal",
            formatter_class=raw, epilog_fn=lambda: sweep.epilog(_run_epilog(faults=False)))
    p.description = sweep.DESCRIPTION
    sweep.add_arguments(p)

    p = add("graph", graph.run, "a lifecycle state machine (default: list the machines)")
    p.add_argument("machine", nargs="?", metavar="MACHINE", help="a machine name, e.g. rx_buffer or pp_page")
    p.add_argument("--format", choices=("text", "dot", "mermaid", "json"), default="text",
                   help="text (default), Graphviz dot, Mermaid stateDiagram, or JSON (networkx node-link data)")

    p = add("stats", stats.run, "a real machine's page_pool statistics (ethtool -S or page-pool-stats-get) "
                     "beside the closest lesson's")
    p.add_argument("file", metavar="FILE", help="a text file with the pasted dump")
    p.add_argument("--lesson", metavar="LESSON", help="compare with this lesson's page_pool variant")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")

    p = add("play", play.run, "open a lesson in the interactive player")
    p.add_argument("lesson", metavar="LESSON", help="a lesson id (see `rxviz list`) or a lesson file")
    p.add_argument("--step", type=_nonneg, default=None, metavar="N",
                   help="start at step N, numbered from 1 (0 is the lesson's cover, before its first step; "
                        "default: where you left the lesson, else 0; with --present, 0)")
    p.add_argument("--resume", action="store_true",
                   help="go on where you left the lesson (the default, but with --present: a talk starts "
                        "at the beginning)")
    p.add_argument("--compare", action="store_true", help="before | after side by side")
    p.add_argument("--present", action="store_true",
                   help="presenter mode: high contrast, large headline figures, a talk timer, z zoom, "
                        "b blank; follow its speaker notes with `rxviz notes` in a second terminal")
    driver_option.add(p)

    p = add("notes", notes.run, "speaker notes: follow a `rxviz play LESSON --present` running on this machine")
    p.add_argument("--session", metavar="ID",
                   help="follow this presenter (default: the one most recently active at start, for the whole talk)")
    p.add_argument("--list", action="store_true", help="list the presenters running, then exit")
    p.add_argument("--once", action="store_true", help="print the current step's notes once, then exit")

    p = add("screenshot", screenshot.run, "SVG of the player at a step")
    p.add_argument("lesson", metavar="LESSON", help="a lesson id or a lesson file")
    p.add_argument("--step", type=_nonneg, default=0, metavar="N",
                   help="the step to show, numbered from 1 as in the player (step N/total); 0, the default, "
                        "is the lesson's cover: its title and summary, the model set up, no step run yet")
    p.add_argument("--size", default="120x40", metavar="WxH", help="terminal size (default 120x40)")
    p.add_argument("--compare", action="store_true", help="before | after side by side")
    p.add_argument("-o", "--output", metavar="FILE", help="where to write the SVG (default LESSON-stepN.svg)")
    driver_option.add(p)

    p = add("export", export.run, "a lesson handout: the patch, each step's text and screen (SVG), the questions "
                      "with answers at the end, paper vs model")
    p.add_argument("lesson", metavar="LESSON", help="a lesson id or a lesson file")
    p.add_argument("--format", choices=("md", "html"), default="md", help="Markdown (default) or HTML")
    p.add_argument("--size", default="120x40", metavar="WxH", help="terminal size of the screens (default 120x40)")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="directory for the page and its SVGs (default LESSON-handout)")

    p = add("serve", serve.run, "the player in a web browser (textual-serve): for a classroom, or a projector "
                     "without a terminal")
    p.add_argument("lesson", nargs="?", metavar="LESSON",
                   help="open this lesson (default: the home screen, to pick one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers reach the server at, when it is not http://HOST:PORT "
                        "(a proxy, or --host 0.0.0.0); pages from any other address are refused")
    p.add_argument("--max-sessions", type=_sessions, default=None, metavar="N",
                   help="players running at once, one process each (default 24); the next visitor "
                        "gets a page that says the room is full")
    p.add_argument("--resume", action="store_true",
                   help="each browser keeps its progress while the server runs (a reload goes on where "
                        "it was); default: every page starts the lesson afresh. Visitors never read or "
                        "write your own progress")

    p = add("completion", lambda args: completion.run(args, parser),
            "a completion script for your shell (commands, options, lesson ids)",
            formatter_class=raw, epilog_fn=_completion_epilog)
    p.add_argument("shell", choices=("bash", "zsh"), metavar="SHELL", help="bash or zsh")
    exercise.add_parser(add)
    return parser


def _completion_epilog() -> str:
    return ("The script is generated from this command line (shtab) and is static: it knows\n"
            "the lessons there are now. Install it once, and again after an upgrade:\n\n"
            "  bash: rxviz completion bash > ~/.local/share/bash-completion/completions/rxviz\n"
            "  zsh:  rxviz completion zsh > ~/.zfunc/_rxviz\n"
            "        (with `fpath+=~/.zfunc` before `compinit` in ~/.zshrc)")


def _port(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number, 1 to 65535, got {text!r}")
    return int(text)


def _sessions(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text) <= 1000:
        raise argparse.ArgumentTypeError(f"expected a number of players, 1 to 1000, got {text!r}")
    return int(text)


def _nonneg(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a step number (0 or more), got {text!r}")
    return int(text)


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        where = f"rxviz {args.command}" if args.command else "rxviz"
        raise CliError(f"{where.removeprefix('rxviz').strip() + ': ' if args.command else ''}"
                       f"unrecognized arguments: {' '.join(extra)}; see '{where} --help'", 2)
    return args
