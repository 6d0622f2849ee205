"""The followed object's passport: who it is, where its data lives, who owns it, and what happened to it.

    buf#49 · RX buffer from netdev_alloc_frag · rx_buffer
    state     in-skb, in skb#49, held by GRO          owner  CPU
    phys      0x100020000 (2 048 bytes)   DMA  0x100020000 = phys, unmapped   bounce  none
    refs      pp_ref_count 0                          tied to  map#49
    history   (rebuilt from the trace: the model does not record transitions yet)
      rx_frame: device-owned → filled at 295.296 µs
      dma_unmap_single: filled → unmapped at 316.536 µs
    ▶ build_skb: unmapped → in-skb at 316.626 µs

Everything comes from the passport record (`ViewState.read.rx()`, the same
followed object the machine view lights). The fields that do not apply (no mapping, no
refcount a kernel would show) are left out rather than shown empty, and the
newest transitions are kept when the history does not fit.
"""

from __future__ import annotations

from rich.text import Text

from models.read import Passport, Transition

from .. import register
from ..base import ModelView, wrap_phrases
from .view import fmt_t


def fmt_addr(a: int) -> str:
    return f"{a:#x}"


def fmt_bytes(n: int) -> str:
    return f"{n:,} bytes"


def history_line(t: Transition, width: int = 1 << 30) -> str:
    """A transition in kernel words: "dma_map_single: allocated → mapped at 12.345 µs".

    Without its time when the line would not fit otherwise: a cut "at 172.25…" says nothing.
    """
    line = f"{t.call}: {t.src} → {t.dst}"
    timed = f"{line} at {fmt_t(t.t_ns)}"
    return timed if len(timed) <= width else line


@register
class PassportView(ModelView):
    KEY = "passport"
    TITLE = "Passport"

    COMPONENT_CLASSES = {f"passportview--{n}" for n in ("id", "label", "value", "lit", "muted", "state")}
    DEFAULT_CSS = """
    PassportView > .passportview--id { color: $text-accent; text-style: bold; }
    PassportView > .passportview--label { color: $foreground-muted; }
    PassportView > .passportview--value { color: $foreground; }
    PassportView > .passportview--state { color: $accent; text-style: bold reverse; }
    PassportView > .passportview--lit { color: $text-accent; text-style: bold; }
    PassportView > .passportview--muted { color: $foreground-muted; }
    """

    def build_lines(self, width: int, height: int) -> list[Text]:
        st = self.st
        p = st.read.rx(st.follow, None, st.earlier).passport
        if p is None:
            return [self._text(("no object to follow yet", "muted"))]
        return self._passport(p, width, height)

    def _field(self, label: str, *value: tuple[str, str] | str) -> Text:
        return self._text((f"{label} ", "label"), *value)

    def _passport(self, p: Passport, width: int, height: int) -> list[Text]:  # noqa: C901 (older than the complexity rule)
        head = self._text((p.obj, "id"), (f" · {p.kind}", "value"), (f" · {p.machine}", "muted"))
        if head.cell_len > width:
            head = self._text((p.obj, "id"), (f" · {p.kind}", "value"))
        fields = [self._field("state", (f" {p.state or '?'} ", "state"), (f" {p.where}" if p.where else "", "muted"))]
        if p.owner:
            fields.append(self._field("owner", p.owner))
        if p.phys is not None:
            fields.append(self._field("phys", fmt_addr(p.phys) + (f" ({fmt_bytes(p.size)})" if p.size else "")))
        if p.dma is not None:
            how = " (IOVA)" if p.iova else " = phys" if p.dma == p.phys else " (bus address)"
            fields.append(self._field("DMA", f"{fmt_addr(p.dma)}{how}", ("" if p.mapped else ", unmapped", "muted")))
        if p.dma is not None or p.bounce_slot is not None:
            fields.append(self._field("bounce", f"SWIOTLB slot {p.bounce_slot} at {fmt_addr(p.bounce_phys)}"
                                      if p.bounce_slot is not None and p.bounce_phys is not None else "none"))
        for name, n in p.refs:
            fields.append(self._field(name, str(n)))
        if p.related:
            fields.append(self._field("tied to", " · ".join(p.related)))
        lines = [head] + wrap_phrases(fields, width, max(1, height - 3), sep="   ")
        room = height - len(lines) - 1
        if room <= 0:
            return lines[:height]
        note = "" if p.exact else " (rebuilt from the trace; named steps are guessed)"
        lines.append(self._text(("history", "label"), (note if len(note) + 7 <= width else "", "muted")))
        hist = list(p.history)
        if not hist:
            lines.append(self._text(("  nothing in the trace yet", "muted")))
            return lines
        shown = hist[-room:]
        if len(hist) > room:
            shown = hist[-(room - 1):] if room > 1 else hist[-1:]
            lines.append(self._text((f"  … {len(hist) - len(shown)} earlier", "muted")))
        for t in shown:
            last = t is hist[-1]
            lines.append(self._text(("▶ " if last else "  ", "lit"),
                                    (history_line(t, width - 2), "lit" if last else "value")))
        return lines
