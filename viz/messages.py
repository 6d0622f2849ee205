"""The one-line messages rxviz prints for bad input, and how they are laid out on stderr.

This module sits below everything that reports an error (the command line, the app, the
speaker notes): it imports nothing of rxviz, so reporting a problem never reaches back up
into the command line. `CliError` is bad input caught where it is detected; `err` and
`put` write a message with every terminal control shown as its escape.

Layout: 80 columns, the first line first.
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

import sys
import textwrap
import unicodedata

WIDTH = 80
INDENT = "  "
_OPEN, _CLOSE = "([{", ")]}"
_NBSP = "\u00a0"     # not whitespace to textwrap: holds a `command` together


def clauses(text: str) -> list[str]:
    """`text` split after each "; " outside brackets and `code`; each part but the last keeps its ";"."""
    out: list[str] = []
    depth, code, start = 0, False, 0
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


def visible(text: str) -> str:
    """`text` with every character that would act on a terminal or hide shown as its escape.

    A message can hold a path, a name someone typed or a line of a lesson: controls (C0
    but tab and newline, DEL, C1), format characters (bidi controls, zero-width
    characters, the BOM, tag characters) and the line and paragraph separators are written
    as `\\x1b`, `\\u202e`. Lesson text has its own sanitiser (models.lesson.sanitize); this
    one must not import `models`, since a `models` that is not rxviz's may be the very
    thing the message reports (viz/origin.py).
    """
    if text.isprintable():
        return text
    out: list[str] = []
    for c in text:
        if c in "\t\n" or unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(c)
        else:
            o = ord(c)
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    return "".join(out)


class CliError(Exception):
    """Bad input: printed as one `rxviz: <message>` line, then exit with `code`."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = " ".join(message.split())
        self.code = code


def err(*lines: str) -> None:
    """Each message on stderr, laid out within 80 columns (`layout`).

    A message can hold a path, a lesson id or a value someone typed: each control, bidi or
    invisible character in it is shown as its escape (`visible`), never sent.
    """
    for line in lines:
        print(*layout(visible(line)), sep="\n", file=sys.stderr)


def put(*lines: str) -> None:
    """Lines on stdout (paths written, check results), escaped as `err` escapes them."""
    print(*(visible(line) for line in lines), sep="\n")
