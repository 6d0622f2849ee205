"""The player's teaching keys: v, the sandbox, watched counters, the payoff, the end, paging, errors."""

from __future__ import annotations

import pytest
from shipped import shipped_lesson

from viz.app import make_app, settle
from viz.screens.end import EndScreen, summary
from viz.screens.player import PlayerScreen
from viz.screens.sandbox import SandboxScreen, check
from viz.views.counters import CountersView
from viz.widgets import paper_vs_model as headline
from viz.widgets.compare import DiffLine
from viz.widgets.deck import ViewDeck
from viz.widgets.paper_vs_model import HeadlinePanel
from viz.widgets.prose import Prose
from viz.widgets.sandbox_bar import SandboxBar
from viz.widgets.status import StatusLine


def app_for(lesson, step=0, compare=False):
    app = make_app(lesson=lesson, step=step, compare=compare)
    app.animation_level = "none"
    return app


async def press(pilot, *keys):
    for key in keys:
        await pilot.press(key)
        await settle(pilot.app, pilot)


def shown(app) -> str:
    return app.screen.query_one(ViewDeck)._state.variant


@pytest.mark.slow
async def test_v_cycles_every_variant_and_the_next_step_brings_its_own():
    app = app_for("atlantic-page-pool", step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        names = list(app.screen.lesson.variants)
        seen = [shown(app)]
        for _ in names:
            await press(pilot, "v")
            seen.append(shown(app))
        assert seen[:len(names)] == names and seen[-1] == names[0]
        status = app.screen.query_one(StatusLine).render().plain
        assert names[0] in status
        await press(pilot, "v", "right")
        assert shown(app) == app.screen.lesson.steps[1].show


@pytest.mark.slow
async def test_the_counters_view_pins_and_marks_what_the_step_watches():
    app = app_for("rx-basics", step=11)            # watch: napi_gro_receive, netif_receive_skb, tcp_send_ack, ...
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#v-counters", CountersView)
        text = [s.text for s in view._build(90, 30)]
        body = "\n".join(text)
        for name in ("napi_gro_receive", "netif_receive_skb", "tcp_send_ack", "segments_per_skb", "acks_per_segment"):
            assert "▸" + name in body or "▸" + name[:10] in body, name
        assert "%" in body                                          # every bar says its share
        first = next(line for line in text if "napi_gro_recei" in line)
        assert text.index(first) <= 4                               # pinned at the top


@pytest.mark.slow
async def test_compare_summary_starts_with_the_watched_counters():
    app = app_for("rx-basics", step=11, compare=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        line = app.screen.query_one(DiffLine).render().plain
        assert line.startswith("▸napi_gro_receive: gro "), line
        # the step's watched counters in their order, as many as the two lines hold (tcp_send_ack,
        # the third, is longer than tcp_ack was and no longer fits at 160 columns)
        shown = [part.split(":")[0].lstrip("▸") for part in line.replace("\n", " · ").split(" · ")]
        assert shown[:2] == ["napi_gro_receive", "netif_receive_skb"], line


@pytest.mark.slow          # ath11k to step 9, both variants
async def test_compare_bars_put_the_change_on_its_own_scale():
    app = app_for("ath11k-36bit-dma-mask", step=9, compare=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#a-counters", CountersView)
        lines = [s.text for s in view._build(60, 40)]      # narrow: the bars under the table
        bars = [line for line in lines if " ns " in line and "%" in line and "more" not in line]
        assert bars[0].startswith("swiotlb"), bars            # what differs most comes first
        full = bars[0].count("█")
        assert full >= 10                                      # the change fills the scale
        assert any("same in both" in line for line in bars) or len(bars) <= 2


@pytest.mark.slow          # ath11k replayed twice from its start (the sandbox reruns the lesson)
async def test_sandbox_validates_reruns_and_shows_what_moved():
    app = app_for("ath11k-36bit-dma-mask", step=5)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        lesson_frame = screen.frame
        await press(pilot, "s")
        assert isinstance(app.screen, SandboxScreen)
        await pilot.press(*"ram=lots", "enter")
        await settle(app, pilot)
        error = str(app.screen.query_one("#sb-error").render())
        assert "expected a size" in error and "\n" not in error
        await pilot.press(*["backspace"] * 8, *"ram=2GiB", "enter")
        await settle(app, pilot)
        assert app.screen.sets == {"ram": 2 << 30}
        await press(pilot, "enter")                    # an empty line runs
        assert isinstance(app.screen, PlayerScreen) and screen.frame.step == 5
        assert screen.frame.sims["before"].params["ram"] == 2 << 30
        assert screen.frame is not lesson_frame
        bar = screen.query_one(SandboxBar)
        text = bar.render().plain
        assert bar.display and "sandbox ram=2GiB" in text and "swiotlb_bounce" in text and "→ 0" in text
        await press(pilot, "s", "ctrl+x")              # back to the lesson's own run
        assert not screen.sets and screen.frame.sims["before"].params["ram"] == 8 << 30
        assert not screen.query_one(SandboxBar).display


def test_sandbox_checks_with_the_projects_parsers():
    from shipped import shipped_lesson
    lesson = shipped_lesson("ath11k-36bit-dma-mask")
    assert check(lesson, {}, "dma_mask=99")[1].startswith("dma_mask=99: expected")
    assert "unknown parameter" in check(lesson, {}, "rams=2GiB")[1]
    assert check(lesson, {}, "iommu=lazy") == ({"iommu": "lazy"}, "")


async def test_narration_pages_with_the_arrow_keys_shown_in_the_footer():
    app = app_for("ath10k-sdio-napi", step=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        prose = app.screen.query_one("#n-say", Prose)
        assert prose.virtual_size.height > prose.size.height          # the text does not fit
        await press(pilot, "down")
        assert prose.scroll_offset.y == prose.size.height - 1          # one page, less a line of overlap
        await press(pilot, "up")
        assert prose.scroll_offset.y == 0
        footer = " ".join(b.binding.description for b in app.screen.active_bindings.values() if b.binding.show)
        assert "text" in footer and "variant" in footer and "sandbox" in footer


async def test_a_question_and_its_view_both_fit_at_80x24():
    app = app_for("rx-basics", step=5)                  # the GRO question, on the NAPI view
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        ask = app.screen.query_one("#ask")
        view = app.screen.query_one("#v-napi")
        assert ask.region.height >= 4 and ask.virtual_size.height <= ask.region.height + 1
        assert view.region.height >= 5 and view.region.bottom <= 22


@pytest.mark.parametrize("lesson,step", [("atlantic-page-pool", 4), ("ath11k-36bit-dma-mask", 1)])
async def test_a_short_memory_view_still_shows_the_swiotlb_slot_the_step_points_at(lesson, step):
    # Both steps land on a bounce and point the reader at the SWIOTLB slot, in the ZONE_DMA32 row at the
    # foot of the map: at 80x24 the map gives up its empty rows rather than that one.
    app = app_for(lesson, step=step)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#v-memory")
        assert view.region.height <= 10                    # short: the map does not fit whole
        shown = [view.render_line(y).text for y in range(view.size.height)]
        slot = [ln for ln in shown if "slot" in ln and "S SWIOTLB" in ln]
        assert slot and "this call" in slot[0], "\n".join(shown)


@pytest.mark.parametrize("lesson,step", [("ath11k-36bit-dma-mask", 7), ("ath9k-page-pool", 9)])
async def test_an_answered_question_leaves_its_view_rows_to_read_at_80x24(lesson, step):
    # The answer and its explanation take more rows than the question did: the machine strip gives
    # its rows up for as long as the panel shows, so the view the answer points at stays readable.
    app = app_for(lesson, step=step)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.holding()
        await press(pilot, str(screen.lesson.steps[step - 1].ask.answer + 1))
        assert not screen.holding()
        view = screen.query_one(f"#v-{screen.lesson.steps[step - 1].focus}")
        assert view.size.height >= 4, view.size
        assert not screen.query_one("#deck-strip").display


async def test_the_payoff_leaves_its_view_rows_to_read_at_80x24():
    # The headline takes the rows under the narration: the machine strip gives its rows up, so the
    # step's own view shows its figures rather than an empty frame.
    app = app_for("atlantic-page-pool", step=shipped_lesson("atlantic-page-pool").payoff_step)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.query_one("#headline").display
        view = screen.query_one(f"#v-{screen.lesson.steps[screen.lesson.payoff_step - 1].focus}")
        assert view.size.height >= 4, view.size
        assert "Mbit/s" in view.render_line(0).text
        assert not screen.query_one("#deck-strip").display

@pytest.mark.slow          # ath11k to its last step and the end screen
async def test_the_payoff_step_shows_the_headline_and_the_end_screen_sums_up(monkeypatch):
    calls = []

    import models.runner

    def fake(lesson, variants=None, progress=None, **kw):
        calls.append(lesson.id)
        if progress:
            progress(1, 2)
        return {"headline": {"metric": "cpu_percent", "unit": "%", "compare": "absolute",
                             "paper": {"before": 40.5, "after": 18.9},
                "model": {"before": 40.52, "after": 18.35}, "before_kind": "fitted", "after_kind": "fitted",
                "before_error_pct": 0.05, "after_error_pct": -2.9, "fitted": [], "within": True,
                "tolerance": "x", "changed": []}}
    monkeypatch.setattr(models.runner, "run_lesson", fake)
    monkeypatch.setattr(headline, "HEADLINES", {})
    app = app_for("ath11k-36bit-dma-mask", step=app_step("ath11k-36bit-dma-mask"))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        panel = app.screen.query_one(HeadlinePanel)
        assert panel.display and panel.headline is not None
        table = "\n".join(str(w.render()) for w in panel.query("Static"))
        assert "Paper vs model" in table
        await press(pilot, "right")
        assert not app.screen.query_one(HeadlinePanel).display      # only on the payoff step
        await press(pilot, "end", "right")
        assert isinstance(app.screen, EndScreen)
        assert app.screen.query_one("#end-headline", HeadlinePanel).headline is not None
        nxt = str(app.screen.query_one("#end-next").render())
        assert nxt.startswith("Next: ")
        await press(pilot, "enter")
        assert isinstance(app.screen, PlayerScreen) and app.screen.lesson.id != "ath11k-36bit-dma-mask"
        # Opened at the payoff and jumped to the end: the steps before were never shown, so the
        # lesson is not finished (tests/ui/test_progress.py goes through every step).
        assert "ath11k-36bit-dma-mask" not in app.course.finished
    assert calls == ["ath11k-36bit-dma-mask"]                       # computed once, then cached


@pytest.mark.slow          # ath11k to the step before its payoff
@pytest.mark.ahead
async def test_the_payoff_is_computed_while_the_reader_reads_the_step_before_it(monkeypatch):
    # The headline run takes seconds: done ahead, the payoff step opens with the figures on it.
    import models.runner
    calls = []

    def fake(lesson, variants=None, progress=None, **kw):
        calls.append(lesson.id)
        return {"headline": {"metric": "cpu_percent", "unit": "%", "compare": "absolute",
                             "paper": {"before": 40.5, "after": 18.9},
                             "model": {"before": 40.52, "after": 18.35}, "before_kind": "fitted",
                             "after_kind": "predicted", "before_error_pct": 0.05, "after_error_pct": -2.9,
                             "fitted": [], "within": True, "tolerance": "x", "changed": []}}
    monkeypatch.setattr(models.runner, "run_lesson", fake)
    monkeypatch.setattr(headline, "HEADLINES", {})
    lesson_id = "ath11k-36bit-dma-mask"
    app = app_for(lesson_id, step=app_step(lesson_id) - 1)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(app, pilot)
        assert calls == [lesson_id]                          # the step before: run already
        assert not app.screen.query_one(HeadlinePanel).display
        await pilot.press("right")
        await pilot.pause()                                  # no worker to wait for
        panel = app.screen.query_one(HeadlinePanel)
        assert panel.display and panel.headline is not None
    assert calls == [lesson_id]


async def test_a_headline_panel_gone_from_the_screen_does_not_break_the_run():
    # An End screen closed while the headline runs takes its panel with it: the run must go on
    # and the panels still shown must get the figures.
    app = app_for("rx-basics")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        screen = app.screen
        gone = HeadlinePanel(screen.lesson)                  # never mounted, as after Esc
        shown = screen.query_one(HeadlinePanel)
        screen._headline_panels += [gone, shown]
        screen._headline_progress(0.5)
        screen._headline_done(None)
        await pilot.pause()
        assert screen._headline_panels == [] and screen._headline_share is None
        assert "publishes no figure" in str(shown.query_one("#hl-title").render())


def app_step(lesson_id: str) -> int:
    from shipped import shipped_lesson
    return shipped_lesson(lesson_id).payoff_step


def test_end_summary_reads_the_watched_names_of_both_variants():
    from shipped import shipped_lesson

    from viz.session import Session, end_pair
    lesson = shipped_lesson("rx-basics")
    session = Session(lesson)
    frame = session.goto(len(lesson.steps))
    session.fill(len(lesson.steps), end_pair(lesson))       # a jump runs the variant it shows; the player
                                                            # asks for the pair first (action_end)
    names, rows = summary(lesson, frame)
    assert names == ("gro", "no-gro")
    got = {name: (a, b) for name, a, b in rows}
    assert "tcp_send_ack" in got and got["tcp_send_ack"][0] != got["tcp_send_ack"][1]


@pytest.mark.ahead
async def test_a_model_error_is_one_line_with_the_lesson_and_step_and_the_app_stays_usable(monkeypatch):
    class IllegalTransition(RuntimeError):     # any exception the model might raise
        pass
    from models.replay import LessonRun

    original = LessonRun._apply

    def broken(self, index):
        if index == 2:
            raise IllegalTransition("rx_buffer", "buf#7", "filled", "dma_map_single")
        return original(self, index)
    monkeypatch.setattr(LessonRun, "_apply", broken)
    app = app_for("rx-basics", step=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right")
        status = app.screen.query_one(StatusLine)
        text = status.render().plain
        assert "model error in rx-basics, step 3/14: IllegalTransition" in text and "\n" not in text
        assert not app.screen.waiting and not app.screen.moves.busy
        await press(pilot, "left")                                   # still usable
        assert app.screen.frame.step == 1 and status.error == ""


@pytest.mark.slow
async def test_progress_survives_the_app_and_the_lessons_screen_resumes_it():
    from viz.screens.home import HomeScreen
    app = app_for("rx-basics", step=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right", "2")                # step 4, answered right
    tomorrow = make_app()
    tomorrow.animation_level = "none"
    async with tomorrow.run_test(size=(80, 24)) as pilot:
        await settle(tomorrow, pilot)
        assert isinstance(tomorrow.screen, HomeScreen)
        prompt = str(tomorrow.screen.query_one("#lessons").get_option_at_index(0).prompt)
        assert "seen 4/14" in prompt and "answered 1/2" in prompt
        await press(pilot, "enter")
        assert tomorrow.screen.frame.step == 4 and not tomorrow.screen.holding()   # resumed, answer kept


async def test_a_step_recorded_just_before_quitting_is_saved():
    """Progress is written after the paint (its fsync must not hold a step's repaint), even when quitting next."""
    from viz.progress import ProgressStore
    app = make_app(lesson="rx-basics")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        total = app.screen.frame.total
        app.course.record("rx-basics", 3, total)
        assert app._save_pending                      # not written yet: after the next paint
        app.exit()
    assert ProgressStore().load()["rx-basics"].step == 3


async def test_a_corrupt_progress_file_is_one_notice_and_a_fresh_start():
    from viz.state import state_dir
    path = state_dir() / "progress.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ half a file")
    app = make_app()
    notices = []
    app.notify = lambda message, **kw: notices.append(message)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
    assert len(notices) == 1 and "kept as progress.json.corrupt-" in notices[0]
    assert any(p.name.startswith("progress.json.corrupt-") for p in path.parent.iterdir())


@pytest.mark.slow
def test_end_summary_is_the_lessons_point_and_only_what_changed():
    from shipped import shipped_lesson

    from viz.session import Session, end_pair
    lesson = shipped_lesson("dma-bugs")
    session = Session(lesson)
    frame = session.goto(len(lesson.steps))
    session.fill(len(lesson.steps), end_pair(lesson))       # a jump runs the variant it shows; the player
                                                            # asks for the pair first
    names, rows = summary(lesson, frame)
    assert names == ("clean", "missing-unmap")                  # its end_pair, not the first two variants
    got = {name: (a, b) for name, a, b in rows}
    assert "rx_dropped" in got and all(a != b for a, b in got.values())
    assert "page_pool_release_retry" not in got                 # 0 in both: dropped


@pytest.mark.slow
async def test_the_end_screen_shows_its_scroll_keys():
    from shipped import shipped_lesson
    app = app_for("rx-basics", step=len(shipped_lesson("rx-basics").steps))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await press(pilot, "right")
        assert isinstance(app.screen, EndScreen)
        keys = {b.key_display for _, b, enabled, _ in app.screen.active_bindings.values() if b.show}
        assert "↑↓" in keys
        box = app.screen.query_one("VerticalScroll")
        await press(pilot, "down")
        assert box.max_scroll_y == 0 or box.scroll_y > 0
