"""page_pool: the alloc cache, the ptr_ring, and every page with its fragments.

The point of a page_pool is that a page is mapped once and comes back: the
view shows where each page is now (A alloc cache, R ptr_ring, C being carved,
F fragments in flight, M just mapped) and, cell by cell, how many of its
fragments are still out: that count is the page's pp_ref_count, and only the
last put brings the page home. Pages keep their place (ordered by id), so
stepping shows them change state in place. Without a pool the view says so;
for atlantic's page-flip driver it shows the ring's pages instead: which
2 KiB slice each descriptor holds and the page's page_ref_count.
"""

from __future__ import annotations

from collections import Counter

from rich.style import Style
from rich.text import Text

from . import register
from .base import ModelView, wrap_phrases

STATES = {"alloc-cache": ("A", "cache"), "ptr_ring": ("R", "ring"), "carving": ("C", "carving"),
          "in-flight": ("F", "flight"), "mapped": ("M", "mapped"), "allocated": ("M", "mapped")}
CURRENT = Style(reverse=True)
MAX_CELLS = 4        # a page with more fragments than this shows a count instead of cells
ALWAYS = ("fast", "cached", "ring", "waive", "released_refcnt")     # statistics shown even at 0


def bar(n: int, total: int, width: int) -> tuple[str, str]:
    """A fill bar as (filled, empty) strings; any n > 0 shows at least one cell."""
    fill = 0 if n <= 0 or total <= 0 else max(1, min(width, round(n * width / total)))
    return "█" * fill, "░" * (width - fill)


