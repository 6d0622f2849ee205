"""Fitting one unknown platform parameter to one published *before* figure.

Only a lesson's *before* figures may be used: the *after* must come out of
the model as a prediction. `fit()` bisects a monotonic relation between one
parameter and one metric of one variant; `tests/unit/test_lessons.py`
re-runs it to show each lesson's stored value is the fit, not a hand-tuned
number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .sim import Sim

if TYPE_CHECKING:  # pragma: no cover
    from .lesson.schema import Lesson


def measure(prm: dict[str, Any], metric: str, frames: int) -> float:
    sim = Sim(prm)
    sim.run_frames(max(1, frames // 10))
    sim.mark()
    sim.run_frames(frames)
    return float(sim.metrics()[metric])


def fit(prm: dict[str, Any], param: str, metric: str, target: float, lo: float, hi: float,
        frames: int = 20000, tol: float = 0.002, steps: int = 30,
        run: Callable[[dict[str, Any], str, int], float] = measure) -> float:
    """The value of `param` in [lo, hi] that makes `metric` hit `target` (relative tolerance `tol`)."""
    f_lo = run({**prm, param: lo}, metric, frames) - target
    f_hi = run({**prm, param: hi}, metric, frames) - target
    if f_lo * f_hi > 0:
        raise ValueError(f"{param} in [{lo}, {hi}] does not bracket {metric}={target} "
                         f"(got {f_lo + target:.3f} .. {f_hi + target:.3f})")
    for _ in range(steps):
        mid = (lo + hi) / 2
        f_mid = run({**prm, param: mid}, metric, frames) - target
        if abs(f_mid) <= tol * abs(target):
            return mid
        if f_lo * f_mid <= 0:
            hi, f_hi = mid, f_mid
        else:
            lo, f_lo = mid, f_mid
    return (lo + hi) / 2


def refit_lesson(lesson: Lesson, frames: int = 16384, rounds: int = 3) -> dict[str, float]:
    """Re-fit every parameter a lesson declares with a `target`, in order, a few rounds.

    Several targets can interact (ath11k fits the SWIOTLB share and the rest of
    the CPU); alternating the one-dimensional fits converges in a few rounds.
    `frames` is a power of two: a whole number of laps of any ring up to that size, so a
    cost that repeats every lap or two (a page-flip ring's pages all unmap on one lap) is
    measured over whole periods, whatever the lap the window starts on.
    """
    # a target declares its metric, value and search range together (the lesson validator checks it)
    targets = [f for f in lesson.fitted if f.metric and f.value is not None and f.lo is not None
               and f.hi is not None]
    values: dict[str, float] = {}
    for _ in range(rounds if len(targets) > 1 else 1):
        for f in targets:
            prm = lesson.params_for(f.variant)
            prm.update(values)
            assert f.value is not None and f.lo is not None and f.hi is not None
            values[f.param] = fit(prm, f.param, f.metric, f.value, f.lo, f.hi, frames=frames)
    return values


def main(argv: list[str] | None = None) -> int:
    """`python -m models.fit LESSON`: print the fitted values a lesson should store."""
    import sys

    from .lesson import find_lesson

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m models.fit LESSON", file=sys.stderr)
        return 2
    from .lesson.schema import LessonError, LessonNotFound
    try:
        lesson = find_lesson(args[0])
    except (LessonError, LessonNotFound) as e:
        print(f"models.fit: {e}", file=sys.stderr)
        return 2
    for name, value in refit_lesson(lesson).items():
        print(f"{name}: {value:.6g}   (stored: {lesson.scenario.get(name)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
