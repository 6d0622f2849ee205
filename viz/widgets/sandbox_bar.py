"""The sandbox's line under the narration: what was changed, and what that moved at this step.

    sandbox ram=2GiB · s to change, s then ctrl+x for the lesson's own run
    moved at step 5 (before): swiotlb_bounce 4 096 → 0 · cpu_percent 40.5 → 16.9

"What moved" sets the lesson's own frame of this step beside the sandbox's,
for the shown variant: the step's watched counters and metrics first, then
the throughput and the CPU, then any other counter that changed, as many as
the width allows. Both frames come from the model; nothing here is computed
but differences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from models.calls import METRICS
from viz.param_text import written
from viz.session import Frame
from viz.widgets.status import fmt_int

if TYPE_CHECKING:
    from models.sim import Sim

ALWAYS = ("throughput_mbps", "cpu_percent")


def value(sim: Sim, name: str) -> float | None:
    """A counter (kernel call or statistic) or a metric of a sim, by its models.calls name."""
    return figure(sim.metrics, sim.rec.counters, sim.rec.counts, name)


def figure(metrics: Callable[[], Mapping[str, Any]], counters: Callable[[], Mapping[str, int]],
           counts: Mapping[str, int], name: str) -> float | None:
    """A metric by name, else a counter, else a raw call count (0 for a call never made); each
    source is asked only when needed (metrics cost a pass over the run)."""
    if name in METRICS:
        v = metrics().get(name)
        return v if isinstance(v, (int, float)) else None
    return counters().get(name, counts.get(name, 0))


def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if isinstance(v, int) or float(v).is_integer() and abs(v) >= 100:
        return fmt_int(int(v))
    return f"{v:,.2f}" if abs(v) < 100 else f"{v:,.1f}"


def moved(ref: Frame | None, now: Frame, variant: str, watch: tuple[str, ...]) -> list[tuple[str, Any, Any]]:
    """(name, lesson value, sandbox value) of what differs, the watched names and the headline metrics first."""
    if ref is None or variant not in ref.sims or variant not in now.sims:
        return []
    a, b = ref.sims[variant], now.sims[variant]
    names = list(dict.fromkeys([*watch, *ALWAYS, *a.rec.counters(), *b.rec.counters()]))
    out = []
    for name in names:
        va, vb = value(a, name), value(b, name)
        if va != vb and not (isinstance(va, float) and isinstance(vb, float) and abs(va - vb) < 1e-9):
            out.append((name, va, vb))
    return out


class SandboxBar(Widget):
    """Two lines: the changed parameters and the keys; what moved, as `show` gives it."""

    COMPONENT_CLASSES = {"sandbox--label", "sandbox--name", "sandbox--muted"}
    DEFAULT_CSS = """
    SandboxBar {
        height: auto;
        max-height: 3;
        background: $warning-muted;
        padding: 0 1;
        color: $text;
        & > .sandbox--label { color: $text-warning; text-style: bold; }
        & > .sandbox--name { text-style: bold; }
        & > .sandbox--muted { color: $text-muted; }
    }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.sets: dict[str, Any] = {}
        self.rows: list[tuple[str, Any, Any]] | None = None

    def show(self, sets: dict[str, Any], rows: list[tuple[str, Any, Any]] | None) -> None:
        if (sets, rows) != (self.sets, self.rows):
            self.sets, self.rows = dict(sets), rows
            self.refresh(layout=True)

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"sandbox--{name}", partial=True)

    def render(self) -> Text:
        width = max(1, self.content_size.width)
        head = Text()
        head.append("sandbox ", self._s("label"))
        head.append(" ".join(f"{k}={written(k, v)}" for k, v in self.sets.items()), self._s("name"))
        head.append("  · s changes it; in there ctrl+x returns to the lesson", self._s("muted"))
        head.truncate(width, overflow="ellipsis")
        body = Text()
        if self.rows is None:
            body.append("this step was not computed in the lesson's own run: nothing to compare", self._s("muted"))
        elif not self.rows:
            body.append("nothing moved at this step", self._s("muted"))
        else:
            body.append("moved: ", self._s("label"))
            for i, (name, a, b) in enumerate(self.rows):
                item = f"{name} {fmt(a)} → {fmt(b)}"
                if i and body.cell_len + 3 + len(item) > width * 2:
                    break
                if i:
                    body.append(" · ", self._s("muted"))
                body.append(name, self._s("name"))
                body.append(f" {fmt(a)} → {fmt(b)}")
        return head + Text("\n") + body
