"""The hostile-lesson corpus (tests/data/hostile) through every command of the CLI.

markup.yaml tries Textual/Rich markup in every string, entities.yaml hides bidi and
zero-width characters behind Markdown entities (and raw HTML, a remote image, code-span
breakouts), numbers.yaml asks for numbers no float holds and for unbounded work. Every
command must take them without a traceback or an exit 70, print their text as written
(markup as brackets, every control, bidi and invisible character as its escape), and
`rxviz check` must say where each problem is. The player's side is tests/ui/test_hostile_ui.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_message import messages

from models.lesson import LessonError, load_lesson
from models.lesson import loader as lesson_loader
from viz import cli

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
MARKUP, ENTITIES, NUMBERS = (str(HOSTILE / f"{n}.yaml") for n in ("markup", "entities", "numbers"))
# What must never reach an output: C0 but tab and newline, DEL, C1, bidi controls, zero-width characters.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, err
    assert not RAW.search(out) and not RAW.search(err), (out + err)[:2000]
    return code, out, err


@pytest.fixture
def hostile_dir(monkeypatch):
    """The lessons directory is the corpus (for `rxviz list`, `rxviz` alone, `check` without files)."""
    monkeypatch.setattr(lesson_loader, "lessons_dir", lambda: HOSTILE)


# -- check: every problem, where it is --------------------------------------------------
def test_check_finds_each_markup_tag_at_its_line_and_column(capsys):
    code, out, _ = run(capsys, "check", MARKUP)
    said = messages(out)
    assert code == 1 and said[0].startswith("FAIL  markup  (")
    assert f"{MARKUP}:7:9: title: [@click=app.screenshot('victim.svg','.')] is markup (a click action) to " \
           "Textual and Rich; lesson text is shown as written" in said
    assert any(m.startswith(f"{MARKUP}:7:") and "[link='https://example.com/x'] is markup (a link)" in m for m in said)
    assert any(m.startswith(f"{MARKUP}:8:10: driver: [b] is markup (a style)") for m in said)
    assert any("steps[1].title: [/] is markup (a closing tag)" in m for m in said)
    assert not any("pseudocode" in m for m in said)         # code: buf[i] is an index, not markup


def test_check_finds_each_entity_and_invisible_character(capsys):
    code, out, _ = run(capsys, "check", ENTITIES)
    said = messages(out)
    assert code == 1 and said[0].startswith("FAIL  entities  (")
    assert f"{ENTITIES}:7:13: title: entity &#8203; stands for invisible character U+200B; it is shown as " \
           "\\u200b" in said
    assert f"{ENTITIES}:7:25: title: invisible character U+200B in lesson text; it is shown as \\u200b" in said
    assert f"{ENTITIES}:9:19: summary: entity &#x202e; stands for bidi control U+202E; it is shown as " \
           "\\u202e" in said
    assert any("steps[0].say: entity &ZeroWidthSpace;" in m for m in said)


def test_check_reports_every_unbounded_number_at_once(capsys):
    code, out, _ = run(capsys, "check", NUMBERS)
    said = messages(out)
    assert code == 1 and said[0] == "FAIL  numbers  (8 problems)"
    where = [m.split(": ", 2)[1] for m in said[1:]]
    assert where == ["paper.before", "paper.after", "headline.frames", "steps[0].run.count", "steps[0].run.limit",
                     "steps[1].run.frames", "steps[2].run.wait", "steps[2].code"]
    assert all(re.match(rf"{re.escape(NUMBERS)}:\d+:\d+: ", m) for m in said[1:])
    assert "got a 385-digit number" in said[1]


def test_a_file_with_many_problems_is_reported_up_to_the_limit(tmp_path):
    body = "id: many\ntitle: t\ndriver: d\nsummary: s\nscenario: {}\nvariants: {a: {}}\nsteps:\n" + "".join(
        f"  - {{title: t, say: s, run: {{frames: {10**9 + i}}}}}\n" for i in range(30))
    path = tmp_path / "many.yaml"
    path.write_text(body)
    with pytest.raises(LessonError) as info:
        load_lesson(path)
    assert len(info.value.errors) == 20 and info.value.dropped
    assert [e.line for e in info.value.errors] == list(range(8, 28))


# -- every other command --------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["run", "--frames", "40"], ["run", "--frames", "40", "--json"],
                                  ["trace", "--frames", "3"], ["trace", "--frames", "3", "--json"]])
@pytest.mark.parametrize("lesson", [MARKUP, ENTITIES])
def test_run_and_trace_show_the_text_as_written(capsys, lesson, argv):
    code, out, err = run(capsys, argv[0], lesson, *argv[1:])
    assert code == 0
    assert "problem(s) in the text of" in " ".join(err.split())
    if lesson == MARKUP and argv == ["run", "--frames", "40"]:
        assert out.startswith("markup: [@click=app.screenshot('victim.svg','.')]The ring[/]")


def test_run_json_carries_the_text_escaped(capsys):
    code, out, _ = run(capsys, "run", ENTITIES, "--frames", "20", "--json")
    assert code == 0 and json.loads(out)["lesson"] == "entities"


@pytest.mark.parametrize("command", [["run"], ["trace"], ["sweep", "--set", "ram=2GiB,4GiB"], ["screenshot"],
                                     ["export"], ["play"], ["serve"]])
def test_a_lesson_asking_for_unbounded_work_is_refused_in_one_line(capsys, command):
    code, out, err = run(capsys, command[0], NUMBERS, *command[1:])
    assert code == 2 and out == ""
    (said,) = messages(err)
    assert said.startswith(f"rxviz: {NUMBERS}:18:11: paper.before: expected a number of at most")
    assert said.endswith(f"and 7 more problem(s): `rxviz check {NUMBERS}` lists them")


def test_list_and_the_usage_screen_show_titles_as_written(capsys, hostile_dir):
    code, out, err = run(capsys, "list")
    assert code == 1                                    # numbers.yaml cannot be loaded: said, the rest listed
    assert "[@click=app.screenshot(" in out and "Zero\\u200bwidth\\u200b" in out
    assert "numbers.yaml:18:11" in err
    code, out, _ = run(capsys, "list", "--json")
    titles = [x["title"] for x in json.loads(out)]
    assert "Zero\\u200bwidth\\u200b title" in titles
    code, out, _ = run(capsys)                          # `rxviz` alone, piped: the usage screen
    assert code == 0 and "[@click=app.screenshot" in out


def test_sweep_of_a_hostile_lesson(capsys):
    code, out, _ = run(capsys, "sweep", MARKUP, "--set", "ram=2GiB,4GiB", "--frames", "200", "--workers", "1")
    assert code == 0 and out.startswith("markup: throughput_mbps against ram")


@pytest.mark.slow
def test_stats_with_a_hostile_lesson_is_one_line(capsys, tmp_path):
    dump = tmp_path / "dump.txt"
    dump.write_text("rx_pp_alloc_fast: 100\nrx_pp_alloc_slow: 2\nrx_pp_recycle_cached: 90\n")
    code, _, err = run(capsys, "stats", str(dump), "--lesson", MARKUP)
    assert code in (0, 2) and (code == 0 or len(messages(err)) >= 1)


def test_play_and_serve_take_a_hostile_lesson_as_it_is(capsys, monkeypatch):
    from viz import serve
    code, _, err = run(capsys, "play", MARKUP)          # no terminal here: refused in one line, not crashed
    assert code == 2 and "play needs a terminal" in err
    calls = []
    monkeypatch.setattr(serve, "serve", lambda *a, **kw: calls.append(a))
    code, _, _ = run(capsys, "serve", ENTITIES)
    assert code == 0 and calls == [(ENTITIES, "127.0.0.1", 8000, None)]


def test_notes_of_a_hostile_lesson_are_printed_escaped(capsys, tmp_path, monkeypatch):
    from viz import notes
    monkeypatch.setenv("RXVIZ_RUNTIME_DIR", str(tmp_path / "rt"))
    publisher = notes.NotesPublisher("hostile-1")
    for path, shown in ((MARKUP, "[/] notes [@click=app.quit]x[/]"),
                        (ENTITIES, "Notes \\u202ereversed and zero\\u200bwidth")):
        publisher.publish(load_lesson(path), 1)
        try:
            code, out, _ = run(capsys, "notes", "--once")
        finally:
            publisher.close()
        assert code == 0 and shown in out


def test_paths_in_messages_are_escaped(capsys, tmp_path):
    evil = tmp_path / "a\x1b]0;pwned\x07\u202e.yaml"
    code, _, err = run(capsys, "run", str(evil))
    assert code == 2 and "a\\x1b]0;pwned\\x07\\u202e.yaml" in err
    code, out, err = run(capsys, "check", str(evil))
    assert code == 2 and "\\x1b" in err


@pytest.mark.slow
def test_screenshot_of_a_hostile_lesson(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "screenshot", MARKUP, "--step", "1", "-o", "m.svg")
    assert code == 0 and out == "m.svg\n"
    svg = (tmp_path / "m.svg").read_text()
    assert not RAW.search(svg) and "[@click=app.screenshot(&#x27;victim.svg" in svg.replace("&#160;", " ")
    code, _, _ = run(capsys, "screenshot", ENTITIES, "--step", "1", "-o", "e.svg")
    svg = (tmp_path / "e.svg").read_text()
    assert code == 0 and not RAW.search(svg) and "\\u202etxt.exe" in svg.replace("&#160;", " ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.svg", "m.svg"]      # no victim.svg, no .part


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_export_of_a_hostile_lesson_carries_nothing_that_acts(capsys, tmp_path, fmt):
    out_dir = tmp_path / "h"
    code, _, _ = run(capsys, "export", ENTITIES, "--format", fmt, "-o", str(out_dir))
    assert code == 0
    page = (out_dir / f"index.{fmt}").read_text()
    assert not RAW.search(page)
    assert "\\u202etxt.exe" in page.replace("\\\\", "\\")
    if fmt == "md":
        # Read by a renderer that lets raw HTML through (as GitHub's does, mostly): the lesson's HTML is
        # text, its image is its alt text, and the message-id's backticks stay inside their code span.
        from markdown_it import MarkdownIt
        html = MarkdownIt("commonmark").render(page)
        assert "<script" not in html and "<img src=\"https://" not in html and "<img src=https" not in html
        assert "<code>&lt;id`&lt;/code&gt;&lt;img src=https://example.com/x.png&gt;`@example.org&gt;</code>" in html
        assert re.findall(r'<img src="([^"]+)"', html) == ["step-00.svg", "step-01.svg"]
    else:
        assert 'http-equiv="Content-Security-Policy"' in page and "default-src 'none'" in page
        assert re.findall(r'<img src="([^"]+)"', page) == ["step-00.svg", "step-01.svg"]
        assert "<script" not in page and "javascript:" not in page.replace("[link](javascript:alert(1))", "")
