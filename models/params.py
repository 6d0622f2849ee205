"""The scenario parameters, one flat namespace with documented names and the kernel's limits.

A lesson's `scenario` and `variants`, the CLI's `--set KEY=VALUE` and the
model all use these names, so a value a person writes (`ram=8GiB`,
`iommu=strict`, `dma_mask=36`) means the same everywhere. Platform costs
(`models/platform.py`) are parameters too: a lesson that fits one to a
published figure sets it by the same name it would use on the command line.

Each parameter carries its range and where the range comes from (a kernel
constant, a driver's limit, or the model's own), so a value the kernel
would refuse is refused here with one sentence that names the limit.
Limits that depend on other parameters (a fragment that must fit its page,
a bundle that only exists on SDIO) are checked by `check()` once the whole
scenario is known.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from . import scenario_checks, units
from .platform import COST_DOC, PROFILES


@dataclass(frozen=True)
class Param:
    name: str
    parse: Callable[[object], Any]
    default: Any
    doc: str
    group: str = "scenario"
    unit: str = ""           # how values are written: "bytes", "bits", "ns", "bit/s", ...
    limit: str = ""          # the accepted range and where it comes from, in words

    def describe(self) -> str:
        """The doc and, when there is one, the limit: what `--help` and the sandbox show."""
        return f"{self.doc} ({self.limit})" if self.limit else self.doc


def _enum(*choices: str) -> Callable[[object], str]:
    def parse(value: object) -> str:
        text = str(value).strip().lower() if not isinstance(value, bool) else ""
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
        return text
    return parse


def _ranged(parse: Callable[[object], Any], lo: float, hi: float, what: str, why: str = "",
            fmt: Callable[[float], str] = lambda v: f"{v:g}") -> Callable[[object], Any]:
    """A parser that refuses values outside [lo, hi], naming the limit and its source."""
    because = f" ({why})" if why else ""

    def check(value: object) -> Any:
        v = parse(value)
        if not lo <= v <= hi:
            raise ValueError(f"expected {what} from {fmt(lo)} to {fmt(hi)}{because}, got {value!r}")
        return v
    return check


def _size_fmt(v: float) -> str:
    return units.fmt_size(int(v))


def _multiple_of(parse: Callable[[object], Any], step: int, what: str) -> Callable[[object], Any]:
    def check(value: object) -> Any:
        v = parse(value)
        if v % step:
            raise ValueError(f"expected {what}, got {value!r}")
        return v
    return check


def _kernel_version(value: object) -> str:
    from .kernel import parse_version
    major, minor = parse_version(value)
    return f"{major}.{minor}"


MAX_PAGE_ORDER: Final = 10                 # include/linux/mmzone.h on x86-64 (4 MiB blocks)
NAPI_POLL_WEIGHT: Final = 64               # include/linux/netdevice.h
HTC_HOST_MAX_MSG_PER_RX_BUNDLE: Final = 32  # drivers/net/wireless/ath/ath10k/htc.h
PP_RING_MAX: Final = 16384                 # page_pool_init(): min(pool_size, 16384)
IO_TLB_SEGMENT_BYTES: Final = 128 * 2048   # swiotlb rounds its pool to whole 128-slot segments

_P = [
    # --- machine ---------------------------------------------------------------
    Param("platform", _enum("x86-generic", "x86-wcn6855", "ppc464-apm82181",
                            "mips74kc-bcm4716", "x86-strix-halo-tb", "arm-qca6174-sdio"),
          "x86-generic", "platform profile: the CPU, its costs, the NIC and its bus. One of x86-generic, "
          "x86-wcn6855, ppc464-apm82181, mips74kc-bcm4716, x86-strix-halo-tb, arm-qca6174-sdio", "machine"),
    Param("ram", _ranged(units.parse_size, 64 << 20, 1 << 42, "RAM",
                         "the model's range; x86-64 with 4-level paging addresses 64 TiB (MAX_PHYSMEM_BITS 46)",
                         _size_fmt), 16 << 30,
          "installed RAM; on x86 memory above 3 GiB is remapped above 4 GiB (the PCI hole)", "machine",
          "bytes", "64 MiB to 4 TiB (the model's; the kernel's x86-64 limit is 64 TiB)"),
    Param("page_placement", _enum("bottom-up", "top-down"), "bottom-up",
          "where the page allocator hands out fresh pages within a zone: bottom-up (a freshly booted v5.10+ "
          "kernel: boot pages go to the tail of the free lists) or top-down (kernels before v5.10)", "machine"),
    Param("iommu", _enum("off", "passthrough", "lazy", "strict"), "off",
          "IOMMU mode: off, passthrough (identity), lazy (flush queue) or strict", "machine"),
    Param("untrusted", units.parse_bool, False,
          "device sits behind an external-facing port (Thunderbolt): with an IOMMU, forces strict and bounces "
          "sub-page buffers; without one it changes nothing", "machine"),
    Param("swiotlb", _enum("auto", "off", "force"), "auto",
          "SWIOTLB: auto (x86: enabled when RAM reaches above 4 GiB), off, or force (bounce everything)", "machine"),
    Param("swiotlb_size",
          _multiple_of(_ranged(units.parse_size, 1 << 20, 1 << 30, "a SWIOTLB size",
                               "IO_TLB_MIN_SLABS is 1 MiB; the pool must fit in low memory", _size_fmt),
                       IO_TLB_SEGMENT_BYTES, "a multiple of 256KiB (the pool is whole 128-slot segments)"),
          64 << 20, "SWIOTLB pool size (IO_TLB_DEFAULT_SIZE = 64 MiB)", "machine",
          "bytes", "1 MiB to 1 GiB, whole 256 KiB segments"),
    # --- device ----------------------------------------------------------------
    Param("bus", _enum("pcie", "sdio", "usb"), "pcie", "bus the NIC sits on", "device"),
    Param("dma_mask", _ranged(units.parse_int, 24, 64, "a mask width", "dma_set_mask() fails below 24 bits on x86"),
          64, "streaming DMA mask in bits (dma_set_mask)", "device", "bits", "24 to 64"),
    Param("coherent_mask", _ranged(units.parse_int, 24, 64, "a mask width",
                                   "dma_set_coherent_mask() fails below 24 bits on x86"),
          64, "coherent DMA mask in bits (dma_set_coherent_mask)", "device", "bits", "24 to 64"),
    Param("ring_size", _ranged(units.parse_int, 8, 8192, "a ring size", "the model's range; the NIC's own "
                               "limits are checked against the platform"), None,
          "RX descriptors (default: what the platform's NIC driver sets up)", "device", "descriptors",
          "what the platform's NIC accepts"),
    Param("mtu", _ranged(units.parse_int, 576, 16334, "an MTU", "the model's TCP needs 576, the IPv4 minimum "
                         "datagram, above the kernel's ETH_MIN_MTU of 68; the NIC's own max_mtu is checked against "
                         "the platform"), 1500, "MTU in bytes", "device", "bytes",
          "576 up to the platform's NIC maximum (its max_mtu)"),
    Param("rx_usecs", _ranged(units.parse_time, 0, 10_000_000, "a coalescing delay",
                              "the model's range: ethtool -C passes a u32 and each driver's set_coalesce clamps "
                              "it to what its hardware holds; no kernel-wide limit"),
          0, "interrupt coalescing: the RX interrupt fires this long after the first frame (ethtool -C rx-usecs); "
          "for Wi-Fi it stands for an A-MPDU arriving as one burst", "device", "ns", "0 to 10 ms"),
    Param("bundle", _ranged(units.parse_int, 1, HTC_HOST_MAX_MSG_PER_RX_BUNDLE, "a bundle size",
                            "HTC_HOST_MAX_MSG_PER_RX_BUNDLE in ath10k's htc.h is 32"), 1,
          "SDIO RX bundle: frames the host reads in one transfer", "device", "frames", "1 to 32"),
    # --- driver ----------------------------------------------------------------
    Param("strategy", _enum("per-frame", "page-flip", "page-pool"), "per-frame",
          "RX buffer strategy: per-frame buffer alloc + dma_map_single, page-flip reuse, or page_pool fragments",
          "driver"),
    Param("rx_alloc", _enum("frag", "skb", "kmalloc"), "frag",
          "per-frame strategy: where a buffer comes from. frag: netdev_alloc_frag(), wrapped with build_skb() "
          "when the frame arrives (bgmac); skb: netdev_alloc_skb(), an skb with its data from the start "
          "(ath9k, ath11k); kmalloc: kmalloc(), wrapped with slab_build_skb()", "driver"),
    Param("rx_build", _enum("build_skb", "napi_alloc_skb"), "build_skb",
          "page strategies: how a received buffer becomes an skb. build_skb: around the buffer; napi_alloc_skb: "
          "a small skb for the copied headers with the buffer attached as a page frag (atlantic's aq_ring_rx_clean)",
          "driver"),
    Param("rx_buf_size", _ranged(units.parse_size, 256, 65536, "a buffer size",
                                 "256 B is the model's floor; no RX buffer needs more than the largest IPv4 packet, "
                                 "64 KiB (iphdr.tot_len is 16 bits)", _size_fmt),
          2048, "bytes the driver maps per RX buffer", "driver", "bytes",
          "256 B to 64 KiB; with rx_alloc=frag, the fragment fits PAGE_FRAG_CACHE_MAX_SIZE (32 KiB)"),
    Param("dma_dir", _enum("from_device", "bidirectional"), "from_device",
          "DMA direction of RX mappings (ath9k EDMA chips need bidirectional)", "driver"),
    Param("page_order", _ranged(units.parse_int, 0, MAX_PAGE_ORDER, "a page order",
                                "page_pool_init() refuses orders above MAX_PAGE_ORDER, 10 on x86-64"), 0,
          "order of RX pages (page-flip and page-pool strategies)", "driver", "", "0 to 10"),
    Param("frag_size", _ranged(units.parse_size, 0, 4096 << MAX_PAGE_ORDER, "a fragment size",
                               "at most one page of the largest order", _size_fmt), 0,
          "page_pool fragment size (0: rx_buf_size rounded to the cache line); it must fit a page", "driver",
          "bytes", "0 to the page size"),
    Param("pool_size", _ranged(units.parse_int, 0, PP_RING_MAX, "a ptr_ring size",
                               "page_pool_init() caps the ring at 16384"), 1024,
          "page_pool ptr_ring size (page_pool_params.pool_size; 0 means the default 1024)", "driver",
          "pages", "0 to 16384"),
    Param("skb_alloc", _enum("build_skb", "napi_build_skb"), "build_skb",
          "how the driver wraps a received buffer in an skb", "driver"),
    Param("tx_free", _enum("dev_kfree_skb", "napi_consume_skb"), "dev_kfree_skb",
          "how the driver frees completed TX skbs", "driver"),
    Param("tx_clean", _enum("full", "budgeted"), "full",
          "TX ring clean at ring deinit: full, or one budgeted pass that strands the rest (atlantic before patch 1)",
          "driver"),
    Param("xdp", _enum("off", "pass", "tx"), "off", "XDP program: off, XDP_PASS or XDP_TX (MAC-swap reflector)",
          "driver"),
    Param("delivery", _enum("napi", "tasklet", "workqueue"), "napi",
          "where the driver hands RX frames up: a NAPI poll (softirq, GRO possible), a tasklet (softirq, no NAPI: "
          "ath9k's ath_rx_tasklet) or a workqueue (process context: USB and SDIO RX work)", "driver"),
    Param("napi_added", units.parse_bool, True,
          "the driver called netif_napi_add() for its napi_struct (ath10k's USB driver did not until 2022): "
          "without it nothing ever polls the NAPI, and its GRO lists were never initialised", "driver"),
    Param("tasklet_budget", _ranged(units.parse_int, 1, 4096, "a tasklet budget",
                                    "the model's range: ath_rx_tasklet() hard-codes 512 and no kernel knob "
                                    "changes it"), 512,
          "frames one run of the RX tasklet takes before it stops (ath_rx_tasklet: 512)", "driver", "frames",
          "1 to 4096 (the kernel's is fixed at 512)"),
    Param("mac80211_rx", _enum("auto", "ieee80211_rx_napi", "if-napi-registered"), "auto",
          "Wi-Fi: how frames go to mac80211. auto: ieee80211_rx_napi from a NAPI poll, ieee80211_rx from a tasklet, "
          "ieee80211_rx_ni from a workqueue; ieee80211_rx_napi: always with the driver's napi (ath10k v5's hunk); "
          "if-napi-registered: ieee80211_rx_napi only when netif_napi_add() set ar->napi.dev (ath10k v6)", "driver"),
    # --- kernel ----------------------------------------------------------------
    Param("kernel", _kernel_version, "6.19",
          "kernel version: where freed skb heads go and where __alloc_skb() takes them, GRO's frag_list free, "
          "the NAPI skb cache sizes, deferred frees and UDP's free follow the release that changed them (5.12, "
          "5.19, 6.3, 6.5, 6.10, 6.18, 6.19); a later version behaves as 6.19", "kernel", "", "5.4 or later"),
    Param("budget", _ranged(units.parse_int, 1, NAPI_POLL_WEIGHT, "a NAPI budget",
                            "NAPI_POLL_WEIGHT is 64; netif_napi_add_weight() complains above it"), 64,
          "NAPI poll budget (the weight given to netif_napi_add_weight)", "kernel", "frames", "1 to 64"),
    Param("gro", units.parse_bool, True, "GRO on the NAPI instance (ethtool -K gro)", "kernel"),
    Param("gro_normal_batch", _ranged(units.parse_int, 1, 1024, "a batch size",
                                      "the sysctl net.core.gro_normal_batch takes 1 or more"), 8,
          "segments gro_normal_one() collects on napi->rx_list before netif_receive_skb_list_internal() "
          "(net.core.gro_normal_batch)", "kernel", "segments", "1 or more"),
    Param("napi_skb_cache_size", _ranged(units.parse_int, 2, 1024, "a cache size",
                                         "NAPI_SKB_CACHE_SIZE is a compile-time constant of net/core/skbuff.c "
                                         "(64, 128 from v6.19); the model's range around it"), None,
          "NAPI_SKB_CACHE_SIZE (default: from the kernel version, 64 up to v6.18, 128 from v6.19)", "kernel",
          "heads", "2 to 1024 (the kernel's is 64 or 128)"),
    Param("napi_skb_cache_bulk", _ranged(units.parse_int, 1, 512, "a bulk size",
                                         "NAPI_SKB_CACHE_BULK, net/core/skbuff.c: napi_skb_cache_get() refills "
                                         "the empty skb_cache[] with that many heads, so at most its size"), None,
          "NAPI_SKB_CACHE_BULK refill (default: from the kernel version, 16 up to v6.18, 32 from v6.19)", "kernel",
          "heads", "1 to the cache size"),
    Param("napi_skb_cache_free", _ranged(units.parse_int, 1, 512, "a free count",
                                         "NAPI_SKB_CACHE_HALF or NAPI_SKB_CACHE_FREE, net/core/skbuff.c: "
                                         "napi_skb_cache_put() frees that many from a full skb_cache[], so at most "
                                         "its size"), None,
          "heads freed when the NAPI cache is full (default: from the kernel version, NAPI_SKB_CACHE_HALF = 32 "
          "up to v6.18, NAPI_SKB_CACHE_FREE = 32 from v6.19)", "kernel", "heads", "1 to the cache size"),
    Param("dma_debug_all_errors", units.parse_bool, False,
          "CONFIG_DMA_API_DEBUG prints every error (echo 1 > /sys/kernel/debug/dma-api/all_errors); by default "
          "it prints only the first num_errors and counts the rest in error_count", "kernel"),
    Param("dma_debug_num_errors", _ranged(units.parse_int, 0, 1 << 31, "a count",
                                          "show_num_errors is a u32 in kernel/dma/debug.c"), 1,
          "DMA-API errors CONFIG_DMA_API_DEBUG still prints (/sys/kernel/debug/dma-api/num_errors, 1 at boot: "
          "only the first error is printed)", "kernel", "errors", "0 or more"),
    # --- traffic ---------------------------------------------------------------
    Param("traffic", _enum("tcp", "udp"), "tcp", "tcp (ACK-clocked bulk receive) or udp (open loop at `rate`)",
          "traffic"),
    Param("ip", _enum("ipv4", "ipv6"), "ipv4",
          "IP version of the flow: its header (20 or 40 bytes) comes out of each MTU-sized frame's payload "
          "(TCP's MSS at MTU 1500: 1448 over IPv4, 1428 over IPv6, both with timestamps)", "traffic"),
    Param("rate", _ranged(units.parse_rate, 1_000, 400 * 10**9, "a rate",
                          "the model's range; the link (link_bps) caps what arrives"), 1 * 10**9,
          "offered rate for udp; for tcp, the sender's cap", "traffic", "bit/s", "1 kbit/s to 400 Gbit/s"),
    Param("window", _ranged(units.parse_int, 2, 65536, "a window in segments",
                            "the model's range; TCP's own limit is 65535 << TCP_MAX_WSCALE (14) bytes, about "
                            "1 GiB"), 512,
          "TCP sender window in segments", "traffic", "segments", "2 to 65536"),
    Param("forward", units.parse_bool, False,
          "frames are forwarded out another port (routing) instead of consumed by a local socket", "traffic"),
    Param("egress_tx_batch", _ranged(units.parse_int, 1, 4096, "a batch size",
                                     "the model's range: at most a TX ring's worth"), 32,
          "forwarded frames: the egress driver's TX completion frees them this many at a time, in one pass over "
          "its TX ring (an assumption for a driver the model does not run; 1 frees each at once)", "traffic",
          "frames", "1 to 4096"),
]

PARAMS: Final[dict[str, Param]] = {p.name: p for p in _P}


def register(param: Param) -> None:
    """Platform cost fields register themselves here (models/platform.py)."""
    PARAMS[param.name] = param


def parse_value(name: str, value: object) -> Any:
    """Parse one parameter; raises KeyError for unknown names, ValueError for bad values."""
    if name not in PARAMS:
        raise KeyError(name)
    return PARAMS[name].parse(value)


def suggest(name: str) -> str | None:
    """The closest known parameter name, for 'did you mean' hints."""
    import difflib
    hits = difflib.get_close_matches(name, list(PARAMS), n=1, cutoff=0.6)
    return hits[0] if hits else None


def defaults() -> dict[str, Any]:
    return {name: p.default for name, p in PARAMS.items()}


def full(values: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every parameter: the defaults, then `values`; defaults that depend on the platform filled in."""
    from .nic import NICS
    out = defaults()
    out.update(values or {})
    if out["ring_size"] is None:
        out["ring_size"] = NICS[out["platform"]].default_ring
    return out


