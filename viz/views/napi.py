"""NAPI and GRO: is the poll running, how much of its budget each poll used, what GRO holds.

The NAPI lessons turn on three ratios: frames per poll against the budget,
segments per skb after GRO, and ACKs per segment. This view puts them one
above the other, each next to the kernel counters it comes from, so a
learner can check the arithmetic. Every figure is read from the `Sim`; the
view only scales and labels it.

Drawn with the Line API: the lines are built once per state and size as
Rich `Text`, and `render_line` crops them to the widget's width.
"""

from __future__ import annotations

from rich.text import Text

from models.read import GRO_LEGACY_MAX_SIZE

from . import register
from .base import ModelView

_EIGHTHS = " ▁▂▃▄▅▆▇█"
_STATE_STYLE = {"idle": "muted", "scheduled": "warn", "polling": "ok", "disabled": "bad"}


@register
class NapiView(ModelView):
    KEY = "napi"
    TITLE = "NAPI · GRO"

    COMPONENT_CLASSES = {"napiview--ok", "napiview--warn", "napiview--bad", "napiview--muted",
                         "napiview--bar", "napiview--delta", "napiview--label"}
    DEFAULT_CSS = """
    NapiView > .napiview--ok { color: $text-success; text-style: bold; }
    NapiView > .napiview--warn { color: $text-warning; text-style: bold; }
    NapiView > .napiview--bad { color: $text-error; text-style: bold; }
    NapiView > .napiview--muted { color: $text-muted; }
    NapiView > .napiview--bar { color: $text-primary; }
    NapiView > .napiview--delta { color: $text-accent; text-style: bold; }
    NapiView > .napiview--label { text-style: bold; }
    """

    _narrow = False          # set by _lines for the helpers: split pairs over two lines
    _width = 80              # set by _lines: where prose wraps

    # -- Line API -----------------------------------------------------------------
    def _wrap(self, *parts: tuple[str, str] | str) -> list[Text]:
        """A sentence, wrapped to the view's width (prose must not be cut off)."""
        text = self._text(*parts)
        text.no_wrap = False
        return list(text.wrap(self.app.console, self._width))

    def _count(self, name: str) -> list[tuple[str, str] | str]:
        """`name +delta (total)`: the step's change first, since that is what the step did."""
        total = self.state.sim.rec.counts.get(name, 0)
        d = self.delta(name)
        return [(name, "label"), " ", (f"+{d:,}", "delta") if d else ("+0", "muted"), f" ({total:,})"]

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [self._text(("no model yet", "muted"))]
        sim = st.sim
        self._narrow = width < 64
        self._width = max(1, width)
        if not sim.napi_polled:
            return self._no_napi()
        head = self._status()
        tail = self._gro() + self._tcp() + self._legend()
        room = height - len(head) - len(tail)
        # A short view gets the one-line chart, so GRO and TCP (often the step's point) stay on screen.
        chart = self._budget_chart(width, min(8, room - 3)) if room >= 5 else self._budget_line(width)
        return head + chart + tail

    def _status(self) -> list[Text]:
        sim = self.state.sim
        irq = ("unmasked", "ok") if sim.irq_on else ("masked", "warn")
        return [self._text(("NAPI ", "label"), (sim.napi_state, _STATE_STYLE.get(sim.napi_state, "")),
                           "   IRQ ", irq, "   ", *self._count("napi_poll"))]

    def _budget_line(self, width: int) -> list[Text]:
        """The chart squeezed into one row: a column of eighths per poll, ▲ for a full budget."""
        sim = self.state.sim
        budget = sim.params["budget"]
        work = list(sim.poll_work)
        line = self._text(("budget ", "label"), (f"{budget} ", "label"))
        if not work:
            line.append("no poll finished yet", self._s("muted"))
            return [line]
        mean = sum(work) / len(work)
        hits = sum(1 for w in work if w >= budget)
        summary = f" mean {mean:.1f}, {hits} full"
        for w in work[-max(1, width - line.cell_len - len(summary)):]:
            if w >= budget:
                line.append("▲", self._s("warn"))
            else:
                line.append(_EIGHTHS[max(1, min(8, round(w / budget * 8)))], self._s("bar"))
        line.append(summary, self._s("muted"))
        return [line]

    def _budget_chart(self, width: int, rows: int) -> list[Text]:
        sim = self.state.sim
        budget = sim.params["budget"]
        work = list(sim.poll_work)
        head = self._text(("budget ", "label"), (f"{budget}", "label"),
                          ("  frames per poll, newest on the right" if width >= 50 else "  frames per poll", "muted"))
        if not work:
            return [head, self._text(("no poll finished yet", "muted"))]
        gutter = 5
        avail = max(1, width - gutter)
        work = work[-avail:]
        # Few polls get wider columns, so a step with three polls still reads as a chart.
        col = max(1, min(3, avail // (2 * len(work))))
        hit = [w >= budget for w in work]
        # The budget line: ▲ where a poll used all of it (no napi_complete_done: the softirq
        # polls again), ┄ elsewhere.
        top = self._text((f"{budget:>4}┤", "muted"))
        for h in hit:
            top.append(("▲" if h else "┄") * col, self._s("warn" if h else "muted"))
            top.append(" " if col > 1 else "")
        lines = [head, top]
        levels = [min(rows * 8, round(w / budget * rows * 8)) if budget else 0 for w in work]
        for r in range(rows - 1, -1, -1):
            line = self._text(("   0┤" if r == 0 else "    │", "muted"))
            for h, lv in zip(hit, levels, strict=True):
                line.append(_EIGHTHS[max(0, min(8, lv - r * 8))] * col, self._s("warn" if h else "bar"))
                line.append(" " if col > 1 else "")
            lines.append(line)
        hits = sum(hit)
        mean = sum(work) / len(work)
        polls = f"{len(work)} poll{'s' if len(work) != 1 else ''}"
        lines.append(self._text(f"mean {mean:.1f} of {budget} over {polls}; ",
                                (f"{hits} used it all", "warn" if hits else "muted")))
        return lines

    def _gro(self) -> list[Text]:
        sim = self.state.sim
        stack = sim.stack
        if not (stack.gro and sim.napi_api):
            return [self._text(("GRO ", "label"), ("off: every frame is its own skb", "muted")),
                    self._text(*self._count("netif_receive_skb"))]
        held = stack.held
        segs, nbytes = (held.segs, held.len) if held else (0, 0)
        fill = 12
        full = round(nbytes / GRO_LEGACY_MAX_SIZE * fill)
        m = sim.metrics()
        return [
            self._text(("GRO ", "label"), "holds ",
                       (f"{segs} seg{'s' if segs != 1 else ''}", "ok" if segs else "muted"),
                       f" {nbytes:,} B ", ("■" * full, "bar"), ("·" * (fill - full), "muted"), " 64 KiB"),
            *self._pair("napi_gro_receive", "netif_receive_skb"),
            self._text("     = ", (f"{m['segments_per_skb']:.1f}", "label"), " segments per skb so far"),
        ]

    def _pair(self, a: str, b: str) -> list[Text]:
        """`a → b` on one line, or on two when the view is narrow."""
        if self._narrow:
            return [self._text(*self._count(a)), self._text("  → ", *self._count(b))]
        return [self._text(*self._count(a), " → ", *self._count(b))]

    def _tcp(self) -> list[Text]:
        sim = self.state.sim
        m = sim.metrics()
        q = len(sim.stack.sockq)
        acks = [("TCP ", "label"), *self._count("tcp_send_ack"), " = ", (f"{m['acks_per_segment']:.2f}", "label"),
                " ACK/seg so far"]
        queue = ["socket queue ", (f"{q} skb", "warn" if q else "muted")]
        if self._narrow:
            return [self._text(*acks), self._text("    ", *queue)]
        return [self._text(*acks, "  ", *queue)]

    def _legend(self) -> list[Text]:
        return self._wrap(("▲ a poll used its whole budget · ■ bytes GRO holds · +N this step (total)", "muted"))

    def _no_napi(self) -> list[Text]:
        """Before the NAPI patch (or on a bus that never polls): per-frame delivery."""
        sim = self.state.sim
        lines = [self._text(("NAPI ", "label"), ("not polled", "warn"), "   IRQ ",
                            ("unmasked", "ok") if sim.irq_on else ("masked", "warn"))]
        if sim.napi_api:
            # The driver calls the NAPI/GRO API from a workqueue on an instance nothing polls:
            # what GRO holds is the point, so it comes before the explanation.
            lines += self._gro()
            lines += self._wrap("frames go to ", ("napi_gro_receive", "label"),
                                " from process context; nothing polls this NAPI, so nothing calls ",
                                ("napi_complete_done", "label"), " to flush what GRO holds")
        else:
            call = "ieee80211_rx_ni" if sim.platform.mac80211_ns > 0 else "netif_receive_skb"
            lines += self._wrap("frames are delivered one by one from process context (", (call, "label"),
                                "): no poll, no budget, one skb per frame")
            lines += self._gro()
        for call in ("ieee80211_rx_ni", "ieee80211_rx_napi"):
            if sim.rec.counts.get(call, 0):
                lines.append(self._text(*self._count(call)))
        lines += self._tcp()
        lines += self._wrap(("■ bytes GRO holds · +N this step (total)" if sim.napi_api and sim.stack.gro
                             else "+N this step (total)", "muted"))
        return lines
