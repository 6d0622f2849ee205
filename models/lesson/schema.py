"""The parsed form of a lesson: frozen dataclasses, and the two errors.

A lesson file is untrusted YAML; `models.lesson.loader` validates it and
builds these objects, so everything downstream (the player, `rxviz check`,
`rxviz run`) can rely on their invariants: every variant a step, a check or
the headline names exists, every parameter value is already parsed, every
call and view name belongs to `models.calls`. Lines are 1-based and point
into the lesson file, for messages about a step or a check after loading.

The objects are frozen so a lesson cannot be edited by accident while it is
being played; the dicts inside are plain dicts (JSON-friendly), never
mutated by the loader after construction.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from .sanitize import shown


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest known name, or ''.

    A name that starts one or two known names (`ath11k` for
    `ath11k-36bit-dma-mask`) suggests those: ids are long, and people type
    their first word.
    """
    known = list(known)
    starts = [k for k in known if len(name) >= 3 and k.startswith(name)]
    hits = starts if 1 <= len(starts) <= 2 else difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {' or '.join(map(repr, hits))}?)" if hits else ""


class LessonError(Exception):
    """A lesson that cannot be used, with where and why, printed on one line.

    `str(e)` is `path:line:column: field: message`, the shape compilers use,
    so editors and terminals can jump to the spot. A problem with the file
    as a whole (missing, a directory, unreadable) has line 0 and no spot:
    `path: message`.
    """

    def __init__(self, path: str, line: int, column: int, field: str, message: str,
                 more: tuple[LessonError, ...] = (), dropped: int = 0) -> None:
        self.path = str(path)
        self.line = line
        self.column = column
        self.field = field
        self.message = message
        # The file's other problems, found in the same pass (`rxviz check` prints them all), and
        # how many more there were beyond the limit the validator stops at.
        self.more = tuple(more)
        self.dropped = dropped
        super().__init__(str(self))

    @classmethod
    def several(cls, errors: list[LessonError], dropped: int = 0) -> LessonError:
        """One error for several problems of a file: the first in the file, carrying the rest."""
        found = sorted(dict.fromkeys(errors), key=lambda e: (e.line, e.column))
        first = found[0]
        return cls(first.path, first.line, first.column, first.field, first.message, tuple(found[1:]), dropped)

    @property
    def errors(self) -> tuple[LessonError, ...]:
        """Every problem found, this one first."""
        return (self, *self.more)

    def __eq__(self, other: object) -> bool:     # the same problem found twice is reported once
        return isinstance(other, LessonError) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}: " if self.line > 0 else f"{self.path}: "
        what = f"{self.field}: {self.message}" if self.field else self.message
        # One line, always: a path or a YAML problem text must not break it, nor act on a terminal
        # (each control, bidi or invisible character is shown as its escape).
        return shown(where + what).replace("\t", " ").replace("\n", " ")


class LessonNotFound(Exception):
    """`rxviz play NAME` for a name that is not a lesson."""

    def __init__(self, name: str, known: list[str]) -> None:
        self.name = name
        self.known = list(known)
        super().__init__(str(self))

    def __str__(self) -> str:
        known = ", ".join(self.known) if self.known else "(none)"
        return f"unknown lesson {self.name!r}: known lessons are {known}{did_you_mean(self.name, self.known)}"


@dataclass(frozen=True)
class Patch:
    """The driver patch a lesson teaches; at least one of message_id / commit / url / seed is set."""
    subject: str
    author: str
    date: str = ""            # ISO YYYY-MM-DD when it was posted; "" when the copy kept no date
    message_id: str = ""
    commit: str = ""
    url: str = ""
    seed: str = ""            # file name under shared/seeds, if the lesson was built from one


