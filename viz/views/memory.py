"""The physical memory map: zones, the 4 GiB and 64 GiB lines, SWIOTLB, and where buffers sit.

Addresses grow upwards, so "above 4 GiB" is above the line on screen. The map
is not to scale: each zone (and the PCI hole) gets at least one row, the big
zones share the remaining rows by size, and the lines that decide whether a
buffer bounces (4 GiB, 64 GiB, the streaming mask's limit) are drawn as rules
between rows. A line beyond the top of RAM is shown as a marker at the top
edge, because "the mask reaches past all of RAM" is the point of a 36-bit
mask on an 8 GiB machine. Every live DMA mapping is counted in the row its
buffer sits in: B bounced through SWIOTLB, d direct, i translated by an IOMMU.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from models.read import FQ_SIZE, Bounce, Cursor, FOUR_GiB, GiB, MemoryRecord, MiB, Touch

from . import register
from .base import ModelView, wrap_phrases

SIXTY_FOUR_GiB = 64 * GiB
Segment = tuple[int, int, str]                      # (start, end, zone name or "hole")
Span = tuple[int, int, str, bool, str | None]       # a row: (lo, hi, zone label, hole?, rule above it)
GUTTER = 18             # the bounce arrow's column: right of "    12G │Normal  │"


def size_str(n: int) -> str:
    """4294967296 -> '4 GiB', 3221225472 -> '3 GiB', 67108864 -> '64 MiB'."""
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (1024, "KiB")):
        if n >= unit:
            v = n / unit
            return f"{v:.0f} {name}" if v == int(v) or v >= 10 else f"{v:.1f} {name}"
    return f"{n} B"


def _copies(n: int) -> str:
    return f"{n} cop{'ies' if n != 1 else 'y'}"


def bar(n: int, total: int, width: int) -> tuple[str, str]:
    """A fill bar as (filled, empty) strings; any n > 0 shows at least one cell."""
    fill = 0 if n <= 0 or total <= 0 else max(1, min(width, round(n * width / total)))
    return "█" * fill, "░" * (width - fill)


@register
class MemoryView(ModelView):
    """Physical memory from 0 to the top of RAM, with the lines a DMA mask draws."""

    KEY = "memory"
    TITLE = "Physical memory"
    COMPONENT_CLASSES = {"memoryview--bounced", "memoryview--direct", "memoryview--iommu", "memoryview--line",
                         "memoryview--pool", "memoryview--ring", "memoryview--muted", "memoryview--zone",
                         "memoryview--now", "memoryview--was"}
    DEFAULT_CSS = """
    MemoryView > .memoryview--bounced { color: $text-warning; text-style: bold; }
    MemoryView > .memoryview--direct { color: $text-success; text-style: bold; }
    MemoryView > .memoryview--iommu { color: $text-success; text-style: bold; }
    MemoryView > .memoryview--line { text-style: bold; }
    MemoryView > .memoryview--pool { color: $text-warning; }
    MemoryView > .memoryview--ring { color: $text-primary; }
    MemoryView > .memoryview--muted { color: $text-muted; }
    MemoryView > .memoryview--zone { text-style: bold; }
    MemoryView > .memoryview--now { color: $text-accent; text-style: bold; }
    MemoryView > .memoryview--was { color: $text-accent; text-style: dim; }
    """


    def build_lines(self, width: int, height: int) -> list[Text]:
        mem = self.read.memory()
        bits = mem.mask_bits
        limit = 1 << bits
        two = 2 if height >= 14 else 1       # lines a wrapped summary may take
        # phrases in order of importance: what does not fit on the lines allowed is left out
        head = wrap_phrases([Text(f"RAM {size_str(mem.ram)}"),
                      Text(f"· dma_mask {bits}" + (f" → {size_str(limit)}" if bits < 64 else "")),
                      Text(f"· coherent_mask {mem.coherent_mask}"),
                      Text(f"· top {mem.max_addr:#x}")], width, two)
        blocks = {"swiotlb": wrap_phrases(self._swiotlb_line(mem, width), width, two)}
        if mem.swiotlb is not None:
            blocks["bounce"] = wrap_phrases(self._bounce_line(mem), width, two)
        if mem.iommu is not None:
            blocks["iommu"] = wrap_phrases(self._iommu_line(mem), width, two)
        entries = (("B", "bounced", "bounced"), ("d", "direct", "direct"), ("i", "iommu", "IOMMU"),
                   ("S", "pool", "SWIOTLB pool"), ("R", "ring", "descriptor ring"), ("◀", "now", "this call"))
        short = width < sum(len(what) + 4 for _, _, what in entries)
        # one line; an entry that does not fit is left out whole (the last first), never cut mid-word
        blocks["legend"] = wrap_phrases([Text.assemble((glyph, self._s(name)),
                                                       f" {what.split()[-1] if short and glyph in 'SR' else what}")
                                         for glyph, name, what in entries], width, 1, sep="  ")
        # Every block gets the lines it may take whatever it holds now (a bounce line that wraps at one
        # step and not at the next), so the map below keeps its rows, and its axis labels, from step to
        # step and variant to variant of a lesson; a short view keeps the map (the point of the view)
        # and drops summaries, least useful first, by its size alone.
        room = {"swiotlb": two, "bounce": two if self._bounces() else 0, "iommu": two if self._iommu() else 0,
                "legend": 1}
        segs, _, cuts = self._layout(mem, bits, limit)
        need = len(segs) - (segs[0][2] == "DMA") + len(cuts) + 1
        for name in ("legend", "iommu", "bounce", "swiotlb"):
            if two + sum(room.values()) + need <= height:
                break
            room[name] = 0
        out = head + [Text()] * (two - len(head))
        for name in ("swiotlb", "bounce", "iommu", "legend"):
            lines = blocks.get(name, [])[:room[name]]
            out += lines + [Text()] * (room[name] - len(lines))
        return out + self._map(mem, width, max(1, height - len(out)), bits, limit)

    def _variants(self) -> list[Mapping[str, Any]]:
        """The parameters of every variant of the lesson (the axes are the same for all of them)."""
        st = self.st
        lesson = st.lesson
        if lesson is None or st.variant not in lesson.variants:
            return [st.read.params()]
        return [lesson.params_for(v) for v in lesson.variants]

    def _bounces(self) -> bool:
        """Some variant of the lesson has a SWIOTLB pool (this one may have none): a line for the bounce."""
        return self.read.memory().swiotlb is not None or any(p.get("swiotlb") != "off" for p in self._variants())

    def _iommu(self) -> bool:
        return self.read.memory().iommu is not None or any(p.get("iommu", "off") not in ("off",)
                                                                 for p in self._variants())

    def _masks(self) -> set[int]:
        """The streaming masks of every variant: each draws its limit as a line on the map."""
        return {int(p.get("dma_mask", 64)) for p in self._variants()} | {self.read.memory().mask_bits}

    # ------------------------------------------------------------------ summary lines
    def _swiotlb_line(self, mem: MemoryRecord, width: int) -> list[Text]:
        sw = mem.swiotlb
        if sw is None:
            return [Text().append("no SWIOTLB pool", self._s("muted"))]
        full, empty = bar(sw.used_slots, sw.nslabs, max(4, min(24, width - 66)))
        return [Text().append("S", self._s("pool")).append(f" SWIOTLB at {sw.base:#x}"),
                Text("▕").append(full, self._s("pool")).append(empty, self._s("muted")).append("▏"),
                Text(f"{sw.used_slots}/{sw.nslabs} slots"), Text(f"· hiwater {sw.hiwater}"),
                Text(f"· {size_str(sw.size)}")]

    def _bounce_line(self, mem: MemoryRecord) -> list[Text]:
        """The latest SWIOTLB copy, as the copy it is: which buffer, which slot, how many bytes."""
        found = self._last_bounce(mem)
        if found is None:
            return [Text().append("bounce: none, no mapping needed SWIOTLB", self._s("muted"))]
        phys, slot_addr, nbytes, arrow, what = found
        return [Text("bounce: buf ").append(f"{phys:#x}", self._s("bounced")),
                Text(f"{arrow} slot ").append(f"{slot_addr:#x}", self._s("pool")),
                Text(f"({nbytes} B)"), Text(what),
                Text(f"· {_copies(mem.bounces)}, {size_str(mem.bounce_bytes)}")]

    @staticmethod
    def _last_bounce(mem: MemoryRecord) -> tuple[int, int, int, str, str] | None:
        """The latest swiotlb_bounce copy, else a live bounced mapping (none copied yet)."""
        sw = mem.swiotlb
        assert sw is not None
        b = sw.last
        if b is not None:
            return (b.phys, b.slot_addr, b.nbytes, "←" if b.back else "→",
                    "· copied back to the buffer" if b.back else "· copied into the slot")
        m = mem.latest_bounced
        return None if m is None else (m.phys, sw.addr(m.slot), m.size, "⇄", "· mapped through the slot")

    def _iommu_line(self, mem: MemoryRecord) -> list[Text]:
        io = mem.iommu
        assert io is not None
        parts = [Text().append("i", self._s("iommu")).append(f" IOMMU {'strict' if io.strict else 'lazy'}"),
                 Text(f"· {io.mapped_pages} page{'s' if io.mapped_pages != 1 else ''} mapped")]
        if io.strict:
            return parts + [Text("· strict: no flush queue")]
        full, empty = bar(io.flush_queue, FQ_SIZE, 16)
        return parts + [Text("· flush queue ▕").append(full, self._s("iommu")).append(empty, self._s("muted"))
                        .append(f"▏ {io.flush_queue}/{FQ_SIZE}")]

    # ------------------------------------------------------------------ the map
    def _layout(self, mem: MemoryRecord, bits: int, limit: int) -> tuple[list[Segment], dict[int, str], list[int]]:
        """The map's segments (zones and the hole, cut at the lines), the lines, and the cuts inside RAM.

        The limit of every variant's mask is a line, so a variant's map has the rows of the others'."""
        rules = {FOUR_GiB: "4 GiB", SIXTY_FOUR_GiB: "64 GiB"}
        for other in sorted(self._masks() - {bits, 64}):
            rules[1 << other] = f"{size_str(1 << other)} = a {other}-bit mask's limit"
        if bits < 64:
            rules[limit] = f"{size_str(limit)} = dma_mask {bits} limit: buffers above bounce"
        segs, start = [], 0
        for z in mem.zones:
            if z.start > start:
                segs.append((start, z.start, "hole"))
            segs.append((z.start, z.end, z.name))
            start = z.end
        cuts = sorted(a for a in rules if 0 < a < mem.max_addr)
        return [piece for seg in segs for piece in _split(seg, cuts)], rules, cuts

    def _map(self, mem: MemoryRecord, width: int, budget: int, bits: int, limit: int) -> list[Text]:  # noqa: C901 (older than the complexity rule)
        top = mem.max_addr
        segs, rules, cuts = self._layout(mem, bits, limit)
        out, nrules = [], len(cuts)
        # The top edge says how far the mask reaches, on every variant (so every map has the same rows).
        # the longest wording that fits, never one cut mid-word
        if bits >= 64:
            words: tuple[str, ...] = ("▲ dma_mask 64: every buffer in reach", "▲ dma_mask 64: all in reach")
        elif limit >= top:
            words = (f"▲ dma_mask {bits} → {size_str(limit)}, above all RAM: every buffer in reach",
                     f"▲ dma_mask {bits} → {size_str(limit)}: all RAM in reach", f"▲ dma_mask {bits}: all in reach")
        else:
            reach = f"▲ dma_mask {bits} → {size_str(limit)}"
            words = (f"{reach}: buffers above its line bounce", f"{reach}: above it, bounce", reach)
        out.append(Text(next((w for w in words if len(w) <= width), words[-1]), self._s("line")))
        if budget - len(out) - nrules < len(segs) and len(segs) > 1 and segs[0][2] == "DMA":
            # no row to spare for the 16 MiB ZONE_DMA: fold it into the zone above it
            segs[1] = (0, segs[1][1], "≤" + segs[1][2])
            del segs[0]
        heights = _share([e - s if name != "hole" else 0 for s, e, name in segs],
                         max(len(segs), budget - len(out) - nrules))
        # (lo, hi, zone label, hole?, rule above the row) from the top of RAM down
        spans: list[Span] = []
        for (s, e, name), k in zip(reversed(segs), reversed(heights), strict=True):
            bounds = _row_bounds(s, e, k)
            for i in range(k):
                rule = rules[e] if i == 0 and e in rules and e < top else None
                spans.append((bounds[i + 1], bounds[i], name if i == 0 else "", name == "hole", rule))
        counts: list[Counter[str]] = [Counter() for _ in spans]
        for glyph, addrs in (("B", mem.bounced), ("i", mem.translated), ("d", mem.direct)):
            for n, (lo, hi, *_rest) in enumerate(spans):       # rows do not overlap: count each in one
                if k := bisect_left(addrs, hi) - bisect_left(addrs, lo):
                    counts[n][glyph] = k
        maxn = max((n for c in counts for n in c.values()), default=1)
        gutter = self._bounces()         # a column for the bounce's arrow, right of the zone names
        barw = max(3, min(24, width - 44))
        marks = []
        if mem.swiotlb is not None:
            marks.append((mem.swiotlb.base, "S", "pool", "SWIOTLB"))
        if mem.ring_phys >= 0:
            marks.append((mem.ring_phys, "R", "ring", "ring"))
        cur = self.cursor()
        sw = mem.swiotlb

        def where(touch: Touch | None) -> tuple[int, ...]:
            """The addresses a call touched: its data, and the SWIOTLB slots it took or copied."""
            if touch is None:
                return ()
            return touch.phys + (tuple(sw.addr(s) for s in touch.slots) if sw is not None else ())

        now, was = where(cur.now), where(cur.before)
        last = sw.last if sw is not None else None
        held = [a for a, *_ in marks] + list(now + was) + ([last.phys, last.slot_addr] if last is not None else [])
        kept, out = _fit([(span, bool(c) or any(span[0] <= a < span[1] for a in held))
                          for span, c in zip(spans, counts, strict=True)], out, budget)
        spans, counts = [span for span, _ in kept], [counts[n] for _, n in kept]
        lit: set[tuple[str, int]] = set()
        rows: list[tuple[int, Text]] = []          # (span index, or -1 for a rule line) and the line
        for n, ((lo, hi, name, hole, rule), c) in enumerate(zip(spans, counts, strict=True)):
            if rule:
                if len(rule) + 22 > width:       # "4 GiB = dma_mask 32 limit" without the gloss
                    rule = rule.split(":")[0]
                if len(rule) + 22 > width:
                    rule = rule.split(" = ")[0]
                # the label starts past the gutter, so the bounce's arrow crosses a line of dashes
                head = f"{'─' * (GUTTER + 2 if gutter else 7)} {rule} "
                rows.append((-1, Text().append(head + "─" * max(1, width - len(head)), self._s("line"))))
            line = Text().append(f"{_addr(lo):>7} ", self._s("muted")).append("│")
            zone = "PCI hole" if hole and name else name
            line.append(f"{zone:<8}", self._s("muted" if hole else "zone")).append("│")
            if gutter:
                line.append(" ")
            for a, glyph, style, what in marks:
                if lo <= a < hi:
                    line.append(" ").append(glyph, self._s(style)).append(f" {what}")
            for glyph, style in (("B", "bounced"), ("d", "direct"), ("i", "iommu")):
                if c[glyph]:
                    line.append(" ").append(glyph * max(1, round(c[glyph] * barw / maxn)), self._s(style))
                    line.append(f" {c[glyph]}")
            if any(lo <= a < hi for a in now):
                # the legend says what ◀ is: its words go first when the row has no room for them
                line.append(" ◀ this call" if line.cell_len + 12 <= width else " ◀", self._s("now"))
                lit.add(("row", lo))
            elif any(lo <= a < hi for a in was):
                line.append(" ◁", self._s("was"))
            rows.append((n, line))
        self.lit = frozenset(lit)
        bounce = self._bounce_rows(mem, spans, cur) if gutter else None
        if bounce is not None:
            self._draw_bounce(rows, GUTTER, *bounce)
        return out + [line for _, line in rows]

    # ------------------------------------------------------------------ the bounce, drawn
    def _bounce_rows(self, mem: MemoryRecord, spans: list[Span], cur: Cursor) -> tuple[int, int, Bounce, str] | None:
        """(buffer's row, slot's row, the copy, how lit) of the latest SWIOTLB copy, or None."""
        sw = mem.swiotlb
        b = sw.last if sw is not None else None
        if b is None:
            return None
        row: dict[str, int] = {}
        for n, (lo, hi, *_rest) in enumerate(spans):
            for key, a in (("buf", b.phys), ("slot", b.slot_addr)):
                if lo <= a < hi:
                    row[key] = n
        if len(row) < 2:
            return None
        def copied(touch: Touch | None) -> bool:
            return touch is not None and touch.call == "swiotlb_bounce"
        how = "now" if copied(cur.now) else "was" if copied(cur.before) else "muted"
        return row["buf"], row["slot"], b, how

    def _draw_bounce(self, rows: list[tuple[int, Text]], col: int, buf: int, slot: int, b: Bounce, how: str) -> None:
        """The copy as an arrow down the gutter (column `col`) between the buffer's row and the slot's: it
        leaves one (a corner) and arrives at the other (an arrowhead): into the slot at map time, back into
        the buffer at unmap or at a sync for the CPU. Each end says what it is; the bytes copied are on
        the way (or, with no row between, at the arrowhead)."""
        at = {n: i for i, (n, _) in enumerate(rows) if n >= 0}
        ib, isl = at[buf], at[slot]
        if ib == isl:
            return
        top, bottom = min(ib, isl), max(ib, isl)
        style, heavy = self._s(how), how == "now"
        into_slot = not b.back
        between = [i for i in range(top + 1, bottom) if rows[i][0] >= 0]
        words = f"{b.nbytes} B {'↓' if into_slot == (ib == top) else '↑'}"
        for i in range(top, bottom + 1):
            n, line = rows[i]
            if n < 0:                                   # a rule line: the arrow crosses it
                cells = line.plain
                mid = Text(cells[:col], line.style)
                mid.append("┃" if heavy else "│", style)
                mid.append(cells[col + 1:], self._s("line"))
                rows[i] = (n, mid)
                continue
            if i in (ib, isl):
                arriving = (i == isl) == into_slot
                glyph = ("▼" if i == bottom else "▲") if arriving else \
                    (("┓" if heavy else "┐") if i == top else ("┛" if heavy else "┘"))
                label = "buf" if i == ib else "slot"
                if arriving and not between:
                    label += f" {words}"
            else:
                glyph, label = ("┃" if heavy else "│"), (words if i == between[0] else "")
            new = line[:col]
            new.append(glyph, style)
            new.append(label, style)
            new.append_text(line[col + 1:])
            rows[i] = (n, new)
        if heavy:
            self.lit = self.lit | {("bounce", b.slot_addr)}


