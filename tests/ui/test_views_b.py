"""The NAPI/GRO, bus, counters, event log and code views, each hosted alone.

Every view is given a real Sim (a lesson's parameters, traced) and the
assertions compare its screen with that Sim: the numbers come from the
model, not from constants written here.
"""

from __future__ import annotations

import functools
import re

import pytest
from hosting import Host
from shipped import shipped_lesson

from models.calls import CALLS, CATEGORIES
from models.replay import LessonRun
from models.sim import Sim
from viz.views import VIEW_CLASSES
from viz.views.base import ViewState
from viz.views.bus import BusView
from viz.views.code import CodeView
from viz.views.counters import CountersView, rank_counters, sparkline
from viz.views.log import STAMP_W, LogView, stamp
from viz.views.napi import NapiView

SIZES = [(80, 24), (160, 50), (20, 5)]


@functools.cache
def _run(lesson_id: str, variant: str, frames: int, step: int, faults: tuple[str, ...]) -> tuple[Sim, dict]:
    sim = Sim(shipped_lesson(lesson_id).params_for(variant), trace=400, faults=faults)
    sim.run_frames(frames - step)
    prev = dict(sim.rec.counts)
    sim.run_frames(step)
    return sim, prev


def state(lesson_id: str, variant: str, frames: int = 200, step: int = 40, code_line: int | None = None,
          faults: tuple[str, ...] = ()) -> ViewState:
    """The model after `frames` frames; prev_counts are the counters `step` frames earlier."""
    sim, prev = _run(lesson_id, variant, frames, step, faults)
    return ViewState(sim=sim, variant=variant, lesson=shipped_lesson(lesson_id), step=1,
                     code_line=code_line, prev_counts=prev)


async def render(view_cls, st: ViewState, size=(80, 24), theme: str | None = None, **attrs) -> str:
    """The view's lines as text (one string, a line per row)."""
    app = Host(view_cls)
    async with app.run_test(size=size) as pilot:
        if theme:
            app.theme = theme
        view = app.query_one(view_cls)
        for name, value in attrs.items():
            setattr(view, name, value)
        view.state = st
        await pilot.pause()
        text = "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))
        assert app.export_screenshot()
    return text


def delta(st: ViewState, name: str) -> int:
    return st.sim.rec.counts[name] - st.prev_counts[name]


def test_views_are_registered_under_their_keys():
    for cls in (NapiView, BusView, CountersView, LogView, CodeView):
        assert VIEW_CLASSES[cls.KEY] is cls


# ---------------------------------------------------------------------- NAPI / GRO
async def test_napi_budget_chart_and_gro_hold():
    st = state("ath10k-sdio-napi", "after")
    sim = st.sim
    text = await render(NapiView, st)
    assert f"NAPI {sim.napi_state}" in text
    assert f"budget {sim.params['budget']}" in text
    held = sim.stack.gro.held
    assert held is not None and f"holds {held.segs} segs {held.len:,} B" in text
    assert f"napi_gro_receive +{delta(st, 'napi_gro_receive')} ({sim.rec.counts['napi_gro_receive']:,})" in text
    assert f"{sim.metrics()['segments_per_skb']:.1f} segments per skb" in text
    work = list(sim.poll_work)
    assert f"over {len(work)} polls" in text


async def test_napi_says_1_poll_in_the_singular():
    st = state("ath10k-sdio-napi", "after", 3, 1)
    assert len(st.sim.poll_work) == 1
    text = await render(NapiView, st, (80, 30))
    assert "over 1 poll;" in text and "1 polls" not in text


async def test_napi_marks_polls_that_used_the_whole_budget():
    st = state("atlantic-page-pool", "before")
    text = await render(NapiView, st, (160, 50))
    hits = sum(1 for w in st.sim.poll_work if w >= st.sim.params["budget"])
    assert hits and "▲" in text and f"{hits} used it all" in text


async def test_napi_without_a_poll_says_frames_go_up_from_process_context():
    st = state("ath10k-sdio-napi", "before")
    text = await render(NapiView, st)
    assert "not polled" in text and "ieee80211_rx_ni" in text and "process context" in text
    assert f"tcp_send_ack +{delta(st, 'tcp_send_ack')}" in text
    assert f"{st.sim.metrics()['acks_per_segment']:.2f} ACK/seg" in text


async def test_napi_that_nothing_polls_says_the_frames_wait_not_that_they_go_up():
    # ath10k USB as merged: RX indications queued for ath10k_sdio_napi_poll(), a NAPI never added
    st = state("ath10k-sdio-napi", "usb-merged")
    queued = len(st.sim.rx_ind)
    for size in ((80, 24), (160, 50)):
        text = " ".join((await render(NapiView, st, size)).split())
        assert "delivered one by one" not in text and "ieee80211_rx_ni" not in text
        assert "netif_napi_add was never called" in text and f"queued for the poll {queued:,} skb" in text
        assert "netif_receive_skb +0 (0)" in text
    assert queued > 0