@dataclass(frozen=True)
class Paper:
    """The published before/after figure the model's headline is set beside."""
    metric: str               # one of models.calls.METRICS
    unit: str
    before: float
    after: float
    compare: Literal["absolute", "change", "ratio"] = "absolute"
    source: str = ""
    note: str = ""
    # What the after figure is: "predicted" (a mechanism that could have come out otherwise),
    # "fitted" (it follows from the fitted values), or "bounded" (a link or bus caps it). Left
    # empty, the runner decides between predicted and bounded from the run.
    after_kind: str = ""
    after_note: str = ""


@dataclass(frozen=True)
class Headline:
    """How the headline pair is run; before/after are "" when the lesson has no pair."""
    frames: int = 100_000
    before: str = ""
    after: str = ""


@dataclass(frozen=True)
class Fitted:
    """A parameter whose value was fitted to a published figure (only ever the before one)."""
    param: str
    to: str
    note: str = ""
    # Machine-readable target, so a test can re-fit and show the stored value is the fit:
    metric: str = ""               # a models.calls.METRICS name, measured on `variant`
    value: float | None = None
    variant: str = ""              # never the headline's after variant
    lo: float | None = None        # the bracket the fit searches
    hi: float | None = None
    # The range a real machine has for this value, and where that range comes from; a fitted
    # value outside it says the parameter absorbs what the model does not have.
    plausible: tuple[float, float] | None = None
    basis: str = ""
    # What the value stands for beyond its name, said plainly, when a fit is the rest of a path
    # the model does not itemise (`rxviz run` prints it beside the range).
    absorbs: str = ""


@dataclass(frozen=True)
class Run:
    """How far a step runs the model.

    frames: `frames` more frames. until: until `call` has happened `count`
    more times, giving up after `limit` frames; with `source` (the lesson's
    `from`), only a call that moves an object out of that lifecycle state
    counts (models/machines.py), once. teardown: ifdown, then wait
    `wait_ns` of simulated time (pool shutdown retries happen in it).
    """
    kind: Literal["frames", "until", "teardown"]
    frames: int = 0
    call: str = ""
    count: int = 1
    limit: int = 100_000
    wait_ns: int = 0
    source: str = ""


@dataclass(frozen=True)
class Ask:
    """A prediction question asked before the step runs; answer is a 0-based index.

    `hide_code`: lines of the step's variant's pseudocode that would give the
    answer away; the player blanks them until the question is answered (or
    revealed), at this step and every step before it.
    `hide_counts`: counters and kernel calls (models.calls names) whose figures
    would give the answer away; every view keeps them back over the same span.
    `hide_figures`: figures that are no counter (models.lesson.figures: a cost
    category's share, what GRO holds, a pool's page size), kept back in every
    variant on the held screen and the step before it.
    """
    question: str
    choices: tuple[str, ...]
    answer: int
    explain: str
    hide_code: tuple[int, ...] = ()
    hide_counts: tuple[str, ...] = ()
    hide_figures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Step:
    index: int                # 0-based position in the lesson
    title: str
    say: str                  # Markdown: what is said before the step's question is answered
    show: str                 # variant shown in this step
    focus: str = ""           # one of models.calls.VIEWS, or "" for the player's default
    code: int = 0             # 1-based pseudocode line to light, 0 for none
    run: Run | None = None
    ask: Ask | None = None
    line: int = 0
    reveal: str = ""          # Markdown said after the answer (or the reveal), below `say`
    watch: tuple[str, ...] = ()   # counters and metrics this step is about (models.calls names)
    notes: str = ""           # speaker notes (rxviz notes), never on the player's screen
    payoff: bool = False      # the step where the paper-vs-model headline is shown

    def text(self, answered: bool) -> str:
        """The narration: `say`, and once the question is answered (or there is none) `reveal`."""
        if self.reveal and (answered or self.ask is None):
            return f"{self.say.rstrip()}\n\n{self.reveal}"
        return self.say


