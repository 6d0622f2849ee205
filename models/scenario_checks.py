"""Limits that involve more than one parameter, checked once the whole scenario is known.

Each check returns the parameter to blame and one sentence naming the limit
and where it comes from. `Sim` refuses a scenario that fails one; the lesson
validator reports it at the offending line; `rxviz run --set` prints it.
"""

from __future__ import annotations

from typing import Any

from .memory import PCI_HOLE_START
from .nic import NICS

ETH_HLEN = 14
PAGE_FRAG_CACHE_MAX_SIZE = 32768    # include/linux/page_frag_cache.h: netdev_alloc_frag()'s largest cache page
FRAG_OVERHEAD = 64 + 320            # NET_SKB_PAD + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64

# Parameters of a PCIe NIC's descriptor ring and of how its driver fills it. On SDIO and USB the host
# reads each bundle into skbs it allocates for the read (ath10k_sdio_mbox_rx_alloc(),
# ath10k_usb_post_recv_transfers()): there is no ring, no buffer strategy and no page_pool to set.
PCIE_ONLY = ("ring_size", "strategy", "rx_alloc", "rx_build", "rx_buf_size", "dma_dir", "page_order",
             "frag_size", "pool_size", "xdp")
# Costs of the SDIO bus, which a PCIe NIC never pays.
SDIO_ONLY = ("sdio_bps", "sdio_xfer_ns", "sdio_duty")
_HOST_READ = {"sdio": "ath10k_sdio_mbox_rx_alloc()", "usb": "ath10k_usb_post_recv_transfers()"}


class ScenarioError(ValueError):
    """A scenario the kernel or the hardware would refuse: (parameter, one sentence) each.

    `where` says which variant of which lesson, when known, so the one line the
    CLI prints points at it.
    """

    def __init__(self, problems: list[tuple[str, str]], where: str = "") -> None:
        self.problems = problems
        self.where = where
        text = "; ".join(msg for _, msg in problems)
        super().__init__(f"{where}: {text}" if where else text)


