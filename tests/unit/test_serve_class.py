"""`rxviz serve` for a class: each visitor its own learner, its own page only, a cap, nothing remote.

A real `rxviz serve` runs in a process group of its own and is driven as a
browser drives it, over its websocket (the protocol of textual-serve's page:
["stdin", keys] in, the terminal's bytes out), with aiohttp's client. Two
visitors step independently and the host's progress file stays as it was;
a websocket from another site's page (its Origin) is refused with 403; past
--max-sessions the page says the room is full; the page asks nothing of the
internet.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.browser import cdp
from viz import serve

ROOT = Path(__file__).resolve().parents[2]
RIGHT = "\x1b[C"


def test_the_page_origins_are_the_pages_own():
    allowed = serve.allowed_origins("127.0.0.1", 8000, serve.public_url("127.0.0.1", 8000, None))
    assert {"http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"} == allowed
    assert serve.origin_of("http://LOCALHOST:8000/x?y") == "http://localhost:8000"
    assert serve.origin_of("https://class.example.org:443") == "https://class.example.org"
    public = serve.allowed_origins("0.0.0.0", 8000, "https://class.example.org/rx")
    assert public == {"https://class.example.org"}            # a wildcard address trusts no Host header
    assert "http://evil.example:8000" not in allowed | public


def test_the_page_loads_nothing_remote():
    for page in serve.PAGE_DIR.glob("*.html"):
        text = page.read_text()
        assert not re.search(r"(src|href|url)\s*[=(]\s*[\"']?(https?:)?//", text), page.name
    assert "{{ limit }}" in (serve.PAGE_DIR / "full.html").read_text()


@pytest.fixture
def host_state(tmp_path):
    """The host's own progress: rx-basics left at step 5."""
    d = tmp_path / "host"
    d.mkdir()
    (d / "progress.json").write_text(json.dumps({"version": 1, "lessons": {
        "rx-basics": {"step": 5, "total": 14, "finished": False, "answers": {}}}}))
    return d


def start(state: Path, *extra: str) -> tuple[int, subprocess.Popen]:
    port = cdp.free_port()
    proc = subprocess.Popen([sys.executable, "-m", "viz", "serve", "rx-basics", "--port", str(port), *extra],
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), "RXVIZ_STATE_DIR": str(state)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    return port, proc


class Visitor:
    """One browser tab's websocket: what it was sent, as text."""

    def __init__(self, ws) -> None:
        self.ws, self.seen = ws, ""

    async def until(self, pattern: str, timeout: float = 90) -> None:
        async def read() -> None:
            while not re.search(pattern, self.seen):
                msg = await self.ws.receive()
                if msg.type == aiohttp.WSMsgType.BINARY:
                    self.seen += msg.data.decode("utf-8", "replace")
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    self.seen += msg.data
                elif msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                    raise AssertionError(f"closed before {pattern!r}")
        await asyncio.wait_for(read(), timeout)

    async def press(self, keys: str) -> None:
        await self.ws.send_json(["stdin", keys])


@pytest.mark.slow
async def test_two_visitors_step_on_their_own_and_never_touch_the_hosts_progress(host_state):
    before = hashlib.sha256((host_state / "progress.json").read_bytes()).hexdigest()
    port, proc = start(host_state)
    try:
        await cdp.wait_for_port(port, 60)
        url = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            async with http.get(url + "/") as page:
                body = await page.text()
                assert page.status == 200 and "googleapis" not in body and "fonts/RobotoMono" in body
            async with http.ws_connect(url + "/ws?width=120&height=40", origin=url) as a_ws, \
                    http.ws_connect(url + "/ws?width=120&height=40", origin=url) as b_ws:
                a, b = Visitor(a_ws), Visitor(b_ws)
                # Both open the lesson at its start, not where the host left it (step 5).
                await asyncio.gather(a.until(r"step 0/14"), b.until(r"step 0/14"))
                await a.press(RIGHT)
                await a.until(r"step 1/14")
                await a.press(RIGHT)
                await a.until(r"step 2/14")
                await b.press(RIGHT)
                await b.until(r"step 1/14")
                assert "step 2/14" not in b.seen         # b went its own way
            # A websocket from another site's page is refused before any player starts.
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                async with http.ws_connect(url + "/ws", origin="http://evil.example"):
                    pass
            assert refused.value.status == 403
    finally:
        cdp.end_group(proc)
    assert hashlib.sha256((host_state / "progress.json").read_bytes()).hexdigest() == before
    assert proc.returncode is not None


@pytest.mark.slow
async def test_past_max_sessions_the_page_says_the_room_is_full(host_state):
    port, proc = start(host_state, "--max-sessions", "1")
    try:
        await cdp.wait_for_port(port, 60)
        url = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(url + "/ws?width=80&height=24", origin=url) as first:
                await Visitor(first).until(r"step 0/14")
                async with http.get(url + "/") as page:
                    assert page.status == 503 and "The room is full" in await page.text()
                    assert "All 1 players" in await page.text()
                with pytest.raises(aiohttp.WSServerHandshakeError) as full:
                    async with http.ws_connect(url + "/ws", origin=url):
                        pass
                assert full.value.status == 503
            # The first visitor left: there is room again.
            for _ in range(50):
                async with http.get(url + "/") as page:
                    if page.status == 200:
                        break
                await asyncio.sleep(0.2)
            assert page.status == 200
    finally:
        cdp.end_group(proc)