# The platform profiles' cost fields are parameters too (a lesson may fit one, --set may move it).
def _ns(v: object) -> float:
    return float(units.parse_time(v)) if isinstance(v, str) else units.parse_float(v)


def _register_costs() -> None:
    """Every cost field becomes a parameter, with the range a real machine could have."""
    for name, doc in COST_DOC.items():
        default = getattr(PROFILES["x86-generic"], name)
        unit, limit = "", ""
        parse: Callable[[object], Any]
        if isinstance(default, bool):
            parse = units.parse_bool
        elif name.endswith("_bps"):
            parse = _ranged(units.parse_rate, 1_000, 10**12, "a rate", "more than 0")
            unit, limit = "bit/s", "more than 0"
        elif name.endswith("_ns"):
            parse = _ranged(_ns, 0, 10**9, "a time", "no cost is negative or above a second")
            unit, limit = "ns", "0 to 1 s"
        elif name.endswith("_gbs"):
            lo = 0.0 if name == "swiotlb_copy_gbs" else 0.01
            parse = _ranged(units.parse_float, lo, 1000, "a bandwidth in GB/s", "more than 0")
            unit, limit = "GB/s", f"{lo:g} to 1000"
        elif name == "sdio_duty":
            parse = _ranged(units.parse_float, 0.05, 1.0, "a share", "of the time the bus could be busy")
            limit = "0.05 to 1"
        elif isinstance(default, int):
            parse = _ranged(units.parse_int, 1, 10**12, "a whole number", "more than 0")
        else:
            parse = units.parse_float
        register(Param(name, parse, None, doc + " (default: from the platform profile)", "platform",
                                     unit, limit))


_register_costs()


def check(prm: dict[str, Any]) -> list[tuple[str, str]]:
    """Every cross-parameter problem of a full parameter dict (models.scenario_checks), as
    (parameter, message)."""
    return scenario_checks.check(prm, {name: p.default for name, p in PARAMS.items()})
