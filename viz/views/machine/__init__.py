"""The followed object and its lifecycle machine: the machine view, its strip, and the passport.

- `view`: the whole machine drawn as boxes and arrows, the state and the edge
  just taken lit (`MachineView`, the view lessons call "machine");
- `strip`: the same object's last move and next step in four lines, always on
  screen under the views (`MachineStrip`);
- `passport`: who the object is, where its data lives, who owns it, what
  happened to it (`PassportView`, the view lessons call "passport");
- `layout`, `route`, `paint`: where a machine's boxes and arrows go at a
  given size, how the arrows find their way, and how the drawing is painted;
  `local`: the compact drawing where the whole machine does not fit.

All of them draw the machine records of the read API (`ViewState.read.rx()`,
models/records/machine.py), never the model.
"""

from __future__ import annotations

from .passport import PassportView
from .strip import MachineStrip
from .view import MachineView

__all__ = ["MachineStrip", "MachineView", "PassportView"]