async def test_napi_names_the_delivery_and_the_transport_the_model_ran():
    # ath9k: a tasklet hands each frame to ieee80211_rx() in softirq and the frames are routed (UDP)
    st = state("ath9k-page-pool", "after")
    text = " ".join((await render(NapiView, st, (160, 50))).split())
    assert "from a tasklet, in softirq (ieee80211_rx)" in text and "ieee80211_rx_ni" not in text
    assert "tasklet's own budget of 512" in text
    assert f"routed ip_forward +{delta(st, 'ip_forward')}" in text and "tcp_send_ack" not in text
    # dma-bugs: UDP to a local socket, taken by the reader with udp_recvmsg(); no TCP in sight
    st = state("dma-bugs", "clean")
    text = await render(NapiView, st, (160, 50))
    assert "UDP udp_recvmsg" in text and "tcp_send_ack" not in text and "ACK/seg" not in text


# ---------------------------------------------------------------------- bus
async def test_bus_timeline_has_bundles_and_ack_writes():
    st = state("ath10k-sdio-napi", "before")
    text = await render(BusView, st)
    lines = text.splitlines()
    strip = lines[1]
    assert "R" in strip and "t" in strip and set(strip) <= {"R", "t", "·"}
    read = "ath10k_sdio_mbox_rx_fetch_bundle"
    assert f"bundles read {st.sim.rec.counts[read]:,} +{delta(st, read)}" in text
    assert f"ACK writes {st.sim.rec.counts['ath10k_sdio_write']:,}" in text
    assert f"fixed cost {st.sim.platform.sdio_xfer_ns / 1000:.1f} µs per transfer" in text


async def test_bus_scale_is_the_same_for_both_variants():
    a = (await render(BusView, state("ath10k-sdio-napi", "before"))).splitlines()[0]
    b = (await render(BusView, state("ath10k-sdio-napi", "after"))).splitlines()[0]
    assert a == b and "ms wide" in a


async def _bus_title(st: ViewState) -> tuple[str, str]:
    app = Host(BusView)
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(BusView)
        view.state = st
        await pilot.pause()
        text = "\n".join(view.render_line(y).text for y in range(view.size.height))
        return str(view.border_title), text


@pytest.mark.parametrize("variant", ["after", "usb-hunk"])
async def test_bus_title_and_body_name_the_variants_bus(variant):
    st = state("ath10k-sdio-napi", variant, 100, 10)
    name = {"sdio": "SDIO", "usb": "USB"}[st.sim.bus]
    title, text = await _bus_title(st)
    assert title == f"{name} bus" and text.startswith(f"{name} bus")
    assert ("CMD53" in text) == (st.sim.bus == "sdio")


async def test_bus_on_pcie_has_no_host_transfers():
    st = state("rx-basics", "gro")
    text = await render(BusView, st)
    assert "PCIe: DMA, no host-driven bus transfers" in text
    assert f"RX DMA writes (rx_frame) {st.sim.rec.counts['rx_frame']:,} +{delta(st, 'rx_frame')}" in text


# ---------------------------------------------------------------------- counters
async def test_counters_show_deltas_bars_and_headline():
    st = state("bgmac-napi-skb-cache", "after", 300, 100)
    text = await render(CountersView, st, (160, 50))
    m = st.sim.metrics()
    assert f"{m['throughput_mbps']:,.1f} Mbit/s" in text and f"CPU {m['cpu_percent']:.1f}%" in text
    row = next(ln for ln in text.splitlines() if ln.lstrip().startswith("napi_build_skb "))
    assert row.split()[:3] == ["napi_build_skb", f"{st.sim.rec.counts['napi_build_skb']:,}",
                               f"+{delta(st, 'napi_build_skb')}"]
    for cat, ns in m["cpu_ns_per_frame_by_category"].items():
        if ns >= 0.5:
            assert any(f" {cat} " in f" {ln} " and f"{ns:,.0f} ns" in ln for ln in text.splitlines())


def _bars(text: str) -> list[tuple[str, float]]:
    """(category, ns) of each bar line, top down."""
    out = []
    for ln in text.splitlines():
        m = re.search(r"(\w+) [ █▏▎▍▌▋▊▉]* ([\d,]+) ns +\d+%$", ln)      # each bar says its share
        if m and m.group(1) in CATEGORIES:
            out.append((m.group(1), float(m.group(2).replace(",", ""))))
    return out


