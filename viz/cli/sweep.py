"""`rxviz sweep`: a metric against one scenario parameter, per variant, plotted in the terminal.

The runs and their numbers come from `models.sweep.sweep`; this module
only reads the command line, shows progress and formats: the plot
(viz/cli/plot.py), then a table of the values, or the same result as JSON.
It is imported when the sweep runs or its options are registered, and
imports neither rich nor the model at the top, so `rxviz --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from ..messages import CliError, err
from .common import load, on_sigterm_raise, positive_int, seed_int, variants_of, violation_exit

if TYPE_CHECKING:
    from rich.console import Console

    from models.lesson.schema import Lesson

    from .plot import Row

DESCRIPTION = """\
Run a lesson's variants at each value of one scenario parameter and plot a
metric against it: x is the parameter, as you wrote its values; y is the
metric; one series per variant. A table of the numbers follows the plot.
Runs go to parallel processes (one per CPU); the numbers do not depend on
how many, or on the order they finish in.

Give the swept parameter as --set KEY=V1,V2,... (one parameter only); any
other --set KEY=VALUE is fixed for every run. By default the lesson's
headline pair runs (the before and after the paper measured, on the same
traffic; other variants show something else, such as XDP_TX on UDP), or
every variant of a lesson without a pair; the metric is the one the paper
reports, and each run is the lesson's headline.frames, at most 20,000.

examples:
  rxviz sweep ath11k-36bit-dma-mask --set ram=2GiB,4GiB,8GiB,16GiB \\
              --metric cpu_percent
  rxviz sweep atlantic-page-pool --set iotlb_sync_ns=2us,5us,10us,20us,40us
  rxviz sweep atlantic-page-pool --set iommu=off,lazy,strict --json
