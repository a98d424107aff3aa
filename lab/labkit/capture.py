"""tshark on the loopback interface with a capture filter on the broker's port, writing pcapng.

`Capture.start` returns once tshark says it is capturing (so no packet of the scenario is missed); `stop`
sends SIGINT, which makes tshark write out what it holds and exit.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

START_TIMEOUT_S = 30.0


class CaptureError(RuntimeError):
    """tshark is missing or could not capture; the message says what tshark printed."""


class Capture:
    def __init__(self, process: subprocess.Popen, path: Path, stderr_lines: list[str]) -> None:
        self.process = process
        self.path = path
        self._stderr = stderr_lines

    @classmethod
    def start(cls, path: str | Path, port: int, interface: str = "lo") -> Capture:
        tshark = shutil.which("tshark")
        if tshark is None:
            raise CaptureError("tshark is not installed (Debian: apt-get install tshark)")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        process = subprocess.Popen(
            [tshark, "-i", interface, "-f", f"tcp port {port}", "-F", "pcapng", "-w", str(path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        lines: list[str] = []
        capturing = threading.Event()

        def read_stderr() -> None:
            for line in process.stderr:
                lines.append(line.rstrip())
                if "Capturing on" in line:
                    capturing.set()

        threading.Thread(target=read_stderr, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not capturing.wait(0.1):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise CaptureError("tshark did not start capturing: " + " | ".join(lines[-5:]))
        return cls(process, path, lines)

    def stop(self) -> Path:
        if self.process.poll() is None:
            time.sleep(0.5)  # the last packets of a close reach the ring buffer
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.path.exists():
            raise CaptureError("tshark wrote no capture: " + " | ".join(self._stderr[-5:]))
        return self.path
