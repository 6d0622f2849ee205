"""The SDIO (or USB) bus as a timeline: RX bundles and TX ACK writes sharing one host-driven bus.

On SDIO the host moves every byte with CMD53 transfers, and each transfer
pays a fixed cost before any data moves. The ath10k NAPI lesson is about
that sharing: per-frame delivery sends an ACK per two segments, each its own
transfer, and those writes steal bus time from the RX bundles. So the view
draws the bus's recent transfers (the `BusRecord`'s log) as a strip, one letter per
time slice, with the counts and the fixed cost underneath.

The time scale comes from the scenario (three full bundles wide), not from
the traffic, so the before and after variants side by side share one scale;
the model computes a bundle's time (models/records/bus.py), the view rounds
the span to a readable figure. On PCIe the device masters its own DMA and
there is nothing to draw but the counts. The title names the shown
variant's bus, which a lesson may switch between variants (ath10k's SDIO
and USB).
"""

from __future__ import annotations

from rich.text import Text

from . import register
from .base import ModelView, Part, ViewState

# the bus -> how the title and the legend name it
_BUS = {"sdio": ("SDIO", "one CMD53 transfer"), "usb": ("USB", "one USB transfer"), "pcie": ("PCIe", "")}
_NICE = (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8)


def _nice_ceil(x: float) -> float:
    """The smallest 1-1.5-2-2.5-3-4-5-6-8 × 10^k at or above x: a readable axis span."""
    k = 1.0
    while k * 10 < x:
        k *= 10
    return next((k * n for n in _NICE if k * n >= x), k * 10)


