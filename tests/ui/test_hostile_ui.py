"""The hostile-lesson corpus (tests/data/hostile) in the player: nothing a lesson says can act.

The palette, the end screen's border title and every title on screen get lesson text as
plain text: the palette no longer crashes on `[/]`, a click on a title runs nothing (the
markup lesson's titles would write `victim.svg` into the current directory), and what is
drawn (seen in the SVG export) holds no control, bidi or zero-width character, also where
Markdown decoded an entity into one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.containers import VerticalScroll

from viz.app import make_app, settle
from viz.screens.end import EndScreen

HOSTILE = Path(__file__).resolve().parents[1] / "data" / "hostile"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def actions(content) -> list:
    """The click actions and links a Content carries."""
    return [s.style for s in content.spans if "@click" in str(s.style) or "link" in str(s.style)]


@pytest.mark.slow
async def test_the_palette_and_the_end_screen_take_titles_as_plain_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(lesson=str(HOSTILE / "markup.yaml"), step=0, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        app.screen.revealed.add(1)                   # step 1's question settled: every title is listed
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"step")                   # every step's title as a hit, "[/]" among them
        await pilot.pause(0.5)
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        hits = palette.query_one("CommandList").options
        prompts = [h.prompt for h in hits]
        assert any("[@click=app.screenshot('victim.svg','.')]Step one[/]" in p.plain for p in prompts)
        assert any(p.plain.endswith("Jump to step 2: [/]") or "Jump to step 2: [/]" in p.plain for p in prompts)
        assert not [a for p in prompts for a in actions(p)]
        for row in range(len(prompts)):              # a click on each hit runs its command, nothing else
            if not isinstance(app.screen, CommandPalette):
                break
            await pilot.click("CommandList", offset=(4, row))
            await pilot.pause()
        await settle(app, pilot)
        if isinstance(app.screen, CommandPalette):
            await pilot.press("escape")
        await pilot.press("end")
        await settle(app, pilot)
        await pilot.press("right")
        await settle(app, pilot)
        end = app.screen
        assert isinstance(end, EndScreen)
        title = end.query_one(VerticalScroll)._border_title
        assert title.plain.startswith("end of the lesson · [@click=app.screenshot(") and not actions(title)
        for x in range(2, 60, 3):                     # anywhere on the border title
            await pilot.click(VerticalScroll, offset=(x, 0))
        await pilot.pause()
        svg = app.export_screenshot()
    assert not RAW.search(svg)
    assert not (tmp_path / "victim.svg").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.slow
async def test_entities_are_drawn_as_escapes_after_decoding():
    app = make_app(lesson=str(HOSTILE / "entities.yaml"), step=1, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("1")                        # answer: the reveal is drawn too
        await settle(app, pilot)
        svg = app.export_screenshot().replace("&#160;", " ")
        prose = app.screen.query_one("#n-say").plain
    assert not RAW.search(svg) and not RAW.search(prose)
    assert "Reversed: \\u202etxt.exe" in prose and "zero\\u200bwidth" in prose
    assert "tracker" in prose and "<script>alert(1)</script>" in prose       # raw HTML is text


@pytest.mark.slow
async def test_present_without_a_usable_notes_directory_runs_and_says_so(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "rt").symlink_to(tmp_path / "elsewhere")
    monkeypatch.setenv("RXVIZ_RUNTIME_DIR", str(tmp_path / "rt"))
    app = make_app(lesson="rx-basics", step=0, present=True, remember=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("right")
        await settle(app, pilot)
        assert app.notes is None and app.screen.frame.step == 1
        said = [n.message for n in app._notifications]
    assert any(m.startswith("speaker notes are off: ") and "is a symlink" in m for m in said)
    assert list((tmp_path / "elsewhere").iterdir()) == []          # nothing written through the link
