"""The README's paper-vs-model table says what `rxviz run LESSON --json` prints.

A newcomer reads the table before running anything; a refit that moves a figure regenerates the
golden outputs (tests/data/golden), so the table is checked against those: the model's before and
after, and each fitted value, to the digits the table writes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
UNITS = {"µs": 1e-3, "GB/s": 1.0, "": 1.0}       # the table's unit -> a factor on the golden value


def table_rows() -> dict[str, list[str]]:
    """The lesson rows of the README's paper-vs-model table, cell by cell."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text.index("| lesson | metric | paper before → after | model before → after |")
    rows = {}
    for line in text[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


ROWS = table_rows()


def same(written: str, value: float) -> bool:
    decimals = len(written.partition(".")[2])
    return float(written) == round(value, decimals)


def test_the_table_has_a_row_for_every_lesson_with_a_paper():
    with_paper = sorted(p.stem for p in GOLDEN.glob("*.json")
                        if (json.loads(p.read_text())["headline"] or {}).get("paper"))
    assert sorted(ROWS) == with_paper


@pytest.mark.parametrize("lesson", sorted(ROWS))
def test_the_model_figures_are_those_rxviz_run_prints(lesson):
    headline = json.loads((GOLDEN / f"{lesson}.json").read_text())["headline"]
    before, after = re.findall(r"[\d.]+", ROWS[lesson][3].split("(")[0])
    assert same(before, headline["model"]["before"]), (lesson, before, headline["model"])
    assert same(after, headline["model"]["after"]), (lesson, after, headline["model"])


@pytest.mark.parametrize("lesson", sorted(ROWS))
def test_each_fitted_value_is_the_fit(lesson):
    fits = {f["param"]: f["value"] for f in json.loads((GOLDEN / f"{lesson}.json").read_text())["headline"]["fitted"]}
    written = re.findall(r"`(\w+)` ([\d.]+) ?(µs|GB/s|)", ROWS[lesson][5])
    assert {name for name, _, _ in written} == set(fits), lesson
    for name, value, unit in written:
        assert same(value, fits[name] * UNITS[unit]), (lesson, name, value, fits[name])
