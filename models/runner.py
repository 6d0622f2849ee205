"""Running lessons headless: variants, the headline against the paper, replay and checks.

This is what `rxviz run`, `rxviz check`, `rxviz trace`, the tests and the TUI
share. A lesson says what to run; everything reported here comes out of the
simulation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import params as P
from .drivers import variant_sim
from .lesson.schema import Lesson
from .scenario_checks import ScenarioError
from .sim import FAULTS, Sim

if TYPE_CHECKING:  # pragma: no cover
    from .trace import Violation

WARMUP_FRACTION = 0.1
MAX_LISTED = 20          # violations and warnings listed per variant; `violation_counts` has them all
PROGRESS_CHUNK = 5_000   # frames between two progress reports (about 0.1 s of model time)

# progress(frames done so far, frames in all): called between chunks, never inside the model
Progress = Callable[[int, int], None]


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
    warning_counts: dict[str, int] = field(default_factory=dict)
    page_pool_stats: dict[str, int] | None = None    # struct page_pool_stats, for page_pool variants
    fault_hits: dict[str, int] = field(default_factory=dict)   # injected fault -> times it changed the driver
    dma_debug: dict[str, Any] = field(default_factory=dict)    # /sys/kernel/debug/dma-api: settings, counts


def variant_params(lesson: Lesson, variant: str, sets: dict[str, Any] | None = None) -> dict[str, Any]:
    prm = lesson.params_for(variant)
    prm.update(sets or {})
    return prm


def check_variants(lesson: Lesson, names: Iterable[str], sets: dict[str, Any] | None = None) -> None:
    """Refuse, before anything runs, a variant the kernel or the hardware could not have."""
    for n in names:
        problems = P.check(P.full(variant_params(lesson, n, sets)))
        if problems:
            raise ScenarioError(problems, f"{lesson.id}, variant {n}")


def warmup(frames: int) -> int:
    return max(1, int(frames * WARMUP_FRACTION))


def _run_frames(sim: Sim, n: int, tick: Callable[[int], None] | None) -> None:
    """sim.run_frames(n), in chunks when someone watches (chunked runs give the same result)."""
    if tick is None:
        sim.run_frames(n)
        return
    done = 0
    while done < n:
        chunk = min(PROGRESS_CHUNK, n - done)
        sim.run_frames(chunk)
        done += chunk
        tick(chunk)


def run_params(name: str, prm: dict[str, Any], frames: int, *, seed: int = 0,
               faults: Iterable[str] = (), teardown: bool = True,
               tick: Callable[[int], None] | None = None, runs: str = "") -> VariantResult:
    """One variant: a warm-up, `frames` measured frames, then teardown. `tick(n)` after every n frames.
    `runs`: the model's driver the variant runs (Lesson.runs), else its strategy."""
    sim = variant_sim(prm, runs=runs, seed=seed, faults=faults)
    _run_frames(sim, warmup(frames), tick)
    sim.mark()
    _run_frames(sim, frames, tick)
    metrics = sim.metrics()
    counters = sim.rec.counters()
    pp_stats = sim.pool.stats if sim.pool is not None else None      # a fresh dict each read
    if teardown:
        sim.teardown()
    return VariantResult(
        name=name,
        params={k: _jsonable(v) for k, v in prm.items()},
        counters=counters,
        metrics=metrics,
        violations=_listed(sim.rec.violations),
        warnings=_listed(sim.rec.warnings),
        violation_counts=dict(sim.rec.violations.counts),
        warning_counts=dict(sim.rec.warnings.counts),
        accounting=sim.accounting(),
        page_pool_stats=pp_stats,
        fault_hits=dict(sim.fault_hits),
        dma_debug=sim.dma.debug_state(),
    )


def _listed(items: list[Violation]) -> list[dict[str, Any]]:
    """The first MAX_LISTED, and the first of each other name: every name keeps its first message."""
    out = list(items[:MAX_LISTED])
    seen = {v.name for v in out}
    for v in items[MAX_LISTED:]:
        if v.name not in seen:
            seen.add(v.name)
            out.append(v)
    return [_report(v) for v in out]


def _report(v: Violation) -> dict[str, Any]:
    """One report; CONFIG_DMA_API_DEBUG's own errors say whether the kernel printed them or only counted them."""
    out: dict[str, Any] = {"name": v.name, "message": v.message, "t_ns": v.t_ns}
    if v.printed is not None:
        out["dma_debug"] = "printed" if v.printed else "counted"
    return out


def _jsonable(v: Any) -> Any:
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


def scenario_changes(lesson: Lesson, sets: dict[str, Any], faults: Iterable[str] = ()) -> list[str]:
    """What makes this run differ from what the paper measured: `--set` names that change a value
    of the headline pair (a value equal to the lesson's is no change), then `--inject` faults."""
    pair = [v for v in (lesson.headline.before, lesson.headline.after) if v]
    out = []
    for key, value in sets.items():
        if any(lesson.params_for(v).get(key, P.PARAMS[key].default) != value for v in pair):
            out.append(key)
    return out + [f"fault {f}" for f in faults]


