"""What each headline figure is, checked on the lessons' own scenarios (item 4 of the second kernel audit).

- atlantic's paper ran TCP over IPv6: the link bound uses IPv6's MSS (1428 at MTU 1500, about
  9,285 Mbit/s of payload at 10 Gbit/s), not IPv4's 1448.
- ath10k's after/before ratio comes out the same whatever the fitted bus duty: only the ratio is
  predicted, so the headline compares it; the absolute after follows from the fit.
"""

from __future__ import annotations

import pytest
from shipped import shipped_lesson

from models.paper_vs_model import capacity_mbps
from models.params import full
from models.platform import make_platform
from models.runner import run_lesson, variant_params
from models.sim import Sim


def test_atlantic_runs_tcp_over_ipv6_and_its_link_bound_uses_ipv6s_mss():
    lesson = shipped_lesson("atlantic-page-pool")
    prm = full(variant_params(lesson, "after"))
    assert prm["ip"] == "ipv6"
    assert Sim(prm).wire.mss == 1500 - 40 - 20 - 12 == 1428
    assert capacity_mbps(prm, make_platform(prm)) == pytest.approx(10e9 * 1428 / 1538 / 1e6)    # 9,284.8
    v4 = {**prm, "ip": "ipv4"}
    assert capacity_mbps(v4, make_platform(v4)) == pytest.approx(10e9 * 1448 / 1538 / 1e6)      # 9,414.8


@pytest.mark.slow
def test_atlantic_after_is_bounded_by_the_ipv6_link():
    result = run_lesson(shipped_lesson("atlantic-page-pool"), variants=["before", "after"], frames=8000,
                        sensitivity=False)
    head = result["headline"]
    assert head["after_kind"] == "bounded" and head["capacity"] == pytest.approx(9284.79, abs=0.01)
    assert head["model"]["after"] <= head["capacity"] + 0.01     # never more than the link carried


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["after", "after-xdp"])
def test_a_window_counts_no_more_goodput_than_arrived_in_it(variant):
    """The ring's backlog when the window opens is delivered inside it; it must not lift a
    link-bound run above its link (a 40,000-frame window read 9,289 of a 9,284.8 bound).

    A frame counts where it arrived, at its last bit: a window that opens just after a frame
    began to arrive counts all of it, so what arrived in the window may exceed the link by up
    to one frame's payload over the window (1.2 Mbit/s here), never by more."""
    lesson = shipped_lesson("atlantic-page-pool")
    prm = full(variant_params(lesson, variant))
    sim = Sim(prm)
    sim.run_frames(2000)
    sim.mark()
    sim.run_frames(8000)
    m = sim.metrics()
    one_frame = sim.wire.mss * 8 / m["sim_time_s"] / 1e6
    assert m["throughput_mbps"] <= capacity_mbps(prm, make_platform(prm)) + one_frame + 0.01
    assert m["frames_delivered"] >= m["throughput_mbps"] * 1e6 * m["sim_time_s"] / (8 * sim.wire.mss) - 0.5


def test_ath10k_compares_the_ratio_and_labels_the_absolute_after_as_following_from_the_fit():
    from models.paper_vs_model import compare
    lesson = shipped_lesson("ath10k-sdio-napi")
    head = compare(lesson, {"before": {"throughput_mbps": 239.65}, "after": {"throughput_mbps": 372.08}})
    assert head["compare"] == "ratio" and head["paper"]["ratio"] == 1.625
    assert head["model"]["ratio"] == pytest.approx(372.08 / 239.65, abs=1e-3)     # 1.553
    assert (head["before_kind"], head["after_kind"], head["ratio_kind"]) == ("fitted", "fitted", "predicted")
    assert head["ratio_error_pct"] == pytest.approx(-4.45, abs=0.05) and head["within"]


def test_the_headline_table_shows_the_ratio_with_its_kind():
    from viz import paper_vs_model_text as words
    lesson = shipped_lesson("ath10k-sdio-napi")
    from models.paper_vs_model import compare
    head = compare(lesson, {"before": {"throughput_mbps": 239.65}, "after": {"throughput_mbps": 372.08}})
    cols, rows = words.rows(head)
    assert cols == ["before", "after", "ratio"]
    assert dict((r[0], r[1:]) for r in rows)["kind"] == ["fitted", "fitted", "predicted"]
    assert dict((r[0], r[1:]) for r in rows)["paper"][2] == "1.625"


@pytest.mark.slow
def test_ath10k_ratio_does_not_move_with_the_fitted_duty():
    result = run_lesson(shipped_lesson("ath10k-sdio-napi"), variants=["before", "after"], frames=8000)
    (row,) = result["headline"]["sensitivity"]
    ratios = [p["ratio"] for p in row["points"]] + [result["headline"]["model"]["ratio"]]
    assert max(ratios) - min(ratios) < 0.005
    afters = [p["after"] for p in row["points"]]
    assert afters[1] / afters[0] > 2                      # while the absolute after follows the fit
