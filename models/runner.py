"""Running lessons headless: variants, the headline against the paper, replay and checks.

This is what `rxviz run`, `rxviz check`, `rxviz trace`, the tests and the TUI
share. A lesson says what to run; everything reported here comes out of the
simulation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from . import params as P
from .lesson.schema import Lesson
from .scenario_checks import ScenarioError
from .sim import FAULTS, Sim, full_params

WARMUP_FRACTION = 0.1
MAX_LISTED = 20          # violations and warnings listed per variant; `violation_counts` has them all


class BadSetting(ValueError):
    """A --set KEY=VALUE that names no parameter or has a bad value."""


def parse_sets(items: Iterable[str]) -> dict[str, Any]:
    """`["ram=8GiB", "iommu=strict"]` -> parsed values; raises BadSetting with one clear sentence."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BadSetting(f"--set {item!r}: expected KEY=VALUE, e.g. --set ram=8GiB")
        if key not in P.PARAMS:
            hint = P.suggest(key)
            raise BadSetting(f"--set {key}: unknown parameter" + (f" (did you mean {hint!r}?)" if hint else "")
                             + "; `rxviz run --help` lists them")
        try:
            out[key] = P.parse_value(key, raw.strip())
        except ValueError as e:
            raise BadSetting(f"--set {key}={raw}: {e}") from None
    return out


def check_faults(faults: Iterable[str]) -> list[str]:
    out = []
    for f in faults:
        if f not in FAULTS:
            raise BadSetting(f"--inject {f}: unknown fault; known faults are {', '.join(FAULTS)}")
        out.append(f)
    return out


@dataclass
class VariantResult:
    name: str
    params: dict[str, Any]
    counters: dict[str, int]
    metrics: dict[str, Any]
    violations: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    accounting: dict[str, int] = field(default_factory=dict)
    violation_counts: dict[str, int] = field(default_factory=dict)
    page_pool_stats: dict[str, int] | None = None    # struct page_pool_stats, for page_pool variants


def variant_params(lesson: Lesson, variant: str, sets: dict[str, Any] | None = None) -> dict[str, Any]:
    prm = lesson.params_for(variant)
    prm.update(sets or {})
    return prm


def check_variants(lesson: Lesson, names: Iterable[str], sets: dict[str, Any] | None = None) -> None:
    """Refuse, before anything runs, a variant the kernel or the hardware could not have."""
    for n in names:
        problems = P.check(full_params(variant_params(lesson, n, sets)))
        if problems:
            raise ScenarioError(problems, f"{lesson.id}, variant {n}")


def run_params(name: str, prm: dict[str, Any], frames: int, *, seed: int = 0,
               faults: Iterable[str] = (), teardown: bool = True) -> VariantResult:
    sim = Sim(prm, seed=seed, faults=tuple(faults))
    warm = max(1, int(frames * WARMUP_FRACTION))
    sim.run_frames(warm)
    sim.mark()
    sim.run_frames(frames)
    metrics = sim.metrics()
    counters = sim.rec.counters()
    pp_stats = dict(sim.pool.stats) if sim.pool is not None else None
    if teardown:
        sim.teardown()
    return VariantResult(
        name=name,
        params={k: _jsonable(v) for k, v in prm.items()},
        counters=counters,
        metrics=metrics,
        violations=[{"name": v.name, "message": v.message, "t_ns": v.t_ns} for v in sim.rec.violations[:MAX_LISTED]],
        warnings=[{"name": v.name, "message": v.message, "t_ns": v.t_ns} for v in sim.rec.warnings[:MAX_LISTED]],
        violation_counts=_count(sim.rec.violations),
        accounting=sim.accounting(),
        page_pool_stats=pp_stats,
    )


def _variant_json(r: VariantResult) -> dict[str, Any]:
    out: dict[str, Any] = {"params": r.params, "counters": r.counters, "metrics": r.metrics,
                           "violations": r.violations, "violation_counts": r.violation_counts,
                           "warnings": r.warnings, "accounting": r.accounting}
    if r.page_pool_stats is not None:
        out["page_pool_stats"] = r.page_pool_stats
    return out


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in items:
        out[v.name] = out.get(v.name, 0) + 1
    return out


def _jsonable(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


def run_lesson(lesson: Lesson, *, variants: Iterable[str] | None = None, frames: int | None = None,
               seed: int = 0, sets: dict[str, Any] | None = None, faults: Iterable[str] = (),
               sensitivity: bool = True) -> dict[str, Any]:
    """The `rxviz run --json` object."""
    names = list(variants) if variants else list(lesson.variants)
    frames = frames or lesson.headline.frames
    check_variants(lesson, names, sets)
    results = {n: run_params(n, variant_params(lesson, n, sets), frames, seed=seed, faults=faults) for n in names}
    return {
        "lesson": lesson.id,
        "frames": frames,
        "seed": seed,
        "variants": {n: _variant_json(r) for n, r in results.items()},
        "headline": _headline(lesson, results, frames, seed, sets, faults, sensitivity),
    }


def _headline(lesson: Lesson, results: dict[str, VariantResult], frames: int, seed: int,
              sets: dict[str, Any] | None, faults: Iterable[str], with_sensitivity: bool) -> dict[str, Any] | None:
    from .headline import capacity_mbps, sensitivity
    from .platform import make_platform
    a = lesson.headline.after
    cap = None
    if a:
        prm = full_params(variant_params(lesson, a, sets))
        cap = capacity_mbps(prm, make_platform(prm))
    out = headline(lesson, {n: r.metrics for n, r in results.items()}, cap)
    both = {lesson.headline.before, lesson.headline.after} <= set(results)
    if out is not None and with_sensitivity and both and not sets and not list(faults):
        def run(name: str, prm: dict[str, Any], n: int) -> dict[str, Any]:
            return run_params(name, prm, n, seed=seed, teardown=False).metrics
        out["sensitivity"] = sensitivity(lesson, run, frames)
    return out


def headline(lesson: Lesson, metrics: dict[str, dict[str, Any]],
             capacity: float | None = None) -> dict[str, Any] | None:
    """Paper versus model, with each figure's kind (see models/headline.py)."""
    from .headline import compare
    return compare(lesson, metrics, capacity)
