"""The records of a lifecycle machine, its followed object and the RX path: what the machine view,
the passport and the RX path strip draw, and nothing else.

`Reading.rx(follow, machine)` (models/records/reading.py) returns one frozen `RxData`:

- `call`: the kernel call the screen is at (the last event of the variant);
- `path`: the facts of the scenario that decide which RX stages it skips;
- `machine`: one lifecycle machine of `models.machines.MACHINES` for this
  variant: the followed object's current state, the transition it took last
  (the edge to light), and per-edge transition counts for the run;
- `passport`: the followed object: its identity, addresses, owner,
  refcounts and history of transitions, oldest first.

Objects are named in kernel words, the way events name them: `buf#513`
(an RX buffer), `page#897` (a page), `page#897+2048` (a page_pool
fragment), `head#14` (an sk_buff), `slot 512` (a SWIOTLB slot), `napi`,
`rx tasklet`, `flow` (the GRO hold). models/records/objects.py fills them
from the transitions the model records per kernel call and its per-edge
counts for the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

Edge = tuple[str, str, str]          # (from state, call, to state): an edge of MACHINES[machine]


@dataclass(frozen=True, slots=True)
class Transition:
    """One object moving along one edge of its machine, caused by one kernel call."""
    seq: int            # Event.seq of the call that caused it (the call's place in the trace)
    t_ns: int           # simulated time of that call
    call: str           # the edge's label: a kernel call, or a named step ("post", "deliver")
    machine: str        # a key of models.machines.MACHINES
    obj: str            # the object, in kernel words ("buf#513")
    src: str
    dst: str

    @property
    def edge(self) -> Edge:
        return (self.src, self.call, self.dst)


@dataclass(frozen=True, slots=True)
class Call:
    """The kernel call the screen is at: the last event of the variant shown."""
    seq: int
    t_ns: int
    call: str           # a key of models.calls.CALLS (or "VIOLATION" / "WARNING")
    ctx: str            # hardirq, softirq, process, app, device
    obj: str            # what it touched, in kernel words ("" when nothing in particular)
    detail: str


@dataclass(frozen=True, slots=True)
class PathFacts:
    """What the scenario of a variant decides about its RX path (what the strip shows as skipped)."""
    bus: str            # "pcie" (a descriptor ring), "sdio" or "usb" (no ring: the bus)
    iommu: str          # the effective mode: "off", "passthrough", "lazy" or "strict"
    bounce: bool        # streaming mappings go through SWIOTLB (forced, untrusted, or beyond the mask)
    delivery: str       # "napi", "tasklet" or "workqueue"
    polled: bool        # a NAPI poll runs the RX (delivery napi, and netif_napi_add() was called)
    napi: bool          # frames are handed to napi_gro_receive (inside a poll, or wrongly outside one)
    gro: bool           # and GRO may merge them (gro on, TCP)
    page_pool: bool     # RX buffers come from a page_pool
    xdp: str            # "off", "pass" or "tx" (XDP_TX sends frames back out: no skb, no stack)
    socket: bool        # a local socket reads the data (False: the frames are forwarded)


@dataclass(frozen=True, slots=True)
class MachineState:
    """One machine of one variant: what is lit, and how often each edge was taken."""
    machine: str
    obj: str | None                  # the object lit in it ("buf#30"), None when there is none
    where: str                       # where that object is, in words ("at desc 29"), or ""
    state: str | None                # its current state: the lit box
    last: Transition | None          # the transition that brought it there: the lit edge
    counts: Mapping[Edge, int]       # transitions per edge this run; an edge not in it is not known
    exact: bool                      # counts are real transition counts (False: approximated)
    population: Mapping[str, int]    # objects of this machine in each state now (may be empty)
    age: int = 0                     # calls since `last` (0: the current call made it; 1: the one before)
    call: str = ""                   # the current call (it may move nothing, or name an edge differently)


@dataclass(frozen=True, slots=True)
class Passport:
    """The followed object, as a kernel developer would describe it."""
    obj: str                         # identity in kernel words ("buf#513", "page#897+2048", "slot 512")
    kind: str                        # what it is ("RX buffer from netdev_alloc_frag", "page_pool page")
    machine: str
    state: str | None
    where: str                       # "at desc 29", "in the alloc cache", "freed" ...
    phys: int | None                 # physical address of its data
    size: int | None                 # bytes
    dma: int | None                  # the address the device uses: an IOVA when `iova`, else the bus address
    iova: bool
    mapped: bool                     # that mapping is live (False: unmapped, the address is stale)
    bounce_slot: int | None          # first SWIOTLB slot when bounced
    bounce_phys: int | None          # physical address of the bounce buffer
    owner: str                       # who may touch the data now: "device", "CPU", "page_pool", ...
    refs: tuple[tuple[str, int], ...]      # (counter as the kernel names it, value): page_ref_count, pp_ref_count
    related: tuple[str, ...]         # other objects it is tied to: "map#291", "page#5", "head#29"
    history: tuple[Transition, ...]  # oldest first
    exact: bool                      # history is every transition the model recorded (False: rebuilt)


@dataclass(frozen=True, slots=True)
class RxData:
    """One variant at one moment, as the machine, passport and path views see it."""
    call: Call | None
    path: PathFacts
    machine: MachineState
    passport: Passport | None
