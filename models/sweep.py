"""Sweeps: a lesson's variants run across the values of one scenario parameter.

`rxviz sweep` and, later, the TUI's sandbox both call `sweep()`; it returns
a plain dict (the `rxviz sweep --json` object) and draws nothing. Every
(variant, value) pair is an independent `run_params` run with the same
seed, so the runs can go to separate processes and come back in any order:
each result is stored at its (variant, value) slot, and the dict is the same
whatever the number of workers or the order they finish in.

Workers come from the forkserver context, not fork: the CLI's progress bar
runs a refresh thread, and forking a process that has threads can copy a
held lock into the child. The forkserver is a fresh, single-threaded
interpreter that has imported the model once, and forks a worker from that.

Everything a person could get wrong (a value the parser refuses, a value
the kernel or the NIC would refuse, an unknown metric) is reported before
the first run starts, naming the value.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

from .calls import METRICS
from .lesson.schema import Lesson, did_you_mean
from .runner import BadSetting, check_variants, parse_sets, run_params, variant_params
from .scenario_checks import ScenarioError

# A sweep multiplies the runs, so by default each one is kept short: about half a second of
# CPU on the lessons' machines, and the metrics come within about 0.1% of a headline-length run.
MAX_DEFAULT_FRAMES = 20_000

# progress(runs done, runs in all), called in the caller's process as runs complete
Progress = Callable[[int, int], None]

# (slot, variant, full params, frames, seed): what a worker needs, all of it picklable
_Job = tuple[int, str, dict[str, Any], int, int, str]


def parse_values(key: str, text: str) -> list[tuple[str, Any]]:
    """`("ram", "2GiB,8GiB")` -> [("2GiB", 2147483648), ("8GiB", 8589934592)].

    Each value goes through the same parser as `--set KEY=VALUE`, so a bad
    one gets that parser's sentence, with the value it is about.
    """
    items = [t.strip() for t in text.split(",")]
    if any(not t for t in items):
        raise BadSetting(f"--set {key}={text}: an empty value between commas; "
                         f"expected KEY=V1,V2,..., e.g. --set ram=2GiB,8GiB")
    return _once(key, [(t, parse_sets([f"{key}={t}"])[key]) for t in items])


def _once(key: str, pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The pairs, refused when two spellings mean one value (4GiB and 4096MiB): one run, twice."""
    seen: dict[Any, str] = {}
    for text, value in pairs:
        if value in seen:
            raise BadSetting(f"--set {key}: {text} is the same value as {seen[value]}; give each value once")
        seen[value] = text
    return pairs


def default_variants(lesson: Lesson) -> list[str]:
    """The headline pair when the lesson has one, else every variant.

    The pair is what the paper measured, on the same traffic; the other
    variants of a lesson demonstrate something else (XDP_TX on UDP, a
    leak at ifdown, USB) and would share an axis with runs they do not
    compare with.
    """
    pair = [lesson.headline.before, lesson.headline.after]
    if all(pair) and all(v in lesson.variants for v in pair):
        return pair
    return list(lesson.variants)


def default_metric(lesson: Lesson) -> str:
    """The metric the lesson's paper reports, else throughput."""
    return lesson.paper.metric if lesson.paper is not None else "throughput_mbps"


def default_frames(lesson: Lesson) -> int:
    return min(lesson.headline.frames, MAX_DEFAULT_FRAMES)


def check_metric(metric: str) -> str:
    if metric not in METRICS:
        raise BadSetting(f"--metric {metric}: unknown metric; known metrics are {', '.join(METRICS)}"
                         f"{did_you_mean(metric, METRICS)}")
    return metric


def check(lesson: Lesson, key: str, values: Sequence[tuple[str, Any]], variants: Iterable[str],
          sets: dict[str, Any] | None = None) -> None:
    """Refuse, before any run, a value the kernel or the hardware could not have, naming it."""
    names = list(variants)           # walked once per value: a one-shot iterable would run dry
    for text, value in values:
        for name in names:
            try:
                check_variants(lesson, [name], {**(sets or {}), key: value})
            except ScenarioError as e:
                raise ScenarioError(e.problems, f"{lesson.id}, variant {name}, {key}={text}") from None


def _values(key: str, values: str | Sequence[Any]) -> list[tuple[str, Any]]:
    """Values as the caller has them: "2GiB,8GiB", ["2GiB", "8GiB"] as written, or parsed pairs."""
    if isinstance(values, str):
        return parse_values(key, values)
    pairs: list[tuple[str, Any]] = []
    for v in values:
        pairs += [(str(v[0]), v[1])] if isinstance(v, tuple) else parse_values(key, str(v))
    return _once(key, pairs)


def _run(job: _Job) -> tuple[int, dict[str, Any], dict[str, int]]:
    slot, name, prm, frames, seed, runs = job
    r = run_params(name, prm, frames, seed=seed, teardown=False, runs=runs)
    return slot, r.metrics, r.violation_counts


def _quiet_worker() -> None:
    # Ctrl-C reaches the whole process group; the parent stops the sweep (exit 130), and a
    # worker's own KeyboardInterrupt would only print a traceback from inside the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def workers_for(requested: int | None, runs: int) -> int:
    """At most one worker per CPU, and no more than there are runs."""
    cpus = os.cpu_count() or 1
    return max(1, min(requested or cpus, cpus, runs))


