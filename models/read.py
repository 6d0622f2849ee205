"""The model's read API: everything the views (viz.views) may import from models, and nothing else.

A view draws one variant of the model at one step. It is handed a `Sim` (in a
`viz.views.base.ViewState`) and reads it; it never advances it, never builds
one, and never imports a mechanism's module to reach its internals. What it
may import from `models` is here, re-exported under the same names, so a
change inside a mechanism (a module split, a renamed helper) cannot break a
view unless it changes this list. `make lint` enforces it: the import-linter
contract "views import only the model's read API" (pyproject.toml) rejects
any import of another `models` module from `viz.views`.

Names, by what they describe:

- the vocabulary: `CALLS` (kernel call -> category, description),
  `CATEGORIES` (cost categories), `COUNTERS` and `METRICS` (the names
  `rxviz run --json` prints), `VIEWS` (the view names lessons use);
- the lifecycle machines: `MACHINES` (their edge lists), `edge_counts`
  (transitions per edge from a run's recorded moves), `graph` (one machine
  as a networkx graph, imported lazily);
- kernel constants a view draws against: `FOUR_GiB`, `GiB`, `MiB` (the
  memory map's lines), `FQ_SIZE` (the IOMMU flush queue),
  `GRO_LEGACY_MAX_SIZE` (64 KiB: a GRO super-packet's limit);
- the model's types: `Sim` (one variant of the model), `Lesson`; `line_of`
  (the pseudo-code line a kernel call stands for, from the lesson's `code_calls`)
  and `before_of` (the call just before an event in its context, which some
  entries name);
- the cursor (models.cursor): `cursor_of(sim)`, the call the variant is at
  and the call before it, each as a `Touch` (the buffers, pages, mappings,
  heads, SWIOTLB slots and descriptors it touched, and its `Move`s along
  the lifecycle machines); `touch_of(sim, event)` for any recorded event.
  Every view lights "what just changed" from it, so one cursor drives them all.

What a view reads on a `Sim` (attributes and read-only properties, never a
method that advances or changes it):

- what this step changed: `rec.counts` (kernel call and statistic counts,
  compared with the previous step's), `rec.recent`, `rec.events` (those
  numbered up to `setup_seq` are the set-up's, before t=0),
  `rec.moves` (recorded transitions), `rec.violations`;
- the scenario: `params`, `bus`, `platform`, `delivery`, `napi_api`,
  `napi_polled`, `iommu_mode`, `strategy` (its `name`, `kind`);
- what each part holds now: `ring` (`size`, `dev_idx` the head, `clean_idx`
  the tail, `device_owned`; descriptor i's `state(i)` and `buf(i)`) and
  `ring_phys`; `mem` (zones, top of RAM), `dma` (live mappings, mask, flush
  queue), `swiotlb` (slots, and `last`: the latest bounce copy), `iommu`;
  `pool` (page_pool pages and fragments); `heads` (the NAPI skb cache);
  `napi_state`, `napi`, `tasklet`, `poll_work`, `irq_on`, `stack` (GRO
  hold, socket queue, TCP); on SDIO or USB `bus_log` (the latest
  transfers, as `Xfer` records: when, which way, how many frames), `fw_q`,
  `rx_ind`, `proc_rx`, `sdio_reading`;
- the figures: `metrics()`, `frames`, `processed`, `dropped`, `now_ns`,
  `clock_ns`.

A view never parses an event's text (its `obj` and `detail` are for
people): what it draws comes from these records and counters.

That attribute list is wider than it should be (issue 10: views should not
reach a part's internals). The ring is read through methods only, so its
descriptors could become arrays without a view noticing; the page_pool,
skb cache, NAPI and machine views still read their parts' records. Narrowing
them means moving reads behind methods here, one view at a time, without
changing what is drawn.
"""

from __future__ import annotations

from .by_identity import ByIdentity
from .calls import CALLS, CATEGORIES, COUNTERS, METRICS, VIEWS
from .cursor import Cursor, Move, Touch, cursor_of, touch_of
from .gro import GRO_LEGACY_MAX_SIZE
from .iommu import FQ_SIZE
from .lesson.extras import before_of, line_of
from .lesson.schema import Lesson
from .lifecycle import MACHINES, edge_counts, graph
from .memory import FOUR_GiB, GiB, MiB
from .sim import Sim

__all__ = [
    "ByIdentity", "CALLS", "CATEGORIES", "COUNTERS", "Cursor", "FOUR_GiB", "FQ_SIZE", "GRO_LEGACY_MAX_SIZE", "GiB",
    "Lesson",
    "MACHINES", "METRICS", "MiB", "Move", "Sim", "Touch", "VIEWS", "before_of", "cursor_of", "edge_counts", "graph",
    "line_of", "touch_of",
]
