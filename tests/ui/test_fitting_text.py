"""Pilot tests: text that did not fit gives way by rule, never cut mid-word.

- the RX path strip at 80 columns wrote ath10k's delivery "workque" (a fixed cut of the name);
- at 160x50 the memory view cut "◀ this c…" and the NAPI view "ACK/seg so f…": their glosses
  go first (the legend says what ◀ is; "so far" is what ACK/seg already means);
- holding a question, the status line dropped a long variant name ("missing-unmap") to keep the
  hint whole: the hint's aside in brackets gives way first;
- at 80x24 the end screen's paper-vs-model panel kept its 60% cap inside the screen's own scroll:
  ↓ reached the end of the screen with the panel cut after its first fitted value.
"""

from __future__ import annotations

from test_app import app_for, press

from viz.app import settle
from viz.views.base import ModelView
from viz.widgets.pathstrip import PathStrip
from viz.widgets.status import StatusLine


def lines(view: ModelView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


async def test_the_path_strip_writes_a_delivery_whole_at_80_columns():
    app = app_for("ath10k-sdio-napi", 5)            # the `before` variant delivers from a workqueue
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        text = app.screen.query_one(PathStrip).render().plain
        assert "workqueue" in text and "…" not in text, text


async def test_glosses_give_way_before_a_view_cuts_a_word_at_160x50():
    app = app_for("bgmac-napi-skb-cache", 2)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        napi = [ln for ln in lines(app.screen.query_one("#v-napi", ModelView)) if "ACK/seg" in ln]
        assert napi and not any("…" in ln for ln in napi), napi
        memory = [ln for ln in lines(app.screen.query_one("#v-memory", ModelView)) if "◀" in ln]
        assert memory and not any("…" in ln for ln in memory), memory


async def test_holding_a_question_the_status_line_keeps_a_long_variant_name():
    app = app_for("dma-bugs", 8)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding()
        shown = screen.frame.shown
        assert len(shown) >= 12                     # "missing-unmap"
        text = screen.query_one(StatusLine).render().plain
        assert shown in text and "1–3 to answer, → to reveal" in text, text


async def test_the_ring_and_memory_headers_keep_every_figure_whole_at_160x50():
    # the ring's first line ended "· drop…" and the memory map's top edge "buffers above its li…"
    app = app_for("ath11k-36bit-dma-mask", 5)       # 4096 descriptors, four-digit head and tail
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        ring = lines(app.screen.query_one("#v-ring", ModelView))
        assert " D · head " in ring[0] and "…" not in ring[0], ring[:3]
        assert any(ln.rstrip().endswith(("drop 0", "dropped 0")) for ln in ring[:2]), ring[:3]
        memory = [ln for ln in lines(app.screen.query_one("#v-memory", ModelView)) if "▲ dma_mask" in ln]
        assert memory and not any("…" in ln for ln in memory), memory


async def test_a_short_pool_view_keeps_the_ptr_ring_count_on_one_line():
    # at 80x24 the two fill bars gave way whole and ath9k's ptr_ring (n/171) was gone
    app = app_for("ath9k-page-pool", 14)             # ifdown: the pool's pages back in cache and ring
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        pool = lines(app.screen.query_one("#v-pool", ModelView))
        assert any("ptr_ring" in ln and "/171" in ln for ln in pool), pool


async def test_a_page_being_carved_counts_its_fragments_not_the_bias():
    # ath9k's step 10 stops inside page_pool_alloc_frag(): the page has the bias (BIAS_MAX) set and is
    # not yet moved to "carving"; the view showed pp_ref_count 4611686018427387904
    app = app_for("ath9k-page-pool", 10)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        carving = [ln for ln in lines(app.screen.query_one("#v-pool", ModelView)) if ln.startswith("carving")]
        assert carving, "the step shows the page being carved"
        refs = int(carving[0].split()[-1])
        assert 0 <= refs <= 3, carving           # 8 KiB pages, three fragments a page
        pool = lines(app.screen.query_one("#v-pool", ModelView))
        assert not [ln for ln in pool if "…" in ln and "… " not in ln], pool     # "▶ page_pool_refill…: page#21 fro…"


async def test_no_view_of_the_grid_cuts_a_word_in_bgmac_at_160x50():
    # the GRO gauge's "64 KiB", the skb cache's legend and the page_ref_count legend were cut mid-word
    app = app_for("bgmac-napi-skb-cache", 10)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        for view in ("#v-napi", "#v-skbcache", "#v-ring", "#v-memory"):
            cut = [ln for ln in lines(app.screen.query_one(view, ModelView)) if "…" in ln and "… " not in ln]
            assert not cut, (view, cut)


async def test_the_end_screen_scrolls_to_every_line_of_paper_vs_model_at_80x24():
    from viz.screens.end import EndScreen
    from viz.widgets.paper_vs_model import HeadlinePanel
    app = app_for("ath11k-36bit-dma-mask", 11)      # two fits: the longest paper-vs-model text
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right")
        end = app.screen
        assert isinstance(end, EndScreen)
        await settle(app, pilot)
        panel = end.query_one(HeadlinePanel)
        assert panel.headline is not None
        # the screen scrolls, the panel inside it does not: it is as tall as what it holds
        assert panel.max_scroll_y == 0, (panel.size, panel.virtual_size)
        await press(pilot, *["down"] * 80)
        box = panel.parent
        assert box.scroll_y == box.max_scroll_y
        assert panel.region.bottom <= box.region.bottom        # its last line is on screen


async def test_the_counters_head_drops_units_before_it_cuts_a_figure_in_compare_at_80x24():
    # each side is 38 columns: "46,991 ns/frame" was cut to "46,991 n…"
    from viz.views.counters import CountersView
    app = app_for("bgmac-napi-skb-cache", 11)       # the payoff step shows the counters
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "c")
        await settle(app, pilot)
        heads = [lines(v)[0] for v in app.screen.query(CountersView) if v.display and v.size.width]
        assert len(heads) == 2, heads
        for head in heads:
            assert "Mbit/s" in head and "…" not in head and head.rstrip().endswith(" ns"), head
