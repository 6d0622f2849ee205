"""The small widgets: lesson prose (Markdown subset, wrapping, scroll indicator) and the tab strip."""

from __future__ import annotations

from textual.app import App, ComposeResult

from viz.widgets.prose import Prose, parse
from viz.widgets.tabstrip import TabStrip

SOURCE = """First line with `dma_map_single()` and **bold** text.
Second line of the same paragraph.

- an item long enough that it has to wrap onto a second line at this width
- `page_pool_put_page()`

1. one
2. two

```
fenced code
```
"""


def test_parse_keeps_blocks_items_and_code():
    kinds = [(kind, depth, marker) for kind, depth, marker, _ in parse(SOURCE)]
    assert kinds == [("p", 0, ""), ("item", 1, "• "), ("item", 1, "• "),
                     ("item", 1, "1. "), ("item", 1, "2. "), ("code", 0, "")]


class _ProseHost(App):
    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield Prose(self.source)


async def test_prose_wraps_items_under_their_marker_and_keeps_line_breaks():
    app = _ProseHost(SOURCE)
    async with app.run_test(size=(40, 30)) as pilot:
        await pilot.pause()
        lines = app.query_one(Prose).plain.split("\n")
        assert lines[0] == "First line with dma_map_single() and"
        assert lines[2] == "Second line of the same paragraph."     # a source line break is kept
        assert lines[3] == ""                                         # blocks apart, items together
        item = lines.index("• an item long enough that it has to")
        assert lines[item + 1].startswith("  wrap onto")              # hanging indent under the text
        assert "1. one" in lines and "2. two" in lines
        assert "fenced code" in lines
        assert all(len(line) <= 38 for line in lines)                 # a gap and the indicator


async def test_prose_scrolls_and_draws_its_own_indicator():
    app = _ProseHost("\n".join(f"line {i}" for i in range(40)))
    async with app.run_test(size=(30, 10)) as pilot:
        await pilot.pause()
        prose = app.query_one(Prose)
        assert prose.virtual_size.height == 40
        assert prose.allow_vertical_scroll                            # the wheel scrolls it, with no ScrollBar
        column = [prose.render_line(y).text[-1] for y in range(10)]
        assert column[0] == "┃" and column[-1] == "│"                 # thumb at the top
        prose.scroll_relative(y=100, animate=False)
        await pilot.pause()
        assert prose.render_line(0).text.startswith("line 30")
        assert prose.render_line(9).text[-1] == "┃"
        prose.source = "short"                                        # a new text starts at the top
        await pilot.pause()
        assert prose.scroll_offset.y == 0 and prose.render_line(0).text.startswith("short")
        assert prose.render_line(0).text[-1] == " "                   # nothing to scroll: no indicator
        assert not prose.allow_vertical_scroll


class _StripHost(App):
    def __init__(self) -> None:
        super().__init__()
        self.picked: list[str] = []

    def compose(self) -> ComposeResult:
        yield TabStrip(("ring", "napi", "code"))

    def on_tab_strip_picked(self, message: TabStrip.Picked) -> None:
        self.picked.append(message.key)


async def test_tab_strip_marks_the_active_tab_hides_keys_and_reports_clicks():
    app = _StripHost()
    async with app.run_test(size=(40, 3)) as pilot:
        strip = app.query_one(TabStrip)
        strip.active = "napi"
        await pilot.pause()
        assert str(strip.render()) == " ring  │  napi  │  code "
        strip.hidden = frozenset({"napi"})
        await pilot.pause()
        assert "napi" not in str(strip.render())
        start, _, key = strip._spans()[1]
        await pilot.click(strip, offset=(start + 1 + 1, 0))           # +1: the strip's left padding
        assert app.picked == [key] == ["code"]
        await pilot.click(strip, offset=(30, 0))                      # past the last tab: nothing
        assert app.picked == ["code"]


def test_ordered_list_numbers_are_right_aligned():
    source = "\n".join(f"{i}. step {i}" for i in range(1, 11))
    markers = [marker for _, _, marker, _ in parse(source)]
    assert markers[0] == " 1. " and markers[8] == " 9. " and markers[9] == "10. "
