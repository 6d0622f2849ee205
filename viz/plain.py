"""Lesson text as a widget takes it: plain `Content`, never markup.

A lesson is an untrusted file: its titles, narration, choices and patch
fields are data. Textual reads a `str` given to a widget, a border title,
a notification or a command-palette hit as content markup, where
`[@click=app.screenshot(...)]` is an action a click runs, `[link=...]` a
terminal hyperlink and a stray `[/]` a crash. So every call site that puts
lesson text on screen builds it here: `plain` is the text exactly as
written, with what could act on a terminal (control, bidi and invisible
characters) shown as escapes (models.lesson.sanitize.shown), and
`join`/`highlight` assemble it with the app's own styled parts.
"""

from __future__ import annotations

from textual.content import Content
from textual.fuzzy import Matcher

from models.lesson.sanitize import shown


def plain(text: str) -> Content:
    """`text` as it is written: no markup, nothing that acts on the terminal."""
    return Content(shown(text))


def join(*parts: str | Content) -> Content:
    """Our own Content and lesson strings (each taken as plain text) in one line."""
    return Content("").join(p if isinstance(p, Content) else plain(p) for p in parts)


def highlight(matcher: Matcher, text: str | Content) -> Content:
    """A command-palette hit: `text` as plain text, the characters the query matched highlighted.

    `Matcher.highlight` parses its candidate as markup, so it is not used for lesson text.
    """
    content = text if isinstance(text, Content) else plain(text)
    found = content.plain
    _, offsets = matcher.fuzzy_search.match(matcher.query, found)
    for i in offsets:
        if not found[i].isspace():
            content = content.stylize(matcher.match_style, i, i + 1)
    return content
