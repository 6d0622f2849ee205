"""The RX descriptor ring: who owns each descriptor, where the heads are, what the tail holds.

One cell per descriptor, many to a row, drawn with the Line API: a 2048-entry
ring is one widget and a few dozen strips, not 2048 widgets. The descriptor
the current kernel call touched (models.cursor) is lit, the one the call
before touched is underlined, and the detail lines describe the lit one. When the ring
has more rows than fit, the view keeps the rows around the tail (the driver's
`clean_idx`) and the head (the device's `dev_idx`) and marks skipped rows with
"…" in the index column, because that is where the ring changes from one step
to the next. On SDIO and USB there is no ring: the view shows the firmware's
queue and the host's queue instead.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from models.read import Reading, RingRecord

from . import register
from .base import ModelView, wrap_phrases

GROUP = 8           # cells per group: a space every 8 descriptors keeps indices countable
HEAD_TAIL = Style(reverse=True, bold=True)   # inverted, keeping the state's colour and letter
GLYPH = {"device": "D", "filled": "F", "cpu": "C", "empty": "·"}   # Ring.state(i) -> its letter (and class)


def _met(ring: RingRecord) -> str:
    """Where head and tail meet: "full" (every descriptor written, none left for the device) or
    "empty" (nothing written to clean). The indices are the same either way; the record's count
    of written descriptors, what the driver's DD-bit check at next_to_clean finds, tells which."""
    return "full" if ring.full else "empty"


