"""Model cost as instructions per frame, counted by valgrind: the same figure whatever else the machine does.

    python tests/bench/instructions.py [--frames N] [--build pure|compiled|both] [--driver] [LESSON:VARIANT ... | all]

CPU time on a shared machine moves with the neighbours (cache, frequency, a
hypervisor's steal); callgrind counts the instructions the process executed,
which only the code and its inputs decide. Each figure is the difference of
two runs of the same process, with N frames and with none, over N: start-up,
imports and the Sim's construction cancel out. Frames/s on a quiet core is
roughly the machine's instructions per second over this figure, so it is the
number to watch between two versions of the model on a busy machine. The hash seed
is fixed (PYTHONHASHSEED=0): seeded per process, it moved pure figures by up to 2%.

`--driver` also counts the variant's reference driver of the driver API (the exercise's,
models/drivers, through models.driver.runtime.DriverSim) on the same scenario.

Needs valgrind (Debian's package). Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

RUN = """
import sys
import models.native
if models.native.PROBLEM:             # RXVIZ_MODEL=compiled on a stale or missing build runs pure: never count that
    sys.exit(models.native.PROBLEM)
from models.lesson import find_lesson
from models.sim import Sim
lesson = find_lesson(sys.argv[1])
sim = Sim(lesson.params_for(sys.argv[2]), faults=lesson.faults_for(sys.argv[2]))
sim.run_frames(2000)                  # the ring filled and the pools warm, as in a long run
start = sim.processed
sim.run_frames(int(sys.argv[3]))
print(sim.processed - start)          # the frames counted: fewer than asked when the scenario stalls
"""

DRIVER = """
import sys
import models.native
if models.native.PROBLEM:             # RXVIZ_MODEL=compiled on a stale or missing build runs pure: never count that
    sys.exit(models.native.PROBLEM)
from models.lesson import find_lesson
from models.driver.runtime import DriverSim
from viz.exercises.catalog import EXERCISES
ex = next(e for e in EXERCISES if (e.lesson, e.variant) == (sys.argv[1], sys.argv[2]))
driver = ex.solution_driver()()
sim = DriverSim(driver, find_lesson(sys.argv[1]).params_for(sys.argv[2]))
sim.run_frames(2000)
start = sim.processed
sim.run_frames(int(sys.argv[3]))
print(sim.processed - start)
"""


def count(lesson: str, variant: str, frames: int, build: str, code: str = RUN) -> tuple[int, int]:
    """Instructions the whole process executed, and the frames the second run_frames took."""
    # A fixed hash seed: with str hashing seeded per process, dict layouts (and with them the
    # instructions a lookup takes) move from run to run by up to 2% in pure Python.
    env = {**os.environ, "RXVIZ_MODEL": build, "PYTHONHASHSEED": "0"}
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code,
                        lesson, variant, str(frames)], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    refs = re.search(r"refs:\s+([\d,]+)", p.stderr)
    assert refs, p.stderr[-500:]
    return int(refs.group(1).replace(",", "")), int(p.stdout.split()[-1])


def targets(names: list[str]) -> list[tuple[str, str]]:
    if names and names != ["all"]:
        return [tuple(n.split(":", 1)) for n in names]      # type: ignore[misc]
    from models.lesson import all_lessons
    return [(lesson.id, v) for lesson in all_lessons() for v in lesson.variants]


def exercised_variants() -> set[tuple[str, str]]:
    """The lesson variants an exercise stands for: those with a reference driver to run."""
    sys.path.insert(0, str(ROOT))
    from viz.exercises.catalog import EXERCISES

    return {(e.lesson, e.variant) for e in EXERCISES}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=20_000)
    ap.add_argument("--build", choices=["pure", "compiled", "both"], default="both")
    ap.add_argument("--driver", action="store_true",
                    help="also count the variant's reference driver (the exercise's) on the driver API")
    ap.add_argument("names", nargs="*", default=["atlantic-page-pool:after"])
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("instructions.py: valgrind is not installed (apt-get install valgrind)")
    builds = ["pure", "compiled"] if args.build == "both" else [args.build]
    exercised = exercised_variants()
    for lesson, variant in targets(args.names):
        # a variant no exercise stands for has no reference driver: its strategy alone
        driven = args.driver and (lesson, variant) in exercised
        for label, code in (("", RUN), *([(" driver", DRIVER)] if driven else [])):
            row = []
            for build in builds:
                many, done = count(lesson, variant, args.frames, build, code)
                few, _ = count(lesson, variant, 0, build, code)
                row.append(f"{build} {(many - few) / done:>9,.0f}" if done else f"{build} stalls after the warm-up")
                if 0 < done < args.frames:
                    row[-1] += f" (over {done:,} frames: it stalls)"
            print(f"{lesson}:{variant + label:<18} instructions/frame: {'   '.join(row)}", flush=True)


if __name__ == "__main__":
    main()
