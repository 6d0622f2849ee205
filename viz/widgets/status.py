"""The status line: where we are, the kernel call the shown variant is at, in its context.

    ‖ 1x  gro  step 4/13 · call 17/212  softirq · napi_complete_done · work 12 < 64   1 234 frames · 3.456 ms

It reads the frame the player published (never the live model), so it is
as exact as the views. When the model is busy computing, that is said here
instead, with a bar and the share done once the model reports one (End on a
long lesson, a fast-forward of 100 000 frames): a slow step is visible, not
a frozen screen.

    ‖ 1x  computing step 11/11…  ████████░░░░░░░░░░░░  42%
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

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


def fmt_int(n: int) -> str:
    """12,345: the one way rxviz writes a count, in the player, the CLI and the handouts."""
    return f"{n:,}"


def last_call(frame: Frame) -> tuple[str, str]:
    """(context, "call · detail") of the last event of the shown variant."""
    sim = frame.sims.get(frame.shown)
    if sim is None:
        return "", ""
    recent = sim.rec.recent(1)
    if not recent:
        if sim.bus == "pcie":
            return "process", f"ifup · {sim.ring.device_owned} descriptors posted to the device"
        return "process", "ifup · waiting for the first frame"
    ev = recent[-1]
    what = ev.call + (f" {ev.obj}" if ev.obj else "")
    return ev.ctx, what + (f" · {ev.detail}" if ev.detail else "")


class StatusLine(Widget):
    """One line under the views: play state, variant, last kernel call, frames, simulated time."""

    COMPONENT_CLASSES = {"status--play", "status--variant", "status--ctx", "status--muted", "status--error"}
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

    def _s(self, name: str):
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
        left = Text()
        left.append(("▶ " if self.playing else "‖ ") + f"{self.speed:g}x", self._s("play"))
        if self.clock:
            width -= len(self.clock) + 2
        out = self._left(left, width)
        if self.clock:
            out.truncate(width, overflow="ellipsis", pad=True)
            out.append(f"  {self.clock}", self._s("play"))
        return out

    def _left(self, left: Text, width: int) -> Text:
        if self.error:
            left.append(f"  ⚠ {self.error}", self._s("error"))
            left.truncate(width, overflow="ellipsis")
            return left
        frame = self.frame
        if self.busy or frame is None:
            left.append("  " + (self.busy or "setting up the model…"), self._s("muted"))
            if self.busy and self.progress is not None:
                left.append_text(self._bar(width - cell_len(left.plain) - 2))
            return left
        left.append(f"  {frame.shown}", self._s("variant"))
        if not self.hint:           # a question's hint names the step the views hold, and must fit
            left.append(f"  step {frame.step}/{frame.total}", self._s("muted"))
        where = frame.call_index()
        if where is not None and not self.hint:
            left.append(f" · call {fmt_int(where[0])}/{fmt_int(where[1])}", self._s("muted"))
        if self.follow and not self.hint:
            left.append(f"  ◎ {self.follow}", self._s("play"))
        if self.hint:
            left.append(f"  {self.hint}", self._s("ctx"))
            left.truncate(width, overflow="ellipsis")
            return left
        sim = frame.sims.get(frame.shown)
        right = Text()
        if sim is not None:
            right.append(f"{fmt_int(sim.processed)} frames", self._s("muted"))
            if sim.dropped:
                right.append(f" ({fmt_int(sim.dropped)} dropped)", self._s("error"))
            # The CPU clock can run ahead of the event clock inside a poll: show the later, as the log does.
            right.append(f" · {fmt_ns(sim.clock_ns)}", self._s("muted"))
            bad = sim.rec.violations.last
            if bad and bad.name in frame.lesson.expect.get(frame.shown, ()):
                left.append(f"  ⚑ {bad.name} (expected)", self._s("ctx"))    # shown on purpose
            elif bad:
                left.append(f"  ⚠ {bad.name}", self._s("error"))
        if not frame.reached and frame.step:
            run = frame.lesson.steps[frame.step - 1].run
            left.append(f"  ⚠ {run.call} not reached in {fmt_int(run.limit)} frames", self._s("error"))
        ctx, what = last_call(frame)
        if ctx:
            left.append(f"  {ctx}", self._s("ctx"))
            left.append(f" · {what}")
        room = width - cell_len(right.plain) - 2
        if room < 20:           # too narrow for both: the kernel call matters more
            left.truncate(width, overflow="ellipsis")
            return left
        left.truncate(room, overflow="ellipsis")
        left.pad_right(width - cell_len(left.plain) - cell_len(right.plain))
        return left + right
