"""Lesson text written into a Markdown handout: what the player draws, and nothing that could act.

A lesson's narration is Markdown, and its other strings are plain text, but
both come from an untrusted file. Copied as they are into `index.md`, raw
HTML (`<img src=https://...>`, `<script>`) would reach whatever renders the
handout, an image would be fetched from anywhere when the page is opened, a
backtick in a message-id would break out of its code span, and an entity
(`&#x202e;`) would turn into a bidi override only when the page is read.

So lesson Markdown is parsed the way the player parses it (markdown-it,
CommonMark, raw HTML off: viz/widgets/prose.py) and written out again from
its tokens: paragraphs (line breaks kept, as the player keeps them), lists,
code, emphasis, links to http(s) pages. Every piece of text is decoded
first, sanitised (models.lesson.sanitize.shown) and then escaped, so the
Markdown says exactly what the player shows. An image is written as its alt
text: a handout loads only its own screens.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from models.lesson.sanitize import shown

_SPECIAL = re.compile(r"([\\`*_\[\]<>&!|~$#])")
# What starts a block at the beginning of a line: a heading, a quote, a list item, a setext rule.
_LINE_START = re.compile(r"^([>+\-=]|\d{1,9}(?=[.)]))")
_SAFE_URL = re.compile(r"(https?://|mailto:)[^\s<>]+", re.I)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False})


def _escaped(s: str) -> str:
    return _SPECIAL.sub(r"\\\1", shown(s))


def text(s: str) -> str:
    """Plain text (a title, a name) as Markdown that shows it as written, on one line
    (at the start of a line, give it to `line` too)."""
    return _escaped(" ".join(s.split()))


def code(s: str) -> str:
    """`s` as one code span, whatever backticks it holds (a fence longer than any run in it)."""
    s = " ".join(shown(s).split("\n"))
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith(("`", " ")) or s.endswith(("`", " ")) else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def _fence(body: str) -> list[str]:
    body = shown(body.rstrip("\n"))
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`+", body)), default=0) + 1)
    return [ticks, *body.split("\n"), ticks]


def line(s: str) -> str:
    """One line of a paragraph: what would start a block there is escaped."""
    s = s.lstrip()
    m = _LINE_START.match(s)
    if m is None:
        return s
    if m.group(1)[0].isdigit():          # "2024. A year" is no list item
        end = m.end()
        return s[:end] + "\\" + s[end:]
    return "\\" + s


def _inline(tokens: list[Token]) -> str:  # noqa: C901 (older than the complexity rule)
    out: list[str] = []
    links: list[str | None] = []
    for t in tokens:
        if t.type == "text":
            out.append(_escaped(t.content))
        elif t.type == "code_inline":
            out.append(code(t.content))
        elif t.type in ("softbreak", "hardbreak"):
            out.append("\n")
        elif t.type in ("strong_open", "strong_close", "em_open", "em_close"):
            out.append("**" if t.type.startswith("strong") else "*")
        elif t.type == "link_open":
            href = str(t.attrs.get("href", ""))
            links.append(href if _SAFE_URL.fullmatch(href) else None)
            if links[-1]:
                out.append("[")
        elif t.type == "link_close":
            closed = links.pop() if links else None
            if closed:
                out.append(f"](<{closed}>)")
        elif t.type == "image":              # never loaded: its alt text stands in
            out.append(_escaped("".join(c.content for c in t.children or []) or t.content))
        elif t.content:
            out.append(_escaped(t.content))
    lines = [line(part) for part in "".join(out).split("\n")]
    return "  \n".join(lines)


def markdown(source: str) -> str:
    """Lesson Markdown (a step's `say`, the cover) as safe Markdown, its line breaks kept."""
    out: list[str] = []
    lists: list[list[Any]] = []      # open lists: [ordered?, next number]
    indent: list[int] = []           # the width of each open list item's marker
    marker = ""
    last = ""
    for tok in _parser().parse(source):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            lists.append([tok.type == "ordered_list_open", int(tok.attrs.get("start", 1) or 1)])
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif tok.type == "list_item_open":
            ordered, n = lists[-1]
            marker = f"{n}. " if ordered else "- "
            lists[-1][1] = n + 1
            indent.append(len(marker))
        elif tok.type == "list_item_close":
            indent.pop()
        elif tok.type in ("inline", "fence", "code_block", "hr"):
            kind = "item" if marker else tok.type
            if out and not (kind == "item" and last in ("item", "inline-in-list")):
                out.append("")
            last = kind if not indent else "inline-in-list" if kind == "inline" else kind
            pad = " " * (sum(indent) - (len(marker) if marker else 0))
            rest = " " * sum(indent)
            if tok.type == "inline":
                body = _inline(tok.children or []).split("\n")
            elif tok.type == "hr":
                body = ["---"]
            else:
                body = _fence(tok.content)
            lead = pad + marker if marker else rest
            out += [lead + body[0], *(rest + line for line in body[1:])]
            marker = ""
    return "\n".join(out)


def inline(source: str) -> str:
    """Lesson Markdown kept on one line (a question, a choice): its paragraphs joined by spaces."""
    return line(" ".join(part.strip() for part in markdown(source).split("\n") if part.strip()))
