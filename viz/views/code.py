"""The driver's RX path as short pseudo-code, with the line of the call the screen is at lit.

The lesson gives each variant a few lines of pseudo-code (the kernel's
function and call names, with `#` comments) and maps each line to the
kernel calls it stands for (`code_calls`). Where a step lands, the line the
step is about (`code`) is lit; once `]` and `[` walk the calls, the line of
the current call is, so the ▶ moves through the poll with the log and the
machine. A call no line stands for (the device's write, the reader on
another core) leaves the ▶ on the last line the driver reached, and the
caption under the code says which call the screen is at. The lit line is
drawn reversed in the accent colour and marked "▶" (so it does not rest on
colour alone), and the view scrolls to keep it in sight when the code is
taller than the view. Comments are dimmed; they come last on a line, so a
narrow view cuts them before it cuts code.

In compare mode each panel shows its own variant's code; the player puts two
of these side by side.

A line a question still ahead would give away (`ask.hide_code`) is drawn as
its number and a row of dots, "hidden until you answer", so the numbering and
the shape of the code stay and nothing of the answer does.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size

from models.read import before_of, line_of

from . import register
from .base import ModelView, ViewState

SEARCH = 200        # calls searched back for the last one a line stands for


def split_comment(line: str) -> tuple[str, str]:
    """(code, comment): the comment starts at the first '#' preceded by a space or the line start."""
    for i, c in enumerate(line):
        if c == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i].rstrip(), line[i:]
    return line.rstrip(), ""


HIDDEN = "# ··· hidden until you answer the question ahead ···"


@register
class CodeView(ModelView):
    KEY = "code"
    TITLE = "Driver RX path"
    READS = ("hidden_code",)        # the lines a question ahead would give away

    COMPONENT_CLASSES = {"codeview--lit", "codeview--marker", "codeview--number", "codeview--comment",
                         "codeview--muted"}
    DEFAULT_CSS = """
    CodeView > .codeview--lit { color: $accent; text-style: bold reverse; }
    CodeView > .codeview--marker { color: $text-accent; text-style: bold; }
    CodeView > .codeview--number { color: $text-muted; }
    CodeView > .codeview--comment { color: $text-muted; text-style: italic; }
    CodeView > .codeview--muted { color: $text-muted; }
    """


    # -- Line API -----------------------------------------------------------------
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """As tall as the longest variant's code at this width, hidden or not, plus the caption: the
        same at every step, so a column that sizes the code by its content (the wide player's side
        column) never moves it."""
        st = self.state
        if st is None or st.lesson is None:
            return 1
        rows = 0
        for lines in st.lesson.pseudocode.values():
            room = max(4, width - (len(str(len(lines))) + 3))      # as build_lines
            hidden = len(self._rows(HIDDEN, room))
            rows = max(rows, sum(max(len(self._rows(line, room)), hidden) for line in lines))
        return max(1, rows + 1)

    _sized_for: object = None           # the lesson the height was last given for

    def watch_state(self, state: ViewState | None) -> None:
        lesson = state.lesson if state is not None else None
        if lesson is not self._sized_for:           # the first state (or another lesson): a new height
            self._sized_for = lesson
            self.refresh(layout=True)
        super().watch_state(state)

    # -- content ------------------------------------------------------------------
    def code(self) -> tuple[str, ...]:
        st = self.state
        if st is None or st.lesson is None:
            return ()
        lines = st.lesson.pseudocode.get(st.variant, ())
        return tuple(HIDDEN if i in st.hidden_code else line for i, line in enumerate(lines, start=1))

    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [Text("no model yet", self._s("muted"))]
        code = self.code()
        if not code:
            msg = Text(f"this lesson has no pseudo-code for the {st.variant!r} variant", self._s("muted"))
            return list(msg.wrap(self.app.console, max(1, width)))
        lit, caption = self.lit_line()
        lit = lit if lit and 1 <= lit <= len(code) else None
        num_w = len(str(len(code)))
        room = max(4, width - (num_w + 3))          # after "▶ " + number + " "
        out: list[Text] = []
        lit_row = 0
        for i, raw in enumerate(code, start=1):
            on = i == lit
            if on:
                lit_row = len(out)
            for k, row in enumerate(self._rows(raw, room)):
                line = Text(no_wrap=True, end="")
                line.append("▶ " if on and k == 0 else "  ", self._s("marker"))
                line.append(f"{i:>{num_w}} " if k == 0 else " " * (num_w + 1), self._s("number"))
                line.append_text(row)
                if on:
                    line.pad_right(width - line.cell_len)
                    line.stylize(self._s("lit"), 2)
                out.append(line)
        if lit and len(out) < height:
            # the call's context, then the call, give way before the caption is cut
            if len(caption) > width and caption.endswith(")"):
                caption = caption[:caption.rindex(" (")]
            if len(caption) > width:
                caption = caption.split(" · ")[0]
            out.append(Text(caption, self._s("muted")))
        return self._window(out, lit_row, height)

    def lit_line(self) -> tuple[int | None, str]:
        """(the line to light, the caption saying why): the step's own line where the step lands,
        else the line of the current call (or of the last call a line stands for)."""
        st = self.state
        assert st is not None
        entries = st.lesson.code_calls.get(st.variant) if st.lesson is not None else None
        if (not st.at_call and st.code_line) or not entries:
            return st.code_line, "▶ the line this step is about"
        events = list(st.read.events())
        now = events[-1] if events else None
        for k in range(min(SEARCH, len(events))):
            i = len(events) - 1 - k
            ev = events[i]
            line = line_of(entries, ev.call, {t.machine for t in ev.transitions}, before_of(events, i))
            if line:
                if ev is now:
                    return line, f"▶ this call: {ev.call}"
                return line, f"▶ the driver's last line · this call: {now.call} ({now.ctx})" if now else ""
        return st.code_line, "▶ the line this step is about"

    def _rows(self, raw: str, room: int) -> list[Text]:
        """One source line as display rows: the comment is shortened or dropped first, then
        the code wraps under its own indentation (never cut: it is what the lesson teaches)."""
        body, comment = split_comment(raw)
        comment_style = self._s("comment")
        if not body:                                      # a comment-only line
            body, comment = raw.rstrip(), ""
            return [Text(r, comment_style) for r in self._wrap(body, room)]
        gap = raw[len(body):len(raw) - len(comment)] if comment else ""
        if comment and len(body) + len(gap) + len(comment) <= room:
            return [Text(body) + Text(gap) + Text(comment, comment_style)]
        if comment and len(body) + 2 + 8 <= room:
            keep = room - len(body) - 2
            return [Text(body) + Text("  ") + Text(comment[:keep - 1] + "…", comment_style)]
        return [Text(r) for r in self._wrap(body, room)]

    @staticmethod
    def _wrap(text: str, room: int) -> list[str]:
        """Wrap at a space or after a comma or '(' where one is near the end, else hard.
        Continuation rows keep the line's indentation plus two."""
        indent = " " * min(room // 2, len(text) - len(text.lstrip()) + 2)
        rows: list[str] = []
        rest, width = text, room
        while len(rest) > width:
            cut = max(rest.rfind(" ", 0, width + 1), rest.rfind(",", 0, width) + 1, rest.rfind("(", 0, width) + 1)
            if cut <= len(rest) - len(rest.lstrip()) + width // 3:
                cut = width
            rows.append(rest[:cut].rstrip())
            rest = indent + rest[cut:].lstrip()
            width = room
        return rows + [rest]

    @staticmethod
    def _window(lines: list[Text], lit_row: int, height: int) -> list[Text]:
        """All lines if they fit, else a window that keeps the lit line a third of the way down."""
        if len(lines) <= height or height <= 0:
            return lines
        start = max(0, min(len(lines) - height, lit_row - height // 3))
        return lines[start:start + height]