@pytest.mark.parametrize("size", [(60, 16), (100, 12), (160, 50)])
async def test_counters_bars_are_largest_first_and_account_for_every_category(size):
    st = state("bgmac-napi-skb-cache", "after", 300, 100)
    cats = {c: ns for c, ns in st.sim.metrics()["cpu_ns_per_frame_by_category"].items() if ns >= 0.5}
    text = await render(CountersView, st, size)
    bars = _bars(text)
    assert bars[0][0] == max(cats, key=cats.get)                # "stack", the biggest, always shows
    assert [ns for _, ns in bars] == sorted((ns for _, ns in bars), reverse=True)
    hidden = [c for c in cats if c not in dict(bars)]
    more = re.search(r"… (\d+) more · ([\d,]+) ns", text)
    if hidden:
        assert more and int(more.group(1)) == len(hidden)
        assert more.group(2) == f"{sum(cats[c] for c in hidden):,.0f}"
    else:
        assert more is None
    assert abs(sum(ns for _, ns in bars) + sum(cats[c] for c in hidden) - sum(cats.values())) < len(cats)


async def test_counters_rank_by_what_moved_this_step():
    st = state("bgmac-napi-skb-cache", "after", 300, 100)
    text = await render(CountersView, st, (60, 16))
    first = next(ln for ln in text.splitlines()[2:] if ln.strip()).split()[0]
    moved = {k: delta(st, k) for k in st.sim.rec.counts if k in st.prev_counts}
    assert moved[first] == max(moved.values())


async def test_counters_compare_rank_by_difference_on_the_same_rows():
    before, after = state("ath11k-36bit-dma-mask", "before"), state("ath11k-36bit-dma-mask", "after")
    before.other, after.other = after, before
    left = (await render(CountersView, before, (40, 12))).splitlines()
    right = (await render(CountersView, after, (40, 12))).splitlines()
    names = set(CALLS) | {"swiotlb_bounce_bytes"}
    rows_l = {ln.split()[0]: i for i, ln in enumerate(left) if ln.split() and ln.split()[0].rstrip("…") in names}
    rows_r = {ln.split()[0]: i for i, ln in enumerate(right) if ln.split() and ln.split()[0].rstrip("…") in names}
    assert rows_l and rows_l == rows_r                          # same counter, same row in both panels
    assert "swiotlb_bounce" in rows_l                           # what the lesson is about, not hidden
    assert right[rows_r["swiotlb_bounce"]].split()[1] == "0"


def test_bytes_bounced_rank_right_after_the_bounces_not_above_every_call():
    # ranked by its own delta, 2,048 bytes a bounce put swiotlb_bounce_bytes first wherever a step bounced
    mine = {"swiotlb_bounce": (3, 3), "swiotlb_bounce_bytes": (6144, 6144), "dma_map_single": (40, 40),
            "napi_gro_receive": (1, 1)}
    assert rank_counters(mine, None) == ["dma_map_single", "swiotlb_bounce", "swiotlb_bounce_bytes",
                                         "napi_gro_receive"]
    theirs = {"swiotlb_bounce": (0, 0), "swiotlb_bounce_bytes": (0, 0), "dma_map_single": (40, 40),
              "napi_gro_receive": (30, 30)}
    ranked = rank_counters(mine, theirs)
    assert ranked.index("swiotlb_bounce_bytes") == ranked.index("swiotlb_bounce") + 1


def test_sparkline_scales_to_its_maximum():
    assert sparkline([0, 1, 2, 4], 10) == "▁▃▅█"
    assert sparkline([5, 5], 1) == "█"
    assert sparkline([], 5) == ""


async def test_counters_after_back_and_forward_draw_the_same_screen():
    lesson = shipped_lesson("rx-basics")
    run = LessonRun(lesson, trace=400)
    counts = {0: dict(run.sims["gro"].rec.counts)}
    app = Host(CountersView)
    seen = {}
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(CountersView)

        async def show(k: int) -> str:
            run.goto(k)
            counts.setdefault(k, dict(run.sims["gro"].rec.counts))
            view.state = ViewState(sim=run.sims["gro"], variant="gro", lesson=lesson, step=k,
                                   prev_counts=counts.get(k - 1, {}))
            await pilot.pause()
            return "\n".join(view.render_line(y).text for y in range(view.size.height))

        for k in range(4):
            seen[k] = await show(k)
        assert await show(2) != seen[3]
        assert await show(3) == seen[3]
    spark = next(ln for ln in seen[3].splitlines() if ln.startswith("Mbit/s"))
    assert len(spark.split()[1]) == 4 and "4 steps" in spark


