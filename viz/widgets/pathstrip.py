"""The RX path strip: where a frame is on its way up, the stage of the current kernel call lit.

    RX path  NIC → ring → DMA → no IOMMU → no SWIOTLB → IRQ → [NAPI poll] → skb → GRO → stack → socket → free

Two tables and one rule live here: `STAGES` (the path, in order), `STAGE_OF`
(every kernel call of models.calls.CALLS and the stage it belongs to; a test
checks that none is missing) and `stages(facts)`, which says from a
variant's scenario which stages it skips (no IOMMU, no bounce, no GRO, a
socket that is not there because the frames are forwarded) and which it
replaces (a tasklet or a workqueue instead of a NAPI poll, an SDIO or USB
bus instead of a ring). The facts come from `machine_data.path_of`, never
the model itself.

One line at 80 columns (short names); at 160 the long ones. In compare
mode, one line per variant when the screen has the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from viz.views.base import ViewState
from viz.views.machine_data import PathFacts, path_of

# (key, long label, short label), in the order a received frame meets them.
STAGES = (
    ("nic", "NIC", "NIC"), ("ring", "ring", "ring"), ("dma", "DMA", "DMA"), ("iommu", "IOMMU", "IOMMU"),
    ("swiotlb", "SWIOTLB", "SWIOTLB"), ("irq", "IRQ", "IRQ"), ("napi", "NAPI poll", "NAPI"), ("skb", "skb", "skb"),
    ("gro", "GRO", "GRO"), ("stack", "stack", "stack"), ("socket", "socket", "sock"),
    ("free", "free/recycle", "free"),
)

# Every kernel call, by the stage of the path it is part of. Buffer allocation belongs to the
# ring (it refills it); giving memory back, recycling included, to free/recycle.
STAGE_OF: dict[str, str] = {
    **dict.fromkeys(("rx_frame", "rx_missed_errors", "rx_dropped", "tx_complete"), "nic"),
    **dict.fromkeys(("ath10k_sdio_mbox_rx_fetch_bundle", "ath10k_sdio_write", "ring_deinit", "kmalloc",
                     "netdev_alloc_frag", "__netdev_alloc_skb", "alloc_pages", "alloc_pages_bulk_node",
                     "page_pool_create", "page_pool_alloc_frag", "page_pool_alloc_pages",
                     "page_pool_refill_alloc_cache", "page_pool_dma_map"), "ring"),
    **dict.fromkeys(("dma_map_single", "dma_unmap_single", "dma_map_page", "dma_unmap_page",
                     "dma_sync_single_for_cpu", "dma_sync_single_for_device"), "dma"),
    **dict.fromkeys(("iommu_map", "iommu_unmap", "iotlb_sync", "fq_flush_iotlb"), "iommu"),
    **dict.fromkeys(("swiotlb_bounce", "swiotlb_tbl_map_single", "swiotlb_tbl_unmap_single"), "swiotlb"),
    **dict.fromkeys(("irq", "napi_schedule", "tasklet_schedule", "ath10k_sdio_mbox_read_int_status"), "irq"),
    **dict.fromkeys(("napi_poll", "napi_complete_done", "tasklet_action", "irq_unmask", "bgmac_chip_intrs_on",
                     "hw_atl_b0_hw_irq_enable", "enable_irq", "ath9k_hw_resume_interrupts", "napi_disable",
                     "tasklet_kill", "xdp_do_tx", "page_ref_inc"), "napi"),
    **dict.fromkeys(("build_skb", "slab_build_skb", "napi_build_skb", "skb_put", "napi_alloc_skb",
                     "napi_skb_cache_get", "kmem_cache_alloc", "kmem_cache_alloc_bulk", "skb_put_data",
                     "skb_mark_for_recycle"), "skb"),
    **dict.fromkeys(("napi_gro_receive", "napi_gro_complete", "napi_gro_flush", "napi_skb_free_stolen_head",
                     "__napi_kfree_skb", "ieee80211_rx_napi"), "gro"),
    **dict.fromkeys(("netif_receive_skb", "gro_normal_list", "ieee80211_rx", "ieee80211_rx_ni", "ip_forward",
                     "tcp_send_ack", "dev_queue_xmit"), "stack"),
    **dict.fromkeys(("tcp_recvmsg", "udp_recvmsg"), "socket"),
    **dict.fromkeys(("put_page", "kfree", "skb_free_frag", "kmem_cache_free", "kmem_cache_free_bulk",
                     "napi_skb_cache_put", "napi_consume_skb", "dev_kfree_skb", "consume_skb", "kfree_skb_list",
                     "__kfree_skb", "kfree_skb_napi_cache", "__consume_stateless_skb", "kfree_skb_reason",
                     "skb_attempt_defer_free", "skb_defer_free_flush",
                     "page_pool_recycle_in_cache", "page_pool_recycle_in_ring", "page_pool_return_netmem",
                     "page_pool_destroy", "page_pool_release_retry"), "free"),
}


@dataclass(frozen=True)
class Stage:
    key: str
    label: str          # what the strip writes (the replacement's name when `status` is "instead")
    short: str
    status: str         # "on", "skipped" or "instead"


def stages(facts: PathFacts) -> list[Stage]:
    """The path of one variant: each stage on, skipped (why, in its label) or replaced (by what)."""
    skip: dict[str, tuple[str, str]] = {}          # key -> (long, short) label of a skipped stage
    instead: dict[str, tuple[str, str]] = {}
    if facts.bus != "pcie":
        bus = facts.bus.upper()
        instead["ring"] = (f"{bus} bus", bus)
        skip["dma"] = ("no DMA mapping", "DMA")    # the driver copies out of bus transfers
        skip["iommu"] = ("no IOMMU", "IOMMU")
    if facts.iommu in ("off", "passthrough"):
        skip["iommu"] = ("no IOMMU", "IOMMU") if facts.iommu == "off" else ("IOMMU passthrough", "IOMMU")
    if not facts.bounce:
        skip["swiotlb"] = ("no SWIOTLB", "SWIOTLB")
    if facts.delivery != "napi":
        instead["napi"] = (facts.delivery, facts.delivery[:7])
    elif not facts.polled:
        skip["napi"] = ("NAPI never polled", "NAPI")     # netif_napi_add() was never called
    if not facts.gro:
        skip["gro"] = ("no GRO", "GRO")
    if facts.xdp == "tx":
        for key in ("skb", "gro", "stack", "socket"):
            skip[key] = ("XDP_TX" if key == "skb" else f"no {key}", dict((k, s) for k, _, s in STAGES)[key])
    elif not facts.socket:
        instead["socket"] = ("ip_forward", "fwd")
    out = []
    for key, long, short in STAGES:
        if key == "free":
            long, short = ("recycle", "recycle") if facts.page_pool else ("free", "free")
        if key in instead:
            out.append(Stage(key, *instead[key], "instead"))
        elif key in skip:
            out.append(Stage(key, *skip[key], "skipped"))
        else:
            out.append(Stage(key, long, short, "on"))
    return out


def skipped(facts: PathFacts) -> set[str]:
    """The stages a variant skips or replaces."""
    return {s.key for s in stages(facts) if s.status != "on"}


Look = tuple[str, str | None, PathFacts]     # a variant, the stage lit, its path


def _look(st: ViewState) -> Look:
    """All a variant's line depends on: its name, the stage lit (the current call's) and its path."""
    call, facts = path_of(st.sim)
    return st.variant, STAGE_OF.get(call.call) if call is not None else None, facts


def _looks(states: tuple[ViewState, ...]) -> tuple[Look, ...]:
    return tuple(_look(st) for st in states)


class PathStrip(Widget):
    """One line per variant shown: the RX path with the current call's stage lit."""

    COMPONENT_CLASSES = {"pathstrip--label", "pathstrip--on", "pathstrip--lit", "pathstrip--skipped",
                         "pathstrip--struck", "pathstrip--instead", "pathstrip--sep", "pathstrip--variant"}
    DEFAULT_CSS = """
    PathStrip {
        height: auto;
        padding: 0 1;
        background: $boost;
        & > .pathstrip--label { color: $foreground-muted; }
        & > .pathstrip--on { color: $foreground; }
        & > .pathstrip--lit { color: $accent; text-style: bold reverse; }
        & > .pathstrip--skipped { color: $foreground-muted; text-style: italic; }
        & > .pathstrip--struck { color: $foreground-muted; text-style: strike; }
        & > .pathstrip--instead { color: $text-secondary; text-style: italic; }
        & > .pathstrip--sep { color: $foreground-muted; }
        & > .pathstrip--variant { color: $text-primary; text-style: bold; }
    }
    """

    states: reactive[tuple[ViewState, ...]] = reactive((), always_update=True, repaint=False)
    _drawn: tuple[Look, ...] = ()          # what the strip shows now: `_looks` of the states it drew

    def watch_states(self, old: tuple[ViewState, ...], new: tuple[ViewState, ...]) -> None:
        # Most steps light the same stage of the same path: then there is nothing to repaint. The
        # strip's height (one line per variant) is all a layout pass could change.
        if len(old) != len(new):
            self.refresh(layout=True)
        elif _looks(new) != self._drawn:
            self.refresh()

    def _s(self, name: str) -> Style:
        return self.get_component_rich_style(f"pathstrip--{name}", partial=True)

    def line(self, look: tuple[str, str | None, PathFacts], width: int, prefix: str = "") -> Text:
        _, lit, facts = look
        path = stages(facts)
        # Long names ("no IOMMU", skipped ones in italics), else the short ones (skipped ones struck
        # through: "no" does not fit), with ever tighter separators; the DMA stages may be one group.
        forms = ((True, " → ", "RX path  ", " → "), (True, " → ", "", " → "), (True, " › ", "", " › "),
                 (False, " › ", "", " › "), (False, " › ", "", "/"), (False, "›", "", "›"))
        for long, sep, head, dma_sep in forms:
            text = Text(no_wrap=True, end="")
            if prefix:
                text.append(f"{prefix}  ", self._s("variant"))
            text.append(head, self._s("label"))
            for i, stage in enumerate(path):
                if i:
                    text.append(dma_sep if stage.key in ("iommu", "swiotlb") else sep, self._s("sep"))
                name = stage.label if long else stage.short
                style = "lit" if stage.key == lit else stage.status if stage.status != "on" else "on"
                if style == "skipped" and not long:
                    style = "struck"
                text.append(name, self._s(style))
            if cell_len(text.plain) <= width:
                return text
        text.truncate(width, overflow="ellipsis")
        return text

    def render(self) -> Text:
        width = max(1, self.content_size.width)
        states = self.states
        self._drawn = looks = _looks(states)
        if not states:
            return Text("")
        out = Text(no_wrap=True, end="")
        pad = max(len(st.variant) for st in states)
        for i, (st, look) in enumerate(zip(states, looks, strict=True)):
            if i:
                out.append("\n")
            out.append_text(self.line(look, width, st.variant.ljust(pad) if len(states) > 1 else ""))
        return out
