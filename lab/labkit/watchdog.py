"""Stop a broker when the process that owns it ends: `python -m labkit.watchdog OWNER_PID BROKER_PID`.

The pytest fixture starts its broker with the test run's pid as owner; if the run is killed before its
teardown, this stops the JVM (SIGTERM, then SIGKILL) within seconds.
"""

from __future__ import annotations

import sys
import time

from labkit.broker import alive, terminate


def main(owner_pid: int, broker_pid: int) -> None:
    while alive(broker_pid):
        if not alive(owner_pid):
            terminate(broker_pid, 20.0)
            return
        time.sleep(1.0)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
