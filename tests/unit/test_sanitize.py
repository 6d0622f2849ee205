"""Lesson strings never carry terminal control sequences or bidi controls to an output.

tests/data/lessons/control-chars.yaml holds an OSC 0 title, an OSC 52
clipboard write, a screen clear, a C1 CSI, DEL and bidi controls (escaped and
raw). Each must be reported by `rxviz check` at its line and column, and
shown escaped wherever the lesson's text is printed.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from cli_message import messages

from models.lesson import load_lesson, load_lesson_text
from models.lesson.sanitize import clean, findings
from viz import cli

EVIL = Path(__file__).resolve().parents[1] / "data" / "lessons" / "control-chars.yaml"
# What must never reach an output: C0 but tab and newline, DEL, C1, bidi controls.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def strings(obj) -> list[str]:
    """Every string inside a lesson object, however deep."""
    if isinstance(obj, str):
        return [obj]
    if dataclasses.is_dataclass(obj):
        return [s for f in dataclasses.fields(obj) for s in strings(getattr(obj, f.name))]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in strings(k) + strings(v)]
    if isinstance(obj, (list, tuple)):
        return [s for x in obj for s in strings(x)]
    return []


def test_clean_shows_each_control_escaped_and_keeps_tabs_and_newlines():
    assert clean("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert clean("r\u202etl \x9b \x7f") == "r\\u202etl \\x9b \\x7f"
    assert clean("two\tcolumns\nand lines") == "two\tcolumns\nand lines"


def test_findings_place_escapes_at_their_backslash():
    src = 'x: "a\\e[2J b\\u202E c\\t d"'
    start = src.index('"')
    found = findings(src, start, len(src), double_quoted=True)
    assert [(i, c) for i, c, _ in found] == [(src.index("\\e"), "\x1b"), (src.index("\\u202E"), "\u202e")]


def test_every_string_of_the_lesson_is_clean():
    lesson = load_lesson(EVIL)
    texts = strings(lesson)
    assert texts and not [t for t in texts if RAW.search(t)]
    assert lesson.title == "Title \\x1b]0;pwned\\x07 here"
    assert "\\u202e" in lesson.steps[0].say


def test_check_reports_each_character_with_file_line_col(capsys):
    code = cli.main(["check", str(EVIL)])
    out = capsys.readouterr().out
    assert code == 1
    lines = messages(out)      # each laid out within 80 columns, joined back here
    # The file's line 6 is the title: `title: "Title \e]0;pwned\a here"`; ESC's backslash is column 15.
    assert f"{EVIL}:6:15: title: control character U+001B in lesson text; it is shown as \\x1b" in lines
    assert f"{EVIL}:7:12: driver: bidi control U+202E in lesson text; it is shown as \\u202e" in lines
    # The raw override in the narration (line 16), and DEL and C1 in the summary.
    assert any(line.startswith(f"{EVIL}:16:37: steps[0].say: bidi control U+202E") for line in lines)
    assert any("U+009B" in line for line in lines) and any("U+007F" in line for line in lines)
    assert len([line for line in lines if "in lesson text" in line]) == 14
    assert not RAW.search(out)


def test_a_clean_lesson_has_no_problems():
    lesson = load_lesson_text("id: x1\ntitle: T\ndriver: d\nsummary: s\nscenario: {}\nvariants: {a: {}}\n"
                              "steps: [{title: t, say: \"tab\\there\"}]\n")
    assert lesson.problems == () and lesson.steps[0].say == "tab\there"


@pytest.mark.parametrize("argv", [["run", "--frames", "50"], ["run", "--frames", "20", "--json"],
                                  ["trace", "--frames", "2"]])
def test_run_and_trace_print_the_text_escaped(capsys, argv):
    code = cli.main([argv[0], str(EVIL), *argv[1:]])
    out, err = capsys.readouterr()
    assert code == 0
    assert not RAW.search(out) and not RAW.search(err)
    assert "note: 14 problem(s) in the text of" in " ".join(err.split())


async def test_the_player_shows_the_text_escaped():
    from viz.app import make_app, settle

    app = make_app(lesson=str(EVIL), step=1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        svg = app.export_screenshot()
    assert not RAW.search(svg)
    assert "Raw \\u202e override" in svg.replace("&#160;", " ")      # the step's title, escaped
