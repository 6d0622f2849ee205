"""`rxviz home`, and `rxviz` alone when it is not in a terminal: the lessons and the usage text.
"""

from __future__ import annotations

import argparse

# -- commands --------------------------------------------------------------------
USAGE = """\
Commands:
  rxviz play LESSON          the interactive player (in a terminal)
  rxviz list                 the lessons (--json)
  rxviz run LESSON           headless: metrics, kernel counters, paper vs model
  rxviz trace LESSON         the event log, one kernel call a line
  rxviz sweep LESSON         a metric across the values of a parameter, plotted
  rxviz graph [MACHINE]      a buffer lifecycle state machine
  rxviz check [FILE...]      validate and replay lessons, run their checks
  rxviz stats FILE           a real page_pool dump beside the closest lesson
  rxviz screenshot LESSON    an SVG of the player at a step
  rxviz export LESSON        a handout: each step's text and screen, the
                             questions and answers, paper vs model
  rxviz serve                the player in a web browser (a classroom, a
                             projector without a terminal)
  rxviz notes                speaker notes following a `rxviz play --present`
  rxviz exercise ACTION      write an RX driver yourself; rxviz checks it
                             (list, start ID, check DIR, hint ID, solution ID)
  rxviz completion SHELL     a completion script for bash or zsh

In a terminal, `rxviz` alone opens the home screen of the player.
Try `rxviz run rx-basics`; `rxviz COMMAND --help` explains each command."""


def run(args: argparse.Namespace) -> int:
    import textwrap

    from models.lesson import LessonError, load_lesson, loader
    print("rxviz: watch a Linux NIC driver receive packets, one RX buffer at a time.\n")
    print("Lessons:")
    paths = loader.lesson_paths()
    width = max((len(p.stem) for p in paths), default=0) + 2
    for p in paths:
        try:
            title = load_lesson(p).title
        except LessonError:
            title = f"(invalid: see `rxviz check {p}`)"
        print(textwrap.fill(title, width=79, initial_indent=f"  {p.stem:<{width}}",
                            subsequent_indent=" " * (width + 2), break_long_words=False,
                            break_on_hyphens=False))
    if not paths:
        print("  (none yet)")
    print()
    print(USAGE)
    return 0
