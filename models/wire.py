"""The sender on the other end of the wire (or the air): when each frame arrives.

- udp: open loop, one frame every (mtu + 38) * 8 / rate seconds (38 bytes of
  Ethernet header, FCS, preamble and inter-frame gap), whatever happens to it.
- tcp: a bulk sender limited by its window. Segment k may leave the sender
  once segment k - window has been acknowledged, and the receiver's socket
  buffer (unread data, `rcvbuf` segments) bounds it too. An ACK sent at time t
  lets new segments arrive from t + rtt on. That is ACK clocking, so the
  receiver's ACK policy and CPU speed shape the arrival pattern, as on a real
  link.

Arrivals are computed lazily: the device asks for every arrival up to the
CPU's current time, so the model needs no event per frame on the wire.
Simplification: a dropped TCP segment is resent one RTT later; there is no
congestion control (the window is fixed).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from mypy_extensions import mypyc_attr

ETH_OVERHEAD: Final = 38          # header 14 + FCS 4 + preamble 8 + IFG 12
TCP_IP_HEADERS: Final = 52        # IPv4 20 + TCP 20 + timestamps 12
IP_HEADER: Final = {"ipv4": 20, "ipv6": 40}
L4_HEADER: Final = {"tcp": 20 + 12, "udp": 8}     # TCP with the timestamp option; UDP


def headers(traffic: str, ip: str) -> int:
    """The IP and transport headers in front of each segment's payload (the MSS is the MTU less them)."""
    return IP_HEADER[ip] + L4_HEADER[traffic]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Wire:
    __slots__ = ("tcp", "mtu", "mss", "hdrs", "ser_ns", "rtt", "window", "rcvbuf", "sent", "acked", "read",
                 "next_t", "openings", "limit_seen", "run_t")

    def __init__(self, traffic: str, mtu: int, link_bps: int, rate_bps: int, rtt_ns: int,
                 window: int, rcvbuf: int, ip: str = "ipv4") -> None:
        self.tcp = traffic == "tcp"
        self.mtu = mtu
        self.hdrs = headers(traffic, ip)
        self.mss = mtu - self.hdrs
        bps = min(link_bps, rate_bps)
        # one frame's time on the wire, in the model's picoseconds
        self.ser_ns = int(round((mtu + ETH_OVERHEAD) * 8 * 10**12 / bps))
        self.rtt = rtt_ns * 1000
        self.window = window
        self.rcvbuf = rcvbuf
        self.sent = 0              # segments that have left the sender
        self.acked = 0             # highest cumulative ACK the sender has seen
        self.read = 0              # segments the application has read
        self.next_t = 0            # earliest time the next frame can arrive (ps)
        self.run_t = 0             # when the first frame take_run() took last arrived (ps)
        self.openings: deque[tuple[int, int]] = deque()   # (time, new ack level) in flight back

    def _limit(self) -> int:
        return min(self.acked + self.window, self.read + self.rcvbuf)

    def next_arrival(self, now: int) -> int | None:
        """Time of the next arrival, or None while the sender is blocked."""
        sent = self.sent
        if not self.tcp or (sent < self.acked + self.window and sent < self.read + self.rcvbuf):
            return self.next_t       # the common case: the window is open
        while self.sent >= self._limit():
            if not self.openings:
                return None
            t_open, level = self.openings.popleft()
            if level > self.acked:
                self.acked = level
            if t_open > self.next_t:
                self.next_t = t_open
        return self.next_t

    def take_by(self, t: int) -> int:
        """The next frame, if it has arrived by t: taken off the wire, its arrival time returned; -1 if none.

        -1 rather than None: compiled, an `int | None` is a boxed int, allocated for each frame."""
        sent = self.sent
        if not self.tcp or (sent < self.acked + self.window and sent < self.read + self.rcvbuf):
            ta = self.next_t      # the window is open (next_arrival's common case, without the call)
        else:
            nxt = self.next_arrival(t)
            if nxt is None:
                return -1
            ta = nxt
        if ta > t:
            return -1
        self.sent += 1
        self.next_t = ta + self.ser_ns
        return ta

    def take_run(self, t: int, most: int) -> int:
        """Up to `most` frames that have arrived by t while the window stays open, taken off the wire
        at once: how many (0: none has arrived, or the sender is blocked). The first arrived at run_t,
        the others ser_ns apart. The same frames, at the same times, as take_by() one at a time."""
        sent = self.sent
        if self.tcp and not (sent < self.acked + self.window and sent < self.read + self.rcvbuf):
            if self.next_arrival(t) is None:      # blocked: the ACKs in flight may open it
                return 0
        ta = self.next_t
        if ta > t:
            return 0
        ser = self.ser_ns
        nxt = ta + ser
        n = 1
        if nxt <= t and most > 1:               # more than one has arrived: a division only then
            n = (t - ta) // ser + 1
            if n > most:
                n = most
            if self.tcp:                        # as many as the window lets through
                room = self.acked + self.window - sent
                if n > room:
                    n = room
                room = self.read + self.rcvbuf - sent
                if n > room:
                    n = room
            nxt = ta + n * ser
        self.sent += n
        self.next_t = nxt
        self.run_t = ta
        return n

    def on_ack(self, t: int, level: int) -> None:
        self.openings.append((t + self.rtt, level))

    def on_read(self, segments: int) -> None:
        self.read += segments

    def on_drop(self) -> None:
        """A TCP segment was lost at the NIC: it goes again (simplified retransmit)."""
        if self.tcp:
            self.sent -= 1
