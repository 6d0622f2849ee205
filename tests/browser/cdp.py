"""A small Chrome DevTools Protocol client for the browser test: launch, load, type, screenshot.

Headless Chromium from Debian's `chromium` package is driven over its
DevTools websocket with aiohttp (which textual-serve brings along), so the
test needs no browser-automation package and no browser download. Only
what the test uses is here: navigate, evaluate, key presses, screenshots.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

# The flags headless Chromium needs on these machines (env notes): no sandbox as root, no GPU,
# and none of the background connections a closed network refuses.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")

# Keys as Input.dispatchKeyEvent wants them: (key, code, windowsVirtualKeyCode).
KEYS = {"right": ("ArrowRight", "ArrowRight", 39), "left": ("ArrowLeft", "ArrowLeft", 37)}


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def end_group(proc: subprocess.Popen, patience: float = 15) -> None:
    """End a process started with start_new_session=True and all it started (Chromium's
    helpers, the server's app processes): SIGTERM to its group, SIGKILL if it lingers."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(patience)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_for_port(port: int, timeout: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if loop.time() > deadline:
                raise TimeoutError(f"nothing listens on port {port} after {timeout} s") from None
            await asyncio.sleep(0.1)


class Page:
    """One browser tab, spoken to over its DevTools websocket."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        await self.ws.send_str(json.dumps({"id": n, "method": method, "params": params}))
        while True:                       # events in between are not needed: skip them
            msg = json.loads((await self.ws.receive()).data)
            if msg.get("id") == n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                                 awaitPromise=True)
        return result.get("result", {}).get("value")

    async def wait_until(self, expression: str, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not await self.evaluate(expression):
            if loop.time() > deadline:
                raise TimeoutError(f"still false after {timeout} s: {expression}")
            await asyncio.sleep(0.2)

    async def press(self, key: str) -> None:
        name, code, vk = KEYS[key]
        for kind in ("rawKeyDown", "keyUp"):
            await self.send("Input.dispatchKeyEvent", type=kind, key=name, code=code,
                            windowsVirtualKeyCode=vk, nativeVirtualKeyCode=vk)

    async def screenshot(self, path: str) -> bytes:
        data = base64.b64decode((await self.send("Page.captureScreenshot", format="png"))["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data


@asynccontextmanager
async def browser(width: int, height: int) -> AsyncIterator[Page]:
    """A headless Chromium with one blank tab of width x height; ended (its process group) after."""
    import aiohttp

    exe = chromium()
    if exe is None:
        raise FileNotFoundError("chromium")
    port = free_port()
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", f"--remote-debugging-port={port}",
                                 f"--window-size={width},{height}", "about:blank"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            await wait_for_port(port, 30)
            async with aiohttp.ClientSession() as http:
                for _ in range(50):           # the tab shows up a moment after the port opens
                    async with http.get(f"http://127.0.0.1:{port}/json/list") as r:
                        pages = [t for t in await r.json() if t.get("type") == "page"]
                    if pages:
                        break
                    await asyncio.sleep(0.1)
                async with http.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    await page.send("Page.enable")
                    await page.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                                    deviceScaleFactor=1, mobile=False)
                    yield page
        finally:
            end_group(proc)