def run_lesson(lesson: Lesson, *, variants: Iterable[str] | None = None, frames: int | None = None,
               seed: int = 0, sets: dict[str, Any] | None = None, faults: Iterable[str] = (),
               progress: Progress | None = None, sensitivity: bool = True) -> dict[str, Any]:
    """The `rxviz run --json` object. `progress(done, total)` is told the frames run so far."""
    names = list(variants) if variants else list(lesson.variants)
    frames = frames or lesson.headline.frames
    faults = list(faults)
    check_variants(lesson, names, sets)
    total, done = len(names) * (warmup(frames) + frames), 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    results = {n: run_params(n, variant_params(lesson, n, sets), frames, seed=seed,
                             faults=lesson.faults_for(n, faults),
                             tick=tick if progress else None, runs=lesson.runs.get(n, "")) for n in names}
    return {
        "lesson": lesson.id,
        "frames": frames,
        "seed": seed,
        "variants": {n: _variant_json(lesson, r) for n, r in results.items()},
        "headline": _headline(lesson, results, frames, seed, sets, faults, sensitivity),
    }


def _headline(lesson: Lesson, results: dict[str, VariantResult], frames: int, seed: int,
              sets: dict[str, Any] | None, faults: list[str], with_sensitivity: bool) -> dict[str, Any] | None:
    """Paper versus model for this run; the sensitivity only for the lesson's own scenario."""
    from .paper_vs_model import capacity_mbps, sensitivity
    from .platform import make_platform
    a = lesson.headline.after
    cap = None
    if a:
        prm = P.full(variant_params(lesson, a, sets))
        cap = capacity_mbps(prm, make_platform(prm))
    changed = scenario_changes(lesson, sets or {}, faults)
    out = headline(lesson, {n: r.metrics for n, r in results.items()}, changed, cap)
    both = {lesson.headline.before, lesson.headline.after} <= set(results)
    if out is not None and with_sensitivity and both and not changed:
        def run(name: str, prm: dict[str, Any], n: int) -> dict[str, Any]:
            return run_params(name, prm, n, seed=seed, teardown=False, runs=lesson.runs.get(name, "")).metrics
        rows = out["sensitivity"] = sensitivity(lesson, run, frames)
        key = out.get("compare") if out.get("compare") in ("change", "ratio") else "after"
        for row in rows:
            if row["frames"] == frames:        # measured over the same frames: the headline's own figure is x1
                row["nominal"] = out["model"].get(key)
    return out


def _variant_json(lesson: Lesson, r: VariantResult) -> dict[str, Any]:
    """One variant of `rxviz run --json`; a violation the lesson expects of it is marked as such."""
    expect = lesson.expect.get(r.name, ())
    out: dict[str, Any] = {
        "params": r.params, "counters": r.counters, "metrics": r.metrics,
        "expect": list(expect),
        "violations": [{**v, "expected": v["name"] in expect} for v in r.violations],
        # the list is capped (MAX_LISTED, plus the first of each other name): say so, and how many in all
        "violations_total": sum(r.violation_counts.values()),
        "violations_truncated": len(r.violations) < sum(r.violation_counts.values()),
        "violation_counts": r.violation_counts,
        "warnings": r.warnings, "warning_counts": r.warning_counts, "accounting": r.accounting,
        # struct page_pool_stats by the kernel's names; null when the variant has no page_pool,
        # so every variant has the same keys and a reader need not guess why one is missing
        "page_pool_stats": r.page_pool_stats,
        # the faults this variant ran with (its `inject`, then --inject) and how often each changed
        # what the driver did; one that never did has no effect on this variant
        "faults": r.fault_hits,
        "faults_without_effect": [f for f, n in r.fault_hits.items() if n == 0],
        # CONFIG_DMA_API_DEBUG: every error it found counted, the first num_errors printed (all with all_errors)
        "dma_debug": r.dma_debug}
    return out


def unexpected(result: dict[str, Any]) -> dict[str, dict[str, int]]:
    """variant -> {violation: times} for the violations no `expect` of the lesson covers."""
    out: dict[str, dict[str, int]] = {}
    for name, r in result["variants"].items():
        bad = {v: n for v, n in r["violation_counts"].items() if v not in r["expect"]}
        if bad:
            out[name] = bad
    return out


def headline(lesson: Lesson, metrics: dict[str, dict[str, Any]], changed: list[str] | None = None,
             capacity: float | None = None) -> dict[str, Any] | None:
    """Paper versus model, with each figure's kind (models/paper_vs_model.py).

    With a changed scenario (`changed` names what changed) the paper's figures
    describe another machine or driver: the model's are given, nothing is compared.
    """
    from .paper_vs_model import compare
    return compare(lesson, metrics, capacity, changed)
