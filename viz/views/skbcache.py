"""The per-CPU NAPI skb cache and the slab traffic it saves.

An skb head comes either from the skbuff slab, one kmem_cache_alloc per frame
(build_skb), or from the per-CPU cache that napi_build_skb pops and refills
in bulk; napi_consume_skb pushes heads back and flushes half the cache to the
slab in one call when it is full. The view shows the cache's fill against its
two thresholds and the calls on both paths, each with what it did in the last
step ("+N", so a change is never shown by colour alone) and in total, plus the
number of heads that crossed the slab boundary: the traffic the patch cuts.
The current call's row is lit (the call before's underlined) and a line
says which head it moved, and where to.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from . import register
from .base import ModelView, wrap_phrases

# (slab path, NAPI cache path): rows pair the calls a driver swaps for each other
ROWS = (("kmem_cache_alloc", "napi_skb_cache_get"),
        ("kmem_cache_free", "napi_skb_cache_put"),
        ("build_skb", "napi_build_skb"),
        ("dev_kfree_skb", "napi_consume_skb"),
        ("kmem_cache_alloc_bulk", "kmem_cache_free_bulk"))
NAME_W, DELTA_W, TOTAL_W = 21, 5, 7
# where a head went, when the whole phrase does not fit
SHORT = {"napi-cache": "NAPI cache", "slab": "slab", "in-use": "in use", "bulk-free": "bulk-free"}


def bar(n: int, total: int, width: int) -> tuple[str, str]:
    """A fill bar as (filled, empty) strings; any n > 0 shows at least one cell."""
    fill = 0 if n <= 0 or total <= 0 else max(1, min(width, round(n * width / total)))
    return "█" * fill, "░" * (width - fill)


@register
class SkbCacheView(ModelView):
    """napi_alloc_cache: how full it is, and the kmem_cache calls it replaces."""

    KEY = "skbcache"
    TITLE = "NAPI skb cache"
    COMPONENT_CLASSES = {"skbcacheview--fill", "skbcacheview--mark", "skbcacheview--delta", "skbcacheview--muted",
                         "skbcacheview--head", "skbcacheview--now", "skbcacheview--was"}
    DEFAULT_CSS = """
    SkbCacheView > .skbcacheview--fill { color: $text-success; }
    SkbCacheView > .skbcacheview--mark { color: $text-accent; text-style: bold; }
    SkbCacheView > .skbcacheview--delta { color: $text-accent; text-style: bold; }
    SkbCacheView > .skbcacheview--muted { color: $text-muted; }
    SkbCacheView > .skbcacheview--head { text-style: bold underline; }
    SkbCacheView > .skbcacheview--now { background: $accent; color: $background; text-style: bold; }
    SkbCacheView > .skbcacheview--was { text-style: underline; }
    """


    def build_lines(self, width: int, height: int) -> list[Text]:
        h = self.read.skb_cache()
        n = h.cached
        out = [Text(f"driver: {h.skb_alloc} + {h.tx_free}")]
        bar_w = max(4, min(h.size, width - 30))
        full, empty = bar(n, h.size, bar_w)
        out.append(Text("cache ▕").append(full, self._s("fill")).append(empty, self._s("muted"))
                   .append(f"▏ {n}/{h.size} · in use {h.in_use}"))
        # the levels a refill leaves (bulk) and a flush leaves (size - free_n)
        ticks = [" "] * (7 + bar_w + 8)
        spots = sorted({7 + min(bar_w - 1, level * bar_w // h.size): level
                        for level in (h.bulk, h.size - h.free_n)}.items())
        for k, (col, level) in enumerate(spots):
            label = f"▲{level}"
            room = spots[k + 1][0] - col if k + 1 < len(spots) else len(ticks) - col
            ticks[col:col + len(label)] = label if len(label) < room else "▲"
        out.append(Text().append("".join(ticks).rstrip(), self._s("mark")))
        refill = f"▲ empty → +{h.bulk} (kmem_cache_alloc_bulk)"
        flush = f"full {h.size} → −{h.free_n} (kmem_cache_free_bulk)"
        if len(refill) + 3 + len(flush) <= width:
            out.append(Text(f"{refill} · {flush}"))
        else:
            out += [Text(refill), Text(f"▲ {flush}")]
        out.append(self._traffic())
        out.append(self._event(width))
        # an entry that does not fit is left out whole
        legend = wrap_phrases([Text.assemble((glyph, self._s(style)), f" {what}") for glyph, style, what in (
            ("█", "fill", "cached"), ("▲", "mark", "refill/flush level"), ("+N", "delta", "this step"),
            ("·", "muted", "none"))], width, 1, sep="  ")[0]
        if height < 8:
            return out
        out = out[:height - 1]
        return out + self._tables(width, height - 1 - len(out)) + [legend]

    # ------------------------------------------------------------------ the call tables
    def _tables(self, width: int, room: int) -> list[Text]:
        """The calls on both paths in at most `room` lines.

        Side by side when wide, else one table under the other. When they do not
        fit, the busiest rows stay (moved this step, then called at all) and a
        last line counts the rest; a table's header never stands without a row.
        """
        if room <= 0:
            return []
        tables: list[tuple[Text, list[tuple[str, ...]]]]
        if width >= 2 * (NAME_W + DELTA_W + TOTAL_W + 2) + 3:
            tables = [(self._head("slab path").append(" │ ").append_text(self._head("NAPI cache path")), list(ROWS))]
        else:
            tables = [(self._head(title), [(pair[col],) for pair in ROWS])
                      for col, title in enumerate(("slab path", "NAPI cache path"))]
        keep: set[tuple[str, ...]] = {row for _, rows in tables for row in rows}
        if len(tables) + len(keep) > room:
            shown = tables
            if room - 1 - len(tables) < len(tables):
                # Not a row for each table: keep the path the driver uses (the other is mostly idle).
                mine = self.read.skb_cache().skb_alloc
                shown = [t for t in tables if any(mine in row for row in t[1])][:1]
            keep = self._busiest([rows for _, rows in shown], room - 1 - len(shown))
        out, hidden = [], []
        for head, rows in tables:
            hidden += [call for row in rows if row not in keep for call in row]
            if any(row in keep for row in rows):
                out.append(head)
                out += [self._pair(row) for row in rows if row in keep]
        return out + [self._hidden(hidden)] if hidden else out

    def _pair(self, row: tuple[str, ...]) -> Text:
        line = self._row(row[0])
        return line.append(" │ ").append_text(self._row(row[1])) if len(row) > 1 else line

    def _busiest(self, tables: list[list[tuple[str, ...]]], n: int) -> set[tuple[str, ...]]:
        """At most n rows worth showing, each table's best first, then by how busy they are."""
        if n <= 0:
            return set()
        counts = self.read.counts()

        def busy(row: tuple[str, ...]) -> int:
            return 2 if any(self.delta(c) for c in row) else 1 if any(counts.get(c, 0) for c in row) else 0

        ranked = [sorted(rows, key=lambda r: -busy(r)) for rows in tables]
        keep = [rows[0] for rows in ranked][:n]
        rest = sorted((r for rows in ranked for r in rows[1:]), key=lambda r: -busy(r))
        return set(keep + rest[:n - len(keep)])

    def _hidden(self, calls: list[str]) -> Text:
        counts = self.read.counts()
        idle = sum(1 for c in calls if not counts.get(c, 0))
        what = f"… {len(calls)} more call{'s' if len(calls) != 1 else ''} not shown"
        return Text().append(what + (f" ({idle} never made)" if idle else ""), self._s("muted"))

    def _head(self, title: str) -> Text:
        return (Text().append(title[:NAME_W], self._s("head")).append(" " * max(0, NAME_W - len(title)))
                .append(f" {'step':>{DELTA_W}} {'total':>{TOTAL_W}}", self._s("muted")))

    def _event(self, width: int) -> Text:
        """The sk_buff head the current call moved, and where to (the call before's, dim), or why none."""
        cur = self.cursor()
        for touch, lit in ((cur.now, True), (cur.before, False)):
            heads = [m for m in (touch.moves if touch is not None else ()) if m.machine == "skb_head"]
            if heads and touch is not None:
                m = heads[0]
                more = f" (+{len(heads) - 1} more)" if len(heads) > 1 else ""
                where = {"napi-cache": "into the NAPI cache", "slab": "back to the slab", "in-use": "into use",
                         "bulk-free": "onto the bulk-free list"}.get(m.dst, m.dst)
                line = Text().append("▶ " if lit else "▷ a call ago: ", self._s("now" if lit else "muted"))
                said = f"{touch.call}: {m.obj}{more} {m.src} → {where}"
                if line.cell_len + len(said) > width:     # where it came from gives way, then the gloss
                    said = f"{touch.call}: {m.obj}{more} → {SHORT.get(m.dst, m.dst)}"
                line.append(said, None if lit else self._s("muted"))
                self.lit = frozenset({("head", int(m.obj.split("#")[-1]))}) if lit else frozenset()
                return line
        self.lit = frozenset()
        return Text().append("▷ this call moves no sk_buff head", self._s("muted"))

    def _row(self, call: str) -> Text:
        counts = self.read.counts()
        d = self.delta(call)
        cur = self.cursor()
        if cur.now is not None and cur.now.call == call:
            return (Text(f"{call:<{NAME_W}} ", self._s("now")).append(f"{'+' + str(d) if d else '·':>{DELTA_W}}")
                    .append(f" {counts.get(call, 0):>{TOTAL_W}}"))
        line = Text(f"{call:<{NAME_W}} ", self._s("was") if cur.before is not None and cur.before.call == call
                    else "")
        line.append(f"{'+' + str(d) if d else '·':>{DELTA_W}}", self._s("delta" if d else "muted"))
        return line.append(f" {counts.get(call, 0):>{TOTAL_W}}")

    def _traffic(self) -> Text:
        """Heads that crossed the slab boundary: one per single call, bulk calls count their heads."""
        read = self.read
        h = read.skb_cache()

        def moved(get: Callable[[str], int]) -> int:
            return (get("kmem_cache_alloc") + get("kmem_cache_free")
                    + h.bulk * get("kmem_cache_alloc_bulk") + h.free_n * get("kmem_cache_free_bulk"))

        total = moved(lambda c: read.counts().get(c, 0))
        step = moved(self.delta)
        calls = sum(self.delta(c) for c in ("kmem_cache_alloc", "kmem_cache_free",
                                            "kmem_cache_alloc_bulk", "kmem_cache_free_bulk"))
        line = Text(f"slab traffic: {total} head{'s' if total != 1 else ''} · this step ")
        if not step:
            return line.append("none", self._s("muted"))
        return line.append(f"+{step}", self._s("delta")).append(f" in {calls} call{'s' if calls != 1 else ''}")