@register
class BusView(ModelView):
    KEY = "bus"
    TITLE = "Bus"            # until a state names it: "SDIO bus", "USB bus", "PCIe bus"

    COMPONENT_CLASSES = {"busview--rx", "busview--tx", "busview--muted", "busview--label", "busview--delta"}
    DEFAULT_CSS = """
    BusView > .busview--rx { color: $text-primary; text-style: bold; }
    BusView > .busview--tx { color: $text-warning; text-style: bold; }
    BusView > .busview--muted { color: $text-muted; }
    BusView > .busview--label { text-style: bold; }
    BusView > .busview--delta { color: $text-accent; text-style: bold; }
    """


    # -- Line API -----------------------------------------------------------------
    def on_mount(self) -> None:
        super().on_mount()
        self._retitle()

    def watch_state(self, state: ViewState | None) -> None:
        self._retitle()
        super().watch_state(state)

    def _retitle(self) -> None:
        """Name the bus the shown variant uses: a lesson may compare an SDIO and a USB variant."""
        if self.state is not None:
            self.border_title = f"{self._bus_name()} bus"

    def _bus_name(self) -> str:
        bus = self.read.bus_name
        return _BUS.get(bus, (bus.upper(), ""))[0]

    def _count(self, name: str, label: str) -> list[tuple[str, str] | str]:
        total = self.read.counts().get(name, 0)
        d = self.delta(name)
        return [(label, "label"), f" {total:,} ", (f"+{d:,}", "delta") if d else ("+0", "muted")]

    # -- content ------------------------------------------------------------------
    def build_lines(self, width: int, height: int = 0) -> list[Text]:
        st = self.state
        if st is None:
            return [self._text(("no model yet", "muted"))]
        if st.read.bus_name == "pcie":
            return self._pcie()
        return self._timeline(max(1, width)) + self._counts(width) + self._legend(width)

    def _span_ns(self) -> float:
        """About three full bundles (models/records/bus.py), rounded to a readable span: room for what
        sits between them. Only a scale, taken from the scenario so that both variants of a comparison
        get the same one.
        """
        return _nice_ceil(3 * self.read.bus().bundle_ns / 1000) * 1000

    def _timeline(self, width: int) -> list[Text]:  # noqa: C901 (older than the complexity rule)
        bus = self.read.bus()
        span = self._span_ns()
        log = list(bus.log)
        now = bus.now_ns
        end = max([now] + [x.end_ns for x in log])
        start = end - span
        cell = span / width
        kind = ["idle"] * width
        label: list[str] = [""] * width
        # RX first, then TX on top: an ACK write is short and must never vanish under
        # the rounding, so it gets at least one cell even when it is narrower than one.
        for want in ("rx", "tx"):
            for t0, t1, what, frames in log:
                if t1 <= start or (what == "tx") != (want == "tx"):
                    continue
                a = max(0, int((t0 - start) / cell))
                b = min(width, max(a + 1, round((t1 - start) / cell)))
                for i in range(a, b):
                    kind[i] = want
                if what == "rx":
                    label[a] = str(frames)
        strip = self._text()
        for k in kind:
            strip.append(*{"rx": ("R", self._s("rx")), "tx": ("t", self._s("tx")),
                           "idle": ("·", self._s("muted"))}[k])
        # Under the strip: each bundle's frame count where it starts, then the length of
        # each run of ACK writes where there is room, so the letters need not be counted.
        marks = [" "] * width
        for i, count in enumerate(label):
            if count:
                self._put(marks, i, count)
        i = 0
        while i < width:
            j = i
            while j < width and kind[j] == kind[i]:
                j += 1
            if kind[i] == "tx":
                n = sum(1 for t0, t1, w, _ in log if w == "tx" and t1 > start + i * cell and t0 < start + j * cell)
                if n > 1:
                    self._put(marks, i, f"{n}t")
            i = j
        under = self._text(("".join(marks), "muted"))
        axis = self._axis(width, start, end, now, cell)
        head = self._text((f"{self._bus_name()} bus", "label"), f"  {span / 1e6:g} ms wide, ",
                          f"{cell / 1000:.0f} µs a cell")
        return [head, strip, under, axis]

    @staticmethod
    def _put(row: list[str], at: int, text: str) -> bool:
        """Write text into row at `at` if those cells are still blank (labels never overlap)."""
        if at < 0 or at + len(text) > len(row) or any(c != " " for c in row[max(0, at - 1):at + len(text) + 1]):
            return False
        row[at:at + len(text)] = text
        return True

    def _axis(self, width: int, start: float, end: float, now: float, cell: float) -> Text:
        """Time relative to now; transfers right of ▲now are booked on the bus, not done yet."""
        row = [" "] * width
        left = f"{(start - now) / 1e6:+.1f} ms"
        self._put(row, 0, left)
        col = min(width - 1, int((now - start) / cell))
        if end - now > cell:
            self._put(row, col, "▲now")
            for right in (f"+{(end - now) / 1e6:.1f} ms booked", f"+{(end - now) / 1e6:.1f} ms"):
                if self._put(row, width - len(right), right):
                    break
        else:
            self._put(row, width - 4, "now▲")
        return self._text(("".join(row), "muted"))

    def _counts(self, width: int) -> list[Text]:
        read = self.read
        bus = read.bus()
        log = list(bus.log)
        rx = [(x.end_ns - x.start_ns, x.frames) for x in log if x.kind == "rx"]
        tx = [x.end_ns - x.start_ns for x in log if x.kind == "tx"]
        m = read.metrics()
        fixed = bus.xfer_ns
        lines = self._fit(width, self._count("ath10k_sdio_mbox_rx_fetch_bundle", "bundles read"),
                          [f"{sum(n for _, n in rx) / len(rx):.1f} frames/bundle (last {len(rx)})"] if rx else [])
        lines += self._fit(width, self._count("ath10k_sdio_write", "ACK writes"),
                           self._count("tcp_send_ack", "tcp_send_ack"))
        # metrics() counts transfers already booked past now, so early on it can exceed 100;
        # the strip's share is measured over what it shows up to now.
        lines += self._fit(width, [("bus busy ", "label"), f"{min(100.0, m['bus_percent']):.0f}% since start"],
                           [f"({self._window_busy():.0f}% of the strip so far)"])
        busy = sum(x.end_ns - x.start_ns for x in log)
        share: list[Part] = ["· ACKs hold the bus ", (f"{100 * sum(tx) / busy:.0f}%", "tx"),
                             " of the time"] if busy else []
        lines += self._fit(width, [("fixed cost ", "label"), (f"{fixed / 1000:.1f} µs", "label"), " per transfer"],
                           share)
        last: list[list[tuple[str, str] | str]] = []
        if rx:
            last.append([("last: ", "muted"), f"bundle of {rx[-1][1]} ", (f"{rx[-1][0] / 1000:.0f} µs", "rx")])
        if tx:
            last.append(["ACK ", (f"{tx[-1] / 1000:.0f} µs", "tx")])
        return lines + (self._fit(width, *last) if last else [])

    def _fit(self, width: int, *groups: list[tuple[str, str] | str]) -> list[Text]:
        """The groups on one line when they fit, else one a line, the later ones indented."""
        groups = tuple(g for g in groups if g)
        one = self._text(*[p for i, g in enumerate(groups) for p in (["  "] if i else []) + list(g)])
        if one.cell_len <= width:
            return [one]
        return [self._text(*(["  "] if i else []), *g) for i, g in enumerate(groups)]

    def _window_busy(self) -> float:
        """Percent of the strip's past (its left edge up to now) the bus spent transferring."""
        bus = self.read.bus()
        now = bus.now_ns
        start = max([now] + [x.end_ns for x in bus.log]) - self._span_ns()
        if now <= start:
            return 0.0
        busy = sum(max(0, min(x.end_ns, now) - max(x.start_ns, start)) for x in bus.log)
        return 100.0 * busy / (now - start)

    def _legend(self, width: int) -> list[Text]:
        key = self._text(("R", "rx"), (" RX bundle read  ", "muted"), ("t", "tx"), (" ACK write  · idle", "muted"))
        if width < 60:
            return [key]
        xfer = _BUS.get(self.read.bus_name, ("", "one transfer"))[1] or "one transfer"
        # the numbers in words, not an example figure: a lesson may ask how many ACKs a bundle costs
        return [key, self._text((f"each is {xfer}; numbers: frames in a bundle (under R), ACK writes in a row (Nt)",
                                 "muted"))]

    def _pcie(self) -> list[Text]:
        return [
            self._text(("PCIe: DMA, no host-driven bus transfers", "label")),
            self._text(("the device writes frames into the ring's buffers itself", "muted")),
            self._text(*self._count("rx_frame", "RX DMA writes (rx_frame)")),
            self._text(*self._count("dev_queue_xmit", "TX DMA (dev_queue_xmit)")),
            self._text(("+N this step", "muted")),
        ]