@dataclass(frozen=True)
class Check:
    """A claim replaying the lesson must satisfy.

    counter/metric: `name op value` on the variant's results. violation: the
    checker reported (present=True) or did not report (present=False) it.
    """
    variant: str
    kind: Literal["counter", "metric", "violation"]
    name: str
    op: str = ""
    value: float | None = None
    present: bool = True
    line: int = 0


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    driver: str
    summary: str
    patch: Patch | None
    scenario: dict[str, Any]              # parameter -> parsed value
    scenario_raw: dict[str, Any]          # parameter -> value as written (for display)
    variants: dict[str, dict[str, Any]]   # variant -> parsed overrides, file order
    paper: Paper | None = None
    headline: Headline = field(default_factory=Headline)
    fitted: tuple[Fitted, ...] = ()
    pseudocode: dict[str, tuple[str, ...]] = field(default_factory=dict)
    steps: tuple[Step, ...] = ()
    checks: tuple[Check, ...] = ()
    path: str | None = None
    # variant -> checker violations it shows on purpose: reported as demonstrated, never as failures
    expect: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # variant -> faults (models.calls.FAULTS) its driver has on purpose, as `--inject` would add them
    inject: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # variant -> the model's driver (models.drivers.DRIVERS) that runs its RX path instead of the strategy
    runs: dict[str, str] = field(default_factory=dict)
    # the two variants the end screen sums up, when the lesson names them (else the headline pair)
    end_pair: tuple[str, ...] = ()
    # control or bidi characters found in the lesson's text (each `file:line:col: field: ...`);
    # the strings themselves were cleaned when loaded (models.lesson.sanitize)
    problems: tuple[str, ...] = ()
    # variant -> pseudocode line -> the kernel calls it stands for, as (call, machine or "") (lesson.extras)
    code_calls: dict[str, dict[int, tuple[tuple[str, str, str], ...]]] = field(default_factory=dict)
    recap: str = ""           # what the lesson showed, three to five sentences: the end screen opens with it

    def params_for(self, variant: str) -> dict[str, Any]:
        """The scenario with one variant's overrides applied (a fresh dict)."""
        if variant not in self.variants:
            raise KeyError(f"lesson {self.id!r} has no variant {variant!r}; "
                           f"it has {', '.join(self.variants)}")
        return {**self.scenario, **self.variants[variant]}

    def faults_for(self, variant: str, extra: tuple[str, ...] | list[str] = ()) -> tuple[str, ...]:
        """The faults a variant runs with: its own `inject`, then `extra` (from --inject), once each."""
        return tuple(dict.fromkeys((*self.inject.get(variant, ()), *extra)))

    @property
    def payoff_step(self) -> int:
        """The 1-based step marked `payoff: true`, or 0 when none is."""
        return next((s.index + 1 for s in self.steps if s.payoff), 0)

    def answer_balance(self) -> str:
        """A warning when one choice position holds more than half of the answers, else ''.

        A learner who notices that "it is always 2" stops predicting; two
        questions need two positions, three need three.
        """
        answers = [s.ask.answer for s in self.steps if s.ask is not None]
        if len(answers) < 2:
            return ""
        top = max(set(answers), key=answers.count)
        n = answers.count(top)
        if n * 2 <= len(answers):
            return ""
        return (f"{n} of its {len(answers)} answers are choice {top + 1}: vary the position of the right "
                f"choice (at most half of the answers in one place)")

    def answer_lengths(self) -> str:
        """A warning when the right choice is the longest in more than half of the questions, else ''.

        "The longest" is longer than every other choice of its question (choices of one length
        give nothing away). A learner who notices that the right answer is the one that
        explains most picks it without predicting; like positions, one question is no pattern.
        """
        asks = [s.ask for s in self.steps if s.ask is not None]
        if len(asks) < 2:
            return ""
        n = sum(1 for a in asks
                if all(len(a.choices[a.answer]) > len(c) for i, c in enumerate(a.choices) if i != a.answer))
        if n * 2 <= len(asks):
            return ""
        return (f"in {n} of its {len(asks)} questions the right choice is the longest: shorten it or lengthen "
                f"a wrong one (the longest in at most half of the questions)")
