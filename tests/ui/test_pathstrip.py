"""The RX path strip: every kernel call has a stage, skipped stages follow the scenario, one line at 80x24."""

from __future__ import annotations

from dataclasses import replace

import pytest
from records import from_sim
from shipped import shipped_lesson
from textual.app import App, ComposeResult

from models.calls import CALLS
from models.read import STAGE_OF, STAGES, PathFacts, stages
from models.records.path import skipped
from models.sim import Sim
from viz.app import make_app, settle
from viz.views.base import ViewState
from viz.widgets.narration import Narration
from viz.widgets.pathstrip import PathStrip

PCIE = PathFacts(bus="pcie", iommu="lazy", bounce=True, delivery="napi", polled=True, napi=True, gro=True,
                 page_pool=False, xdp="off", socket=True)


def test_every_kernel_call_has_a_stage():
    keys = {k for k, _, _ in STAGES}
    assert set(STAGE_OF) == set(CALLS)
    assert set(STAGE_OF.values()) <= keys


@pytest.mark.parametrize("change,gone", [
    ({}, set()),
    ({"iommu": "off"}, {"iommu"}),
    ({"iommu": "passthrough"}, {"iommu"}),
    ({"bounce": False}, {"swiotlb"}),
    ({"gro": False}, {"gro"}),
    ({"delivery": "tasklet", "polled": False, "napi": False, "gro": False}, {"napi", "gro"}),
    ({"delivery": "workqueue", "polled": False}, {"napi"}),
    ({"polled": False, "napi": False, "gro": False}, {"napi", "gro"}),
    ({"bus": "sdio", "iommu": "off", "bounce": False}, {"ring", "dma", "iommu", "swiotlb"}),
    ({"socket": False}, {"socket"}),
    ({"xdp": "tx"}, {"skb", "gro", "stack", "socket"}),
])
def test_skipped_stages_follow_the_scenario(change, gone):
    assert skipped(replace(PCIE, **change)) == gone


def test_replacements_say_what_runs_instead():
    by_key = {s.key: s for s in stages(replace(PCIE, delivery="tasklet", bus="usb", socket=False))}
    assert (by_key["napi"].label, by_key["napi"].status) == ("tasklet", "instead")
    assert (by_key["ring"].label, by_key["ring"].status) == ("USB bus", "instead")
    assert (by_key["socket"].label, by_key["socket"].status) == ("ip_forward", "instead")
    assert by_key["free"].label == "free" and [s.label for s in stages(replace(PCIE, page_pool=True))][-1] == "recycle"


@pytest.mark.parametrize("lesson,variant,gone", [
    ("rx-basics", "gro", {"iommu", "swiotlb"}),
    ("rx-basics", "no-gro", {"iommu", "swiotlb", "gro"}),
    ("ath9k-page-pool", "before", {"iommu", "swiotlb", "napi", "gro", "socket"}),
    ("ath11k-36bit-dma-mask", "before", {"iommu"}),
    ("ath11k-36bit-dma-mask", "after", {"iommu", "swiotlb"}),
    ("ath10k-sdio-napi", "after", {"ring", "dma", "iommu", "swiotlb"}),
    ("ath10k-sdio-napi", "usb-merged", {"ring", "dma", "iommu", "swiotlb", "napi", "gro"}),
    ("atlantic-page-pool", "before", set()),
])
def test_lessons_skip_what_their_scenario_says(lesson, variant, gone):
    sim = Sim(shipped_lesson(lesson).params_for(variant), trace=50)
    sim.run_frames(5)
    assert skipped(from_sim(sim).path) == gone


class StripHost(App):
    def __init__(self, st: ViewState) -> None:
        super().__init__()
        self.st = st

    def compose(self) -> ComposeResult:
        yield PathStrip()

    def on_mount(self) -> None:
        self.query_one(PathStrip).states = (self.st,)


@pytest.mark.parametrize("width", [80, 160])
async def test_one_line_lit_at_the_current_calls_stage(width):
    sim = Sim(shipped_lesson("ath9k-page-pool").params_for("before"), trace=50)
    sim.run_frames(5)
    st = ViewState(sim=sim, variant="before")
    app = StripHost(st)
    async with app.run_test(size=(width, 10)) as pilot:
        await pilot.pause()
        strip = app.query_one(PathStrip)
        assert strip.size.height == 1
        line = strip.render()
        assert line.cell_len <= width - 2 and "…" not in line.plain
        call = from_sim(sim).call.call
        lit = strip.get_component_rich_style("pathstrip--lit", partial=True)
        lit_text = [line.plain[s.start:s.end] for s in line.spans if s.style == lit]
        by_key = {s.key: s for s in stages(from_sim(sim).path)}
        stage = by_key[STAGE_OF[call]]
        assert lit_text == [stage.label if width == 160 else stage.short]
        assert "tasklet" in line.plain                                  # instead of a NAPI poll
        assert ("no GRO" in line.plain) == (width == 160)


async def test_in_the_player_at_80x24_one_line_and_the_narration_keeps_its_rows():
    app = make_app(lesson="rx-basics", step=3)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        strip = app.screen.query_one(PathStrip)
        narration = app.screen.query_one(Narration)
        assert strip.size.height == 1 and strip.region.y == 21       # over the status line and the footer
        rows = narration.size.height
        strip.display = False
        await settle(app, pilot)
        assert narration.size.height == rows                          # the strip takes its row from the views


async def test_compare_on_a_tall_screen_shows_both_paths():
    app = make_app(lesson="ath9k-page-pool", step=5, compare=True)
    app.animation_level = "none"
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        strip = app.screen.query_one(PathStrip)
        assert strip.size.height == 2
        lines = strip.render().plain.split("\n")
        assert lines[0].startswith("before") and lines[1].startswith("after")
        assert lines[1].endswith("recycle") and lines[0].endswith("free")


async def test_a_call_of_a_skipped_stage_is_lit_and_still_struck_at_80_columns():
    """dma-bugs step 5 stops at napi_gro_receive in a variant with GRO off: at 160 columns the strip
    lights "no GRO"; at 80, where "no" does not fit, the lit "GRO" stays struck through (lit alone it
    said the variant runs GRO)."""
    app = make_app(lesson="dma-bugs", step=5)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        strip = app.screen.query_one(PathStrip)
        st = strip.states[0]
        call, facts = st.read.path()
        assert call is not None and STAGE_OF[call.call] == "gro" and "gro" in skipped(facts)
        line = strip.render()
        gro = [s.style for s in line.spans if line.plain[s.start:s.end] == "GRO"]
        assert len(gro) == 1 and gro[0].strike and gro[0].reverse        # struck, and lit
