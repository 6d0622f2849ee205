"""Work from untrusted input is bounded: trace streams in bounded memory, sweep ends its workers on
SIGTERM, output never fails on an encoding, and a lesson cannot ask for unbounded work.

The first two run `rxviz` in a process of its own, as a user (or a scheduler) would: a peak
memory is that process's (os.wait4), and the workers a sweep leaves are looked up in /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from viz import cli
from viz.cli.trace_stream import WINDOW, Stream

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def peak_kb(*argv: str) -> int:
    """The peak resident memory of `python -m viz ARGV`, its output thrown away."""
    proc = subprocess.Popen([sys.executable, "-m", "viz", *argv], cwd=ROOT, env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, proc.stderr.read().decode()
    proc.stderr.close()
    return usage.ru_maxrss


@pytest.mark.slow
def test_trace_memory_does_not_grow_with_the_frames():
    # ath11k's before makes ~26 events a frame: 5,000 frames fill the model's buffer and the sorting
    # window (cli_trace.BUFFER + WINDOW events), so what is held from there on no longer grows.
    small = peak_kb("trace", "ath11k-36bit-dma-mask", "--frames", "5000", "--json")
    big = peak_kb("trace", "ath11k-36bit-dma-mask", "--frames", "15000", "--json")
    # Three times the frames; the whole trace held in memory took 259 MB at 20,000 frames.
    assert big < small * 1.15, (small, big)


def test_the_stream_is_the_sorted_trace_with_nothing_late_or_lost():
    from shipped import shipped_lesson

    from models.runner import variant_params
    from models.sim import Sim
    from viz.cli.trace_stream import BUFFER
    lesson = shipped_lesson("atlantic-page-pool")           # the most out of order (~900 events)
    whole = Sim(variant_params(lesson, "before", {}), trace=200_000)
    setup = whole.setup_seq
    whole.run_frames(120)
    expect = [e.seq for e in sorted(whole.rec.events, key=lambda e: (e.seq > setup, e.t_ns, e.seq))]
    sim = Sim(variant_params(lesson, "before", {}), trace=BUFFER)
    stream = Stream(sim, 120, sim.setup_seq)
    assert [e.seq for e in stream] == expect and len(expect) < WINDOW
    assert (stream.late, stream.lost) == (0, 0)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == parent:
                            out.append(int(d))
                            todo.append(int(d))
                except OSError:
                    continue
    return out


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the workers")
def test_sweep_ends_its_workers_on_sigterm():
    proc = subprocess.Popen([sys.executable, "-m", "viz", "sweep", "atlantic-page-pool", "--workers", "2",
                             "--set", "iotlb_sync_ns=2us,5us,10us,20us,40us,80us,160us"],
                            cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while len(workers) < 3 and time.monotonic() < deadline:    # the forkserver and two workers
            time.sleep(0.2)
            workers = _descendants(proc.pid)
        assert len(workers) >= 3, workers
        os.kill(proc.pid, signal.SIGTERM)                # the sweep itself, as `timeout` or a scheduler does
        assert proc.wait(60) == 143
        deadline = time.monotonic() + 30
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)]
        assert "Traceback" not in proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stderr.close()


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to find the workers")
def test_sigterm_while_the_pool_starts_a_worker_leaves_no_worker_behind(monkeypatch):
    """The pool starts a worker in submit() and records it after: SIGTERM in between (CI hit it under
    load) used to leave a worker nobody would end. Here it arrives there every time."""
    import multiprocessing.context

    from shipped import shipped_lesson

    from models import sweep as S
    from viz.cli.common import Terminated, on_sigterm_raise
    started: list[int] = []
    real_start = multiprocessing.context.ForkServerProcess.start

    def start_then_sigterm(self: multiprocessing.context.ForkServerProcess) -> None:
        real_start(self)
        started.append(self.pid)
        time.sleep(2)        # the worker has unpickled its queues by then, as it had under CI's load
        os.kill(os.getpid(), signal.SIGTERM)
    monkeypatch.setattr(multiprocessing.context.ForkServerProcess, "start", start_then_sigterm)
    previous = on_sigterm_raise()
    try:
        with pytest.raises(Terminated):
            S.sweep(shipped_lesson("rx-basics"), "budget", "16,32,64", frames=200, workers=2)
    finally:
        signal.signal(signal.SIGTERM, previous)
    deadline = time.monotonic() + 30
    while any(map(_alive, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started and not [w for w in started if _alive(w)]


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_output_in_another_encoding_never_exits_70(encoding, monkeypatch):
    """As under LANG=C or PYTHONIOENCODING=ascii: what the encoding lacks is written as an escape."""
    import io
    lesson = ROOT / "tests" / "data" / "hostile" / "entities.yaml"
    for argv in (["run", str(lesson), "--frames", "20"], ["list"], ["check", str(lesson)],
                 ["sweep", "rx-basics", "--set", "ram=2GiB,4GiB", "--frames", "100", "--workers", "1"]):
        out, err = io.BytesIO(), io.BytesIO()
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding=encoding))
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, encoding=encoding))
        code = cli.main(argv)
        sys.stdout.flush()
        sys.stderr.flush()
        assert code in (0, 1), (argv, err.getvalue())
        assert b"internal error" not in err.getvalue() and out.getvalue()
        if argv[0] == "sweep":        # the plot's box drawing, which the encoding lacks, as escapes
            assert b"\\u2524" in out.getvalue() or b"\\u2502" in out.getvalue()


def test_sigterm_is_exit_143_never_a_traceback(capsys, monkeypatch):
    from viz.cli import common, lessons

    def stopped(args):
        raise common.Terminated
    monkeypatch.setattr(lessons, "run", stopped)
    assert cli.main(["list"]) == 143
    assert capsys.readouterr().err == ""
