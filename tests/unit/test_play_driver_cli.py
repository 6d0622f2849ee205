"""`rxviz play/screenshot LESSON --driver FILE` before the player starts: the driver is tried in a child
process under limits, and a driver that fails there is one `rxviz:` line naming the learner's file and
line, exit 2; the player never starts."""

from __future__ import annotations

import pytest

from viz import cli
from viz.exercises import play
from viz.exercises.catalog import BY_ID

REF = BY_ID["rx-refill"].solution_text()


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def driver(tmp_path, src: str) -> str:
    f = tmp_path / "driver.py"
    f.write_text(src)
    return str(f)


def one_line(err: str) -> str:
    assert err.startswith("rxviz: --driver:") and "Traceback" not in err
    return " ".join(err.split())


def test_a_driver_raising_in_its_poll_is_one_line_with_its_file_and_line(capsys, tmp_path):
    src = REF.replace("        skb_put(skb, length)\n", "        skb_put(skb, length)\n        skb.nope()\n", 1)
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "skb.nope()" in t)
    code, out, err = run(capsys, "play", "rx-basics", "--driver", driver(tmp_path, src))
    assert code == 2 and out == ""
    assert f"your driver, driver.py:{line} in rx_frame: AttributeError:" in one_line(err)


def test_a_missing_file_or_a_syntax_error_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "play", "rx-basics", "--driver", str(tmp_path / "nope.py"))
    assert code == 2 and "no such file" in one_line(err)
    assert err.count("--driver") == 1 and f"{tmp_path / 'nope.py'}: no such file" in one_line(err)
    code, _, err = run(capsys, "screenshot", "rx-basics", "--driver",
                       driver(tmp_path, REF.replace("def open(self) -> None:", "def open(self) -> None")))
    assert code == 2 and "SyntaxError" in one_line(err) and "driver.py, line" in err


@pytest.mark.slow
def test_state_that_cannot_be_snapshotted_is_named(capsys, tmp_path):
    n = "        n = self.rx_ring.size\n"
    src = REF.replace(n, n + "        self.g = iter(lambda: 1, 2)\n")
    code, _, err = run(capsys, "play", "rx-basics", "--driver", driver(tmp_path, src))
    assert code == 2 and "cannot be snapshotted" in one_line(err)


@pytest.mark.slow
def test_an_endless_loop_is_stopped_by_the_cpu_limit(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(play, "PREFLIGHT_CPU_S", 2)
    src = REF.replace("        work_done = 0\n", "        work_done = 0\n        while True:\n            pass\n", 1)
    code, _, err = run(capsys, "play", "rx-basics", "--driver", driver(tmp_path, src))
    assert code == 2 and "stopped after 2 s of CPU time" in one_line(err)


@pytest.mark.slow
def test_the_reference_driver_passes_and_makes_a_screenshot(capsys, tmp_path):
    out_svg = tmp_path / "s.svg"
    code, out, err = run(capsys, "screenshot", "rx-basics", "--step", "3", "--size", "100x30",
                         "--driver", driver(tmp_path, REF), "-o", str(out_svg))
    assert code == 0, err
    assert "your-driver" in out_svg.read_text()
