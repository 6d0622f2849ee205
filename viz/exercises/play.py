"""`rxviz play LESSON --driver DIR/driver.py`: watch your own driver beside the lesson's.

Your driver becomes the lesson's variant `your-driver` (models.driver.lesson):
every view, `]` and `[`, `o` and compare work on it as on the lesson's own.

Safety. Unlike `rxviz exercise check`, the player runs your code in its own
process: it has to, to show your objects step by step. You asked for it, on
your machine, with your file; a lesson (YAML) never supplies code. Before the
player starts, the driver is tried in a child process under the same CPU and
memory limits as `exercise check` (PREFLIGHT_FRAMES frames, a snapshot round
trip, the unbind): an exception, an endless loop or a driver whose state
cannot be snapshotted is one clear line there, and the player never starts.
An exception later (a step that runs your driver further, the sandbox) is a
notification with your own traceback lines, and the player stays usable.

The module is imported under a stable name (child.MODULE), registered in
sys.modules: the player's snapshots pickle your Driver by that name.
"""

from __future__ import annotations

import json
import resource
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.driver.lesson import LEARNER, DriverLesson, with_driver
from models.lesson.sanitize import shown
from models.lesson.schema import Lesson

from .catalog import BY_ID, EXERCISES
from .child import MODULE, load, own_traceback

PREFLIGHT_FRAMES = 2000
PREFLIGHT_CPU_S = 10          # the reference drivers need a tenth of a second for these frames
PREFLIGHT_MEM_MB = 1536
MARKER = ".rxviz-exercise"


class DriverFailed(Exception):
    """The learner's driver failed: `line` is one line for a CLI or a status bar; `text` adds their frames."""

    def __init__(self, line: str, text: str = "") -> None:
        super().__init__(line)
        # their words, drawn as text: any control character in a message of theirs is shown escaped
        self.line = shown(" ".join(line.split()))
        self.text = shown(text) if text else self.line


def base_variant(lesson: Lesson, path: Path) -> str:
    """The lesson's variant your driver stands in for: the exercise's you started in that directory,
    else this lesson's exercise's, else the lesson's headline `after`, else its first."""
    try:
        ex = BY_ID.get((path.parent / MARKER).read_text(encoding="utf-8").strip())
    except OSError:
        ex = None
    if ex is None or ex.lesson != lesson.id:
        ex = next((e for e in EXERCISES if e.lesson == lesson.id), None)
    if ex is not None:
        return ex.variant
    return lesson.headline.after or next(iter(lesson.variants))


def summary(exc: BaseException, path: str) -> str:
    """One line: where in the learner's file it failed (their deepest frame) and what."""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())
    mine = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    if not mine:
        return f"your driver: {what}"
    f = mine[-1]
    return f"your driver, {Path(path).name}:{f.lineno} in {f.name}: {what}"


def explain(exc: BaseException, path: str) -> DriverFailed | None:
    """An exception raised while the player ran the model, as the learner's failure, or None when it
    did not pass through their file (then it is the model's own, reported as such)."""
    if isinstance(exc, DriverFailed):
        return exc
    if not any(f.filename == path for f in traceback.extract_tb(exc.__traceback__)):
        return None
    return DriverFailed(summary(exc, path), "Your driver raised an exception:\n" + own_traceback(exc, path))


@dataclass(frozen=True)
class PlayLesson(DriverLesson):
    """The lesson with the learner's driver, and how to tell the learner's failures from the model's."""

    driver_path: str = ""

    def explain(self, exc: BaseException) -> DriverFailed | None:
        """The player's hook (PlayerScreen._on_error): a failure of the learner's code, or None."""
        return explain(exc, self.driver_path)


def preflight(lesson: Lesson, base: str, path: Path) -> None:
    """Try the driver in a child process under limits; DriverFailed if it fails there."""
    cmd = [sys.executable, "-m", "viz.exercises.play", str(lesson.path or lesson.id), base, str(path),
           str(PREFLIGHT_CPU_S)]
    from .grade import spawn
    r = spawn(cmd, PREFLIGHT_CPU_S)
    if "killed" in r:
        raise DriverFailed(f"your driver ({path.name}): {r['killed']}")
    if "error" in r:
        raise DriverFailed(r["error"])


def lesson_with_driver(lesson: Lesson, driver: str, check: bool = True) -> PlayLesson:
    """`lesson` with the learner's driver file as its variant LEARNER; DriverFailed (one line) if it
    cannot be loaded or fails its first frames (`check`: tried in a child process first)."""
    path = Path(driver).expanduser()
    if path.is_dir():
        path = path / "driver.py"
    if not path.is_file():
        raise DriverFailed(f"{driver}: no such file (a driver.py of `rxviz exercise start`)")
    path = path.resolve()
    base = base_variant(lesson, path)
    if check:
        preflight(lesson, base, path)
    cls = _load(str(path))
    out = with_driver(lesson, cls, base)
    return PlayLesson(**{f: getattr(out, f) for f in out.__dataclass_fields__}, driver_path=str(path))


def _load(path: str) -> Any:
    try:
        return load(path)
    except Exception as exc:           # the learner's mistake, in one line
        raise DriverFailed(summary(exc, path)) from None


# -- the child process of the preflight --------------------------------------------------------
def _child(argv: list[str]) -> dict[str, Any]:
    from models.driver.runtime import DriverSim
    from models.lesson import find_lesson
    from models.snapshot import freeze, thaw
    lesson_ref, base, path, cpu = argv[0], argv[1], argv[2], int(argv[3])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))
    resource.setrlimit(resource.RLIMIT_AS, (PREFLIGHT_MEM_MB << 20, PREFLIGHT_MEM_MB << 20))
    lesson = find_lesson(lesson_ref)
    try:
        cls = load(path)
        sim = DriverSim(cls(), lesson.params_for(base), trace=400)
        sim.run_frames(PREFLIGHT_FRAMES // 2)
    except ValueError as exc:
        if not any(f.filename == path for f in traceback.extract_tb(exc.__traceback__)):
            return {"error": f"lesson {lesson.id}, variant {base}: cannot run a driver of your own: {exc}"}
        return {"error": summary(exc, path)}
    except Exception as exc:
        return {"error": summary(exc, path)}
    try:
        sim = thaw(freeze(sim))
    except Exception as exc:
        return {"error": f"your driver ({Path(path).name}): its state cannot be snapshotted for stepping back "
                         f"({' '.join(str(exc).split())}): keep plain values (numbers, lists, dicts, the API's "
                         f"objects) in self, not generators, lambdas or open files"}
    try:
        sim.run_frames(PREFLIGHT_FRAMES // 2)
        sim.teardown()
    except Exception as exc:
        return {"error": summary(exc, path)}
    return {"ok": True}


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1:])))
    sys.exit(0)


__all__ = ["LEARNER", "MODULE", "DriverFailed", "PlayLesson", "lesson_with_driver"]
