"""Model speed as issue 10 measures it: frames/s by CPU time, whole process, checker on.

    python tests/bench/frames_per_s.py [--frames N] [--repeat R] [--build B] [--driver] [LESSON:VARIANT ... | all]

Each run is a fresh process (so the figure includes start-up and the Sim's construction),
timed with time.process_time(): CPU time, so other load on a shared machine moves it
little. Prints the median of R runs per variant; `all` runs every lesson variant.
`--build pure|compiled|both` picks the model's build (models/native.py; default:
what runs here); with both, the runs alternate, so a busy neighbour weighs on
both alike. tests/bench/instructions.py gives a figure that load does not move.
`--driver` also runs each variant's reference driver of the driver API (models/drivers,
through models.driver.runtime.DriverSim) on the same scenario, for the one-copy question of
issue 20: what writing the model's strategies with the driver API would cost.
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ONE = """
import sys
import models.native
if models.native.PROBLEM:             # RXVIZ_MODEL=compiled on a stale or missing build runs pure: never count that
    sys.exit(models.native.PROBLEM)
import time
from models.lesson import find_lesson
from models.sim import Sim
lesson = find_lesson(sys.argv[1])
sim = Sim(lesson.params_for(sys.argv[2]), faults=lesson.faults_for(sys.argv[2]))
sim.run_frames(int(sys.argv[3]))
print(sim.processed, time.process_time())
"""

DRIVER = """
import sys
import models.native
if models.native.PROBLEM:             # RXVIZ_MODEL=compiled on a stale or missing build runs pure: never count that
    sys.exit(models.native.PROBLEM)
import time
from models.lesson import find_lesson
from models.driver.runtime import DriverSim
from viz.exercises.catalog import EXERCISES
ex = next(e for e in EXERCISES if (e.lesson, e.variant) == (sys.argv[1], sys.argv[2]))
driver = ex.solution_driver()()
sim = DriverSim(driver, find_lesson(sys.argv[1]).params_for(sys.argv[2]))
sim.run_frames(int(sys.argv[3]))
print(sim.processed, time.process_time())
"""


def targets(names: list[str]) -> list[tuple[str, str]]:
    if names and names != ["all"]:
        return [tuple(n.split(":", 1)) for n in names]      # type: ignore[misc]
    sys.path.insert(0, str(ROOT))
    from models.lesson import all_lessons
    return [(lesson.id, v) for lesson in all_lessons() for v in lesson.variants]


def exercised_variants() -> set[tuple[str, str]]:
    """The lesson variants an exercise stands for: those with a reference driver to run."""
    sys.path.insert(0, str(ROOT))
    from viz.exercises.catalog import EXERCISES

    return {(e.lesson, e.variant) for e in EXERCISES}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--build", choices=["pure", "compiled", "both", ""], default="")
    ap.add_argument("--driver", action="store_true",
                    help="also run the variant's reference driver (the exercise's) with the driver API")
    ap.add_argument("names", nargs="*", default=["atlantic-page-pool:after"])
    args = ap.parse_args()
    builds = ["pure", "compiled"] if args.build == "both" else [args.build]
    exercised = exercised_variants()
    for lesson, variant in targets(args.names):
        # a variant no exercise stands for has no reference driver: its strategy alone
        driven = args.driver and (lesson, variant) in exercised
        for label, code in (("", ONE), *([(" driver", DRIVER)] if driven else [])):
            rates: dict[str, list[float]] = {b: [] for b in builds}
            done = 0
            for _ in range(args.repeat):
                for build in builds:
                    env = {**os.environ, "RXVIZ_MODEL": build} if build else None
                    out = subprocess.run([sys.executable, "-c", code, lesson, variant, str(args.frames)], cwd=ROOT,
                                         env=env, capture_output=True, text=True, check=True).stdout.split()
                    done, cpu = int(out[0]), float(out[1])
                    rates[build].append(done / cpu)
            for build, got in rates.items():
                print(f"{lesson}:{variant + label:<16} {build or 'as built':<9} {statistics.median(got):>10,.0f} "
                      f"frames/s  ({done} frames; runs {', '.join(f'{r:,.0f}' for r in got)})", flush=True)


if __name__ == "__main__":
    main()
