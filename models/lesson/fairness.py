"""Questions that give their answer away: a step title or a pseudo-code line that names a choice.

While a question waits, the player shows the step's title and its variant's
pseudo-code (all of it but the lines `hide_code` blanks, with the line of the
step before lit). If either names one of the choices, the learner reads the
answer instead of predicting it. `rxviz check` reports each such question
with the step's line in the file, so the author can reword the title or hide
the line.

The figures a question keeps back (`hide_counts`) are kept back at every step
of its variant before it too: an earlier step that asks the learner to watch
one of them is reported as well.

What "names" means, kept simple and strict so that it rarely fires by
chance: a choice's distinctive words are those no other choice and not the
question uses (function words left out, plural and past tense folded:
"dropped" is "drop"). A text names a choice when it holds two of them, or one
identifier (a word with an underscore, such as `kmem_cache_alloc`). A title
must name no choice at all; a pseudo-code line must not name the right
choice unless it names a wrong one too (a line about both the alloc cache
and the ptr_ring favours neither).
"""

from __future__ import annotations

import re

from .schema import Ask, Lesson, Step

_STOP = frozenset("""a an the and or but of to in on at by for with from into onto as is are was were be been being it
its this that these those there here then than so such not no yes nothing none all any each every one two three four
some more most less few many much very after before when while until once only also still just about over under up
down out off again same other another own which what who whom how why where can could may might must shall should will
would do does did done has have had having per via both either neither they them their we you your he she his her our
us if else because""".split())
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if suffix in ("ing", "ed") and len(w) > 3 and w[-1] == w[-2]:
                w = w[:-1]                  # "dropped" -> "drop", "mapping" -> "map"
            break
    return w


def words(text: str) -> set[str]:
    """The text's content words, stemmed (identifiers kept whole)."""
    return {_stem(t) for t in _TOKEN.findall(text) if len(t) >= 3 and t.lower() not in _STOP}


def distinctive(ask: Ask, i: int) -> set[str]:
    """Choice i's words that neither the question nor any other choice uses."""
    others = set().union(*(words(c) for j, c in enumerate(ask.choices) if j != i))
    return words(ask.choices[i]) - words(ask.question) - others


def _names(text: str, choice_words: set[str]) -> set[str]:
    hit = words(text) & choice_words
    return hit if len(hit) >= 2 or any("_" in h for h in hit) else set()


def spoilers(lesson: Lesson) -> list[tuple[Step, str]]:
    """(step, what gives its question away) for every question of the lesson."""
    out: list[tuple[Step, str]] = []
    for step in lesson.steps:
        ask = step.ask
        if ask is None:
            continue
        for i in range(len(ask.choices)):
            hit = _names(step.title, distinctive(ask, i))
            if hit:
                out.append((step, f"its title names choice {i + 1} ({', '.join(sorted(hit))}): retitle the step"))
        right = distinctive(ask, ask.answer)
        wrong = [distinctive(ask, i) for i in range(len(ask.choices)) if i != ask.answer]
        for n, line in enumerate(lesson.pseudocode.get(step.show, ()), start=1):
            if n in ask.hide_code:
                continue
            hit = _names(line, right)
            if hit and not any(_names(line, w) for w in wrong):
                out.append((step, f"pseudocode.{step.show} line {n} names the answer ({', '.join(sorted(hit))}) "
                                  f"while the question waits: add {n} to hide_code or reword the line"))
        # The views keep hide_counts back from the question's variant until it is answered, at every
        # step before it too: an earlier step of that variant cannot point at one of them.
        for before in lesson.steps[:step.index]:
            kept = [n for n in before.watch if n in ask.hide_counts] if before.show == step.show else []
            if kept:
                out.append((step, f"step {before.index + 1} watches {', '.join(kept)}, which this question keeps "
                                  f"back until it is answered: leave it out of that step's watch or of hide_counts"))
    return out
