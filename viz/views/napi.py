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
from .base import ModelView, Part

_EIGHTHS = " ▁▂▃▄▅▆▇█"
_STATE_STYLE = {"idle": "muted", "scheduled": "warn", "polling": "ok", "disabled": "bad"}


@register
class NapiView(ModelView):
    KEY = "napi"
    TITLE = "NAPI · GRO"
    READS = ("asking", "hidden_counts")     # while a question waits it keeps back what explains the variant
    # (_no_napi), and what GRO holds when a question names `gro_held` (models.lesson.figures)

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
        total = self.read.counts().get(name, 0)
        d = self.delta(name)
        return [(name, "label"), " ", (f"+{d:,}", "delta") if d else ("+0", "muted"), f" ({total:,})"]

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.state
        if st is None:
            return [self._text(("no model yet", "muted"))]
        napi = st.read.napi()
        self._narrow = width < 64
        self._width = max(1, width)
        if not napi.polled:
            return self._no_napi()
        head = self._status()
        tail = self._gro() + self._transport() + self._legend()
        room = height - len(head) - len(tail)
        # A short view gets the one-line chart, so GRO and TCP (often the step's point) stay on screen.
        chart = self._budget_chart(width, min(8, room - 3)) if room >= 5 else self._budget_line(width)
        return head + chart + tail

    def _status(self) -> list[Text]:
        napi = self.read.napi()
        irq = ("unmasked", "ok") if napi.irq_on else ("masked", "warn")
        state = (napi.state, _STATE_STYLE.get(napi.state, ""))
        count = self._count("napi_poll")
        # the total (in brackets) gives way before any figure is cut
        return [self._fitting(self._width, (("NAPI ", "label"), state, "   IRQ ", irq, "   ", *count),
                              (("NAPI ", "label"), state, "  IRQ ", irq, "  ", *count[:3]))]

    def _budget_line(self, width: int) -> list[Text]:
        """The chart squeezed into one row: a column of eighths per poll, ▲ for a full budget."""
        napi = self.read.napi()
        budget = napi.budget
        work = list(napi.poll_work)
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
        napi = self.read.napi()
        budget = napi.budget
        work = list(napi.poll_work)
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
        napi = self.read.napi()
        if not (napi.gro and napi.api):
            off = self._text(("GRO ", "label"), ("off: every frame is its own skb", "muted"))
            if napi.api:        # the driver still calls napi_gro_receive(): GRO off queues each skb alone
                return [off, *self._pair("napi_gro_receive", "netif_receive_skb")]
            return [off, self._text(*self._count("netif_receive_skb"))]
        segs, nbytes = napi.held_segs, napi.held_bytes
        fill = 12
        full = round(nbytes / GRO_LEGACY_MAX_SIZE * fill)
        m = self.read.metrics()
        if "gro_held" in self.st.hidden_counts:
            held = self._text(("GRO ", "label"), "holds ", ("… kept back until you answer", "muted"))
        else:
            what: tuple[Part, ...] = (("GRO ", "label"), "holds ",
                                      (f"{segs} seg{'s' if segs != 1 else ''}", "ok" if segs else "muted"),
                                      f" {nbytes:,} B ")
            gauge: tuple[Part, ...] = (("■" * full, "bar"), ("·" * (fill - full), "muted"))
            # the gauge's scale, then the gauge, give way before a figure is cut
            held = self._fitting(self._width, (*what, *gauge, " 64 KiB"), (*what, *gauge), what)
        return [
            held,
            *self._pair("napi_gro_receive", "netif_receive_skb"),
            self._fitting(self._width, *(("     = ", (f"{m['segments_per_skb']:.1f}", "label"), tail)
                                         for tail in (" segments per skb so far", " segments per skb", " seg/skb"))),
        ]

    def _pair(self, a: str, b: str) -> list[Text]:
        """`a → b` on one line, or on two when the view is narrow."""
        if self._narrow:
            return [self._text(*self._count(a)), self._text("  → ", *self._count(b))]
        return [self._text(*self._count(a), " → ", *self._count(b))]

    def _transport(self) -> list[Text]:
        """What takes the frames after the stack, as the model ran it: TCP's ACKs, a UDP socket, or routing."""
        read = self.read
        napi = read.napi()
        counts = read.counts()
        q = napi.socket_queue
        queue: list[Part] = ["socket queue ", (f"{q} skb", "warn" if q else "muted")]
        if counts.get("ip_forward", 0) or (napi.forward and not counts.get("tcp_send_ack", 0)):
            routed = (("routed ", "label"), *self._count("ip_forward"))
            return [self._fitting(self._width, (*routed, ("  no local socket", "muted")), routed)]
        if counts.get("tcp_send_ack", 0) or (napi.tcp and not counts.get("udp_recvmsg", 0)):
            m = read.metrics()
            first: list[Part] = [("TCP ", "label"), *self._count("tcp_send_ack"), " = ",
                     (f"{m['acks_per_segment']:.2f}", "label"), " ACK/seg so far"]
            after = [] if self._narrow else ["  ", *queue]     # what shares its line
            if self._text(*first, *after).cell_len > self._width:  # the gloss goes before the unit is cut
                first[-1] = " ACK/seg"
        else:
            first = [("UDP ", "label"), *self._count("udp_recvmsg")]
            if counts.get("kfree_skb_reason", 0):
                first += ["  dropped ", *self._count("kfree_skb_reason")[2:]]
        if self._narrow:
            return [self._text(*first), self._text("    ", *queue)]
        return [self._text(*first, "  ", *queue)]

    def _delivered_by(self) -> tuple[str, str]:
        """(the call that hands the frames up, where it runs): what the model recorded, else (no frame
        yet) the call its delivery makes (models.gro: a tasklet's ieee80211_rx, a workqueue's _ni)."""
        read = self.read
        napi = read.napi()
        counts = read.counts()
        tasklet = napi.delivery == "tasklet"
        planned = ("ieee80211_rx" if tasklet else "ieee80211_rx_ni") if napi.mac80211 else "netif_receive_skb"
        call = next((c for c in ("ieee80211_rx_ni", "ieee80211_rx", "netif_receive_skb") if counts.get(c, 0)),
                    planned)
        ctx = next((ev.ctx for ev in reversed(read.events()) if ev.call == call), "")
        ctx = ctx or ("softirq" if tasklet else "process")
        if ctx == "softirq" and tasklet:
            return call, "a tasklet, in softirq"
        return call, "process context" if ctx == "process" else ctx

    def _legend(self) -> list[Text]:
        return self._wrap(("▲ a poll used its whole budget · ■ bytes GRO holds · +N this step (total)", "muted"))

    def _no_napi(self) -> list[Text]:
        """Before the NAPI patch (or on a bus that never polls): per-frame delivery."""
        read = self.read
        napi = read.napi()
        lines = [self._text(("NAPI ", "label"), ("not polled", "warn"), "   IRQ ",
                            ("unmasked", "ok") if napi.irq_on else ("masked", "warn"))]
        if napi.api:
            # The driver calls the NAPI/GRO API from a workqueue on an instance nothing polls:
            # what GRO holds is the point, so it comes before the explanation. While a question
            # waits the explanation is kept back: it would answer "what happens to these frames".
            lines += self._gro()
            if not self.st.asking:
                lines += self._wrap("frames go to ", ("napi_gro_receive", "label"),
                                    " from process context; nothing polls this NAPI, so nothing calls ",
                                    ("napi_complete_done", "label"), " to flush what GRO holds")
        elif napi.delivery == "napi":
            # Queued for a poll that never comes (ath10k USB as merged): nothing is delivered, and
            # saying "delivered one by one" would be the workqueue variant's story, not this one's.
            lines += self._wrap("frames are queued for a NAPI poll, but ", ("netif_napi_add", "label"),
                                " was never called: nothing polls this NAPI, so none goes up")
            lines.append(self._text("queued for the poll ", (f"{napi.queued:,} skb", "warn" if napi.queued
                                                                                    else "muted")))
            lines.append(self._text(*self._count("netif_receive_skb")))
        else:
            call, where = self._delivered_by()
            budget = (f"no NAPI poll: the tasklet's own budget of {napi.tasklet_budget} frames a run"
                      if napi.delivery == "tasklet" else "no poll, no budget")
            lines += self._wrap(f"frames are delivered one by one from {where} (", (call, "label"),
                                f"): {budget}, one skb per frame")
            lines += self._gro()
        for call in ("ieee80211_rx_ni", "ieee80211_rx", "ieee80211_rx_napi"):
            if read.counts().get(call, 0):
                lines.append(self._text(*self._count(call)))
        lines += self._transport()
        lines += self._wrap(("■ bytes GRO holds · +N this step (total)" if napi.api and napi.gro
                             else "+N this step (total)", "muted"))
        return lines
