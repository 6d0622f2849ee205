"""Every lesson's `rxviz run --json`, kept byte for byte across restructurings and in both builds.

CI runs this file on the pure-Python model and on the compiled one (models/native.py):
the same bytes from both.

The files in tests/data/golden were written by `rxviz run LESSON --json` before the model's
core was rebuilt around integer picoseconds and call ids; the rebuilt model reproduces every
counter, and every metric but a handful that moved in their last printed digit (a float
sum of nanoseconds against an exact integer one). They were rewritten once, from the
rebuilt model. A change that moves a figure on purpose regenerates them with
`rxviz run LESSON --json > tests/data/golden/LESSON.json` and says why in its commit.

tests/data/golden/trace/LESSON.VARIANT.jsonl.gz hold `rxviz trace LESSON --variant VARIANT
--frames 200 --json`, every kernel call with its arguments and transitions, written by the model's
RX strategy before the variant was switched to the model's driver of the driver API (`runs:`):
the driver must make the very calls the strategy made (gzip -n: the bytes carry no date).
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from shipped import shipped_lesson, shipped_lessons

from viz import cli
from viz.exercises.catalog import EXERCISES

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
LESSONS = sorted(lesson.id for lesson in shipped_lessons())
TRACES = sorted(p.name.removesuffix(".jsonl.gz") for p in (GOLDEN / "trace").glob("*.jsonl.gz"))
TRACE_FRAMES = 200


def test_every_lesson_has_a_golden_file():
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == LESSONS


@pytest.mark.slow
@pytest.mark.golden
@pytest.mark.parametrize("lesson_id", LESSONS)
def test_a_lesson_runs_to_its_golden_output(lesson_id, capsys):
    assert cli.main(["run", lesson_id, "--json"]) == 0
    out = capsys.readouterr().out
    want_text = (GOLDEN / f"{lesson_id}.json").read_text()
    got, want = json.loads(out), json.loads(want_text)
    for name in want["variants"]:             # the counters first: the likeliest to move, the clearest to read
        assert got["variants"][name]["counters"] == want["variants"][name]["counters"], name
    assert got == want
    assert out == want_text, "the same figures, printed differently: the bytes must not change either"


def test_the_variants_that_run_a_model_driver_have_a_trace_golden():
    runs = sorted(f"{lesson.id}.{v}" for lesson in shipped_lessons() for v in lesson.runs)
    assert set(runs) <= set(TRACES)


def _running(tmp_path: Path, lesson_id: str, variant: str, driver: str) -> str:
    """The shipped lesson as a file whose `variant` runs the model's `driver` (`runs:`)."""
    text = Path(str(shipped_lesson(lesson_id).path)).read_text()
    line = re.compile(rf"^(  {re.escape(variant)}: \{{)(.*)(\}})$", re.M)
    assert len(line.findall(text)) == 1, f"{lesson_id}: one flow-style line for variant {variant}"
    path = tmp_path / f"{lesson_id}.yaml"
    # `clean: {}` takes `runs:` as its only key, `after: {dma_mask: 36}` after the others
    path.write_text(line.sub(lambda m: f"{m[1]}{m[2] + ', ' if m[2] else ''}runs: {driver}{m[3]}", text))
    return str(path)


# each trace golden, as the lesson runs it and, where an exercise's reference driver stands for that
# variant, run by that driver: the driver must make the very calls the strategy makes
TRACE_RUNS = [(name, "") for name in TRACES] + [
    (f"{ex.lesson}.{ex.variant}", ex.solution) for ex in EXERCISES if f"{ex.lesson}.{ex.variant}" in TRACES]


@pytest.mark.slow
@pytest.mark.golden
@pytest.mark.parametrize("name,driver", TRACE_RUNS, ids=[f"{n}-{d or 'as-shipped'}" for n, d in TRACE_RUNS])
def test_a_variant_traces_to_its_golden_calls(name, driver, tmp_path, capsys):
    lesson_id, variant = name.split(".")
    lesson = _running(tmp_path, lesson_id, variant, driver) if driver else lesson_id
    assert cli.main(["trace", lesson, "--variant", variant, "--frames", str(TRACE_FRAMES), "--json"]) == 0
    out = capsys.readouterr().out
    want = gzip.decompress((GOLDEN / "trace" / f"{name}.jsonl.gz").read_bytes()).decode()
    if out != want:
        got_lines, want_lines = out.splitlines(), want.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(got_lines, want_lines, strict=False)) if a != b),
                     min(len(got_lines), len(want_lines)))
        got_line = got_lines[first] if first < len(got_lines) else "(none)"
        want_line = want_lines[first] if first < len(want_lines) else "(none)"
        pytest.fail(f"line {first + 1} differs:\n got  {got_line}\n want {want_line}")