def _fit(rows: list[tuple[Span, bool]], top_edge: list[Text], budget: int) -> tuple[list[tuple[Span, int]], list[Text]]:
    """Make a short map fit before its bottom rows are cut off: those are the ZONE_DMA32 rows, where the
    SWIOTLB slots and what a 32-bit mask reaches sit, and often "this call". `rows` pairs each row with
    whether it holds anything (a buffer, a mark, a call's address, the latest bounce's ends).

    First the PCI hole's rows go (no RAM there, so never anything in them), then the top edge's line
    (the header names the mask too), then the other empty rows from the top down. A line drawn above a
    row that goes moves down to the row below it. Returns the rows kept, each with its index in `rows`,
    and the top edge's lines to keep; a map that still does not fit is cut at the bottom as before."""
    kept = [(span, n) for n, (span, _) in enumerate(rows)]
    busy = [b for _, b in rows]

    def lines() -> int:
        return len(top_edge) + len(kept) + sum(1 for span, _ in kept if span[4])

    def drop(holes_only: bool) -> None:
        i = 0
        while lines() > budget and i + 1 < len(kept):
            span, n = kept[i]
            below, m = kept[i + 1]
            if busy[n] or (holes_only and not span[3]) or (span[4] and below[4]):
                i += 1
                continue
            kept[i + 1] = ((*below[:4], span[4] or below[4]), m)
            del kept[i]

    drop(holes_only=True)
    if lines() > budget:
        top_edge = []
    drop(holes_only=False)
    return kept, top_edge


