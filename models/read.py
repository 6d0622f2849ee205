"""The model's read API: everything the views (viz.views) may import from models, and nothing else.

A view draws one variant of the model at one step. It is handed a `Reading`
(in a `viz.views.base.ViewState`): a read object whose methods return frozen
records of plain data (numbers, strings, tuples of them), built from the
`Sim` by models/records/ and kept while the variant stays at that moment.
A view never sees the `Sim`: the view state holds it only as an opaque handle
that `reading_of` turns into a Reading, so no view can advance it, build one,
or reach into a part. `make lint` enforces the door: the import-linter
contract "views import only the model's read API" (pyproject.toml) rejects
any import of another `models` module from `viz.views`, and mypy (strict on
viz.views) rejects an attribute a record does not have.

Names, by what they describe:

- the door: `reading_of(sim)` -> `Reading`, whose methods are
  `ring()` and `descriptor(i)` (`RingRecord`, `Descriptor`), `queues()`
  (SDIO/USB: `Queues`), `memory()` (`MemoryRecord`: zones, where the live
  mappings sit, the newest bounced one as a `Mapped`, `SwiotlbRecord` with
  its last `Bounce`, `IommuRecord`),
  `pool()`, `flip()` and `strategy()` (`PoolRecord` with `PageRecord`s,
  `Flip`, `Strategy`), `skb_cache()` (`SkbCache`), `napi()` (`Napi`),
  `bus()` (`BusRecord` of `Transfer`s and the timeline's scale),
  `params()`, `counts()`, `counters()`, `metrics()`, `events()` and
  `recent(n)` (the trace buffer's `Event`s, plain tuples), `cursor()`,
  `rx(follow, machine, earlier)` (`RxData`: the `MachineState`, the
  `Passport`, the `Call` the screen is at and the `PathFacts`) and
  `path()` (the call and the path facts only);
- the RX path: `STAGES`, `STAGE_OF` (every kernel call's stage), `Stage`
  and `stages(facts)` (what a variant skips or replaces);
- the cursor (models.cursor): the call the variant is at and the call
  before it, each as a `Touch` (the buffers, pages, mappings, heads,
  SWIOTLB slots and descriptors it touched, and its `Move`s along the
  lifecycle machines). Every view lights "what just changed" from it;
- the vocabulary: `CALLS` (kernel call -> category, description),
  `CATEGORIES` (cost categories), `COUNTERS` and `METRICS` (the names
  `rxviz run --json` prints), `VIEWS` (the view names lessons use);
- the lifecycle machines: `MACHINES` (their edge lists), `graph` (one
  machine as a networkx graph, imported lazily), `Transition` and `Edge`;
- kernel constants a view draws against: `FOUR_GiB`, `GiB`, `MiB` (the
  memory map's lines), `FQ_SIZE` (the IOMMU flush queue),
  `GRO_LEGACY_MAX_SIZE` (64 KiB: a GRO super-packet's limit);
- the lesson: `Lesson` (its text and pseudo-code, data the player loaded),
  `kept_costs` and `kept_details` (the cost categories and the calls' log details among the
  figures a question keeps back), `line_of` (the pseudo-code line a kernel call stands for, from the
  lesson's `code_calls`) and `before_of` (the call just before an event in
  its context, which some entries name).

A view never parses an event's text (its `obj` and `detail` are for
people): what it draws comes from these records and counters.

What the record builders (models/records/) read on a `Sim`, and so what must
stay stable for them (attributes and read-only properties, never a method
that advances or changes it): `rec` (`counts`, `counters()`, `events`,
`seq`, `t`, `moves`, `violations`, `bounce_bytes`), `setup_seq`, `params`,
`sc`, `bus`, `platform`, `wire`, `delivery`, `napi_api`, `napi_polled`,
`napi_state`, `napi`, `tasklet`, `poll_work`, `irq_on`, `iommu_mode`,
`strategy`; `ring`, `ring_phys`, `mem`, `dma`, `swiotlb`, `iommu`, `pool`,
`heads`, `stack`; on SDIO or USB `bus_log`, `fw_q`, `rx_ind`, `proc_rx`,
`sdio_reading`; `metrics()`, `frames`, `processed`, `dropped`, `now_ns`.
"""

from __future__ import annotations

from .calls import CALLS, CATEGORIES, COUNTERS, METRICS, VIEWS
from .cursor import Cursor, Move, Touch
from .lesson.extras import before_of, line_of
from .lesson.figures import kept_costs, kept_details
from .lesson.schema import Lesson
from .lifecycle import MACHINES, graph
from .records.bus import BusRecord, Transfer
from .records.delivery import GRO_LEGACY_MAX_SIZE, Napi, SkbCache
from .records.machine import Call, Edge, MachineState, Passport, PathFacts, RxData, Transition
from .records.memory import FQ_SIZE, Bounce, FOUR_GiB, GiB, IommuRecord, Mapped, MemoryRecord, MiB, SwiotlbRecord, Zone
from .records.path import STAGE_OF, STAGES, Stage, stages
from .records.pool import Flip, PageRecord, PoolRecord, Strategy
from .records.reading import Reading, reading_of
from .records.ring import Descriptor, Queues, RingRecord
from .trace import Event

__all__ = [
    "Bounce", "BusRecord", "CALLS", "CATEGORIES", "COUNTERS", "Call", "Cursor", "Descriptor", "Edge", "Event",
    "FOUR_GiB", "FQ_SIZE", "Flip", "GRO_LEGACY_MAX_SIZE", "GiB", "IommuRecord", "Lesson", "MACHINES", "METRICS",
    "MachineState", "Mapped", "MemoryRecord", "MiB", "Move", "Napi", "PageRecord", "Passport", "PathFacts",
    "PoolRecord", "Queues", "Reading", "RingRecord", "RxData", "STAGES", "STAGE_OF", "SkbCache", "Stage",
    "Strategy", "SwiotlbRecord", "Touch", "Transfer", "Transition", "VIEWS", "Zone", "before_of", "graph",
    "kept_costs", "kept_details", "line_of", "reading_of", "stages",
]
