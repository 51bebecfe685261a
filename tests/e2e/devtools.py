"""A headless Chromium driven over the DevTools protocol, with Python's standard library only:
a minimal RFC 6455 websocket client (text frames, masked, fragmented answers) and the few
commands the web view's test needs (navigate, evaluate, screenshot)."""

import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import urllib.parse
import urllib.request

from gantry_harness import wait_until

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class WebSocket:
    def __init__(self, url, timeout_s=60):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout_s)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("the DevTools websocket closed during its handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"websocket handshake refused: {head!r}")

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])  # FIN, text
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", len(payload))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _exactly(self, count):
        data = bytearray()
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("the DevTools websocket closed")
            data += chunk
        return bytes(data)

    def receive(self):
        """The next whole text message."""
        message = b""
        while True:
            first, second = self._exactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._exactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._exactly(8))
            payload = self._exactly(length)  # a server's frames are not masked
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("the DevTools websocket was closed")
            if opcode in (0x9, 0xA):  # ping / pong: not part of a message
                continue
            message += payload
            if first & 0x80:
                return message.decode()

    def close(self):
        self.sock.close()


class Chromium:
    """A headless Chromium with one page, driven over its DevTools websocket."""

    def __init__(self, workdir):
        self.profile = tempfile.mkdtemp(prefix="chromium-", dir=workdir)
        self.log = open(os.path.join(workdir, "chromium.log"), "wb")
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
             "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
             "--window-size=1400,1000", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        wait_until(lambda: self.process.poll() is None and os.path.exists(port_file)
                   and open(port_file).read().count("\n") >= 1, "Chromium to listen for DevTools")
        port = int(open(port_file).read().split("\n")[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as response:
            targets = json.load(response)
        page = next(t for t in targets if t["type"] == "page")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id = 0
        self.command("Page.enable")
        self.command("Runtime.enable")

    def command(self, method, **params):
        """Sends one command and returns its result, skipping the events meanwhile."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = json.loads(self.ws.receive())
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise AssertionError(f"{method}: {answer['error']}")
                return answer["result"]

    def navigate(self, url):
        """Opens `url` and returns once its document has loaded."""
        self.command("Page.navigate", url=url)
        wait_until(lambda: self.evaluate("document.readyState") == "complete"
                   and self.evaluate("location.href") != "about:blank", f"{url} to load")

    def evaluate(self, expression):
        """The expression's value in the page (JSON-serialisable)."""
        result = self.command("Runtime.evaluate", expression=expression, returnByValue=True,
                              awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path):
        data = self.command("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.ws.close()
        finally:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            self.log.close()