@register
class PoolView(ModelView):
    """The page_pool of the shown variant, or the ring's flip pages when there is none."""

    KEY = "pool"
    TITLE = "page_pool"
    COMPONENT_CLASSES = {"poolview--cache", "poolview--ring", "poolview--carving", "poolview--flight",
                         "poolview--mapped", "poolview--out", "poolview--muted", "poolview--delta"}
    DEFAULT_CSS = """
    PoolView > .poolview--cache { color: $text-success; text-style: bold; }
    PoolView > .poolview--ring { color: $text-success; text-style: bold; }
    PoolView > .poolview--carving { color: $text-accent; text-style: bold; }
    PoolView > .poolview--flight { color: $text-warning; text-style: bold; }
    PoolView > .poolview--mapped { color: $text-secondary; text-style: bold; }
    PoolView > .poolview--out { color: $foreground; }
    PoolView > .poolview--muted { color: $text-muted; }
    PoolView > .poolview--delta { color: $text-accent; text-style: bold; }
    """


    def build_lines(self, width: int, height: int) -> list[Text]:
        sim = self.state.sim
        if sim.pool is not None:
            return self._pool(sim, sim.pool, width, height)
        name = getattr(sim.strategy, "name", "")
        if name == "page-flip":
            return self._flip(sim, width, height)
        if name and name != "sdio":
            alloc, free = sim.strategy.ALLOC[sim.strategy.kind], sim.strategy.FREE[sim.strategy.kind]
            out = [Text(f"no page_pool in this variant (strategy: {name})"),
                   Text().append(f"one buffer per frame: {alloc}, map; unmap, {free}", self._s("muted"))]
            calls = (alloc, "dma_map_single", "dma_unmap_single", free)
        else:          # SDIO/USB: the MMC/USB core's own DMA is not modelled
            out = [Text(f"no page_pool in this variant ({sim.bus.upper()} bus)"),
                   Text().append("one skb per message, copied out of the bus read", self._s("muted"))]
            calls = ("__netdev_alloc_skb", "skb_free_frag")
        # what a pool would save: the per-frame calls, with this step's share
        parts = []
        for call in calls:
            parts.append(Text(f"{call} {sim.rec.counts.get(call, 0)}"))
            if d := self.delta(call):
                parts[-1].append(f" +{d}", self._s("delta"))
        return out + _wrap_dot(parts, width, 2)

    # ------------------------------------------------------------------ page_pool
    def _pool(self, sim, pool, width: int, height: int) -> list[Text]:
        frag = getattr(sim.strategy, "frag", pool.page_bytes)
        per = max(1, pool.page_bytes // frag)
        bar_w = max(4, min(30, width - 26))
        frags = f"{per} frag{'s' if per != 1 else ''}"
        out = [Text(f"page_pool#{pool.id} · {pool.page_bytes // 1024} KiB pages · {frags} of {frag} B")]
        for label, n, cap, style in (("alloc cache", len(pool.cache), 128, "cache"),
                                     ("ptr_ring", pool.ring_len(), pool.ring_cap, "ring")):
            full, empty = bar(n, cap, bar_w)
            out.append(Text(f"{label:<11} ▕").append(full, self._s(style)).append(empty, self._s("muted"))
                       .append(f"▏ {n}/{cap}"))
        # struct page_pool_stats, named as ethtool -S and page-pool-stats-get name them. waive and
        # released_refcnt are always shown: they stay 0 in this model (one NUMA node, and a pool
        # page is only ever referenced by the pool; models/page_pool.py says where the kernel counts them).
        st = pool.stats
        for head, names in (("alloc", ("fast", "slow", "slow_high_order", "refill", "empty", "waive")),
                            ("recycle", ("cached", "ring", "ring_full", "cache_full", "released_refcnt"))):
            shown = [n for n in names if st[f"{head}_{n}"] or n in ALWAYS]
            parts = [Text(f"{head}:" if not i else "").append(f"{' ' if not i else ''}{n} {st[f'{head}_{n}']:,}")
                     for i, n in enumerate(shown)]
            out += _wrap_dot(parts, width, 2)
        if height >= 8:
            legend = Text()
            for glyph, style, what in (("A", "cache", "cache"), ("R", "ring", "ptr_ring"),
                                       ("C", "carving", "carving"), ("F", "flight", "in flight"),
                                       ("M", "mapped", "mapped"), ("■", "out", "out"),
                                       ("·", "muted", "back"), ("□", "muted", "uncarved")):
                legend.append(glyph, self._s(style)).append(f" {what} ")
            out.append(legend)
        page = pool.frag_page
        if page is not None:
            carved = -(-pool.frag_offset // frag)
            line = Text("carving ").append_text(self._page_cell(page, per, carved))
            out.append(line.append(f" page#{page.id} +{pool.frag_offset}/{pool.page_bytes} · "
                                   f"pp_ref_count {page.outstanding()}"))
        out += _wrap_dot([self._census(pool),
                          Text(f"hold {pool.hold} − release {pool.release} = inflight {pool.inflight()}")], width, 1)
        return out + self._cells(pool, per, width, max(1, height - len(out)))

    @staticmethod
    def _census(pool) -> Text:
        """How many pages the pool has and in which state; after page_pool_destroy, what is left."""
        n = len(pool.pages)
        if not n:
            return Text("pool destroyed, every page released" if pool.destroyed else "no pages yet")
        counts = Counter(STATES.get(p.state, ("?", "muted"))[0] for p in pool.pages.values())
        head = f"{n} page{'s' if n != 1 else ''}"
        if pool.destroyed:
            head = f"pool destroyed, {head} still out"
        return Text(f"{head}: " + " ".join(f"{k} {counts[k]}" for k in "FCARM" if counts[k]))

    def _page_cell(self, page, per: int, carved: int | None = None) -> Text:
        """State letter, then one cell per fragment (■ out, · back, □ not carved yet)."""
        glyph, style = STATES.get(page.state, ("?", "muted"))
        out = page.outstanding()
        cell = Text().append(glyph, self._s(style))
        if per > MAX_CELLS:
            return cell.append(f"{out:<2}", self._s("out"))
        carved = per if carved is None else carved
        back = max(0, carved - out)
        return (cell.append("■" * min(out, per), self._s("out")).append("·" * back, self._s("muted"))
                .append("□" * max(0, per - out - back), self._s("muted")))

    def _cells(self, pool, per: int, width: int, rows: int) -> list[Text]:
        cell_w = 1 + (per if per <= MAX_CELLS else 2) + 1
        cols = max(1, width // cell_w)
        pages = list(pool.pages.values())
        room = cols * rows
        if len(pages) > room:                      # keep the last row for "… N more"
            room = max(0, room - cols)
        out: list[Text] = []
        for r in range(0, min(len(pages), room), cols):
            line = Text()
            for page in pages[r:r + cols]:
                cell = self._page_cell(page, per)
                if page is pool.frag_page:
                    cell.stylize(CURRENT)
                line.append_text(cell).append(" ")
            out.append(line)
        if not out and pages:
            # Not one row of pages fits: "… N more" would count pages never shown.
            return [Text().append("(too short to list the pages)", self._s("muted"))]
        if len(pages) > room:
            rest = Counter(STATES.get(p.state, ("?", ""))[0] for p in pages[room:])
            out.append(Text().append(f"… {len(pages) - room} more: "
                                     + " ".join(f"{k} {n}" for k, n in rest.most_common()), self._s("muted")))
        return out

    # ------------------------------------------------------------------ page flip
    def _flip(self, sim, width: int, height: int) -> list[Text]:
        st = sim.strategy
        ring = sim.ring
        out = [Text(f"page flip, no page_pool: {st.SLICE // 1024} KiB slices of {st.page_bytes // 1024} KiB pages")]
        parts = [Text(f"{what} {st.stats[key]}") for key, what in
                 (("pg_flips", "flips"), ("pg_reuses", "reuses"), ("pg_losts", "lost"))]
        for call in ("dma_map_page", "dma_unmap_page"):
            parts.append(Text(f"{call} {sim.rec.counts.get(call, 0)}"))
            if d := self.delta(call):
                parts[-1].append(f" +{d}", self._s("delta"))
        out += _wrap_dot(parts, width, 2 if height >= 10 else 1)
        if height >= 6:
            out.append(Text("page_ref_count: ").append("1", self._s("cache")).append(" the ring's only  ")
                       .append("2+", self._s("flight")).append(" the stack holds a slice too"))
        cell_w = 21
        cols = max(1, (width + 1) // cell_w)
        rows = max(1, height - len(out))
        for r in range(rows):
            line = Text()
            for c in range(cols):
                i = (ring.clean_idx + r * cols + c) % ring.size
                buf = ring.buf(i)
                if buf is None or buf.page is None:
                    line.append(f"{i:>4} (none)".ljust(cell_w))
                    continue
                pg = buf.page
                refs = Text().append(str(pg.refs), self._s("cache" if pg.refs == 1 else "flight"))
                mark = "▸" if i == ring.clean_idx else " "
                line.append(f"{mark}{i:>4} p#{pg.id:<5}+{buf.offset:<5}").append_text(refs).append("  ")
            out.append(line)
        return out


def _wrap_dot(parts: list[Text], width: int, max_lines: int) -> list[Text]:
    return wrap_phrases(parts, width, max_lines, sep=" · ")
