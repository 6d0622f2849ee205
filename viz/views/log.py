"""The event log: the most recent kernel calls, one a line, newest at the bottom.

Each line is one `models.trace.Event`: when (simulated time, in µs, ms or s
so the figure stays short; see `stamp`), in which
context (a two-letter tag and its colour, so the context never rests on
colour alone), the kernel call as the kernel spells it, the object it
touched and what it did. A DMA-API-debug report ("VIOLATION") or a kernel
warning is drawn in the error or warning colour with its message, since it
is what a lesson about a bug wants the reader to find.

The calls the last step made are bright; older ones are dimmed, so a step's
work stands out in the scrollback. No scrolling: a step opens with its first
call on the view's top line (ViewState.opens_at), since that is where its
text starts reading, and as many after it as fit, unless the step's first
report would fall below them (80x24 has a few rows): then the view ends
with that report. Stepping by call or playing, the view follows the newest
call instead (the trace buffer keeps the last few hundred).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from rich.text import Text

from models.read import Event, kept_details

from . import register
from .base import ModelView

REPORTS = ("VIOLATION", "WARNING")      # a checker's report or a kernel warning: drawn whole, never left below

# context -> (tag, component class)
CONTEXTS = {
    "hardirq": ("HI", "hardirq"),
    "softirq": ("SI", "softirq"),
    "process": ("PR", "process"),
    "app": ("AP", "app"),
    "device": ("DV", "device"),
}


STAMP_W = 11         # "999.999 µs", "820.7511 ms", "53.034681 s": one column width for all


def stamp(t_ns: float) -> str:
    """Simulated time in µs, ms or s, whichever keeps it under 1000: short enough to read at a glance.

    Calls are microseconds apart, so the digits kept go down to the microsecond
    (0.1 µs in ms; 10 µs past 100 s, to keep the width).
    """
    for scale, decimals, unit in ((1e3, 3, "µs"), (1e6, 4, "ms")):
        text = f"{t_ns / scale:.{decimals}f}"
        if float(text) < 1000:           # as rounded: 999.9999 ms is "1.000000 s", not "1000.0000 ms"
            return f"{text} {unit}".rjust(STAMP_W)
    # past 100 s a digit of the fraction makes room for the integer part
    text = f"{t_ns / 1e9:.{6 if t_ns < 99_999_999_500 else 5 if t_ns < 999_999_995_000 else 3}f} s"
    return text.rjust(STAMP_W)


@register
class LogView(ModelView):
    KEY = "log"
    TITLE = "Event log"
    # The calls a question ahead keeps back are not listed, some details not said; where it opens.
    READS = ("hidden_counts", "opens_at")

    COMPONENT_CLASSES = {"logview--hardirq", "logview--softirq", "logview--process", "logview--app",
                         "logview--device", "logview--error", "logview--warning", "logview--muted",
                         "logview--call", "logview--old"}
    DEFAULT_CSS = """
    LogView > .logview--hardirq { color: $text-error; text-style: bold; }
    LogView > .logview--softirq { color: $text-success; text-style: bold; }
    LogView > .logview--process { color: $text-primary; text-style: bold; }
    LogView > .logview--app { color: $foreground; text-style: bold; }
    LogView > .logview--device { color: $text-muted; text-style: bold; }
    LogView > .logview--error { color: $text-error; text-style: bold; }
    LogView > .logview--warning { color: $text-warning; text-style: bold; }
    LogView > .logview--muted { color: $text-muted; }
    LogView > .logview--call { text-style: bold; }
    LogView > .logview--old { text-style: dim; }
    """

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [Text("no model yet", self._s("muted"))]
        legend = self._legend(width)
        rows = max(0, height - 1)
        kept = st.hidden_counts         # calls whose record would answer a question still ahead
        if not st.read.traced():
            return [Text("no trace buffer: the model runs without an event log", self._s("muted"))]
        everything = st.read.events()
        if not everything or not rows:
            return [Text("no kernel call yet", self._s("muted")), legend]
        opening = self._opening(everything, st.opens_at)
        # Lines kept back leave room for older ones: read further back (the trace buffer keeps a few hundred).
        events = (everything[max(0, opening - rows * 4):opening + rows * 4] if opening is not None
                  else everything[-rows * (4 if kept else 1):])
        fresh_from = self._fresh_from(everything)
        out: list[Text] = []
        setup = st.read.setup_seq
        quiet = kept_details(kept)      # calls listed, but what they did kept back
        top = None                      # the line of the call the view opens at
        reports: list[int] = []         # where each report of this step ends (its message wraps)
        for e in events:
            if top is None and opening is not None and e.seq >= everything[opening].seq:
                top = len(out)
            if e.call not in kept:
                out += self._event(e, width, e.seq < fresh_from, e.seq <= setup, e.call in quiet)
                if e.call in REPORTS and e.seq >= fresh_from:
                    reports.append(len(out))
        if top is not None:             # that call on the top line, unless the lines after it leave room
            end = top + rows
            # ... or the step's first report would fall below the view (a small screen): the report is
            # what a lesson about a bug wants read, so the view ends with it instead.
            below = next((r for r in reports if r > end), None)
            out = out[:end if below is None or any(top < r <= end for r in reports) else below]
        out = out[-rows:]
        pad = [Text("")] * (rows - len(out))
        return pad + out + [legend]

    def _fresh_from(self, events: Sequence[Event]) -> int:
        """The number of the first event the last step made (the ones before it are dimmed).

        Every call bumps one counter, so the counters' growth since the previous step is
        the number of calls the step added: the newest ones in the buffer (reports too).
        """
        counts, prev = self.st.read.counts(), self.st.prev_counts
        if not prev:
            return events[0].seq
        fresh = sum(n - prev.get(k, 0) for k, n in counts.items())
        i = len(events)
        while i > 0 and fresh > 0:
            i -= 1
            fresh -= events[i].call not in REPORTS
        return events[i].seq if i < len(events) else events[-1].seq + 1

    @staticmethod
    def _opening(events: Sequence[Event], at: int | None) -> int | None:
        """The index of call `at` (the first numbered `at` or later) if the trace buffer still holds it."""
        if at is None or events[0].seq > at:
            return None
        lo = bisect_left(events, at, key=lambda e: e.seq)
        return lo if lo < len(events) else None

    def _event(self, e: Event, width: int, old: bool, setup: bool = False, quiet: bool = False) -> list[Text]:
        """One event's line; a report's message wraps under it, since it must be read whole.

        A set-up call (ifup filling the ring) happened before the clock started: its time
        would be the set-up's own CPU time, which reads as if the clock ran backwards after it.
        """
        tag, cls = CONTEXTS.get(e.ctx, (e.ctx[:2].upper(), "muted"))
        line = Text(no_wrap=True, end="")
        line.append(("set-up".rjust(STAMP_W) if setup else stamp(e.t_ns)) + " ", self._s("muted"))
        line.append(tag, self._s(cls))
        if width >= 64:
            line.append(f" {e.ctx:<7}", self._s(cls))
        line.append(" ")
        if e.call in REPORTS:
            style = self._s("error" if e.call == "VIOLATION" else "warning")
            indent = min(line.cell_len, max(0, width - 20))
            line.append(("✖ " if e.call == "VIOLATION" else "⚠ ") + e.call + (f" {e.obj}" if e.obj else ""), style)
            msg = Text(e.detail, style)
            return [line] + [Text(" " * indent, end="") + part
                             for part in msg.wrap(self.app.console, max(8, width - indent))]
        line.append(e.call, self._s("call"))
        if e.obj:
            line.append(f" {e.obj}")
        if e.detail:
            line.append("  (kept back until you answer)" if quiet else f"  {e.detail}", self._s("muted"))
        if old:
            line.stylize(self._s("old"))
        return [line]

    def _legend(self, width: int) -> Text:
        out = Text(no_wrap=True, end="")
        for ctx, (tag, cls) in CONTEXTS.items():
            out.append(tag, self._s(cls))
            out.append(f" {ctx}  " if width >= 60 else " ", self._s("muted"))
        out.append("· dim: earlier steps", self._s("muted"))
        return out
