"""Lesson text that could act or hide: control, bidi and invisible characters, entities, markup.

Lessons are untrusted files that people pass around, and their strings reach
a terminal (`rxviz run`, the player), SVG screenshots, handouts and JSON. An
ESC starts a terminal control sequence (OSC 0 retitles the window, OSC 52
writes the clipboard, CSI 2J clears the screen), a C1 control does the same
in one byte on terminals that read 8-bit controls, a bidi control (U+202E
RIGHT-TO-LEFT OVERRIDE) makes text read otherwise than it is stored, and a
zero-width character (U+200B, U+FEFF, a tag character) hides inside a word
so that two strings that look the same are not. None of them has a use in a
lesson.

Three things are done with them:

- `clean` replaces each such character by its escape as text (`\\x1b`,
  `\\u202e`). The loader takes every string of a lesson through it, and
  every output takes what it finally draws or writes through it again
  (`shown`): a Markdown entity such as `&#x202e;` only becomes a character
  after the Markdown is decoded, so the last step before a terminal, an SVG
  or a page is where it is caught. An entity that decodes to such a
  character is replaced by that character's escape when the lesson is
  loaded, too, so every output shows the same text.
- `findings` places each one in the lesson file (file:line:col for
  `rxviz check`), raw characters, YAML escapes and entities alike.
- `markup` finds text that Textual or Rich would have read as markup (a
  click action, a link, a style, a closing tag): widgets get lesson text as
  plain text, so it is shown as written, and `rxviz check` says where it is,
  since its author meant something by it.

Tabs and newlines are kept: multi-line narration and pseudo-code need them.
The YAML reader already refuses most raw control characters in a file; what
gets through are escapes in double-quoted strings ("\\e]0;...\\a", "\\x9b",
"\\u202e") and raw bidi and invisible characters, which YAML counts as printable.
"""

from __future__ import annotations

import html
import re

BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Characters that draw nothing (or only join their neighbours): zero-width spaces and joiners,
# the word joiner and invisible operators, the BOM, soft hyphen, fillers, variation selectors,
# interlinear annotation marks, tag characters; and the Unicode line and paragraph separators,
# which break a line where no line break is seen.
INVISIBLE = ("\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2028\u2029\u2060-\u2064"
             "\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f")
_BAD = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}{INVISIBLE}]")
_IS_BIDI = re.compile(f"[{BIDI}]")
_IS_INVISIBLE = re.compile(f"[{INVISIBLE}]")
# An HTML character reference as Markdown decodes it: named, decimal or hex, with its semicolon.
ENTITY = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});")

# YAML double-quoted escapes (YAML 1.1, section 5.7) that stand for one character.
_SIMPLE = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f",
           "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85",
           "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX = {"x": 2, "u": 4, "U": 8}
# Raw line breaks in the file: the reader turns them into newlines, so they never reach a value.
_BREAKS = "\r\x85"


def escaped(char: str) -> str:
    """How one refused character is shown: `\\x1b`, `\\u202e`, `\\U000e0001`."""
    o = ord(char)
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def has_bad(text: str) -> bool:
    return _BAD.search(text) is not None


def _entity(m: re.Match[str]) -> str:
    """An entity that decodes to a refused character, as that character's escape; any other as written."""
    decoded = html.unescape(m.group())
    return "".join(escaped(c) for c in decoded) if decoded != m.group() and has_bad(decoded) else m.group()


def clean(text: str) -> str:
    """`text` with every control, bidi and invisible character (also one an entity stands for)
    shown as its escape; tabs and newlines kept."""
    if "&" in text:
        text = ENTITY.sub(_entity, text)
    if _BAD.search(text) is None:        # nearly every string: no copy
        return text
    return _BAD.sub(lambda m: escaped(m.group()), text)


def shown(text: str) -> str:
    """What an output draws or writes for decoded text: each refused character as its escape.

    The outputs' last step (Prose after Markdown decoding, the handouts, the CLI's messages):
    unlike `clean`, entities are not looked at, since the text given here is already decoded."""
    return _BAD.sub(lambda m: escaped(m.group()), text) if _BAD.search(text) else text


def describe(char: str) -> str:
    """'control character U+001B', 'bidi control U+202E' or 'invisible character U+200B', for messages."""
    kind = ("bidi control" if _IS_BIDI.fullmatch(char) else "invisible character" if _IS_INVISIBLE.fullmatch(char)
            else "control character")
    return f"{kind} U+{ord(char):04X}"


def findings(source: str, start: int, end: int, double_quoted: bool) -> list[tuple[int, str, str]]:
    """(index into `source`, character, how it is written) of each refused character in source[start:end].

    A raw character is found where it stands; in a double-quoted scalar an
    escape that stands for one (`\\e`, `\\x1b`, `\\u202e`) is found at its
    backslash, and an entity (`&#x202e;`) at its ampersand, since that is
    where an author has to look. "How it is written" is "" for a raw
    character, else the escape or the entity.
    """
    out: list[tuple[int, str, str]] = []
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
                out.append((i, char, source[i:i + step]))
            i += step
            continue
        if c == "&" and (m := ENTITY.match(source, i, end)):
            decoded = html.unescape(m.group())
            out += [(i, ch, m.group()) for ch in decoded if _BAD.match(ch)]
            i = m.end()
            continue
        if _BAD.match(c) and c not in _BREAKS:
            out.append((i, c, ""))
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


# -- markup ---------------------------------------------------------------------------------
# A tag as Textual's content markup and Rich's console markup open one: `[` not escaped by a
# backslash, then anything but brackets, then `]`.
_TAG = re.compile(r"(?<!\\)\[([^\[\]\n]*)\]")
_CODE = re.compile(r"(`+)(.+?)\1", re.S)
_STYLE_WORDS = {"b", "bold", "d", "dim", "i", "italic", "u", "underline", "uu", "underline2", "r", "reverse",
                "s", "strike", "blink", "blink2", "conceal", "o", "overline", "frame", "encircle", "not", "on",
                "none", "default", "auto", "reset"}
_COLOUR = re.compile(r"(bright_)?(black|red|green|yellow|blue|magenta|cyan|white)|gr[ae]y\d*|ansi_\w+"
                     r"|#[0-9a-fA-F]{3,8}|(rgb|hsl)a?\(.*\)|color\(\d+\)|\d+%", re.I)


def _kind(tag: str) -> str:
    """What Textual or Rich would make of the inside of one `[...]`: an action, a link, ... or ''."""
    body = tag.strip()
    if not body:
        return ""
    if body.startswith("/"):
        return "a closing tag"
    if body.startswith("@"):
        return "a click action"
    if re.match(r"link\b", body, re.I):
        return "a link"
    if body.startswith("$"):
        return "a theme variable"
    words = body.split()
    if all(w.lower() in _STYLE_WORDS or _COLOUR.fullmatch(w) or w.startswith("$") for w in words):
        return "a style"
    return ""


def markup(text: str) -> list[tuple[int, str, str]]:
    """(index into `text`, the tag, what it would be) of each `[...]` that markup would have read.

    Code spans (`...`) are skipped: lesson text keeps code in them, and no
    widget ever read markup inside one. `[PATCH net-next]`, `buf[i + 1]` or
    `[size=2048 bytes]` are left alone: no markup makes them act or style.
    """
    masked = _CODE.sub(lambda m: " " * len(m.group()), text) if "`" in text else text
    return [(m.start(), m.group(), kind) for m in _TAG.finditer(masked) if (kind := _kind(m.group(1)))]
