"""The scenario parameters, one flat namespace with documented names.

A lesson's `scenario` and `variants`, the CLI's `--set KEY=VALUE` and the
model all use these names, so a value a person writes (`ram=8GiB`,
`iommu=strict`, `dma_mask=36`) means the same everywhere. Platform costs
(`models/platform.py`) are parameters too: a lesson that fits one to a
published figure sets it by the same name it would use on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import units


@dataclass(frozen=True)
class Param:
    name: str
    parse: Callable[[object], Any]
    default: Any
    doc: str
    group: str = "scenario"


def _enum(*choices: str) -> Callable[[object], str]:
    def parse(value: object) -> str:
        text = str(value).strip().lower() if not isinstance(value, bool) else ""
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {value!r}")
        return text
    return parse


def _ranged(parse: Callable[[object], Any], lo: float, hi: float, what: str) -> Callable[[object], Any]:
    def check(value: object) -> Any:
        v = parse(value)
        if not lo <= v <= hi:
            raise ValueError(f"expected {what} between {lo:g} and {hi:g}, got {value!r}")
        return v
    return check


def _mask(value: object) -> int:
    return _ranged(units.parse_int, 24, 64, "a mask width in bits")(value)


_P = [
    # --- machine ---------------------------------------------------------------
    Param("platform", _enum("x86-generic", "x86-wcn6855", "ppc464-apm82181",
                            "mips74kc-bcm4716", "x86-strix-halo-tb", "arm-qca6174-sdio"),
          "x86-generic", "platform profile: CPU, memory and bus costs (models/platform.py)", "machine"),
    Param("ram", _ranged(units.parse_size, 64 << 20, 1 << 42, "RAM"), 16 << 30,
          "installed RAM; on x86 memory above 3 GiB is remapped above 4 GiB (the PCI hole)", "machine"),
    Param("page_placement", _enum("bottom-up", "top-down"), "bottom-up",
          "where the page allocator hands out fresh pages within a zone: bottom-up (a freshly booted v5.10+ "
          "kernel: boot pages go to the tail of the free lists) or top-down (kernels before v5.10)", "machine"),
    Param("iommu", _enum("off", "passthrough", "lazy", "strict"), "off",
          "IOMMU mode: off, passthrough (identity), lazy (flush queue) or strict", "machine"),
    Param("untrusted", units.parse_bool, False,
          "device sits behind an external-facing port (Thunderbolt): forces strict and bounces sub-page buffers", "machine"),
    Param("swiotlb", _enum("auto", "off", "force"), "auto",
          "SWIOTLB: auto (x86: enabled when RAM reaches above 4 GiB), off, or force (bounce everything)", "machine"),
    Param("swiotlb_size", _ranged(units.parse_size, 1 << 20, 1 << 32, "a SWIOTLB size"), 64 << 20,
          "SWIOTLB pool size (IO_TLB_DEFAULT_SIZE = 64 MiB)", "machine"),
    # --- device ----------------------------------------------------------------
    Param("bus", _enum("pcie", "sdio", "usb"), "pcie", "bus the NIC sits on", "device"),
    Param("dma_mask", _mask, 64, "streaming DMA mask in bits (dma_set_mask)", "device"),
    Param("coherent_mask", _mask, 64, "coherent DMA mask in bits (dma_set_coherent_mask)", "device"),
    Param("ring_size", _ranged(units.parse_int, 2, 8192, "a ring size"), 256, "RX descriptors", "device"),
    Param("tx_ring_size", _ranged(units.parse_int, 2, 8192, "a ring size"), 256, "TX descriptors", "device"),
    Param("mtu", _ranged(units.parse_int, 576, 9216, "an MTU"), 1500, "MTU in bytes", "device"),
    Param("rx_usecs", units.parse_time, 0,
          "interrupt coalescing: the RX interrupt fires this long after the first frame (ethtool -C rx-usecs); "
          "for Wi-Fi it stands for an A-MPDU arriving as one burst", "device"),
    Param("bundle", _ranged(units.parse_int, 1, 128, "a bundle size"), 1,
          "SDIO RX bundle: frames the host reads in one transfer (HTC_HOST_MAX_MSG_PER_RX_BUNDLE)", "device"),
    # --- driver ----------------------------------------------------------------
    Param("strategy", _enum("per-frame", "page-flip", "page-pool"), "per-frame",
          "RX buffer strategy: per-frame skb alloc + dma_map_single, page-flip reuse, or page_pool fragments", "driver"),
    Param("rx_buf_size", _ranged(units.parse_size, 256, 65536, "a buffer size"), 2048,
          "bytes the driver maps per RX buffer", "driver"),
    Param("dma_dir", _enum("from_device", "bidirectional"), "from_device",
          "DMA direction of RX mappings (ath9k EDMA chips need bidirectional)", "driver"),
    Param("page_order", _ranged(units.parse_int, 0, 5, "a page order"), 0,
          "order of RX pages (page-flip and page-pool strategies)", "driver"),
    Param("frag_size", _ranged(units.parse_size, 0, 65536, "a fragment size"), 0,
          "page_pool fragment size (0: rx_buf_size rounded to the cache line)", "driver"),
    Param("pool_size", _ranged(units.parse_int, 0, 16384, "a ptr_ring size"), 1024,
          "page_pool ptr_ring size (page_pool_params.pool_size; 0 means the default 1024)", "driver"),
    Param("skb_alloc", _enum("build_skb", "napi_build_skb"), "build_skb",
          "how the driver wraps a received buffer in an skb", "driver"),
    Param("tx_free", _enum("dev_kfree_skb", "napi_consume_skb"), "dev_kfree_skb",
          "how the driver frees completed TX skbs", "driver"),
    Param("tx_clean", _enum("full", "budgeted"), "full",
          "TX ring clean at ring deinit: full, or one budgeted pass that strands the rest (atlantic before patch 1)", "driver"),
    Param("xdp", _enum("off", "pass", "tx"), "off", "XDP program: off, XDP_PASS or XDP_TX (MAC-swap reflector)", "driver"),
    Param("napi", units.parse_bool, True,
          "deliver from a NAPI poll (true) or per frame from process context (false: ieee80211_rx_ni)", "driver"),
    Param("napi_fallback", units.parse_bool, True,
          "ath10k: use ieee80211_rx_napi only when ar->napi.dev is set, else ieee80211_rx_ni", "driver"),
    # --- kernel ----------------------------------------------------------------
    Param("budget", _ranged(units.parse_int, 1, 256, "a NAPI budget"), 64, "NAPI poll budget (NAPI_POLL_WEIGHT = 64)", "kernel"),
    Param("gro", units.parse_bool, True, "GRO on the NAPI instance (ethtool -K gro)", "kernel"),
    Param("napi_skb_cache_size", _ranged(units.parse_int, 2, 1024, "a cache size"), 64,
          "NAPI_SKB_CACHE_SIZE (64 up to v6.18; 128 from v6.19)", "kernel"),
    Param("napi_skb_cache_bulk", _ranged(units.parse_int, 1, 512, "a bulk size"), 16,
          "NAPI_SKB_CACHE_BULK refill (16 up to v6.18; 32 from v6.19)", "kernel"),
    Param("napi_skb_cache_free", _ranged(units.parse_int, 1, 512, "a free count"), 32,
          "heads freed when the NAPI cache is full (NAPI_SKB_CACHE_HALF = 32 up to v6.18; NAPI_SKB_CACHE_FREE = 32 from v6.19)", "kernel"),
    # --- traffic ---------------------------------------------------------------
    Param("traffic", _enum("tcp", "udp"), "tcp", "tcp (ACK-clocked bulk receive) or udp (open loop at `rate`)", "traffic"),
    Param("rate", _ranged(units.parse_rate, 1_000, 400 * 10**9, "a rate"), 1 * 10**9,
          "offered rate for udp; for tcp, the sender's cap", "traffic"),
    Param("window", _ranged(units.parse_int, 2, 65536, "a window in segments"), 512,
          "TCP sender window in segments", "traffic"),
    Param("forward", units.parse_bool, False,
          "frames are forwarded out another port (routing) instead of consumed by a local socket", "traffic"),
]

PARAMS: dict[str, Param] = {p.name: p for p in _P}


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


# Platform cost fields register themselves as parameters on import; done here so
# that anyone holding PARAMS sees the whole namespace.
from . import platform as _platform  # noqa: E402,F401
