"""Parameters the kernel or the bus would not have: one line each, naming the limit and its source."""

from __future__ import annotations

import pytest

from models import params as P
from models.scenario_checks import PCIE_ONLY, ScenarioError
from models.sim import Sim

SDIO = {"bus": "sdio", "bundle": 32, "platform": "arm-qca6174-sdio"}
USB = {"bus": "usb", "platform": "arm-qca6174-sdio"}


def problems(values: dict) -> dict[str, str]:
    return dict(P.check(P.full(values)))


# ---------------------------------------------------------------------------- PCIe-only on SDIO/USB
PCIE_SETTINGS = {"ring_size": 512, "strategy": "page-pool", "rx_alloc": "skb", "rx_build": "napi_alloc_skb",
                 "rx_buf_size": 4096, "dma_dir": "bidirectional", "page_order": 1, "frag_size": 2048,
                 "pool_size": 256, "xdp": "pass"}


def test_every_pcie_only_parameter_has_a_case():
    assert set(PCIE_SETTINGS) == set(PCIE_ONLY)


@pytest.mark.parametrize("bus", [SDIO, USB], ids=["sdio", "usb"])
@pytest.mark.parametrize("name", sorted(PCIE_SETTINGS))
def test_a_pcie_ring_parameter_on_sdio_or_usb_is_refused_in_one_line(bus, name):
    found = problems({**bus, name: PCIE_SETTINGS[name]})
    assert name in found, found
    msg = found[name]
    assert "\n" not in msg and f"{name}={PCIE_SETTINGS[name]}" in msg
    assert f"bus={bus['bus']}" in msg and "PCIe descriptor-ring setting" in msg
    assert ("ath10k_sdio_mbox_rx_alloc()" if bus["bus"] == "sdio" else "ath10k_usb_post_recv_transfers()") in msg
    with pytest.raises(ScenarioError):
        Sim({**bus, name: PCIE_SETTINGS[name]})


def test_the_defaults_on_sdio_and_usb_are_not_refused():
    assert problems(SDIO) == {} and problems(USB) == {}
    assert problems({**SDIO, "ring_size": 256}) == {}          # the SDIO profile's own default


# ---------------------------------------------------------------------------- SDIO-only on PCIe
@pytest.mark.parametrize("name,value", [("sdio_duty", 0.5), ("sdio_xfer_ns", 10_000.0),
                                        ("sdio_bps", 400 * 10**6)])
def test_an_sdio_bus_cost_on_pcie_is_refused(name, value):
    found = problems({name: value})
    assert "cost of the SDIO bus (CMD53 transfers)" in found[name] and "bus=pcie" in found[name]
    assert name not in problems({**SDIO, name: value})


def test_a_bundle_on_pcie_names_htc():
    msg = problems({"bundle": 8})["bundle"]
    assert "bundle 8" in msg and "HTC_HOST_MAX_MSG_PER_RX_BUNDLE" in msg and "bus=pcie" in msg


# ---------------------------------------------------------------------------- kernel sources of limits
def test_a_frag_buffer_must_fit_the_page_frag_cache():
    assert problems({"rx_alloc": "frag", "rx_buf_size": 32384, "mtu": 9000}) == {}
    msg = problems({"rx_alloc": "frag", "rx_buf_size": 32385, "mtu": 9000})["rx_buf_size"]
    assert "PAGE_FRAG_CACHE_MAX_SIZE (32768 bytes)" in msg and "netdev_alloc_frag()" in msg
    assert "rx_buf_size" not in problems({"rx_alloc": "kmalloc", "rx_buf_size": 40000, "mtu": 9000})


@pytest.mark.parametrize("name,value,source", [
    ("rx_buf_size", "128KiB", "iphdr.tot_len is 16 bits"),
    ("tasklet_budget", 5000, "ath_rx_tasklet() hard-codes 512"),
    ("napi_skb_cache_size", 2048, "NAPI_SKB_CACHE_SIZE is a compile-time constant of net/core/skbuff.c"),
    ("napi_skb_cache_bulk", 1000, "NAPI_SKB_CACHE_BULK, net/core/skbuff.c"),
    ("napi_skb_cache_free", 1000, "NAPI_SKB_CACHE_HALF or NAPI_SKB_CACHE_FREE, net/core/skbuff.c"),
    ("mtu", 100, "ETH_MIN_MTU of 68"),
    ("ram", "8TiB", "MAX_PHYSMEM_BITS 46"),
    ("window", 100_000, "TCP_MAX_WSCALE"),
])
def test_a_value_out_of_range_names_where_the_limit_comes_from(name, value, source):
    with pytest.raises(ValueError) as e:
        P.parse_value(name, value)
    assert source in str(e.value) and "\n" not in str(e.value)


def test_no_limit_is_only_the_model_s_range_without_a_reason():
    for p in P.PARAMS.values():
        if p.group == "platform":
            continue
        try:
            p.parse(10**15)
        except (ValueError, TypeError) as e:
            text = str(e)
            if "the model's range" in text:
                assert "the model's range)" not in text, f"{p.name}: {text}"
