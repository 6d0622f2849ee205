"""The speaker notes' runtime directory cannot be taken over, and what is in it is untrusted.

Without XDG_RUNTIME_DIR the directory is `rxviz-<uid>` in the shared temp dir, which
another local user can create first or point somewhere with a symlink. It is used only
when lstat shows a private directory of this user; else a fallback under the state
directory (with one line), else none (play --present runs without notes:
tests/ui/test_hostile_ui.py). Presenter files planted in it are skipped unless they are
this user's regular files of the right shape, and their text is printed escaped.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile

import pytest
from cli_message import messages

from viz import cli, notes, state


@pytest.fixture
def shared_tmp(tmp_path, monkeypatch):
    """No XDG_RUNTIME_DIR and no override: the temp dir is where `rxviz-<uid>` goes."""
    monkeypatch.delenv("RXVIZ_RUNTIME_DIR", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    return tmp_path


def target(tmp_path):
    return tmp_path / f"rxviz-{os.getuid()}"


def test_made_private_when_missing(shared_tmp):
    d = state.runtime_dir()
    assert d == target(shared_tmp) and stat.S_IMODE(os.lstat(d).st_mode) == 0o700


def test_a_planted_symlink_is_not_followed_and_the_fallback_says_why(shared_tmp, monkeypatch):
    elsewhere = shared_tmp / "elsewhere"
    elsewhere.mkdir()
    target(shared_tmp).symlink_to(elsewhere)
    said = []
    d = state.runtime_dir(said.append)
    assert d == state.state_dir() / "runtime" and stat.S_IMODE(os.lstat(d).st_mode) == 0o700
    assert said == [f"{target(shared_tmp)} is a symlink (to {elsewhere}), not followed: speaker notes use {d} "
                    f"instead"]
    notes.NotesPublisher("p-1").publish(_lesson(), 1)
    assert list(elsewhere.iterdir()) == []                  # nothing written through the link


def test_a_directory_open_to_others_is_made_private(shared_tmp):
    d = target(shared_tmp)
    d.mkdir(mode=0o777)
    os.chmod(d, 0o777)
    assert state.runtime_dir() == d and stat.S_IMODE(os.lstat(d).st_mode) == 0o700


@pytest.mark.skipif(os.getuid() != 0, reason="making a directory another user's needs root")
def test_a_directory_of_another_user_is_refused(shared_tmp):
    d = target(shared_tmp)
    d.mkdir()
    os.chown(d, 65534, 65534)
    said = []
    assert state.runtime_dir(said.append) != d and "belongs to another user (uid 65534)" in said[0]


def test_no_usable_directory_at_all_is_one_line_exit_2(monkeypatch, tmp_path, capsys):
    (tmp_path / "x").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "x")
    monkeypatch.setenv("RXVIZ_RUNTIME_DIR", str(tmp_path / "link"))
    assert cli.main(["notes", "--once"]) == 2
    (said,) = messages(capsys.readouterr().err)
    assert said == f"rxviz: notes: no safe directory to find presenters in: {tmp_path / 'link'} is a symlink " \
                   f"(to {tmp_path / 'x'}), not followed"


def _lesson():
    from shipped import shipped_lesson
    return shipped_lesson("rx-basics")


PLANTED = {
    "evil": {"session": "evil", "pid": os.getpid(), "lesson": "x\x1b]0;pwned\x07", "title": "t", "step": 1,
             "total": 2, "step_title": "\x1b]52;c;ZWNobyBoaQ==\x07T\u202e", "notes": "\x1b[2J cleared",
             "next_title": "", "started": 0, "updated": 1e18},
}


def test_planted_files_are_skipped_or_printed_escaped(tmp_path, monkeypatch, capsys):
    d = tmp_path / "rt"
    monkeypatch.setenv("RXVIZ_RUNTIME_DIR", str(d))
    state.runtime_dir()
    (d / "presenter-evil.json").write_text(json.dumps(PLANTED["evil"]))
    (d / "presenter-shape.json").write_text(json.dumps({"session": "bad", "pid": os.getpid(), "step": "x"}))
    (d / "presenter-deep.json").write_text("[" * 100_000)
    (d / "presenter-bin.json").write_bytes(b"\xff\xfe\x00garbage")
    (d / "presenter-huge.json").write_text(json.dumps({**PLANTED["evil"], "notes": "x" * 400_000}))
    (d / "presenter-link.json").symlink_to("/etc/hostname")
    (d / "presenter-fifo.json").parent.mkdir(exist_ok=True)
    os.mkfifo(d / "presenter-fifo.json")
    live = notes.sessions(d)
    assert [s["session"] for s in live] == ["evil"]
    assert cli.main(["notes", "--once"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "x\\x1b]0;pwned\\x07" in out and "\\x1b]52;c;ZWNobyBoaQ==\\x07T\\u202e" in out


def test_once_without_a_presenter_exits_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RXVIZ_RUNTIME_DIR", str(tmp_path / "rt"))
    assert cli.main(["notes", "--once"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rxviz: notes: no presenter is running on this machine")
    assert cli.main(["notes", "--once", "--session", "nope"]) == 1
    assert "no presenter session 'nope'" in capsys.readouterr().err


def test_notes_keep_to_the_terminal_width_as_it_changes(tmp_path):
    publisher = notes.NotesPublisher("w-1", tmp_path)
    lesson = _lesson()
    publisher.publish(lesson, 1)
    widths = iter([80, 80, 40, 40])
    printed = []
    for _ in notes.follow("w-1", printed.append, directory=tmp_path, sleep=lambda s: None,
                          columns=lambda: next(widths, 40), limit=None):
        if len(printed) >= 2:
            break
    assert len(printed) == 2                       # the same step, printed again at the new width
    assert max(map(len, printed[0].split("\n"))) <= 80 and max(map(len, printed[1].split("\n"))) <= 40
    assert max(map(len, printed[1].split("\n"))) > 30