def _execute(jobs: list[_Job], workers: int, progress: Progress | None) -> dict[int, tuple[Any, ...]]:
    done: dict[int, tuple[Any, ...]] = {}

    def record(slot: int, metrics: dict[str, Any], violations: dict[str, int]) -> None:
        done[slot] = (metrics, violations)
        if progress is not None:
            progress(len(done), len(jobs))

    if progress is not None:
        progress(0, len(jobs))       # the total is known before the first run ends
    if workers == 1:
        # One worker is this process: no start-up cost, and the same runs as a pool's.
        for job in jobs:
            record(*_run(job))
        return done
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_quiet_worker) as pool:
        futures: list[Future[tuple[int, dict[str, Any], dict[str, int]]]] = []
        try:
            # The pool starts a worker inside submit() and only then records it. Ctrl-C or SIGTERM
            # raised in between would leave a worker the pool never knew of, waiting for work
            # forever after the sweep is gone; so either waits until every submit has returned.
            with _interrupts_deferred():
                futures = [pool.submit(_run, job) for job in jobs]
            for f in as_completed(futures):
                record(*f.result())
        except BaseException:
            for f in futures:
                f.cancel()           # the runs started end; no new one starts
            raise
    return done


@contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM noted, not acted on, until the block ends; then handled as they would have been.

    Python runs signal handlers in the main thread whichever thread the kernel picked (the progress
    bar's refresh thread, say), so a signal mask cannot hold them back; swapping the handlers can.
    """
    if threading.current_thread() is not threading.main_thread():
        yield            # only the main thread may set handlers, and only it receives the signals
        return
    caught: list[signal.Signals] = []

    def note(signum: int, frame: FrameType | None) -> None:
        caught.append(signal.Signals(signum))
    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for sig in caught[:1]:           # the first one decides, as it would have at once
            handler = previous[sig]
            if callable(handler):
                handler(sig, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(sig)


@dataclass(frozen=True)
class Plan:
    """A sweep checked and ready: what `run` will do, known before anything runs."""
    lesson: Lesson
    key: str
    values: list[tuple[str, Any]]        # (as written, parsed)
    variants: list[str]
    metric: str
    frames: int
    seed: int
    sets: dict[str, Any]                 # fixed for every run

    @property
    def runs(self) -> int:
        return len(self.variants) * len(self.values)


def plan(lesson: Lesson, key: str, values: str | Sequence[Any], variants: Iterable[str] | None = None,
         metric: str | None = None, frames: int | None = None, seed: int = 0,
         sets: dict[str, Any] | None = None) -> Plan:
    """Check a sweep: BadSetting for bad input, ScenarioError for an impossible value.

    `values` are as a person writes them ("2GiB,8GiB" or ["2GiB", "8GiB"])
    or (text, parsed) pairs; `sets` are fixed settings applied to every run.
    Defaults: `default_variants`, `default_metric`, `default_frames`.
    """
    names = list(dict.fromkeys(variants or default_variants(lesson)))
    for n in names:
        try:
            lesson.params_for(n)
        except KeyError as e:
            raise BadSetting(e.args[0]) from None
    fixed = dict(sets or {})
    if key in fixed:
        raise BadSetting(f"--set {key}: given one value and several; give it once, with its values")
    pairs = _values(key, values)
    if not pairs:
        raise BadSetting(f"--set {key}: no values to sweep")
    chosen = check_metric(metric or default_metric(lesson))
    check(lesson, key, pairs, names, fixed)
    return Plan(lesson, key, pairs, names, chosen, frames or default_frames(lesson), seed, fixed)


def run(p: Plan, workers: int | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Every run of the plan, on up to `workers` processes; the `rxviz sweep --json` object."""
    jobs: list[_Job] = []
    for name in p.variants:
        for _, value in p.values:
            jobs.append((len(jobs), name, variant_params(p.lesson, name, {**p.sets, p.key: value}),
                         p.frames, p.seed, p.lesson.runs.get(name, "")))
    done = _execute(jobs, workers_for(workers, len(jobs)), progress)
    out: dict[str, Any] = {}
    for i, name in enumerate(p.variants):
        runs = [done[i * len(p.values) + j] for j in range(len(p.values))]
        out[name] = {"metric": [m.get(p.metric) for m, _ in runs], "metrics": [m for m, _ in runs],
                     "violation_counts": [v for _, v in runs], "expect": list(p.lesson.expect.get(name, ()))}
    return {
        "lesson": p.lesson.id,
        "parameter": p.key,
        "values": [{"text": t, "value": v} for t, v in p.values],
        "metric": p.metric,
        "frames": p.frames,
        "seed": p.seed,
        "sets": p.sets,
        "variants": out,
    }


def sweep(lesson: Lesson, key: str, values: str | Sequence[Any], variants: Iterable[str] | None = None,
          metric: str | None = None, frames: int | None = None, seed: int = 0, workers: int | None = None,
          sets: dict[str, Any] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """`plan` then `run`: everything is checked before the first run starts."""
    return run(plan(lesson, key, values, variants, metric, frames, seed, sets), workers, progress)


def unexpected(result: dict[str, Any]) -> dict[str, dict[str, int]]:
    """"variant at key=value" -> {violation: times}, for violations no `expect` covers."""
    out: dict[str, dict[str, int]] = {}
    for name, r in result["variants"].items():
        for value, counts in zip(result["values"], r["violation_counts"], strict=True):
            bad = {v: n for v, n in counts.items() if v not in r["expect"]}
            if bad:
                out[f"{name} at {result['parameter']}={value['text']}"] = bad
    return out
