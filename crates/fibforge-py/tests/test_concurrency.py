"""Lookups in other threads (batches release the GIL) while one thread updates."""

import threading

import numpy as np

import fibforge


def test_batches_during_updates_see_old_or_new_routes():
    t = fibforge.Table("ipv4")
    t.insert("10.0.0.0/8", 1)
    t.insert("10.1.2.0/24", 20)
    probe = np.array([0x0A0102C8, 0x0AC80000] * 5000, dtype=np.uint32)  # 10.1.2.200, 10.200.0.0
    stop = threading.Event()
    bad, batches = [], [0]

    def reader():
        while not stop.is_set():
            out = t.values_of(t.lookup_batch(probe))
            if not (np.isin(out[0::2], [20, 21, 22]).all() and (out[1::2] == 1).all()):
                bad.append(out)
            batches[0] += 1

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for th in threads:
        th.start()
    for i in range(3000):
        t.insert("10.1.2.0/24", 20 + i % 2)
        if i % 3 == 0:
            t.insert("10.1.2.128/25", 22)
        else:
            t.remove("10.1.2.128/25")
        t.insert(f"172.{16 + i % 16}.{(i >> 4) % 256}.0/24", i % 1000)
    stop.set()
    for th in threads:
        th.join()
    assert not bad
    assert batches[0] > 0
    assert len(t) > 3000 // 16


def test_multithreaded_batches_during_updates_register_per_thread_and_deregister():
    """Batches on several threads (each a QSBR reader: online, a quiescent state per chunk)
    see old-or-new answers while routes change, and leave no reader registered."""
    t = fibforge.Table("ipv4")
    t.insert("10.0.0.0/8", 1)
    t.insert("10.1.2.0/24", 20)
    assert t._readers() == 1  # the single-lookup reader
    probe = np.array([0x0A0102C8, 0x0AC80000] * 20000, dtype=np.uint32)
    stop = threading.Event()
    bad, batches = [], [0]

    def reader():
        out = np.empty(len(probe), dtype=np.uint32)
        while not stop.is_set():
            values = t.values_of(t.lookup_batch(probe, out=out, threads=3))
            if not (np.isin(values[0::2], [20, 21]).all() and (values[1::2] == 1).all()):
                bad.append(out.copy())
            batches[0] += 1

    th = threading.Thread(target=reader)
    th.start()
    for i in range(2000):
        t.insert("10.1.2.0/24", 20 + i % 2)
        t.insert(f"172.{16 + i % 16}.{(i >> 4) % 256}.0/24", i % 1000)
        assert t.lookup("10.1.2.200") == 20 + i % 2
    stop.set()
    th.join()
    assert not bad
    assert batches[0] > 0
    assert t._readers() == 1, "batch readers deregister when their batch ends"