# ---------------------------------------------------------------------- event log
async def test_log_shows_the_newest_calls_at_the_bottom():
    st = state("rx-basics", "gro")
    text = await render(LogView, st)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    last = st.sim.rec.recent(1)[0]
    assert last.call in lines[-2] and stamp(last.t_ns) in lines[-2]
    assert "SI softirq" in text or "HI hardirq" in text
    assert lines[-1].startswith("HI hardirq")          # the legend


def test_log_stamps_are_short_and_one_width():
    assert stamp(5_500) == "   5.500 µs"
    assert stamp(820_751_055) == "820.7511 ms"
    assert stamp(53_034_681_144) == "53.034681 s"
    assert {len(stamp(t)) for t in (0, 999_999, 1_000_000, 999_999_999, 1e9, 99e9, 500e9)} == {STAMP_W}


async def test_log_marks_the_set_up_calls_instead_of_timing_them():
    # The ring fill runs before the clock starts: its own CPU time would read as the clock running backwards.
    st = state("rx-basics", "gro", 1, 1)
    text = await render(LogView, st, (100, 40))
    rows = [ln for ln in text.splitlines() if "PR process" in ln or "DV device" in ln or "HI hardirq" in ln][:-1]
    setup = [ln for ln in rows if ln.lstrip().startswith("set-up PR process")]
    assert setup and rows[:len(setup)] == setup               # the set-up first, all of it marked
    assert all(stamp(0) not in ln for ln in setup)
    assert rows[len(setup)].startswith(stamp(0))             # then the clock, from t=0


async def test_log_of_a_long_run_shows_readable_times():
    st = state("ath10k-sdio-napi", "after")
    text = await render(LogView, st)
    assert st.sim.rec.recent(1)[0].t_ns > 1e6
    assert " ms " in text and not re.search(r"\d{5,}\.\d+", text)


async def test_log_reports_a_violation_with_its_message():
    st = state("rx-basics", "gro", 20, 1, faults=("no-sync-for-cpu",))
    assert st.sim.rec.violations
    v = st.sim.rec.violations[-1]
    text = await render(LogView, st, (160, 50))
    assert "✖ VIOLATION" in text and v.name in text


# ---------------------------------------------------------------------- code
async def test_code_lights_the_step_line():
    lesson = shipped_lesson("ath9k-page-pool")
    code = lesson.pseudocode["before"]
    st = state("ath9k-page-pool", "before", code_line=3)
    text = await render(CodeView, st)
    lit = next(ln for ln in text.splitlines() if ln.startswith("▶"))
    assert lit.split()[1] == "3" and code[2].strip().split("(")[0] in lit
    assert sum(bool(re.match(r"▶ +\d", ln)) for ln in text.splitlines()) == 1
    assert "▶ the line this step is about" in text       # the legend


async def test_code_keeps_the_lit_line_visible_in_a_small_view():
    st = state("ath9k-page-pool", "after", code_line=12)
    text = await render(CodeView, st, (40, 8))
    assert any(ln.startswith("▶ 12") for ln in text.splitlines())


async def test_code_without_pseudocode_says_so():
    st = state("rx-basics", "gro")
    st = ViewState(sim=st.sim, variant="nonesuch", lesson=st.lesson)
    text = await render(CodeView, st)
    assert "no pseudo-code for the 'nonesuch' variant" in text


# ---------------------------------------------------------------------- every size, every kind of model
CASES = [("ath9k-page-pool", "before", 200), ("atlantic-page-pool", "after", 200),
         ("ath10k-sdio-napi", "after", 200), ("ath10k-sdio-napi", "usb-hunk", 100),
         ("rx-basics", "gro", 0)]


@pytest.mark.parametrize("view_cls", [NapiView, BusView, CountersView, LogView, CodeView])
@pytest.mark.parametrize("size", SIZES)
async def test_every_size_draws_without_error(view_cls, size):
    # One app per view and size with each kind of model handed down in turn, as the player does:
    # starting an app costs more than the drawing under test.
    app = Host(view_cls)
    async with app.run_test(size=size) as pilot:
        view = app.query_one(view_cls)
        for lesson_id, variant, frames in CASES:
            view.state = state(lesson_id, variant, frames, min(frames, 10), code_line=2)
            await pilot.pause()
            text = "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))
            assert text.strip(), (lesson_id, variant)
            assert app.export_screenshot()


@pytest.mark.parametrize("view_cls", [NapiView, BusView, CountersView, LogView, CodeView])
async def test_no_state_and_another_theme(view_cls):
    app = Host(view_cls)
    async with app.run_test(size=(60, 12)) as pilot:
        app.theme = "textual-light"
        await pilot.pause()
        view = app.query_one(view_cls)
        assert "no model yet" in view.render_line(0).text
        view.state = state("ath10k-sdio-napi", "after")
        await pilot.pause()
        assert view.render_line(0).text.strip()
