"""The status line: where we are, the kernel call the shown variant is at, in its context.

    ‖ 1x  gro  step 4/13 · call 17/212  softirq · napi_complete_done · work 12 < 64   1 234 frames · 3.456 ms

It reads the frame the player published (never the live model), so it is
as exact as the views. On a narrow screen the parts of the line give way in
order (the call's detail, the frame count, the call's number, the step, the
context), so the kernel call the screen is at stays whole at 80 columns.
When the model is busy computing, that is said here instead, with a bar
and the share done once the model reports one (End on a long lesson, a
fast-forward of 100 000 frames): a slow step is visible, not a frozen screen.

    ‖ 1x  computing step 11/11…  ████████░░░░░░░░░░░░  42%
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive

from viz.component_styles import KeptComponentStyles
from viz.session import Frame

BAR = 24          # cells of the progress bar, when the line has room


def fmt_ns(ns: float) -> str:
    """Simulated time, with the unit a person would pick."""
    if ns < 1_000:
        return f"{ns:.0f} ns"
    if ns < 1_000_000:
        return f"{ns / 1_000:.1f} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1_000_000:.3f} ms"
    return f"{ns / 1_000_000_000:.3f} s"


def fmt_int(n: float) -> str:
    """12,345: the one way rxviz writes a count, in the player, the CLI and the handouts."""
    return f"{n:,}"


def last_call(frame: Frame) -> tuple[str, str]:
    """(context, "call · detail") of the last event of the shown variant."""
    sim = frame.sims.get(frame.shown)
    if sim is None:
        return "", ""
    recent = sim.rec.recent(1)
    if not recent:
        if sim.bus == "pcie" and sim.ring is not None:
            return "process", f"ifup · {sim.ring.device_owned} descriptors posted to the device"
        return "process", "ifup · waiting for the first frame"
    ev = recent[-1]
    what = ev.call + (f" {ev.obj}" if ev.obj else "")
    return ev.ctx, what + (f" · {ev.detail}" if ev.detail else "")


class StatusLine(KeptComponentStyles):
    """One line under the views: play state, variant, last kernel call, frames, simulated time."""

    COMPONENT_CLASSES = {"status--play", "status--variant", "status--ctx", "status--muted", "status--error",
                         "status--clock"}
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
        & > .status--play { color: $text-accent; text-style: bold; }
        & > .status--variant { color: $text-primary; text-style: bold; }
        & > .status--ctx { color: $text-secondary; }
        & > .status--muted { color: $foreground-muted; }
        & > .status--error { color: $text-error; text-style: bold; }
        & > .status--clock { color: $text-accent; text-style: bold reverse; }
    }
    """

    frame: reactive[Frame | None] = reactive(None)
    playing: reactive[bool] = reactive(False)
    speed: reactive[float] = reactive(1.0)
    busy: reactive[str] = reactive("")
    progress: reactive[float | None] = reactive(None)    # share of a busy move done, 0..1
    hint: reactive[str] = reactive("")          # said instead of the last call (a question waits)
    error: reactive[str] = reactive("")         # a model error: said instead of everything else
    clock: reactive[str] = reactive("")         # presenter mode: the talk timer, at the right
    follow: reactive[str] = reactive("")        # the object ] and [ walk, when one is followed

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"status--{name}", partial=True)

    def _bar(self, room: int) -> Text:
        """'  ████░░░░  42%' in at most `room` cells: full and empty blocks read without colour too."""
        share = max(0.0, min(1.0, self.progress or 0.0))
        size = max(0, min(BAR, room - 7))
        full = round(share * size)
        bar = Text("  ")
        bar.append("█" * full, self._s("play"))
        bar.append("░" * (size - full), self._s("muted"))
        bar.append(f" {share:4.0%}")
        return bar

    def render(self) -> Text:
        width = self.content_size.width
        play = Text(("▶ " if self.playing else "‖ ") + f"{self.speed:g}x", self._s("play"))
        if self.error:
            out = play + Text(f"  ⚠ {self.error}", self._s("error"))
            out.truncate(width, overflow="ellipsis")
            return out
        frame = self.frame
        if self.busy or frame is None:
            out = play + Text("  " + (self.busy or "setting up the model…"), self._s("muted"))
            if self.busy and self.progress is not None:
                out.append_text(self._bar(width - cell_len(out.plain) - 2))
            return self._with_clock(out, width)
        return self._fit(self._parts(play, frame), width)

    def _with_clock(self, out: Text, width: int) -> Text:
        if not self.clock:
            out.truncate(width, overflow="ellipsis")
            return out
        out.truncate(max(0, width - len(self.clock) - 4), overflow="ellipsis", pad=True)
        return out.append("  ").append(f" {self.clock} ", self._s("clock"))

    def _parts(self, play: Text, frame: Frame) -> list[tuple[int, str, Text]]:  # noqa: C901 (older than the complexity rule)
        """The line's pieces in order, as (rank, side, text): when the line is too long, the pieces of the
        highest rank go first, so the call the screen is at (rank 0) is the last thing ever shortened."""
        s = self._s
        parts: list[tuple[int, str, Text]] = [(0, "l", play), (2, "l", Text(f"  {frame.shown}", s("variant")))]
        if self.hint:           # a question's hint names the step the views hold: it comes before the rest
            # Its aside in brackets gives way before the variant's name (a long one, "missing-unmap",
            # did not fit beside the whole hint at 80 columns): the keys to press never do.
            head, bracket, rest = self.hint.partition(" (")
            aside, closed, tail = rest.partition(")")
            if not (bracket and closed):
                head, aside, tail = self.hint, "", ""
            parts.append((0, "l", Text(f"  {head}", s("ctx"))))
            if aside:
                parts.append((3, "l", Text(f" ({aside})", s("ctx"))))
            if tail:
                parts.append((0, "l", Text(tail, s("ctx"))))
            return parts
        parts.append((4, "l", Text(f"  step {frame.step}/{frame.total}", s("muted"))))
        where = frame.call_index()
        if where is not None:
            parts.append((5, "l", Text(f" · call {fmt_int(where[0])}/{fmt_int(where[1])}", s("muted"))))
        if self.follow:
            parts.append((3, "l", Text(f"  ◎ {self.follow}", s("play"))))
        sim = frame.sims.get(frame.shown)
        if sim is not None:
            bad = sim.rec.violations.last
            if bad and bad.name in frame.lesson.expect.get(frame.shown, ()):
                parts.append((3, "l", Text(f"  ⚑ {bad.name} (expected)", s("ctx"))))    # shown on purpose
            elif bad:
                parts.append((1, "l", Text(f"  ⚠ {bad.name}", s("error"))))
        if not frame.reached and frame.step:
            run = frame.lesson.steps[frame.step - 1].run
            assert run is not None              # only a step that runs `until` a call can miss it
            parts.append((1, "l", Text(f"  ⚠ {run.call} not reached in {fmt_int(run.limit)} frames", s("error"))))
        ctx, what = last_call(frame)
        if ctx:
            call, _, detail = what.partition(" · ")
            name, _, obj = call.partition(" ")
            parts.append((6, "l", Text(f"  {ctx} ·", s("ctx"))))
            parts.append((0, "l", Text(f" {name}")))
            if obj:
                parts.append((5, "l", Text(f" {obj}")))
            if detail:
                parts.append((8, "l", Text(f" · {detail}")))
        if sim is not None:
            right = Text(f"{fmt_int(sim.processed)} frames", s("muted"))
            if sim.dropped:
                right.append(f" ({fmt_int(sim.dropped)} dropped)", s("error"))
            # The CPU clock can run ahead of the event clock inside a poll: show the later, as the log does.
            right.append(f" · {fmt_ns(sim.clock_ns)}", s("muted"))
            parts.append((7, "r", right))
        if self.clock:              # the talk timer, a block the speaker finds at a glance
            parts.append((0, "r", Text("  ") + Text(f" {self.clock} ", s("clock"))))
        return parts

    @staticmethod
    def _fit(parts: list[tuple[int, str, Text]], width: int) -> Text:
        """Drop the highest-ranked pieces until the rest fits `width`; the right side stays right-aligned."""
        keep = list(parts)
        while len(keep) > 1 and sum(cell_len(t.plain) for _, _, t in keep) + 2 > width:
            worst = max(r for r, _, _ in keep)
            if worst == 0:
                break
            i = max(i for i, (r, _, _) in enumerate(keep) if r == worst)
            del keep[i]
        left = Text().join(t for _, side, t in keep if side == "l")
        right = Text().join(t for _, side, t in keep if side == "r")
        room = width - cell_len(right.plain)
        left.truncate(max(0, room), overflow="ellipsis")
        if right.plain:
            left.pad_right(max(0, room - cell_len(left.plain)))
        return left + right
