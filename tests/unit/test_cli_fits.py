"""The command line never misleads: tables keep numbers whole at 80 columns, a talk starts at the
beginning, one number format.
"""

from __future__ import annotations

import io
import re

from rich.console import Console

from viz import cli
from viz.cli import common as cli_app
from viz.cli import tables as cli_tables


def test_a_table_of_six_variants_at_80_columns_breaks_no_number_or_name():
    names = ["clean", "no-sync", "bad-unmap", "overrun", "pool-leak", "missing-unmap"]
    t = cli_tables._table("Kernel calls", "call", names)
    t.add_row("swiotlb_bounce_bytes", "14,041,088", "14,041,088", "7,282,688", "7,020,544", "18,061,520", "12,278,888")
    t.add_row("page_pool_recycle_direct", "0", "0", "0", "0", "1,649", "0")
    out = io.StringIO()
    cli_tables._show(Console(file=out, width=80, highlight=False, markup=False), t)
    text = out.getvalue()
    assert max(len(line) for line in text.split("\n")) <= 80
    for cell in ("14,041,088", "18,061,520", "12,278,888", "swiotlb_bounce_bytes", "page_pool_recycle_direct",
                 "missing-unmap"):
        assert cell in text, cell
    titles = re.findall(r"^Kernel calls \((\d)/(\d): (.*)\)$", text, re.M)
    assert [t[:2] for t in titles] == [("1", "2"), ("2", "2")]
    assert ", ".join(t[2] for t in titles) == ", ".join(names)          # each variant once, in order


def test_parts_keep_at_least_one_variant_however_narrow():
    assert cli_tables.parts(20, [10, 10, 10], 30) == [[0], [1], [2]]
    assert cli_tables.parts(10, [5, 5], 200) == [[0, 1]]


def test_a_talk_starts_at_the_beginning_and_resume_goes_on(monkeypatch):
    import sys
    import types
    seen = []
    monkeypatch.setattr(cli_app, "has_display", lambda: True)
    fake = types.ModuleType("viz.app")          # the app's module stands in: nothing of Textual runs
    fake.run_app = lambda lesson, step, compare, present: seen.append((step, present)) or 0
    monkeypatch.setitem(sys.modules, "viz.app", fake)
    assert cli.main(["play", "rx-basics", "--present"]) == 0
    assert cli.main(["play", "rx-basics", "--present", "--resume"]) == 0
    assert cli.main(["play", "rx-basics"]) == 0
    assert cli.main(["play", "rx-basics", "--present", "--step", "4"]) == 0
    # 0: the start; None: where the saved progress left it
    assert seen == [(0, True), (None, True), (None, False), (4, True)]


def test_the_player_groups_thousands_as_the_cli_does():
    from viz.views.machine.passport import fmt_bytes
    from viz.views.machine.view import fmt_count, fmt_t
    from viz.widgets.status import fmt_int
    assert [fmt_int(12345), fmt_count(1234567), fmt_t(27_211_439), fmt_bytes(2048)] == \
        ["12,345", "1,234,567", "27,211.439 µs", "2,048 bytes"]
    from viz import paper_vs_model_text as headline
    assert headline.num(12345) == "12,345"
