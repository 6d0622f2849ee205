"""How an error or a note is laid out on stderr: 80 columns, the first line first.

A message is written as one sentence whose parts are separated by "; " at
the top level: what was wrong and where first, then what was expected, the
known names, a pointer to --help. It is printed on one line when it fits in
80 columns. Otherwise its first part stays on the `rxviz:` line and every
further part starts its own line, indented by two spaces, each wrapped at
spaces (a `command` in backticks and a path longer than a line are never
cut). So the first line still says what was wrong, a list goes below it,
and joining the lines gives back the sentence.
"""

from __future__ import annotations

import textwrap

WIDTH = 80
INDENT = "  "
_OPEN, _CLOSE = "([{", ")]}"
_NBSP = "\u00a0"     # not whitespace to textwrap: holds a `command` together


def clauses(text: str) -> list[str]:
    """`text` split after each "; " outside brackets and `code`; each part but the last keeps its ";"."""
    out, depth, code, start = [], 0, False, 0
    for i, c in enumerate(text):
        if c == "`":
            code = not code
        elif code:
            continue
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(0, depth - 1)
        elif c == ";" and depth == 0 and text[i + 1:i + 2] == " ":
            out.append(text[start:i + 1])
            start = i + 2
    out.append(text[start:])
    return [part for part in out if part]


def layout(message: str) -> list[str]:
    """The lines of one message ("rxviz: ..." or "FILE:LINE: ..."), none wider than 80 columns but a long word."""
    if len(message) <= WIDTH and "\n" not in message:
        return [message]
    text = " ".join(message.split())
    lines: list[str] = []
    for n, part in enumerate(clauses(_keep_code(text))):
        lines += textwrap.wrap(part, WIDTH, initial_indent="" if n == 0 else INDENT, subsequent_indent=INDENT,
                               break_long_words=False, break_on_hyphens=False)
    return [line.replace(_NBSP, " ") for line in lines]


def _keep_code(text: str) -> str:
    """A `command` in backticks is not broken across lines: its spaces become no-break spaces."""
    parts = text.split("`")
    return "`".join(p.replace(" ", _NBSP) if i % 2 else p for i, p in enumerate(parts))
