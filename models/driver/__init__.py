"""The driver API: the kernel's functions for an RX path, over the model's parts.

A driver is a class (`NetDriver`) with the hooks a network driver has: probe
(DMA masks), open (page_pool, RX ring fill), the NAPI poll with its budget
(TX completion, RX, napi_complete_done) and stop. It calls the functions below,
named and behaving as the kernel's; each one's docstring names the kernel
file and function it stands for. `from models.driver import *` is what a
driver file starts with.
"""

from .. import native as _native

if _native.MODE == "compiled" and (_native.COMPILED / "driver").is_dir():
    # the compiled build of the API's functions (hatch_build.py HOT), as models/__init__.py does for models
    __path__ = [str(_native.COMPILED / "driver"), *__path__]

from .dma_mapping import (
    DMA_BIDIRECTIONAL,
    DMA_BIT_MASK,
    DMA_FROM_DEVICE,
    DMA_TO_DEVICE,
    EIO,
    ENOMEM,
    Device,
    dma_map_page,
    dma_map_single,
    dma_mapping_error,
    dma_set_coherent_mask,
    dma_set_mask,
    dma_set_mask_and_coherent,
    dma_sync_single_for_cpu,
    dma_sync_single_for_device,
    dma_sync_single_range_for_cpu,
    dma_sync_single_range_for_device,
    dma_unmap_page,
    dma_unmap_single,
)
from .host import DMA_MAPPING_ERROR, DriverBug
from .napi import (
    Napi,
    RxRing,
    TxRing,
    dev_kfree_skb_any,
    driver_irq_enable,
    ieee80211_rx_napi,
    napi_complete_done,
    napi_consume_skb,
    napi_gro_receive,
    netif_receive_skb,
)
from .netdev import NetDriver
from .page_pool import (
    PP_FLAG_DMA_MAP,
    PP_FLAG_DMA_SYNC_DEV,
    PagePoolParams,
    page_pool_create,
    page_pool_destroy,
    page_pool_dev_alloc_frag,
    page_pool_get_dma_addr,
    page_pool_put_full_page,
)
from .skbuff import (
    NET_SKB_PAD,
    SKB_DATA_ALIGN,
    SKB_SHINFO_SIZE,
    build_skb,
    kmalloc,
    napi_alloc_skb,
    napi_build_skb,
    netdev_alloc_frag,
    netdev_alloc_skb,
    netdev_rx_dropped,
    skb_add_rx_frag,
    skb_free_frag,
    skb_mark_for_recycle,
    skb_put,
)

__all__ = [
    "DMA_BIDIRECTIONAL", "DMA_BIT_MASK", "DMA_FROM_DEVICE", "DMA_MAPPING_ERROR", "DMA_TO_DEVICE", "EIO", "ENOMEM",
    "Device", "DriverBug", "Napi", "NetDriver", "PP_FLAG_DMA_MAP", "PP_FLAG_DMA_SYNC_DEV",
    "PagePoolParams",
    "RxRing", "TxRing", "NET_SKB_PAD", "SKB_DATA_ALIGN", "SKB_SHINFO_SIZE",
    "build_skb", "dev_kfree_skb_any", "dma_map_page", "dma_map_single", "dma_mapping_error",
    "dma_set_coherent_mask", "dma_set_mask", "dma_set_mask_and_coherent", "dma_sync_single_for_cpu",
    "dma_sync_single_for_device", "dma_sync_single_range_for_cpu", "dma_sync_single_range_for_device",
    "dma_unmap_page", "dma_unmap_single", "driver_irq_enable",
    "ieee80211_rx_napi", "kmalloc", "napi_alloc_skb", "napi_build_skb",
    "napi_complete_done", "napi_consume_skb", "napi_gro_receive", "netdev_alloc_frag", "netdev_alloc_skb",
    "netdev_rx_dropped", "netif_receive_skb", "page_pool_create", "page_pool_destroy",
    "page_pool_dev_alloc_frag", "page_pool_get_dma_addr", "page_pool_put_full_page", "skb_add_rx_frag",
    "skb_free_frag", "skb_mark_for_recycle", "skb_put",
]