@register
class RingView(ModelView):
    """The descriptor ring of a PCIe NIC, or the firmware/host queues of an SDIO/USB one."""

    KEY = "ring"
    TITLE = "RX ring"
    COMPONENT_CLASSES = {"ringview--device", "ringview--filled", "ringview--cpu", "ringview--empty", "ringview--mark",
                         "ringview--muted", "ringview--bounced", "ringview--direct", "ringview--now", "ringview--was"}
    DEFAULT_CSS = """
    RingView > .ringview--device { color: $text-primary; }
    RingView > .ringview--filled { color: $text-warning; text-style: bold; }
    RingView > .ringview--cpu { color: $text-secondary; text-style: bold; }
    RingView > .ringview--empty { color: $text-error; }
    RingView > .ringview--mark { color: $text-accent; text-style: bold; }
    RingView > .ringview--muted { color: $text-muted; }
    RingView > .ringview--bounced { color: $text-warning; }
    RingView > .ringview--direct { color: $text-success; }
    RingView > .ringview--now { background: $accent; color: $background; text-style: bold; }
    RingView > .ringview--was { text-style: underline; }
    """


    # ------------------------------------------------------------------ PCIe ring
    def build_lines(self, width: int, height: int) -> list[Text]:
        read = self.read
        ring = read.ring()
        if ring is None:
            return self._queues(width)
        size, head, tail = ring.size, ring.head, ring.tail
        ends, tight = f"head {head} · tail {tail}", f"head {head} · tail {tail}"
        if head == tail:
            ends, tight = f"head = tail {head} · {_met(ring)}", f"head=tail {head} {_met(ring)}"
        full = f"{size} descriptors · {ring.device_owned} device-owned · {ends} · dropped {ring.dropped}"
        if len(full) <= width:
            out = [Text(full)]
        else:
            # never cut a figure: the phrases on two lines when the view is tall, else the ring's size
            # (the grid shows it) goes first and then whole phrases from the end
            short = [Text(p) for p in (f"{ring.device_owned} D", tight, f"drop {ring.dropped}")]
            every = [Text(f"{size} desc"), *short]
            if height >= 16:
                out = wrap_phrases(every, width, 2, sep=" · ")
            else:
                fits = sum(p.cell_len + 3 for p in every) - 3 <= width
                out = wrap_phrases(every if fits else short, width, 1, sep=" · ")
        entries = (("D", "device", "device-owned", "device"), ("F", "filled", "filled, not yet cleaned", "filled"),
                   ("C", "cpu", "CPU-owned", "CPU"), ("▲", "mark", "head/tail", "head/tail"),
                   ("▒", "now", "this call", "this call"))
        narrow = width < sum(len(e[2]) + 4 for e in entries)
        # one line; an entry that does not fit is left out whole (the last first), never cut mid-word
        legend = wrap_phrases([Text.assemble((glyph, self._s(name)), f" {short_what if narrow else long_what}")
                               for glyph, name, long_what, short_what in entries], width, 1, sep="  ")[0]
        details = []
        cur = self.cursor()
        here = sorted(cur.now.descs) if cur.now is not None else []
        if height >= 8:
            lines = 3 if height >= 16 else 2 if height >= 12 else 1
            # the descriptor the current call touched first: what just changed, then the tail
            which, role = (here[0], "this call") if here else (tail, "tail")
            details = wrap_phrases(self._detail(read, which, role), width, lines)
        if height >= 18 and here and here[0] != tail:
            details += wrap_phrases(self._detail(read, tail, "tail"), width, 2)
        elif height >= 18 and head != tail:
            details += wrap_phrases(self._detail(read, head, "head"), width, 2)
        heads = len(out)
        room = height - len(out) - len(details) - (1 if height >= 6 else 0)
        out += self._grid(ring, width, max(1, room))
        if height >= 6:
            out.insert(heads, legend)
        return out + details

    def _grid(self, ring: RingRecord, width: int, budget: int) -> list[Text]:  # noqa: C901 (older than the complexity rule)
        size, head, tail = ring.size, ring.head, ring.tail
        states = ring.states
        digits = len(str(size - 1))
        usable = width - digits - 2
        grouped = usable >= 2 * GROUP + 1
        cols = min(size, (usable + 1) // (GROUP + 1) * GROUP if grouped else max(1, usable))
        nrows = -(-size // cols)
        tr, hr = tail // cols, head // cols
        marked = {tr, hr}
        cur = self.cursor()
        now = cur.now.descs if cur.now is not None else frozenset()
        was = cur.before.descs if cur.before is not None else frozenset()
        lit = set()

        def dist(r: int) -> tuple[int, int]:
            # rows between tail and head first (what the driver has still to clean), then the nearest
            d = min(abs(r - m) for m in marked)
            in_span = (r - tr) % nrows <= (hr - tr) % nrows
            return (0 if in_span else d, d)

        chosen: list[int] = sorted({i // cols for i in now})[:1]      # the current call's row is always shown
        for r in sorted(range(nrows), key=dist):
            if r in chosen:
                continue
            cost = len(chosen) + 1 + len(marked & {*chosen, r})
            if cost > budget and chosen:
                break
            chosen.append(r)
        out = []
        prev = -1
        for r in sorted(chosen):
            # "…" in the index column: rows above this one are not shown
            line = Text().append(f"{'…' if r != prev + 1 else ' '}{r * cols:>{digits}} ", self._s("muted"))
            for i in range(r * cols, min(size, (r + 1) * cols)):
                if grouped and i % cols and i % GROUP == 0:
                    line.append(" ")
                name = states[i]
                glyph, style = GLYPH[name], self._s(name)
                if i in (head, tail):
                    style = style + HEAD_TAIL
                if i in now:
                    style = style + self._s("now")
                    lit.add(("desc", i))
                elif i in was:
                    style = style + self._s("was")
                line.append(glyph, style)
            out.append(line)
            if r in marked and len(out) < budget:
                out.append(self._carets(r, cols, digits, head, tail, width, grouped, _met(ring)))
            prev = r
        self.lit = frozenset(lit)
        return out

    def _carets(self, row: int, cols: int, digits: int, head: int, tail: int, width: int,
                grouped: bool, met: str) -> Text:
        """A line under a grid row: ▲ under the head and the tail, each with its label."""
        def col(i: int) -> int:
            off = i - row * cols
            return digits + 2 + off + (off // GROUP if grouped else 0)

        marks = sorted({(col(i), name) for i, name in ((tail, "tail"), (head, "head")) if i // cols == row})
        if len(marks) == 2 and marks[0][0] == marks[1][0]:
            marks = [(marks[0][0], "head = tail")]
        chars = [" "] * max(width, marks[-1][0] + 1)
        for c, _ in marks:
            chars[c] = "▲"
        for n, (c, name) in enumerate(marks):
            label = f"{name} {tail if name == 'tail' else head}" if "=" not in name else f"head = tail {head} · {met}"
            nxt = marks[n + 1][0] if n + 1 < len(marks) else len(chars)
            if c + 1 + len(label) < nxt:
                chars[c + 1:c + 1 + len(label)] = label
            elif c - len(label) >= 0 and all(ch == " " for ch in chars[c - len(label):c]):
                chars[c - len(label):c] = label
        return Text().append("".join(chars).rstrip(), self._s("mark"))

    def _detail(self, read: Reading, i: int, role: str) -> list[Text]:
        """What descriptor i holds, as phrases to wrap: its buffer, where it sits, its bus address."""
        d = read.descriptor(i)
        name = d.state
        parts = [Text(f"{role} #{i} ").append(GLYPH[name], self._s(name))]
        if d.buf is None:
            return parts + [Text().append("no buffer posted", self._s("empty"))]
        parts.append(Text(f"buf#{d.buf}" + (f" page#{d.page}+{d.offset}" if d.page is not None else "")))
        parts.append(Text(f"phys {d.phys:#x} ({d.zone})"))
        if not d.mapped:
            return parts + [Text().append("not mapped", self._s("muted"))]
        dma = d.dma
        if d.slot >= 0:
            parts.append(Text(f"→ dma {dma:#x}"))
            parts.append(Text().append(f"B bounced: SWIOTLB slot {d.slot}", self._s("bounced")))
        elif d.iommu_pages:
            pages = d.iommu_pages
            parts.append(Text(f"→ iova {dma:#x} ({pages} IOMMU page{'s' if pages > 1 else ''})"))
        else:
            parts.append(Text(f"→ dma {dma:#x} ").append("direct", self._s("direct")))
        return parts

    # ------------------------------------------------------------------ SDIO / USB
    def _queues(self, width: int) -> list[Text]:
        q = self.read.queues()
        bundle = q.bundle
        fw = q.firmware
        napi = bool(q.rx_ind) or (q.napi_polled and not q.proc_rx)
        host = q.rx_ind + q.proc_rx
        where = "NAPI (rx_ind)" if napi else "RX work (proc_rx)"
        texts = (f"{fw} in firmware (fw_q)", f"{host} read, for {where}")
        if width - 12 - max(map(len, texts)) < 12:      # narrow: the bars matter more than the words
            texts = (f"{fw} fw_q", f"{host} {where.split()[-1].strip('()')}")
        bar_w = max(4, min(32, width - 12 - max(map(len, texts))))
        scale = max(2 * bundle, fw, host, 1)
        tick = min(bar_w - 1, bundle * bar_w // scale)
        rows = wrap_phrases([Text(f"{q.bus.upper()}: no descriptor ring"), Text(f"· bundles of ≤{bundle} frames")],
                     width, 1)
        rows += [self._bar("firmware", fw, scale, bar_w, "filled", texts[0]),
                 self._bar("host", host, scale, bar_w, "device", texts[1]),
                 Text().append(" " * (10 + tick) + f"▲ one bundle ({bundle})", self._s("mark"))]
        return rows + wrap_phrases([Text(f"frames {q.frames}"), Text(f"· delivered {q.processed}"),
                             Text(f"· dropped {q.dropped}"),
                             Text(f"· bus {'reading a bundle' if q.reading else 'idle'}")], width, 2)

    def _bar(self, label: str, n: int, scale: int, bar_w: int, style: str, what: str) -> Text:
        fill = min(bar_w, -(-n * bar_w // scale)) if n else 0
        line = Text(f"{label:<9}▕")
        line.append("█" * fill, self._s(style))
        line.append("░" * (bar_w - fill), self._s("muted"))
        line.append(f"▏ {what}")
        return line

