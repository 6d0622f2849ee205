"""Step snapshots kept frozen (models/step_snapshot.py Snapshot, Thawed) and what reading them leaves behind.

A lesson step's variants are stored as pickles and thawed when first read: a
jump thaws only what it shows, and a thawed variant is the same object every
time (whichever thread thawed it). Copies turn the cyclic collector off while
they run, from the player's worker and its UI thread at once: it must come
back on. A frame stopped at a call is a throwaway model: once the player
drops it, it must be freed (the thawed snapshots are frozen out of the
collector's walks, and nothing short-lived may be frozen with them).
"""

from __future__ import annotations

import gc
import sys
import threading

from shipped import shipped_lesson

from models.replay import LessonRun
from models.sim import Sim
from models.snapshot import freeze, thaw
from viz.session import Session


def test_a_jump_thaws_only_the_variant_it_reads_and_keeps_it():
    run = LessonRun(shipped_lesson("atlantic-page-pool"))
    sims, _ = run.snapshot(3)
    assert sims._got == {}                               # nothing thawed on the way, nor here
    shown = run.shown(3)
    sim = sims[shown]
    assert list(sims._got) == [shown] and sims[shown] is sim
    assert run.stored(3).seq[shown] == sim.rec.seq       # the figures kept beside the blobs
    assert run.stored(3).cnt[shown] == list(sim.rec.cnt)
    fresh = run.fresh(3, shown)
    assert fresh is not sim and fresh.rec.cnt == sim.rec.cnt


def test_two_threads_thawing_one_variant_get_the_same_object():
    run = LessonRun(shipped_lesson("rx-basics"))
    sims, _ = run.snapshot(2)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(sims["gro"])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(g is got[0] for g in got) and sims["gro"] is got[0]


def test_copies_in_two_threads_leave_the_collector_on():
    blob = freeze({"a": list(range(50))})         # small: most of a copy is turning the collector off and on
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)          # switch threads as often as possible: inside the copies
    try:
        def copy() -> None:
            for _ in range(30_000):
                thaw(blob)

        threads = [threading.Thread(target=copy) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(before)
    assert gc.isenabled()


def test_frames_stopped_at_a_call_are_freed_once_dropped():
    session = Session(shipped_lesson("rx-basics"))
    k = next(k for k in range(1, 15) if (lambda f: f.calls[f.shown][1] - f.calls[f.shown][0] > 10)
             (session.frame_at(k)))
    shown = session.frame_at(k).shown
    first, last = session.frame_at(k).calls[shown]

    def sims() -> int:
        # Counted, not watched with weakref: the compiled model's classes take no weak references.
        gc.collect()
        return sum(type(o) is Sim for o in gc.get_objects())

    session.frame_at(k, shown, first)     # the first stop thaws what the others share
    before = sims()
    for seq in range(first, first + 8):
        frame = session.frame_at(k, shown, seq)
        assert frame.sims[shown] is not None
        del frame
    assert sims() == before


def _records() -> list[type]:
    """Every model class that pickles itself as a tuple of its slots, from the Python sources.

    Loaded from the .py files in both builds: whether __getstate__ names every slot is a
    property of the source (the compiled build runs the same source, but its typed
    attributes would not take the marker values below).
    """
    import ast
    import importlib.util
    import sys

    import models.native
    found = []
    for path in sorted(models.native.HERE.glob("*.py")):
        classes = [node.name for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
                   and any(isinstance(f, ast.FunctionDef) and f.name == "__getstate__" for f in node.body)]
        if not classes:
            continue
        name = f"models._source_{path.stem}"        # inside the package: its relative imports resolve
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        mod = sys.modules[name] = importlib.util.module_from_spec(spec)    # pickle finds the class by name
        spec.loader.exec_module(mod)
        found += [getattr(mod, c) for c in classes]
    return found


def test_records_that_pickle_as_tuples_keep_every_slot():
    # A slot added to a record but not to its __getstate__ would be lost by every snapshot.
    records = _records()
    assert {c.__name__ for c in records} >= {"Buf", "Page", "Mapping", "Tracked", "Head", "Skb"}
    for cls in records:
        obj = cls.__new__(cls)
        # a base's slots too (Stateful.st); a compiled base lists its attributes in __mypyc_attrs__
        slots = list(dict.fromkeys(n for k in reversed(cls.__mro__)
                                   for n in k.__dict__.get("__slots__") or k.__dict__.get("__mypyc_attrs__", ())))
        for i, name in enumerate(slots):
            try:
                setattr(obj, name, [i, len(name)])      # a list of ints: what the Recorder's counters hold too
            except TypeError:                           # a compiled base's typed attribute (st: int)
                setattr(obj, name, 1000 + i)
        copy = thaw(freeze(obj))
        assert type(copy) is cls
        assert [plain(getattr(copy, n)) for n in slots] == [getattr(obj, n) for n in slots], cls


def plain(value: object) -> object:
    """A native array (compiled: the ring's `vec[i64]`, which a snapshot carries as a list and restores
    as an array again) as the list it holds; anything else as it is."""
    return list(value) if type(value).__name__.startswith("vec[") else value


def test_a_snapshot_runs_on_exactly_as_the_model_it_was_taken_from():
    from models.sim import Sim
    lesson = shipped_lesson("ath11k-36bit-dma-mask")
    sim = Sim(lesson.params_for("before"), faults=lesson.faults_for("before"))
    sim.run_frames(3000)
    copy = thaw(freeze(sim))
    sim.run_frames(2000)
    copy.run_frames(2000)
    assert copy.metrics() == sim.metrics() and list(copy.rec.moves) == list(sim.rec.moves)
