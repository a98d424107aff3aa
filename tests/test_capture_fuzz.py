"""Random damage anywhere in real captures (bytes flipped, runs overwritten, pieces cut out or repeated):
reading never raises anything but CaptureError, never allocates beyond a small multiple of the input, and
still finds most of the exchanges."""

from __future__ import annotations

import random
import tracemalloc

import pytest
from capture_support import FIXTURES, everything

from kafka_meta.capture import CaptureError

SOURCES = [FIXTURES / "cfk_storm.pcap", FIXTURES / "cfk_cooperative.pcapng", FIXTURES / "aio_sticky_any.pcapng"]


def damage(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(("flip", "run", "cut", "repeat"))
        at = rng.randrange(24, len(out) - 64)
        if kind == "flip":
            out[at] ^= 1 << rng.randrange(8)
        elif kind == "run":
            out[at:at + 16] = rng.randbytes(16)
        elif kind == "cut":
            del out[at:at + rng.randint(1, 2000)]
        else:
            out[at:at] = out[at:at + rng.randint(1, 2000)]
    return bytes(out)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", range(12))
def test_random_damage(tmp_path, source, seed):
    rng = random.Random(seed)
    clean = len(everything(source)[0])
    path = tmp_path / source.name
    path.write_bytes(damage(source.read_bytes(), rng))
    tracemalloc.start()
    try:
        exs, _problems = everything(path)
    except CaptureError:
        return  # the container header itself was hit
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 64 * path.stat().st_size + (8 << 20)
    answered = [e for e in exs if e["apiKey"] is not None and e["response"] is not None]
    assert len(answered) >= clean // 3


def test_garbage_after_a_valid_header(tmp_path):
    rng = random.Random(1)
    heads = (FIXTURES / "cfk_storm.pcap").read_bytes()[:24], (FIXTURES / "cfk_cooperative.pcapng").read_bytes()[:200]
    for head in heads:
        path = tmp_path / "garbage"
        path.write_bytes(head + rng.randbytes(300_000))
        exs, problems = everything(path)
        assert problems and not [e for e in exs if e["response"] is not None]
