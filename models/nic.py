"""The NIC behind each platform profile: the limits its hardware and driver put on a scenario.

A ring size or an MTU is not a free number: the driver's ethtool handlers
clamp or refuse what the hardware cannot hold. Each profile's NIC records
those limits with where they come from, so `--set ring_size=300` on the
atlantic profile gets the same answer `ethtool -G` would give, in one line.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Nic:
    name: str
    ring_min: int              # RX descriptors the driver accepts
    ring_max: int
    ring_step: int             # the count must be a multiple of this
    ring_source: str
    mtu_max: int
    mtu_source: str
    ring_default: int = 0      # what the driver sets up when nobody asks (0: ring_min)
    # the driver's own call that unmasks its RX interrupt after napi_complete_done() (or at the
    # end of its tasklet); "" where the poll never touches the hardware (ath10k's SDIO NAPI)
    irq_unmask: str = "irq_unmask"

    @property
    def default_ring(self) -> int:
        return self.ring_default or self.ring_min

    def ring_problem(self, n: int) -> str:
        """'' when n descriptors are possible, else why not (one sentence)."""
        if self.ring_min == self.ring_max:
            if n != self.ring_min:
                return f"{self.name} has a fixed RX ring of {self.ring_min} ({self.ring_source})"
            return ""
        if not self.ring_min <= n <= self.ring_max or n % self.ring_step:
            step = f" in multiples of {self.ring_step}" if self.ring_step > 1 else ""
            return (f"{self.name} takes {self.ring_min} to {self.ring_max} RX descriptors{step} "
                    f"({self.ring_source})")
        return ""


# The 802.11 MTU mac80211 gives a netdev by default (IEEE80211_MAX_DATA_LEN).
_WIFI_MTU = (2304, "mac80211 sets max_mtu to IEEE80211_MAX_DATA_LEN, 2304")

NICS: dict[str, Nic] = {
    "x86-generic": Nic("a generic 10GbE NIC (ixgbe-like)", 64, 4096, 8,
                       "ixgbe: IXGBE_MIN_RXD 64, IXGBE_MAX_RXD 4096, a multiple of 8", 9710,
                       "ixgbe: a 9728-byte jumbo frame", 256),
    # ath11k_pcic_ext_interrupt_handler() disables the group's IRQs; the poll enables them again
    "x86-wcn6855": Nic("ath11k (WCN6855)", 4096, 4096, 1, "DP_RXDMA_BUF_RING_SIZE is 4096", *_WIFI_MTU,
                       irq_unmask="enable_irq"),
    # ath_isr() calls ath9k_hw_kill_interrupts(); ath9k_tasklet() ends with ath9k_hw_resume_interrupts()
    "ppc464-apm82181": Nic("ath9k (AR9300 EDMA)", 512, 512, 1, "ATH_RXBUF is 512 buffers", *_WIFI_MTU,
                           irq_unmask="ath9k_hw_resume_interrupts"),
    "mips74kc-bcm4716": Nic("bgmac (BCM4716)", 512, 512, 1, "BGMAC_RX_RING_SLOTS is 512", 1532,
                            "bgmac max_mtu since the 1536-byte frame limit", irq_unmask="bgmac_chip_intrs_on"),
    # aq_vec_poll(): self->aq_hw_ops->hw_irq_enable(), hw_atl_b0_hw_irq_enable() on the AQC100
    "x86-strix-halo-tb": Nic("atlantic (AQC100)", 40, 8184, 8,
                             "aq_ethtool_set_ringparam() clamps to 40..8184 and rounds up to a multiple of 8",
                             16334, "AQ_CFG_MTU_DEF hardware maximum", 2048, irq_unmask="hw_atl_b0_hw_irq_enable"),
    # ath10k_sdio_napi_poll() never touches the hardware: the SDIO IRQ thread reads the mailbox
    "arm-qca6174-sdio": Nic("ath10k SDIO (QCA6174)", 8, 8192, 1, "no descriptor ring on SDIO", *_WIFI_MTU, 256,
                            irq_unmask=""),
}
