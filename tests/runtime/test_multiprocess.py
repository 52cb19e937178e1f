"""The same sharded functions across two processes (jax.distributed on loopback).

Each worker (`multiprocess_worker.py`) holds 2 simulated CPU devices and only its own
half of every split argument; the mesh spans all 4 devices, XLA's collectives cross the
process boundary (gloo), and each worker checks its results against NumPy on the whole
data.
"""
import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "multiprocess_worker.py")
TIMEOUT = 60


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_workers(count):
    port = _free_port()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", NPXLA_CACHE_DIR="off", NPXLA_DEVICE="cpu")
    procs = [subprocess.Popen([sys.executable, WORKER, str(i), str(count), str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for i in range(count)]
    records = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=TIMEOUT)
            assert p.returncode == 0, err[-3000:]
            # the collectives library prints connection notes on stdout: the record is
            # the last line
            records.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:       # a worker left waiting for its peer must not outlive us
            if p.poll() is None:
                p.kill()
                p.wait()
    return records


def test_two_processes_each_holding_half_agree_with_numpy():
    records = _run_workers(2)
    assert [r["process"] for r in records] == [0, 1]
    for r in records:
        assert r["devices"] == 4 and r["local_devices"] == 2, r
        for check in ("stats", "stencil", "stencil_written_back", "while"):
            assert r[check] < 1e-12, (check, r)
        assert "all-reduce" in r["collectives"], r