"""


def epilog(parameters: str) -> str:
    """The metrics --metric takes, then the parameters --set takes (from `rxviz run --help`)."""
    import textwrap

    from models.calls import METRICS
    metrics = textwrap.fill(", ".join(METRICS), width=79, initial_indent="    ", subsequent_indent="    ")
    return f"metrics (--metric M; `rxviz run --json` shows them all for one run):\n{metrics}\n\n{parameters}"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("lesson", metavar="LESSON", help="a lesson id (see `rxviz list`) or a path to a .yaml file")
    p.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="the parameter to sweep and its values, e.g. --set ram=2GiB,8GiB; "
                        "repeat with one value (KEY=VALUE) to fix other parameters")
    p.add_argument("--variant", action="append", default=[], metavar="NAME",
                   help="run only this variant (repeatable; default: the headline pair, or every variant)")
    p.add_argument("--metric", metavar="M",
                   help="the metric to plot (default: the one the lesson's paper reports, else "
                        "throughput_mbps); the list is below")
    p.add_argument("--frames", type=positive_int, metavar="N",
                   help="frames per run after a 10%% warm-up (default: headline.frames, at most 20,000)")
    p.add_argument("--seed", type=seed_int, default=0, metavar="N",
                   help="seed of the model's random source (default 0; today's scenarios draw nothing from it)")
    p.add_argument("--workers", type=positive_int, metavar="N",
                   help="parallel processes (default and most: the number of CPUs)")
    p.add_argument("--json", action="store_true",
                   help="print the result as one JSON object (lesson, parameter, values, metric, frames, "
                        "seed, variants)")


def split_sets(items: list[str]) -> tuple[str, str, dict[str, Any]]:
    """(swept key, its values as written, the fixed settings parsed), or a CliError."""
    from models.runner import BadSetting, parse_sets
    swept = [i for i in items if "," in i.partition("=")[2]]
    if not swept:
        raise CliError("sweep: give the parameter to sweep as --set KEY=V1,V2,..., "
                       "e.g. --set ram=2GiB,8GiB (see 'rxviz sweep --help')", 2)
    if len(swept) > 1:
        raise CliError(f"sweep: one parameter at a time, got {' and '.join(f'--set {s}' for s in swept)}; "
                       "fix the others with one value each", 2)
    key, _, values = swept[0].partition("=")
    try:
        fixed = parse_sets([i for i in items if i not in swept])
    except BadSetting as e:
        raise CliError(str(e), 2) from None
    return key.strip(), values, fixed


def run(args: argparse.Namespace) -> int:
    from models import sweep as S
    from models.runner import BadSetting

    from .progress import progress
    lesson = load(args.lesson)
    key, values, fixed = split_sets(args.set)
    names = variants_of(lesson, args.variant)
    try:
        # Everything is checked here, before the bar: a refusal is one line and nothing has run.
        plan = S.plan(lesson, key, values, names, args.metric, args.frames, args.seed, fixed)
    except BadSetting as e:
        raise CliError(str(e), 2) from None
    overridden = [n for n in plan.variants if key in lesson.variants[n]]
    if overridden:
        err(f"rxviz: note: {', '.join(overridden)} set {key} themselves; each run uses the swept value instead")
    # SIGTERM (a scheduler, `timeout`, a closed session) ends the sweep as Ctrl-C does: the pool is
    # shut down on the way out and its worker processes end, instead of running on as orphans.
    import signal
    previous = on_sigterm_raise()
    try:
        with progress(f"{plan.runs} runs of {plan.frames:,} frames", counted=True) as report:
            result = S.run(plan, args.workers, report)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_sweep(result, lesson)
    return violation_exit(S.unexpected(result))


def print_sweep(result: dict[str, Any], lesson: Lesson, console: Console | None = None) -> None:
    """The heading, the plot at the console's width (80 on a pipe), and the table of values."""
    from . import plot
    from .tables import _console, _para, _show, _table
    con = console or _console()
    key, metric = result["parameter"], result["metric"]
    names = list(result["variants"])
    _para(con, f"{lesson.id}: {metric} against {key}", style="bold")
    fixed = ", ".join(f"{k}={v}" for k, v in result["sets"].items())
    _para(con, f"{len(names)} variant(s) x {len(result['values'])} values, {result['frames']:,} frames "
               f"per run after a warm-up, seed {result['seed']}" + (f"; fixed: {fixed}" if fixed else ""))
    con.print()
    width = max(40, min(con.width, 200)) - 1
    height = max(9, min(24, con.height - 16)) if con.is_terminal else 14
    labels = [v["text"] for v in result["values"]]
    series = {n: result["variants"][n]["metric"] for n in names}
    rows = plot.render(labels, [v["value"] for v in result["values"]], series,
                           width=width, height=height, x_title=key, y_title=metric)
    _print_rows(con, rows)
    con.print()
    t = _table(f"{metric} by {key}", key, names)
    own = _lesson_value(lesson, key, names)
    columns = [_column(series[n]) for n in names]
    for i, (label, v) in enumerate(zip(labels, result["values"], strict=True)):
        mark = " (lesson)" if own is not None and v["value"] == own else ""
        t.add_row(label + mark, *(c[i] for c in columns))
    _show(con, t)


def _lesson_value(lesson: Lesson, key: str, names: list[str]) -> Any:
    """The value the lesson itself gives `key` in every variant shown, or None when they differ."""
    from models.params import full
    own = {repr(full(lesson.params_for(n))[key]) for n in names}
    return full(lesson.params_for(names[0]))[key] if len(own) == 1 else None


def _column(values: list[Any]) -> list[str]:
    """One variant's numbers with the same decimals (at most 2), so they line up on the point."""
    from .. import paper_vs_model_text as headline
    floats = [v for v in values if isinstance(v, float)]
    places = max((len(repr(v).partition(".")[2]) for v in floats), default=0)
    return [f"{v:,.{min(places, 2)}f}" if isinstance(v, float) else headline.num(v) for v in values]


# One colour per series, from the terminal's own palette so a theme keeps them readable.
_COLOURS = ("cyan", "magenta", "yellow", "green", "red", "blue")


def _print_rows(con: Console, rows: list[Row]) -> None:
    from rich.text import Text
    for row in rows:
        line = Text()
        for text, series in row:
            line.append(text, style=None if series is None else _COLOURS[series % len(_COLOURS)])
        con.print(line, soft_wrap=True)
