"""The glossary: the terms the lessons use, in the project's own words, each with where the kernel has it.

One YAML file next to the lessons (`lessons/glossary/terms.yaml`), read as
untrusted as a lesson is: the same safe loader and limits (no anchors, no
tags, a size cap), every string cleaned of control and bidi characters, and
errors with file, line, column and field. A term has `term` (as the kernel
or the lessons spell it), `means` (one to four sentences), `kernel` (the
files and functions that define or do it) and optional `also` (other
spellings a step may use: `bounced` for SWIOTLB).

`terms_in(text)` says which terms a piece of lesson text uses, so the
player's glossary can list the current step's first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .loader import _check_tree, _compose, _decode, _read, lessons_dir
from .nodes import Map, V
from .schema import LessonError
from .validate import _no_internal_notes

GLOSSARY = Path("glossary") / "terms.yaml"


@dataclass(frozen=True)
class Term:
    term: str
    means: str
    kernel: str
    also: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.also)


def load_glossary(path: str | Path | None = None) -> tuple[Term, ...]:
    """The glossary's terms, in file order; raises LessonError (file:line:column: field: message)."""
    path = str(path or lessons_dir() / GLOSSARY)
    root, loader = _compose(_decode(_read(path), path), path)
    _check_tree(root, path)
    v = V(loader, path)
    _no_internal_notes(v, root)
    if v.errors:
        raise v.errors[0]
    top = Map(v, root, "", ("terms",))
    out: list[Term] = []
    seen: dict[str, int] = {}
    for i, node in enumerate(v.seq(top.vals["terms"], "terms", 1, 500)):
        t = Map(v, node, f"terms[{i}]", ("term", "means", "kernel"), ("also",))
        names = v.seq(t.opt("also"), t.at("also"), 1, 20)
        also = tuple(v.text(n, f"terms[{i}].also[{j}]") for j, n in enumerate(names))
        term = Term(t.get("term", "text").strip(), " ".join(t.get("means", "text").split()),
                    t.get("kernel", "text").strip(), also)
        if not term.term or not term.means or not term.kernel:
            v.fail(node, f"terms[{i}]", "term, means and kernel must not be empty")
        key = term.term.lower()
        if key in seen:
            t.fail("term", f"{term.term!r} is already terms[{seen[key]}]")
        seen[key] = i
        out.append(term)
    if v.problems:      # a control character or markup in the glossary's text: it is ours, so refuse it
        raise v.problems[0]
    return tuple(out)


@lru_cache(maxsize=4)
def glossary() -> tuple[Term, ...]:
    """The shipped glossary, read once (an unreadable one is an empty glossary, as `rxviz check` reports)."""
    try:
        return load_glossary()
    except LessonError:
        return ()


def _pattern(name: str) -> re.Pattern[str]:
    # a whole word (or identifier): "ring" in "the ring", not in "string"
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)


def terms_in(text: str, terms: tuple[Term, ...]) -> list[Term]:
    """The terms `text` uses (by any of their names), in glossary order."""
    return [t for t in terms if any(_pattern(n).search(text) for n in t.names)]