def _addr(a: int) -> str:
    """A row label: the row's lowest address, short; blank above 1 GiB off a 256 MiB multiple (8.375G is noise)."""
    if a >= GiB and a % (GiB // 4):
        return ""
    if a == 0:
        return "0"
    if a >= GiB:
        v = a / GiB
        # two decimals at most, and only those needed: row edges fall on 256 MiB multiples (6.25G)
        return f"{v:.0f}G" if v == int(v) or v >= 100 else f"{v:.2f}".rstrip("0") + "G"
    return f"{a // MiB}M"


def _row_bounds(s: int, e: int, k: int) -> list[int]:
    """The k+1 edges of a segment's k rows, top down, the inner ones on round addresses.

    An even split labels rows with addresses like 12.7G or 226M; rounding each
    inner edge down to a multiple of the largest power of two (MiB or more) not
    above the row height gives 12G, 224M. The edges stay distinct and inside
    the segment, since a row is at least that multiple tall.
    """
    step = (e - s) / k
    unit = MiB
    while unit * 2 <= step:
        unit *= 2
    inner = [int(e - i * step) for i in range(1, k)]
    if step >= MiB:
        inner = [a // unit * unit for a in inner]
    return [e, *inner, s]


def _split(seg: tuple[int, int, str], cuts: list[int]) -> list[tuple[int, int, str]]:
    s, e, name = seg
    out = []
    for c in cuts:
        if s < c < e:
            out.append((s, c, name))
            s = c
    return out + [(s, e, name)]


def _share(weights: list[int], total: int) -> list[int]:
    """Rows per segment: one each, the rest by weight (largest remainder)."""
    rows = [1] * len(weights)
    spare = total - len(weights)
    w = sum(weights)
    if spare <= 0 or w == 0:
        return rows
    exact = [spare * x / w for x in weights]
    for i, x in enumerate(exact):
        rows[i] += int(x)
    left = spare - sum(int(x) for x in exact)
    for i in sorted(range(len(weights)), key=lambda i: int(exact[i]) - exact[i])[:left]:
        rows[i] += 1
    return rows

