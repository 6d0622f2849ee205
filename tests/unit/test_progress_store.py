"""Progress saved between runs: round trip, atomic writes, corrupt and unreadable files."""

from __future__ import annotations

import json
import os

import pytest

from viz.progress import ProgressStore
from viz.state import runtime_dir, state_dir, write_atomic


def test_the_tests_never_touch_the_real_home():
    assert str(state_dir()).startswith(os.environ["RXVIZ_STATE_DIR"])
    assert os.path.expanduser("~") not in str(state_dir()) or "pytest" in str(state_dir())


def test_round_trip(tmp_path):
    store = ProgressStore(tmp_path / "progress.json")
    store.load()
    entry = store.get("rx-basics")
    entry.step, entry.total, entry.finished = 5, 13, False
    entry.answers[4] = 1
    store.get("dma-bugs").finished = True
    store.save()
    again = ProgressStore(tmp_path / "progress.json")
    lessons = again.load()
    assert again.notice == ""
    assert (lessons["rx-basics"].step, lessons["rx-basics"].total, lessons["rx-basics"].answers) == (5, 13, {4: 1})
    assert lessons["dma-bugs"].finished
    assert json.loads((tmp_path / "progress.json").read_text())["version"] == 1


def test_a_write_leaves_no_temporary_file_and_replaces_whole(tmp_path):
    path = tmp_path / "f.json"
    write_atomic(path, "one")
    write_atomic(path, "two")
    assert path.read_text() == "two" and os.listdir(tmp_path) == ["f.json"]


@pytest.mark.parametrize("content", ["{not json", json.dumps({"version": 99, "lessons": {}}),
                                     json.dumps({"version": 1, "lessons": {"x": {"step": "five"}}}),
                                     b"\xff\xfe\x00 binary"])
def test_a_corrupt_file_is_set_aside_with_a_notice(tmp_path, content):
    path = tmp_path / "progress.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    store = ProgressStore(path)
    assert store.load() == {}
    assert "kept as progress.json.corrupt-" in store.notice and "\n" not in store.notice
    aside = [p for p in os.listdir(tmp_path) if p.startswith("progress.json.corrupt-")]
    assert len(aside) == 1 and not path.exists()
    store.get("rx-basics").step = 2
    store.save()                               # a fresh file; the old one is kept aside
    assert path.exists() and len(os.listdir(tmp_path)) == 2


def test_an_unreadable_file_is_never_overwritten(tmp_path):
    path = tmp_path / "progress.json"
    path.mkdir()                               # a directory where the file should be: cannot be read
    store = ProgressStore(path)
    store.load()
    assert "cannot read" in store.notice and not store.writable
    store.get("rx-basics").step = 3
    store.save()
    assert path.is_dir()


def test_in_memory_only():
    store = ProgressStore(remember=False)
    store.load()
    store.get("x").step = 1
    store.save()
    assert not (state_dir() / "progress.json").exists()


def test_runtime_dir_is_private():
    path = runtime_dir()
    assert path.is_dir() and str(path).startswith(os.environ["RXVIZ_RUNTIME_DIR"])


def test_a_file_nested_too_deeply_is_set_aside_not_a_crash(tmp_path):
    path = tmp_path / "progress.json"
    path.write_text("[" * 200000)
    store = ProgressStore(path)
    assert store.load() == {}
    assert store.notice.startswith("progress file was unusable (nested too deeply): kept as progress.json.corrupt-")
    assert "\n" not in store.notice and not path.exists()
    assert [p.read_text() for p in tmp_path.iterdir()] == ["[" * 200000]      # never lost


def test_two_corrupt_files_in_one_second_are_both_kept(tmp_path, monkeypatch):
    import viz.progress
    monkeypatch.setattr(viz.progress.time, "strftime", lambda fmt: "20260101-120000")
    path = tmp_path / "progress.json"
    for text in ("{one", "{two"):
        path.write_text(text)
        ProgressStore(path).load()
    assert sorted(p.read_text() for p in tmp_path.iterdir()) == ["{one", "{two"]
