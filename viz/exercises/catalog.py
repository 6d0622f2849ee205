"""The exercises: what each asks, which lesson variant it runs, its reference driver and its hints."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module, resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from models.driver.netdev import NetDriver


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: str
    variant: str              # the lesson variant whose scenario the driver runs, and whose figures it must reach
    title: str
    task: str                 # what you will write, one line
    solution: str             # the reference driver: its module under models.drivers (the lesson runs it too)
    skeleton: str             # file under viz/exercises/skeletons
    hints: dict[str, str] = field(default_factory=dict)     # failure kind -> the hint for it
    coherent_limit: int = 0   # the model's firmware crashes on coherent memory above 2**coherent_limit (0: no limit)

    def skeleton_text(self) -> str:
        return resources.files("viz.exercises").joinpath("skeletons", self.skeleton).read_text(encoding="utf-8")

    def solution_text(self) -> str:
        """The reference driver's source, the file the model runs (compiled or not), not a copy."""
        drivers = import_module("models.drivers")      # when asked: the CLI checks which `models` it runs first
        return (Path(str(drivers.__file__)).parent / f"{self.solution}.py").read_text(encoding="utf-8")

    def solution_driver(self) -> type[NetDriver]:
        """The reference driver's class."""
        cls: type[NetDriver] = import_module(f"models.drivers.{self.solution}").Driver
        return cls


# Hints every exercise shares, by failure kind; an exercise may say it better for its own case.
COMMON = {
    "no-frames": "No frame reached the stack. Does open() post a buffer on every descriptor (rx_ring.post), "
                 "and does poll() take frames with rx_ring.next_rx() and hand each to napi_gro_receive()?",
    "double-unmap": "A mapping was unmapped twice: after dma_unmap_single() the address is no longer yours. "
                    "Unmap each buffer once, when the device is done with it.",
    "wrong-direction": "Unmap and sync with the direction you mapped with (DMA_FROM_DEVICE for RX buffers).",
    "wrong-size": "Unmap with the size you mapped.",
    "no-sync-for-cpu": "The CPU read a buffer the device still owned. Unmap it (per-frame) or "
                       "dma_sync_single_range_for_cpu() the bytes the device wrote (page_pool) before you build "
                       "the skb.",
    "dma-beyond-mapping": "The descriptor lets the device write more than you mapped: map as many bytes as the "
                          "length you post.",
    "sync-unmapped": "A sync of an address that is not mapped: sync before you unmap, never after.",
    "leak-at-teardown": "Something was still mapped when the driver let go of the device: stop() must unmap and "
                        "free every buffer still on the ring (and page_pool_destroy() the pool).",
    "leak": "stop() left buffers allocated: give every one back (skb_free_frag, page_pool_put_full_page).",
    "pool-inflight": "The page_pool still had pages in flight after stop(): put back every fragment on the ring "
                     "before page_pool_destroy().",
    "napi-stuck": "poll() returned less than its budget without napi_complete_done(): NAPI_STATE_SCHED stays set "
                  "and nothing polls again. Complete NAPI (and unmask the interrupt) when work_done < budget.",
    "over-budget": "poll() handled more frames than its budget: stop taking frames when work_done reaches budget "
                   "and return it; NAPI polls again.",
    "napi-complete-twice": "napi_complete_done() is called once, at the end of a poll that did less than budget.",
    "device-write-unmapped": "Post the bus address dma_map_single() returned for that very buffer, while it is "
                             "mapped.",
    "mask-violation": "The device was given a bus address beyond what it can drive: set the mask it really has "
                      "in probe() (dma_set_mask()) and give it only addresses the DMA API returned.",
    "gro-outside-napi": "napi_gro_receive() was called outside the NAPI poll: hand frames to GRO only from poll().",
    "napi-not-added": "napi_gro_receive() on a NAPI instance netif_napi_add() never set up: use the napi your "
                      "poll() is given.",
    "page-refcount-underflow": "A page_pool fragment was put back twice: give each fragment back once, when its "
                               "skb is freed or when you drop it yourself, never both.",
    "sync-beyond-mapping": "A dma_sync_* call reached past the end of its mapping: sync the bytes the device wrote "
                           "(offset and length inside what you mapped).",
    # The state machines (`rxviz graph`) refuse a move a buffer's life does not have: from a driver, the
    # consequence of a call left out or made twice before it, which the checker's first report names.
    "illegal-transition": "An object made a move its life cycle does not have (rxviz graph rx_buffer draws it): "
                          "usually a call left out or made twice just before. Fix the first report above; this "
                          "one follows from it.",
    "slower": "Your driver is correct but slower than the reference: compare the calls per frame below.",
    "exception": "Your driver raised an exception: the lines above are yours; fix the first one.",
    "timeout": "Your driver never gave the CPU back: look for a loop that does not end (a poll that waits for a "
               "frame, a refill loop that never advances).",
}

