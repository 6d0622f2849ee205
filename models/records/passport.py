"""The passport of a followed object, read off the model's own objects (models/records/objects.py).

Identity, addresses, mapping and refcounts are exact (the Buf, page,
Mapping and Head objects hold them); the owner comes from the DMA mapping
where there is one (a live mapping the CPU has not synced belongs to the
device) and from the state otherwise; the history is the transitions the
model recorded for it (models/records/objects.py).
"""

from __future__ import annotations

from typing import Any

from .machine import Passport, Transition

_OWNER = {
    "pp_page": {"buddy": "the page allocator", "allocated": "CPU", "mapped": "page_pool",
                "carving": "page_pool (carving fragments)", "in-flight": "its fragments' holders",
                "ptr_ring": "page_pool (ptr_ring)", "alloc-cache": "page_pool (alloc cache)",
                "released": "CPU"},
    "skb_head": {"slab": "skbuff_cache (slab)", "in-use": "an skb", "napi-cache": "the NAPI skb cache",
                 "bulk-free": "kfree_skb_list (batched)"},
    "napi": {}, "tasklet": {}, "gro_flow": {},
}
_KIND = {"frag": "RX buffer from netdev_alloc_frag", "skb": "RX buffer from __netdev_alloc_skb",
         "kmalloc": "RX buffer from kmalloc", "pp": "page_pool fragment", "slice": "page slice"}
_MACHINE_KIND = {"rx_buffer": "RX buffer", "pp_frag": "page_pool fragment", "pp_page": "page_pool page",
                 "flip_page": "RX page (page flip)", "skb_head": "sk_buff head",
                 "napi": "NAPI instance", "tasklet": "RX tasklet", "gro_flow": "GRO hold of the flow",
                 "swiotlb_slot": "SWIOTLB bounce slots", "iova": "IOMMU mapping (IOVA range)",
                 "tx_buffer": "TX buffer (a TCP ACK)"}
_FREED = {"rx_buffer": "free", "pp_frag": "returned", "flip_page": "buddy", "pp_page": "buddy"}


def passport_of(sim: Any, o: Any, state: str | None, history: list[Transition]) -> Passport:  # noqa: C901 (older than the complexity rule)
    ref = o.ref
    machine = o.machine
    m = getattr(ref, "map", None)
    phys = getattr(ref, "phys", None)
    size = getattr(ref, "size", None)
    if size is None and getattr(ref, "order", None) is not None:
        size = 4096 << ref.order
    slot = m.slot if m is not None and m.slot >= 0 else None
    bounce = sim.swiotlb.addr(slot) if slot is not None and sim.swiotlb is not None else None
    refs: list[tuple[str, int]] = []
    related: list[str] = []
    if ref is None:
        pass                              # no longer held: only its history is known
    elif machine == "flip_page":
        refs.append(("page_ref_count", ref.refs))
    elif machine == "pp_page":
        refs.append(("pp_ref_count", ref.outstanding()))
    elif machine == "pp_frag" and getattr(ref, "page", None) is not None:
        refs.append(("pp_ref_count", ref.page.outstanding()))
        related.append(f"page#{ref.page.id}")
    if m is not None:
        related.insert(0, f"map#{m.id}")
    if getattr(ref, "head", None) is not None:
        related.append(f"head#{ref.head.id}")
    if machine in ("napi", "tasklet", "gro_flow"):
        owner = "softirq" if state in ("scheduled", "polling", "running", "held") else ""
    elif m is not None and machine != "pp_page":
        owner = "device" if m.live and not m.cpu_owned else "CPU"
        if state == _FREED.get(machine):
            owner = ""
    else:
        owner = _OWNER.get(machine, {}).get(state or "", "")
    kind = _KIND.get(getattr(ref, "kind", ""), "") if machine in ("rx_buffer", "pp_frag") else ""
    return Passport(
        obj=o.name, kind=kind or _MACHINE_KIND.get(machine, machine), machine=machine, state=state,
        where=o.where, phys=phys if isinstance(phys, int) and phys >= 0 else None, size=size,
        dma=m.dma if m is not None else None, iova=bool(m is not None and m.pages),
        mapped=bool(m is not None and m.live),
        bounce_slot=slot, bounce_phys=bounce, owner=owner, refs=tuple(refs), related=tuple(related),
        history=tuple(history), exact=True)
