"""The bounds on what a lesson may ask for: every number, and the work it can make the model do.

Lessons are untrusted, so every number has an upper bound and the work a
lesson can ask of the model is bounded: frames per step, an `until`'s count
and limit, the frames of the whole lesson, the headline's frames, the
teardown's wait. `rxviz check` enforces them with file:line:col (each with a
reason in the message that refuses a value past it), so a lesson that passes
it cannot make `run`, `export` or the player loop for hours or overflow a
float. lessons/README.md documents them for authors.
"""

from __future__ import annotations

MAX_ERRORS = 20                  # problems reported for one file before the validator stops looking
# Bounds on what a lesson can ask for (each also has a reason in the message that refuses it).
MAX_NUMBER = 1e12                # a published figure, a fitted target, a check's value
MAX_STEP_FRAMES = 100_000        # `run: {frames: N}`
MAX_UNTIL_COUNT = 10_000         # `run: {until: call, count: N}`
MAX_UNTIL_LIMIT = 100_000        # `run: {until: call, limit: N}` (frames)
MAX_LESSON_FRAMES = 2_000_000    # every step's frames and until limits together, per variant
MAX_HEADLINE_FRAMES = 200_000    # `headline.frames`
MAX_WAIT_NS = 600 * 10**9        # `run: {teardown: true, wait: T}`: ten minutes of simulated time
MAX_FITTED = 8                   # each fitted value re-runs the headline pair twice (sensitivity)
MAX_CHECKS = 200
