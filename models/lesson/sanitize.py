"""Control characters in lesson text: shown escaped, and found with the line and column they are at.

Lessons are untrusted files that people pass around, and their strings reach
a terminal (`rxviz run`, the player), SVG screenshots and handouts. An ESC
starts a terminal control sequence (OSC 0 retitles the window, OSC 52
writes the clipboard, CSI 2J clears the screen), a C1 control does the same
in one byte on terminals that read 8-bit controls, and a bidi control
(U+202E RIGHT-TO-LEFT OVERRIDE) makes text read otherwise than it is
stored. None of them has a use in a lesson.

So the boundary is the loader: every string the validator takes from a
lesson goes through `clean`, which replaces each such character by its
escape as text (`\\x1b`, `\\u202e`). Everything downstream (tables, widgets,
SVGs, handouts) only ever sees cleaned strings, and `rxviz check` reports
each character found (`findings`) as a lesson problem with file:line:col.

Tabs and newlines are kept: multi-line narration and pseudo-code need them.
The YAML reader already refuses most raw control characters in a file; what
gets through are escapes in double-quoted strings ("\\e]0;...\\a", "\\x9b",
"\\u202e") and raw bidi controls, which YAML counts as printable.
"""

from __future__ import annotations

import re

BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BAD = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")

# YAML double-quoted escapes (YAML 1.1, section 5.7) that stand for one character.
_SIMPLE = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
           "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
           "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}
# Raw line breaks in the file: the reader turns them into newlines, so they never reach a value.
_BREAKS = "\r\x85"


def escaped(char: str) -> str:
    """How one refused character is shown: `\\x1b`, `\\u202e`."""
    o = ord(char)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def has_bad(text: str) -> bool:
    return _BAD.search(text) is not None


def clean(text: str) -> str:
    """`text` with every control and bidi character shown as its escape (tabs and newlines kept)."""
    if _BAD.search(text) is None:        # nearly every string: no copy
        return text
    return _BAD.sub(lambda m: escaped(m.group()), text)


def describe(char: str) -> str:
    """'control character U+001B' or 'bidi control U+202E', for messages."""
    kind = "bidi control" if re.fullmatch(f"[{BIDI}]", char) else "control character"
    return f"{kind} U+{ord(char):04X}"


def findings(source: str, start: int, end: int, double_quoted: bool) -> list[tuple[int, str]]:
    """(index into `source`, character) of each refused character in the scalar source[start:end].

    A raw character is found where it stands; in a double-quoted scalar an
    escape that stands for one (`\\e`, `\\x1b`, `\\u202e`) is found at its
    backslash, since that is where an author has to look.
    """
    out: list[tuple[int, str]] = []
    i = start
    while i < end:
        c = source[i]
        if double_quoted and c == "\\" and i + 1 < end:
            e = source[i + 1]
            if e in _HEX:
                digits = source[i + 2:i + 2 + _HEX[e]]
                try:
                    char = chr(int(digits, 16))
                except ValueError:       # the YAML parser has refused this already
                    char = ""
                step = 2 + _HEX[e]
            else:
                char, step = _SIMPLE.get(e, ""), 2
            if char and _BAD.match(char):
                out.append((i, char))
            i += step
            continue
        if _BAD.match(c) and c not in _BREAKS:
            out.append((i, c))
        i += 1
    return out


def line_col(source: str, index: int, line: int, column: int, pos: int) -> tuple[int, int]:
    """1-based line and column of source[pos], counting from a mark at `index` (0-based line, column).

    Line breaks are counted as the YAML reader counts them, so the result
    agrees with the marks of every other lesson error.
    """
    for i in range(index, pos):
        c = source[i]
        if c in "\n\x85\u2028\u2029" or (c == "\r" and source[i + 1:i + 2] != "\n"):
            line, column = line + 1, 0
        else:
            column += 1
    return line + 1, column + 1
