"""What each headline figure is, checked on the lessons' own scenarios (item 4 of the second kernel audit).

- atlantic's paper ran TCP over IPv6: the link bound uses IPv6's MSS (1428 at MTU 1500, about
  9,285 Mbit/s of payload at 10 Gbit/s), not IPv4's 1448.
- ath10k's after/before ratio comes out the same whatever the fitted bus duty: only the ratio is
  predicted, so the headline compares it; the absolute after follows from the fit.
"""

from __future__ import annotations

import pytest

from models.headline import capacity_mbps
from models.lesson import find_lesson
from models.params import full
from models.platform import make_platform
from models.runner import run_lesson, variant_params
from models.sim import Sim


def test_atlantic_runs_tcp_over_ipv6_and_its_link_bound_uses_ipv6s_mss():
    lesson = find_lesson("atlantic-page-pool")
    prm = full(variant_params(lesson, "after"))
    assert prm["ip"] == "ipv6"
    assert Sim(prm).wire.mss == 1500 - 40 - 20 - 12 == 1428
    assert capacity_mbps(prm, make_platform(prm)) == pytest.approx(10e9 * 1428 / 1538 / 1e6)    # 9,284.8
    v4 = {**prm, "ip": "ipv4"}
    assert capacity_mbps(v4, make_platform(v4)) == pytest.approx(10e9 * 1448 / 1538 / 1e6)      # 9,414.8


@pytest.mark.slow
def test_atlantic_after_is_bounded_by_the_ipv6_link():
    result = run_lesson(find_lesson("atlantic-page-pool"), variants=["before", "after"], frames=8000,
                        sensitivity=False)
    head = result["headline"]
    assert head["after_kind"] == "bounded" and head["capacity"] == pytest.approx(9284.79, abs=0.01)
    assert head["model"]["after"] <= 1.002 * head["capacity"]
