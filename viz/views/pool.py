"""page_pool: the alloc cache, the ptr_ring, and every page with its fragments.

The point of a page_pool is that a page is mapped once and comes back: the
view shows where each page is now (A alloc cache, R ptr_ring, C being carved,
F fragments in flight, M just mapped) and, cell by cell, how many of its
fragments are still out: that count is the page's pp_ref_count, and only the
last put brings the page home. Pages keep their place (ordered by id), so
stepping shows them change state in place. The current call's page is lit
(the call before's underlined), and a line says what the call did: a
fragment carved, a page recycled into the cache or the ptr_ring (still
mapped: the saving), or one fresh from the page allocator and mapped (the
slow path). Without a pool the view says so;
for atlantic's page-flip driver it shows the ring's pages instead: which
2 KiB slice each descriptor holds and the page's page_ref_count.
"""

from __future__ import annotations

from collections import Counter

from rich.style import Style
from rich.text import Text

from models.read import PageRecord, PoolRecord, Reading

from . import register
from .base import ModelView, wrap_phrases

STATES = {"alloc-cache": ("A", "cache"), "ptr_ring": ("R", "ring"), "carving": ("C", "carving"),
          "in-flight": ("F", "flight"), "mapped": ("M", "mapped"), "allocated": ("M", "mapped")}
CURRENT = Style(reverse=True)
MAX_CELLS = 4        # a page with more fragments than this shows a count instead of cells
ALWAYS = ("fast", "cached", "ring", "waive", "released_refcnt")     # statistics shown even at 0
# The calls that count recycle_cached and recycle_ring: a question that keeps either back keeps back
# every figure that tells the two ways apart (the recycle and alloc statistics, the cache's and the
# ptr_ring's fill, a page's A or R): pages back in the pool are drawn as P, for both.
RECYCLE_CALLS = frozenset({"page_pool_recycle_in_cache", "page_pool_recycle_in_ring"})
IN_POOL = ("P", "recycled")     # a page in the alloc cache or the ptr_ring, while which one is kept back


def bar(n: int, total: int, width: int) -> tuple[str, str]:
    """A fill bar as (filled, empty) strings; any n > 0 shows at least one cell."""
    fill = 0 if n <= 0 or total <= 0 else max(1, min(width, round(n * width / total)))
    return "█" * fill, "░" * (width - fill)


