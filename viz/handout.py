"""Handouts: a lesson as one Markdown or HTML page, beside an SVG of the player at each step.

The page has the patch, each step's narration and the screen it shows, the
questions (asked where the player asks them, answered only at the end, so
the handout can be read in the order of the lesson) and the paper-vs-model
table of a headline run. Everything on it comes from the lesson file and
the model, like the player.

There is one writer, of Markdown; HTML is that Markdown rendered by
markdown-it with raw HTML turned off. A lesson is an untrusted file, so
none of its text is copied into the Markdown as it is: its Markdown is
parsed as the player parses it and written out again (viz/safe_md.py), its
plain fields are escaped and its codes put in code spans that nothing
breaks out of, each after decoding and sanitising. So a handout carries no
raw HTML, no entity that turns into a bidi override when it is read, and no
image but its own screens; the HTML page also says so to the browser (a
Content-Security-Policy that loads nothing from elsewhere). Files are
written whole, never through a symlink, into a directory that is the
user's own (viz/files.py).
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from models.lesson.sanitize import shown
from models.lesson.schema import Ask, Lesson
from viz import files
from viz import paper_vs_model_text as headline
from viz.safe_md import code, inline, line, markdown, text
from viz.widgets.narration import cover

_URL = re.compile(r"https?://[^\s<>`]+")

CSS = """body { max-width: 62rem; margin: 2rem auto; padding: 0 1rem; font: 16px/1.5 sans-serif; }
img { max-width: 100%; border: 1px solid #ccc; }
table { border-collapse: collapse; } th, td { border: 1px solid #999; padding: .2em .6em; }
td:not(:first-child), th:not(:first-child) { text-align: right; }
code { background: #f3f3f3; padding: 0 .2em; }"""
# The page loads its own screens and nothing else: no script, no remote image, font or style.
CSP = "default-src 'none'; img-src 'self' file:; style-src 'unsafe-inline'"


def svg_name(step: int) -> str:
    return f"step-{step:02d}.svg"


def plain(s: str) -> str:
    """Text shown as written, whatever Markdown would make of it (`*`, `_`, `<`, `|`, `&`)."""
    return text(s)


def _link(url: str) -> str:
    """An http(s) URL as an autolink; anything else as plain text."""
    return f"<{url}>" if _URL.fullmatch(url) else plain(url)


def _patch(lesson: Lesson) -> list[str]:
    p = lesson.patch
    if p is None:
        return ["No patch: the common RX path every driver lesson builds on.", ""]
    refs = [f"Message-ID {code(p.message_id)}" if p.message_id else "",
            f"commit {code(p.commit)}" if p.commit else "", _link(p.url) if p.url else ""]
    return [f"**Patch:** {plain(p.subject)}  ",
            line(f"{plain(p.author)}{', ' + plain(p.date) if p.date else ''}  "),
            "; ".join(r for r in refs if r), ""]


def _question(ask: Ask) -> list[str]:
    lines = [f"*Question (the answer is at the end):* {inline(ask.question)}", ""]
    lines += [f"{i}. {inline(c)}" for i, c in enumerate(ask.choices, 1)]
    return lines + [""]


def _answers(lesson: Lesson) -> list[str]:
    asked = [(s, s.ask) for s in lesson.steps if s.ask is not None]
    if not asked:
        return []
    out = ["## Questions and answers", ""]
    for s, a in asked:
        out += [f"**Step {s.index + 1}: {plain(s.title)}.** {inline(a.question)}  ",
                f"Answer: {a.answer + 1}. {inline(a.choices[a.answer])}. {inline(a.explain)}", ""]
        if s.reveal:             # what the step says once answered belongs with the answer
            out += [markdown(s.reveal), ""]
    return out


def _table(cols: list[str], rows: list[list[str]]) -> list[str]:
    head = "| | " + " | ".join(cols) + " |"
    rule = "|---|" + "---:|" * len(cols)
    return [head, rule, *("| " + " | ".join(plain(c) for c in row) + " |" for row in rows), ""]


def _headline(lesson: Lesson, run: dict[str, Any] | None) -> list[str]:
    h = run.get("headline") if run else None
    if not h or run is None:
        return []
    cols, rows = headline.rows(h)
    out = ["## Paper vs model", "", f"**{plain(headline.title(h))}**, "
           f"{run['frames']:,} frames per variant after a warm-up:", "", *_table(cols, rows)]
    return out + [line(f"{plain(note)}  ") for note in headline.notes(h, lesson)] + [""]


def page_markdown(lesson: Lesson, run: dict[str, Any] | None) -> str:
    """The handout's Markdown; the screens are `step-NN.svg` beside it (0 is the cover).

    `run` is a `models.runner.run_lesson` result for the headline pair, or None.
    """
    out = [f"# {plain(lesson.title)}", "", f"Driver: {plain(lesson.driver)}", "", *_patch(lesson),
           # every title: the steps below are listed with theirs anyway (a handout is read after the talk)
           "## Before the first step", "", markdown(cover(lesson, start=False, settled=lambda q: True)), "",
           f"![the player before the first step]({svg_name(0)})", ""]
    for s in lesson.steps:
        out += [f"## Step {s.index + 1}: {plain(s.title)}", "", markdown(s.say), ""]
        if s.ask is not None:
            out += _question(s.ask)
        out += [f"![the player at step {s.index + 1}]({svg_name(s.index + 1)})", ""]
    out += _answers(lesson) + _headline(lesson, run)
    return "\n".join(out).rstrip() + "\n"


def to_html(lesson: Lesson, md: str) -> str:
    """The Markdown as a standalone page; raw HTML in it is shown as text, never run."""
    from markdown_it import MarkdownIt

    body = shown(MarkdownIt("commonmark", {"html": False}).enable("table").render(md))
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f"<title>{html.escape(shown(lesson.title))}</title>\n<style>\n{CSS}\n</style>\n</head>\n"
            f"<body>\n{body}</body>\n</html>\n")


def write(lesson: Lesson, fmt: str, outdir: Path, svgs: list[str], run: dict[str, Any] | None) -> Path:
    """Write the page (index.md or index.html) and its SVGs into `outdir`; the page's path.

    Raises files.Unsafe for a directory rxviz must not write into, OSError when writing fails
    (each file is then left as it was: written whole or not at all)."""
    files.own_dir(outdir)
    for step, svg in enumerate(svgs):
        files.write(outdir / svg_name(step), svg)
    md = page_markdown(lesson, run)
    page = outdir / f"index.{fmt}"
    files.write(page, md if fmt == "md" else to_html(lesson, md))
    return page
