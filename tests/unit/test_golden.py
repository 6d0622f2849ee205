"""Every lesson's `rxviz run --json`, kept byte for byte across restructurings and in both builds.

CI runs this file on the pure-Python model and on the compiled one (models/native.py):
the same bytes from both.

The files in tests/data/golden were written by `rxviz run LESSON --json` before the model's
core was rebuilt around integer picoseconds and call ids; the rebuilt model reproduces every
counter, and every metric but a handful that moved in their last printed digit (a float
sum of nanoseconds against an exact integer one). They were rewritten once, from the
rebuilt model. A change that moves a figure on purpose regenerates them with
`rxviz run LESSON --json > tests/data/golden/LESSON.json` and says why in its commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shipped import shipped_lessons

from viz import cli

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
LESSONS = sorted(lesson.id for lesson in shipped_lessons())


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
