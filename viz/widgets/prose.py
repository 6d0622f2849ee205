"""Lesson prose (a small Markdown subset) drawn as one scrolling widget with the Line API.

Textual's `Markdown` widget mounts a widget per block and remounts them on
every `update`; for a lesson step that cost about 50 ms at 160x50, most of
a step's time budget. Lesson text needs only paragraphs, lists, inline
code, emphasis and links, so `Prose` parses with markdown-it (already a
Textual dependency) into styled lines and paints them itself: changing the
text repaints one widget and mounts nothing. It scrolls itself (a
`ScrollView` of fixed size whose virtual size is the wrapped text), so a new
text costs one layout pass; a widget that grew to fit its text would cost a
second pass when its size settled, one screen refresh later.

A line break in the source is kept as a line break: lesson authors put one
thought per line, and reading them as separate lines is easier on a
projector than one long paragraph.

Lesson text is untrusted, and Markdown decodes entities: `&#x202e;` becomes
a bidi override only here, after the loader looked at it. So every piece of
text is taken through `shown` (models.lesson.sanitize) after decoding, as it
is drawn; raw HTML is off, a link is only a style (its target is never
used) and an image is its alt text.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from models.lesson.sanitize import shown
from viz.component_styles import KeptComponentStyles
from viz.strips import text_strip

KEEP = 24           # texts kept wrapped, by (source, width): a lesson's steps and their reveals

# (kind, depth, marker, inline tokens): kind is "p" (paragraph), "item" (first
# paragraph of a list item), "code" (a code block) or "hr".
Block = tuple[str, int, str, list[Token] | str]


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"breaks": True, "html": False})


@lru_cache(maxsize=256)
def parse(source: str) -> tuple[Block, ...]:
    """The blocks of `source`, in order (cached: lesson text is parsed once per process)."""
    blocks: list[Block] = []
    lists: list[list[Any]] = []        # open lists: [ordered?, next number, indexes of its items]
    marker = ""
    for tok in _parser().parse(source):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            lists.append([tok.type == "ordered_list_open", int(tok.attrs.get("start", 1) or 1), []])
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            items = lists.pop()[2]
            # Numbers right-aligned (" 9. " over "10. "), so every item's text starts in one column.
            wide = max((len(blocks[i][2]) for i in items), default=0)
            for i in items:
                kind, depth, mark, body = blocks[i]
                blocks[i] = (kind, depth, mark.rjust(wide), body)
        elif tok.type == "list_item_open":
            ordered, n, _ = lists[-1]
            marker = f"{n}. " if ordered else "• "
            lists[-1][1] = n + 1
        elif tok.type == "inline":
            kind = "item" if marker else "p"
            if marker:
                lists[-1][2].append(len(blocks))
            blocks.append((kind, len(lists), marker, tok.children or []))
            marker = ""
        elif tok.type in ("fence", "code_block"):
            blocks.append(("code", len(lists), "", tok.content.rstrip("\n")))
        elif tok.type == "hr":
            blocks.append(("hr", 0, "", ""))
    return tuple(blocks)


class Prose(ScrollView, KeptComponentStyles, can_focus=False):
    """Markdown text; set `source`. It fills the height it is given and scrolls what does not fit."""

    COMPONENT_CLASSES = {"prose--code", "prose--strong", "prose--em", "prose--link", "prose--marker",
                         "prose--track", "prose--thumb"}
    DEFAULT_CSS = """
    Prose {
        height: 1fr;
        overflow-y: hidden;
        scrollbar-size-vertical: 0;
        & > .prose--code { color: $text-warning; background: $warning-muted; }
        & > .prose--strong { text-style: bold; }
        & > .prose--em { text-style: italic; }
        & > .prose--link { text-style: underline; color: $text-accent; }
        & > .prose--marker { color: $text-accent; }
        & > .prose--track { color: $panel-lighten-2; }
        & > .prose--thumb { color: $text-accent; }
    }
    """

    source: reactive[str] = reactive("", repaint=False)

    def __init__(self, source: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self.set_reactive(Prose.source, source)
        self._lines: tuple[tuple[str, int], list[Strip]] | None = None      # ((source, width), its lines)
        self._next: tuple[tuple[str, int], list[Strip]] | None = None        # see prepare
        self._wrapped: dict[tuple[str, int], list[Strip]] = {}       # texts wrapped lately (see _strips)

    @property
    def allow_vertical_scroll(self) -> bool:
        # The text scrolls (wheel, keys) whenever it is longer than the widget. Textual ties that to
        # a vertical ScrollBar widget; Prose draws its own indicator and has none (overflow-y:
        # hidden), since showing or hiding that zero-width bar asks for a second layout pass, and a
        # second write to the terminal, each time a step's text starts or stops overflowing.
        return self.is_scrollable and self.max_scroll_y > 0 and not self._check_disabled()

    def watch_source(self) -> None:
        self._lines = None
        self.scroll_to(0, 0, animate=False, immediate=True)
        self._fit()
        self.refresh()

    def on_resize(self) -> None:
        self._fit()          # a resized widget is repainted anyway; only the text's extent may change

    @property
    def text_width(self) -> int:
        """Columns for the text: the last two are a gap and the scroll indicator."""
        return max(1, self.scrollable_content_region.width - 2)

    def _fit(self) -> None:
        """Virtual size = the wrapped text, so scrolling knows how far it can go."""
        width = self.text_width
        size = Size(width + 2, len(self._strips(width)))
        if self._moves(self.virtual_size.height, size.height):
            self.virtual_size = size
        else:             # scrolling reads the virtual size when it scrolls: no layout pass for it
            self.set_reactive(Prose.virtual_size, size)

    def _moves(self, old: int, new: int) -> bool:
        """Does text `new` lines tall, after `old`, change the widget's height, and so the layout?
        Only where the height follows the text (height: auto, the narrow screens) and the text is
        not taller than the widget's cap both before and after: a step's text usually overflows the
        narration at 80x24, and on wide screens its height is the column's, whatever the text."""
        height = self.styles.height
        if old == new or not self.size.height or height is None or not height.is_auto:
            return old != new and not self.size.height
        return not (old > self.size.height and new >= self.size.height)

    def prepare(self, source: str) -> None:
        """Wrap `source` now, at the present width, for when it is set (the player, while the reader
        reads): setting it then only swaps the lines in."""
        width = self.text_width
        if source != self.source and width > 0:
            key = (source, width)
            self._next = (key, self._wrapped.get(key) or self._make(source, width))

    _marks: tuple[Strip, Strip, Strip, Strip] | None = None      # see _make_marks

    def notify_style_update(self) -> None:
        self._lines = self._next = None
        self._marks = None
        self._wrapped = {}
        super().notify_style_update()

    # -- from tokens to styled, wrapped lines -------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"prose--{name}", partial=True)

    def _inline(self, tokens: list[Token]) -> Text:
        out = Text(end="")
        stack: list[Style] = []
        for tok in tokens:
            style = Style.combine(stack) if stack else None
            if tok.type == "text":
                out.append(shown(tok.content), style)
            elif tok.type == "code_inline":
                out.append(shown(tok.content), (style or Style()) + self._style("code"))
            elif tok.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif tok.type in ("strong_open", "em_open", "link_open"):
                stack.append(self._style({"strong_open": "strong", "em_open": "em"}.get(tok.type, "link")))
            elif tok.type in ("strong_close", "em_close", "link_close") and stack:
                stack.pop()
            elif tok.content:               # html_inline, images (their alt text): shown as written
                out.append(shown(tok.content), style)
        return out

    def _wrap(self, source: str, width: int) -> list[Text]:
        console = self.app.console
        lines: list[Text] = []
        last = ""
        for kind, depth, marker, body in parse(source):
            if lines and not (kind == last == "item"):
                lines.append(Text())            # a blank line between blocks, not between list items
            last = kind
            indent = 2 * max(0, depth - 1) + (len(marker) if kind == "item" else 2 * (depth > 0))
            room = max(4, width - indent)
            if kind == "code":
                texts = [Text(shown(line), self._style("code"), no_wrap=True) for line in str(body).split("\n")]
                wrapped = [t[:room] for t in texts]
            elif kind == "hr":
                wrapped = [Text("─" * room, self._style("marker"))]
            else:
                wrapped = list(self._inline(body).wrap(console, room))   # type: ignore[arg-type]
            for i, line in enumerate(wrapped):
                lead: str | Text = " " * indent
                if i == 0 and kind == "item":
                    lead = Text(" " * (indent - len(marker)) + marker, self._style("marker"))
                lines.append(Text.assemble(lead, line, end=""))
        return lines

    def _strips(self, width: int) -> list[Strip]:
        key = (self.source, width)
        if self._lines is None or self._lines[0] != key:
            made = self._next
            # A text shown lately (← to a step read a moment ago) is not wrapped again.
            lines = made[1] if made is not None and made[0] == key else self._wrapped.pop(key, None)
            if lines is None:
                lines = self._make(self.source, width)
            self._wrapped[key] = lines
            if len(self._wrapped) > KEEP:
                del self._wrapped[next(iter(self._wrapped))]
            self._lines = (key, lines)
        return self._lines[1]

    def _make(self, source: str, width: int) -> list[Strip]:
        base = self.rich_style
        console = self.app.console
        return [text_strip(t, width, base, console) for t in self._wrap(source, width)]

    # -- the Line API ---------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.text_width
        strips = self._strips(width)
        height = self.scrollable_content_region.height
        top = self.scroll_offset.y
        marks = self._marks or self._make_marks()
        if y + top < len(strips):
            line = strips[y + top]
        else:                   # under a short text in a tall column: the blank line, made once a width
            line = marks[3] if marks[3].cell_length == width else self._make_marks(width)[3]
        return Strip.join([line, self._indicator(y, top, height, len(strips))])

    def _indicator(self, y: int, top: int, height: int, total: int) -> Strip:
        """Row y of the scroll indicator: drawn in the text's own line, not by a ScrollBar widget,
        whose separate refresh after every new text would cost a second write to the terminal."""
        blank, track, thumb, _ = self._marks or self._make_marks()
        if total <= height or height <= 0:
            return blank
        size = max(1, round(height * height / total))
        start = round(top * (height - size) / max(1, total - height))
        return thumb if start <= y < start + size else track

    def _make_marks(self, width: int = 0) -> tuple[Strip, Strip, Strip, Strip]:
        """The indicator's three cells (none, track, thumb) and a blank text line `width` wide, made
        once per style: the widget's rich_style is worked out from its styles each time it is read."""
        base = self.rich_style
        track, thumb = (Strip([Segment(" ", base), Segment(glyph, base + self._style(name))], 2)
                        for glyph, name in (("│", "track"), ("┃", "thumb")))
        self._marks = (Strip.blank(2, base), track, thumb, Strip.blank(width, base))
        return self._marks

    @property
    def plain(self) -> str:
        """The whole text as wrapped at the current width (tests)."""
        return "\n".join(s.text.rstrip() for s in self._strips(self.text_width))
