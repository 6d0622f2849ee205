"""Handouts: a lesson as one Markdown or HTML page, beside an SVG of the player at each step.

The page has the patch, each step's narration and the screen it shows, the
questions (asked where the player asks them, answered only at the end, so
the handout can be read in the order of the lesson) and the paper-vs-model
table of a headline run. Everything on it comes from the lesson file and
the model, like the player.

There is one writer, of Markdown; HTML is that Markdown rendered by
markdown-it with raw HTML turned off, so a lesson (an untrusted file) can
put no markup or script into the page: its `<...>` is shown as text, and
markdown-it refuses `javascript:` links. Strings from the lesson were
cleaned of control characters when it was loaded (models.lesson.sanitize);
the fields shown as plain text are escaped for Markdown here.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from models.lesson.schema import Lesson
from viz import headline
from viz.widgets.narration import cover

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|!])")
_URL = re.compile(r"https?://[^\s<>`]+")
_BLOCK = re.compile(r"\s*([-*+] |\d+[.)] |```)")      # a line that starts a list item or a fence

CSS = """body { max-width: 62rem; margin: 2rem auto; padding: 0 1rem; font: 16px/1.5 sans-serif; }
img { max-width: 100%; border: 1px solid #ccc; }
table { border-collapse: collapse; } th, td { border: 1px solid #999; padding: .2em .6em; }
td:not(:first-child), th:not(:first-child) { text-align: right; }
code { background: #f3f3f3; padding: 0 .2em; }"""


def svg_name(step: int) -> str:
    return f"step-{step:02d}.svg"


def plain(text: str) -> str:
    """Text shown as written, whatever Markdown would make of it (`*`, `_`, `<`, `|`)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def inline(text: str) -> str:
    """A question, choice or explanation: inline Markdown (`code`, **bold**, *italic*), as the
    player draws it, kept on one line so that it cannot break the list or paragraph it is in."""
    return " ".join(text.split())


def narration(text: str) -> str:
    """A step's `say`, its line breaks kept as the player keeps them (Markdown would join the lines).

    A line followed by another line of the same paragraph gets a hard
    break; fenced code, list items and blank lines are left as they are.
    """
    lines = text.rstrip().split("\n")
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if not fenced and line.strip() and nxt.strip() and not _BLOCK.match(nxt):
            lines[i] = line + "  "
    return "\n".join(lines)


def _link(url: str) -> str:
    """An http(s) URL as an autolink; anything else as plain text."""
    return f"<{url}>" if _URL.fullmatch(url) else plain(url)


def _patch(lesson: Lesson) -> list[str]:
    p = lesson.patch
    if p is None:
        return ["No patch: the common RX path every driver lesson builds on.", ""]
    refs = [f"Message-ID `{p.message_id}`" if p.message_id else "", f"commit `{p.commit}`" if p.commit else "",
            _link(p.url) if p.url else ""]
    return [f"**Patch:** {plain(p.subject)}  ", f"{plain(p.author)}{', ' + p.date if p.date else ''}  ",
            "; ".join(r for r in refs if r), ""]


def _question(ask) -> list[str]:
    lines = [f"*Question (the answer is at the end):* {inline(ask.question)}", ""]
    lines += [f"{i}. {inline(c)}" for i, c in enumerate(ask.choices, 1)]
    return lines + [""]


def _answers(lesson: Lesson) -> list[str]:
    asked = [s for s in lesson.steps if s.ask is not None]
    if not asked:
        return []
    out = ["## Questions and answers", ""]
    for s in asked:
        a = s.ask
        out += [f"**Step {s.index + 1}: {plain(s.title)}.** {inline(a.question)}  ",
                f"Answer: {a.answer + 1}. {inline(a.choices[a.answer])}. {inline(a.explain)}", ""]
        if s.reveal:             # what the step says once answered belongs with the answer
            out += [narration(s.reveal), ""]
    return out


def _table(cols: list[str], rows: list[list[str]]) -> list[str]:
    head = "| | " + " | ".join(cols) + " |"
    rule = "|---|" + "---:|" * len(cols)
    return [head, rule, *("| " + " | ".join(plain(c) for c in row) + " |" for row in rows), ""]


def _headline(lesson: Lesson, run: dict[str, Any] | None) -> list[str]:
    h = run and run.get("headline")
    if not h:
        return []
    cols, rows = headline.rows(h)
    out = ["## Paper vs model", "", f"**{plain(headline.title(h))}**, "
           f"{run['frames']:,} frames per variant after a warm-up:", "", *_table(cols, rows)]
    return out + [f"{plain(line)}  " for line in headline.notes(h, lesson)] + [""]


def markdown(lesson: Lesson, run: dict[str, Any] | None) -> str:
    """The handout's Markdown; the screens are `step-NN.svg` beside it (0 is the cover).

    `run` is a `models.runner.run_lesson` result for the headline pair, or None.
    """
    out = [f"# {plain(lesson.title)}", "", f"Driver: {plain(lesson.driver)}", "", *_patch(lesson),
           "## Before the first step", "", cover(lesson, start=False).rstrip(), "",
           f"![the player before the first step]({svg_name(0)})", ""]
    for s in lesson.steps:
        out += [f"## Step {s.index + 1}: {plain(s.title)}", "", narration(s.say), ""]
        if s.ask is not None:
            out += _question(s.ask)
        out += [f"![the player at step {s.index + 1}]({svg_name(s.index + 1)})", ""]
    out += _answers(lesson) + _headline(lesson, run)
    return "\n".join(out).rstrip() + "\n"


def to_html(lesson: Lesson, md: str) -> str:
    """The Markdown as a standalone page; raw HTML in it is shown as text, never run."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(md)
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(lesson.title)}</title>\n<style>\n{CSS}\n</style>\n</head>\n"
            f"<body>\n{body}</body>\n</html>\n")


def write(lesson: Lesson, fmt: str, outdir: Path, svgs: list[str], run: dict[str, Any] | None) -> Path:
    """Write the page (index.md or index.html) and its SVGs into `outdir`; the page's path."""
    outdir.mkdir(parents=True, exist_ok=True)
    for step, svg in enumerate(svgs):
        (outdir / svg_name(step)).write_text(svg, encoding="utf-8")
    md = markdown(lesson, run)
    page = outdir / f"index.{fmt}"
    page.write_text(md if fmt == "md" else to_html(lesson, md), encoding="utf-8")
    return page