def check(prm: dict[str, Any], defaults: dict[str, Any]) -> list[tuple[str, str]]:  # noqa: C901 (older than the complexity rule)
    """Every cross-parameter problem of a full parameter dict, as (parameter, message).
    `defaults`: each parameter's default (models.params passes them; this module does not
    import the parameter table, which imports it)."""
    out: list[tuple[str, str]] = []
    nic = NICS.get(prm["platform"])
    pcie = prm["bus"] == "pcie"
    out += _bus_mismatch(prm, nic, defaults)
    if nic is not None and pcie:
        why = nic.ring_problem(prm["ring_size"])
        if why:
            out.append(("ring_size", f"ring_size {prm['ring_size']}: {why}"))
    if nic is not None and prm["mtu"] > nic.mtu_max:
        out.append(("mtu", f"mtu {prm['mtu']}: {nic.name} takes at most {nic.mtu_max} ({nic.mtu_source})"))
    frame = prm["mtu"] + ETH_HLEN
    if pcie and prm["strategy"] == "per-frame" and prm["rx_buf_size"] < frame:
        out.append(("rx_buf_size", f"rx_buf_size {prm['rx_buf_size']} cannot hold a {frame}-byte frame: a driver "
                    "that maps one buffer per frame sizes it for the MTU (set rx_buf_size to at least mtu + 14)"))
    if (pcie and prm["strategy"] == "per-frame" and prm["rx_alloc"] == "frag"
            and prm["rx_buf_size"] + FRAG_OVERHEAD > PAGE_FRAG_CACHE_MAX_SIZE):
        out.append(("rx_buf_size", f"rx_buf_size {prm['rx_buf_size']}: with rx_alloc=frag the buffer, NET_SKB_PAD "
                    f"and skb_shared_info come from netdev_alloc_frag(), whose cache page is at most "
                    f"PAGE_FRAG_CACHE_MAX_SIZE ({PAGE_FRAG_CACHE_MAX_SIZE} bytes): at most "
                    f"{PAGE_FRAG_CACHE_MAX_SIZE - FRAG_OVERHEAD}"))
    page = 4096 << prm["page_order"]
    if pcie and prm["strategy"] == "page-pool" and (prm["frag_size"] or prm["rx_buf_size"]) > page:
        size = prm["frag_size"] or prm["rx_buf_size"]
        out.append(("frag_size", f"a {size}-byte fragment does not fit an order-{prm['page_order']} page "
                    f"({page} bytes): page_pool_alloc_frag() warns and fails"))
    if prm["bundle"] != 1 and pcie:
        out.append(("bundle", f"bundle {prm['bundle']}: the RX bundle is HTC's over SDIO or USB "
                    "(HTC_HOST_MAX_MSG_PER_RX_BUNDLE); on bus=pcie the NIC writes frames into a descriptor ring, "
                    "so only bundle=1 applies"))
    if prm["delivery"] == "tasklet" and not pcie:
        out.append(("delivery", "the model's SDIO and USB RX work runs in a workqueue or a NAPI poll, not a tasklet"))
    if prm["skb_alloc"] == "napi_build_skb" and _version(prm["kernel"]) < (5, 12):
        out.append(("skb_alloc", f"kernel {prm['kernel']} has no napi_build_skb(): it came with v5.12 (Alexander "
                    "Lobakin's NAPI cache reuse); use build_skb, or kernel=5.12 or later"))
    if prm["skb_alloc"] == "napi_build_skb" and prm["delivery"] != "napi":
        out.append(("skb_alloc", "napi_build_skb() takes heads from the NAPI cache and may only run inside a "
                    "NAPI poll; this driver delivers from a " + prm["delivery"]))
    if prm["xdp"] != "off" and prm["strategy"] != "page-pool":
        out.append(("xdp", "the model runs XDP programs on page_pool buffers only (strategy page-pool)"))
    size = prm["napi_skb_cache_size"]
    if size is not None:
        for name in ("napi_skb_cache_bulk", "napi_skb_cache_free"):
            if prm[name] is not None and prm[name] > size:
                out.append((name, f"{name} {prm[name]} is larger than the cache itself "
                            f"(napi_skb_cache_size {size})"))
    low = min(prm["ram"], PCI_HOLE_START)
    if prm["swiotlb"] != "off" and prm["swiotlb_size"] > low // 2:
        out.append(("swiotlb_size", f"a {prm['swiotlb_size'] >> 20} MiB SWIOTLB pool does not fit in the "
                    f"{low >> 20} MiB of low memory memblock_alloc_low() can use (at most half of it here)"))
    if prm["mac80211_rx"] != "auto" and not prm.get("_wifi", True):
        out.append(("mac80211_rx", "mac80211_rx applies to Wi-Fi platforms only"))
    first: dict[str, str] = {}
    for name, msg in out:                  # the most basic reason first (a bus mismatch), one per parameter
        first.setdefault(name, msg)
    return list(first.items())


def _version(text: str) -> tuple[int, int]:
    major, _, minor = str(text).partition(".")
    return (int(major), int(minor or 0))


def _bus_mismatch(prm: dict[str, Any], nic: Any, defaults: dict[str, Any]) -> list[tuple[str, str]]:
    """A PCIe ring parameter set on SDIO/USB, or an SDIO bus cost set on PCIe: one line each."""
    out: list[tuple[str, str]] = []
    bus = prm["bus"]
    if bus != "pcie":
        for name in PCIE_ONLY:
            default = nic.default_ring if name == "ring_size" and nic is not None else defaults[name]
            if prm[name] != default:
                out.append((name, f"{name}={prm[name]} is a PCIe descriptor-ring setting: on bus={bus} the host "
                            f"reads each bundle into skbs it allocates for the read ({_HOST_READ[bus]}), so "
                            f"there is no ring, buffer strategy or page_pool to set"))
    else:
        for name in SDIO_ONLY:
            if prm.get(name) is not None:
                out.append((name, f"{name} is a cost of the SDIO bus (CMD53 transfers); on bus=pcie the NIC "
                            "masters its own DMA and no transfer is driven by the host"))
    return out