@register
class PoolView(ModelView):
    """The page_pool of the shown variant, or the ring's flip pages when there is none."""

    KEY = "pool"
    TITLE = "page_pool"
    READS = ("hidden_counts",)      # a recycle a question ahead asks about stays unlit; and `pool_page`
    COMPONENT_CLASSES = {"poolview--cache", "poolview--ring", "poolview--carving", "poolview--flight",
                         "poolview--mapped", "poolview--out", "poolview--muted", "poolview--delta",
                         "poolview--now", "poolview--was", "poolview--recycled", "poolview--fresh"}
    DEFAULT_CSS = """
    PoolView > .poolview--cache { color: $text-success; text-style: bold; }
    PoolView > .poolview--ring { color: $text-success; text-style: bold; }
    PoolView > .poolview--carving { color: $text-accent; text-style: bold; }
    PoolView > .poolview--flight { color: $text-warning; text-style: bold; }
    PoolView > .poolview--mapped { color: $text-secondary; text-style: bold; }
    PoolView > .poolview--out { color: $foreground; }
    PoolView > .poolview--muted { color: $text-muted; }
    PoolView > .poolview--delta { color: $text-accent; text-style: bold; }
    PoolView > .poolview--now { background: $accent; color: $background; text-style: bold; }
    PoolView > .poolview--was { text-style: underline; }
    PoolView > .poolview--recycled { color: $text-success; text-style: bold; }
    PoolView > .poolview--fresh { color: $text-warning; text-style: bold; }
    """


    def build_lines(self, width: int, height: int) -> list[Text]:
        read = self.read
        pool = read.pool()
        if pool is not None:
            return self._pool(pool, width, height)
        strategy = read.strategy()
        name = strategy.name
        if name == "page-flip":
            return self._flip(read, width, height)
        if name and name != "sdio":
            alloc, free = strategy.alloc, strategy.free
            out = [self._fitting(width, (f"no page_pool in this variant (strategy: {name})",),
                                 (f"no page_pool (strategy: {name})",), ("no page_pool",)),
                   *wrap_phrases([Text(w, self._s("muted")) for w in ("one buffer per frame:", f"{alloc}, map;",
                                                                         f"unmap, {free}")], width, 2)]
            calls: tuple[str, ...] = (alloc, "dma_map_single", "dma_unmap_single", free)
        else:          # SDIO/USB: the MMC/USB core's own DMA is not modelled
            out = [self._fitting(width, (f"no page_pool in this variant ({read.bus_name.upper()} bus)",),
                                 (f"no page_pool ({read.bus_name.upper()} bus)",)),
                   *wrap_phrases([Text(w, self._s("muted")) for w in ("one skb per message,", "copied out of",
                                                                         "the bus read")], width, 2)]
            calls = ("__netdev_alloc_skb", "skb_free_frag")
        # what a pool would save: the per-frame calls, with this step's share
        parts = []
        for call in calls:
            parts.append(Text(f"{call} {read.counts().get(call, 0)}"))
            if d := self.delta(call):
                parts[-1].append(f" +{d}", self._s("delta"))
        return out + _wrap_dot(parts, width, 2)

    # ------------------------------------------------------------------ page_pool
    def _pool(self, pool: PoolRecord, width: int, height: int) -> list[Text]:
        frag = pool.frag
        per = max(1, pool.page_bytes // frag)
        bar_w = max(4, min(30, width - 26))
        frags = f"{per} frag{'s' if per != 1 else ''}"
        sized = "pool_page" not in self.st.hidden_counts        # models.lesson.figures
        head = self._head(pool, f"{frags} of {frag} B" if sized else "", width, height)
        bars, fills = [], []           # fills: the same counts on one line, when two bars do not fit
        for label, n, cap, style in (("alloc cache", pool.cache, 128, "cache"),
                                     ("ptr_ring", pool.ring, pool.ring_cap, "ring")):
            if self._which_way_kept:
                bars = fills = [Text(f"back in the pool: {pool.cache + pool.ring} pages · ")
                                .append("alloc cache or ptr_ring: kept back", self._s("muted"))]
                break
            full, empty = bar(n, cap, bar_w)
            bars.append(Text(f"{label:<11} ▕").append(full, self._s(style)).append(empty, self._s("muted"))
                        .append(f"▏ {n}/{cap}"))
            fills.append(Text(f"{label.split()[-1]} ").append(f"{n}/{cap}", self._s(style)))   # "cache", "ptr_ring"
        if len(fills) > 1:
            fills = _wrap_dot(fills, width, 1)
        # struct page_pool_stats, named as ethtool -S and page-pool-stats-get name them. waive and
        # released_refcnt are always shown: they stay 0 in this model (one NUMA node, and a pool
        # page is only ever referenced by the pool; models/page_pool.py says where the kernel counts them).
        st = pool.stats
        stats = []
        for top, names in (("alloc", ("fast", "slow", "slow_high_order", "refill", "empty", "waive")),
                           ("recycle", ("cached", "ring", "ring_full", "cache_full", "released_refcnt"))):
            if self._which_way_kept:
                # which way pages come back is what a question still ahead asks; the alloc split
                # (fast from the cache, refill from the ptr_ring) says it from the other end
                stats.append(Text(f"{top}: ", self._s("muted")).append("kept back until you answer", self._s("muted")))
                continue
            shown = [n for n in names if st[f"{top}_{n}"] or n in ALWAYS]
            parts = [Text(f"{top}:" if not i else "").append(f"{' ' if not i else ''}{n} {st[f'{top}_{n}']:,}")
                     for i, n in enumerate(shown)]
            stats += _wrap_dot(parts, width, 2)
        legend = Text()
        where = (((*IN_POOL, "in the pool"),) if self._which_way_kept
                 else (("A", "cache", "cache"), ("R", "ring", "ptr_ring")))
        for glyph, style, what in (*where, ("C", "carving", "carving"), ("F", "flight", "in flight"),
                                   ("M", "mapped", "mapped"), ("■", "out", "out"),
                                   ("·", "muted", "back"), ("□", "muted", "uncarved")):
            legend.append(glyph, self._s(style)).append(f" {what} ")
        carving = self._carving(pool, per, sized, width)
        inflight = pool.hold - pool.release         # page_pool_inflight(): hold_cnt - release_cnt
        census = _wrap_dot([self._census(pool),
                            Text(f"hold {pool.hold} − release {pool.release} = inflight {inflight}")], width, 1)
        # What the current call did and the pages (the picture) come first; the rest as the height allows,
        # in the order they are drawn, the least needed left out first.
        event = [self._event(pool, per, frag, width)]
        blocks = {"bars": bars, "stats": stats, "legend": [legend], "carving": carving}
        room = height - len(head) - len(event) - len(census) - 2      # a row of pages, and "… N more"
        for name, less in (("legend", []), ("stats", []), ("bars", fills), ("carving", []), ("bars", [])):
            if sum(map(len, blocks.values())) <= room:
                break
            blocks[name] = less
        out = head + blocks["bars"] + blocks["stats"] + blocks["legend"] + event + blocks["carving"] + census
        return out + self._cells(pool, per, width, max(1, height - len(out)))

    def _head(self, pool: PoolRecord, frags: str, width: int, height: int) -> list[Text]:
        """The pool, its page size and fragments a page (`frags`; "" while a question keeps them back)."""
        if frags:
            return _wrap_dot([Text(f"page_pool#{pool.id}"), Text(f"{pool.page_bytes // 1024} KiB pages"),
                              Text(frags)], width, 2 if height >= 16 else 1)
        return [self._fitting(width, (f"page_pool#{pool.id} · ",
                                      ("page size, fragments a page: kept back until you answer", "muted")),
                              (f"page_pool#{pool.id} · ", ("page size: kept back", "muted")))]

    def _carving(self, pool: PoolRecord, per: int, sized: bool, width: int) -> list[Text]:
        """The page being carved: its cells, where the next fragment starts and its pp_ref_count."""
        page = pool.frag_page
        if page is None:
            return []
        cell = Text("carving ").append_text(self._page_cell(page, per, -(-pool.frag_offset // pool.frag)))
        where = f" page#{page.id} +{pool.frag_offset}"
        # the longest that fits: the page's size and the kernel's field name give way first
        for tail in (f"{where}{f'/{pool.page_bytes}' * sized} · pp_ref_count {page.outstanding}",
                     f"{where} · pp_ref_count {page.outstanding}", f"{where} · refs {page.outstanding}"):
            if cell.cell_len + len(tail) <= width:
                break
        return [cell + Text(tail)]

    # What the current call did to the pool, in a phrase: (edge, words, style). A page that comes back
    # is the point of page_pool (recycled: no alloc, no map); one fresh from the page allocator is the
    # slow path it avoids (alloc_pages and a DMA map).
    EVENTS = {
        "page_pool_alloc_frag": ("carved a fragment of page#{p}", "carving"),
        "page_pool_drain_frag": ("page#{p} fully carved: its fragments are out", "flight"),
        "page_pool_recycle_in_cache": ("page#{p} recycled into the alloc cache: still mapped, nothing to allocate",
                                       "recycled"),
        "page_pool_recycle_in_ring": ("page#{p} recycled into the ptr_ring: still mapped, nothing to allocate",
                                      "recycled"),
        "page_pool_refill_alloc_cache": ("page#{p} from the ptr_ring into the alloc cache", "recycled"),
        "alloc_pages": ("page#{p} fresh from the page allocator (the slow path)", "fresh"),
        "page_pool_dma_map": ("page#{p} mapped fresh, once, as it enters the pool", "fresh"),
        "page_pool_return_netmem": ("page#{p} leaves the pool: unmapped, back to the page allocator", "flight"),
        "put_page": ("page#{p} freed", "muted"),
    }

    def _event(self, pool: PoolRecord, per: int, frag: int, width: int) -> Text:
        """One line: what the current call did to the pool (lit), else the call before (dim), else nothing."""
        cur = self.cursor()
        for touch, lit in ((cur.now, True), (cur.before, False)):
            if touch is None:
                continue
            pages = [m for m in touch.moves if m.machine == "pp_page"]
            secret = False
            frags = [m for m in touch.moves if m.machine == "pp_frag" and m.dst == "returned"]
            if pages:
                # the page move named by the call itself (page_pool_dma_map: mapped fresh), else the last one
                m = next((x for x in pages if x.edge == touch.call), pages[-1])
                words, style = self.EVENTS.get(m.edge, (f"page#{{p}}: {m.src} → {m.dst}", "muted"))
                secret = m.edge in self.st.hidden_counts or touch.call in self.st.hidden_counts
                if secret:      # the call's own name says which way the page came back
                    words, style = "page#{p} comes back to the pool (which way: answer first)", "recycled"
                text = words.format(p=m.obj.split("#")[-1])
            elif frags:
                text, style = f"{frags[0].obj} returned: its page's pp_ref_count drops by one", "recycled"
            else:
                continue
            line = Text().append("▶ " if lit else "▷ ", self._s("now" if lit else "muted"))
            call = "" if secret else f"{touch.call}: "
            said = call if lit else f"a call ago, {call}"
            if line.cell_len + len(said) + len(text) > width:      # the call's name gives way (the status says it)
                said = "" if lit else "a call ago: "
            for cut in (" (", ": "):                                # then the gloss, then the words go short
                at = text.find(cut)
                if line.cell_len + len(said) + len(text) > width and at > len(text.split()[0]):
                    text = text[:at]
            if line.cell_len + len(said) + len(text) > width:
                text = text.replace(" from the ptr_ring into the alloc cache", ": ptr_ring → alloc cache")
            line.append(said, self._s("muted"))
            line.append(text, self._s(style if lit else "muted"))
            return line
        return Text().append("▷ this call does not touch the pool", self._s("muted"))

    @property
    def _which_way_kept(self) -> bool:
        """A question still ahead asks which way pages come back into the pool."""
        return bool(self.st.hidden_counts & RECYCLE_CALLS)

    def _glyph(self, state: str) -> tuple[str, str]:
        """A page state's letter and style (A and R both P while which way pages come back is kept back)."""
        if self._which_way_kept and state in ("alloc-cache", "ptr_ring"):
            return IN_POOL
        return STATES.get(state, ("?", "muted"))

    def _census(self, pool: PoolRecord) -> Text:
        """How many pages the pool has and in which state; after page_pool_destroy, what is left."""
        n = len(pool.pages)
        if not n:
            return Text("pool destroyed, every page released" if pool.destroyed else "no pages yet")
        counts = Counter(self._glyph(p.state)[0] for p in pool.pages)
        head = f"{n} page{'s' if n != 1 else ''}"
        if pool.destroyed:
            head = f"pool destroyed, {head} still out"
        return Text(f"{head}: " + " ".join(f"{k} {counts[k]}" for k in "FCARPM" if counts[k]))

    def _page_cell(self, page: PageRecord, per: int, carved: int | None = None) -> Text:
        """State letter, then one cell per fragment (■ out, · back, □ not carved yet)."""
        glyph, style = self._glyph(page.state)
        out = page.outstanding
        cell = Text().append(glyph, self._s(style))
        if per > MAX_CELLS:
            return cell.append(f"{out:<2}", self._s("out"))
        carved = per if carved is None else carved
        back = max(0, carved - out)
        return (cell.append("■" * min(out, per), self._s("out")).append("·" * back, self._s("muted"))
                .append("□" * max(0, per - out - back), self._s("muted")))

    def _cells(self, pool: PoolRecord, per: int, width: int, rows: int) -> list[Text]:
        cell_w = 1 + (per if per <= MAX_CELLS else 2) + 1
        cols = max(1, width // cell_w)
        pages = list(pool.pages)
        carving = pool.frag_page.id if pool.frag_page is not None else None
        room = cols * rows
        if len(pages) > room:                      # keep the last row for "… N more"
            room = max(0, room - cols)
        cur = self.cursor()
        now = cur.now.pages if cur.now is not None else frozenset()
        was = cur.before.pages if cur.before is not None else frozenset()
        shown = pages[:room]
        # the row of the page the current call touched is always among those shown (in the last row)
        first = next((i for i, p in enumerate(pages) if p.id in now), None)
        if first is not None and first >= room and room >= cols:
            shown = pages[:room - cols] + pages[first - first % cols:first - first % cols + cols]
        lit = set()
        out: list[Text] = []
        for r in range(0, len(shown), cols):
            line = Text()
            for page in shown[r:r + cols]:
                cell = self._page_cell(page, per)
                if page.id == carving:
                    cell.stylize(CURRENT)
                if page.id in now:
                    cell.stylize(self._s("now"))
                    lit.add(("page", page.id))
                elif page.id in was:
                    cell.stylize(self._s("was"))
                line.append_text(cell).append(" ")
            out.append(line)
        self.lit = frozenset(lit)
        if not out and pages:
            # Not one row of pages fits: "… N more" would count pages never shown.
            return [Text().append("(too short to list the pages)", self._s("muted"))]
        if len(pages) > len(shown):
            ids = {p.id for p in shown}
            rest = Counter(self._glyph(p.state)[0] for p in pages if p.id not in ids)
            out.append(Text().append(f"… {len(pages) - len(shown)} more: "
                                     + " ".join(f"{k} {n}" for k, n in rest.most_common()), self._s("muted")))
        return out

    # ------------------------------------------------------------------ page flip
    def _flip(self, read: Reading, width: int, height: int) -> list[Text]:
        st = read.flip()
        ring = read.ring()
        assert ring is not None
        out = wrap_phrases([Text("page flip, no page_pool:"),
                            Text(f"{st.slice // 1024} KiB slices of {st.page_bytes // 1024} KiB pages")],
                           width, 2 if height >= 10 else 1)
        parts = [Text(f"{what} {n}") for n, what in ((st.flips, "flips"), (st.reuses, "reuses"), (st.lost, "lost"))]
        if "flip_stats" in self.st.hidden_counts:            # models.lesson.figures: what a refill did
            parts = [self._fitting(width, (("flips, reuses, lost: kept back until you answer", "muted"),),
                                   (("flips, reuses, lost: kept back", "muted"),))]
        for call in ("dma_map_page", "dma_unmap_page"):
            parts.append(Text(f"{call} {read.counts().get(call, 0)}"))
            if d := self.delta(call):
                parts[-1].append(f" +{d}", self._s("delta"))
        out += _wrap_dot(parts, width, 2 if height >= 10 else 1)
        if height >= 6:     # the legend of the counts below: an entry that does not fit is left out whole
            out += wrap_phrases([Text("page_ref_count:"), Text.assemble(("1", self._s("cache")), " the ring's only"),
                                 Text.assemble(("2+", self._s("flight")), " the stack holds a slice too")], width,
                                2 if height >= 12 else 1, sep="  ")
        cell_w = 21
        cols = max(1, (width + 1) // cell_w)
        rows = max(1, height - len(out))
        for r in range(rows):
            line = Text()
            for c in range(cols):
                i = (ring.tail + r * cols + c) % ring.size
                desc = read.descriptor(i)
                if desc.buf is None or desc.page is None:
                    line.append(f"{i:>4} (none)".ljust(cell_w))
                    continue
                refs = Text().append(str(desc.page_refs), self._s("cache" if desc.page_refs == 1 else "flight"))
                mark = "▸" if i == ring.tail else " "
                line.append(f"{mark}{i:>4} p#{desc.page:<5}+{desc.offset:<5}").append_text(refs).append("  ")
            out.append(line)
        return out


def _wrap_dot(parts: list[Text], width: int, max_lines: int) -> list[Text]:
    return wrap_phrases(parts, width, max_lines, sep=" · ")