EXERCISES: tuple[Exercise, ...] = (
    Exercise("rx-refill", "rx-basics", "gro", "Per-frame refill and the NAPI poll",
             "open(), the refill, poll() with its budget and stop() of a per-frame driver",
             "rx_basics", "rx_refill.py",
             {"slower": "Map exactly RX_BUF_SIZE bytes at NET_SKB_PAD, and allocate the replacement before you "
                        "unmap the filled buffer (a frame you cannot replace is dropped, not lost)."}),
    Exercise("page-pool-frags", "atlantic-page-pool", "after", "page_pool fragments with the right syncs",
             "an RX path on page_pool fragments: create the pool, sync for the device and for the CPU",
             "atlantic", "page_pool_frags.py",
             {"slower": "Let the pool map (PP_FLAG_DMA_MAP) and never map or unmap a pool page yourself; sync only "
                        "the bytes the device wrote (length), not the whole buffer."}),
    Exercise("napi-skb-cache", "bgmac-napi-skb-cache", "after", "The NAPI skb cache",
             "take sk_buffs from the per-CPU NAPI cache and give sent ones back to it",
             "bgmac", "napi_skb_cache.py",
             {"slower": "Build received skbs with napi_build_skb() and free sent ones with "
                        "napi_consume_skb(skb, budget): both use this CPU's NAPI skb cache."}),
    Exercise("dma-masks", "ath11k-36bit-dma-mask", "after", "Streaming and coherent masks",
             "probe(): a 36-bit streaming mask, and a 32-bit coherent mask for the firmware",
             "ath11k", "dma_masks.py",
             {"slower": "Every RX buffer above 4 GiB is bounced through SWIOTLB: the device can address 36 bits, "
                        "so set the streaming mask to DMA_BIT_MASK(36) with dma_set_mask().",
              "firmware": "The commit found the firmware crashes with a 36-bit coherent mask (its rings come "
                          "from coherent memory; the model crashes it when they lie above 4 GiB): keep the "
                          "coherent mask at 32 bits (dma_set_coherent_mask(dev, DMA_BIT_MASK(32)))."},
             coherent_limit=32),
    Exercise("dma-bugs", "dma-bugs", "clean", "Fix three DMA bugs",
             "a per-frame driver with three DMA-API bugs planted: find them from the checker's reports",
             "dma_bugs", "dma_bugs.py"),
)

BY_ID = {e.id: e for e in EXERCISES}


def hint(ex: Exercise, kind: str) -> str:
    """The hint for one failure: the exercise's own, the common one, else the checker's description of
    that kind of report (never "correct but slower": the driver failed)."""
    from models.calls import VIOLATIONS  # when asked: the CLI checks which `models` it runs first
    return (ex.hints.get(kind) or COMMON.get(kind)
            or f"The checker reported {kind}: {VIOLATIONS.get(kind, 'see the report above')}.")
