"""A small deterministic mutator, for fuzzing without atheris (the test suite's short pass).

It is not coverage-guided: it applies one to four random edits to a real seed, edits chosen for binary
formats whose damage is mostly in lengths and counts: bit flips, bytes set to boundary values, 16- and
32-bit boundary integers written over a field, cuts, inserted and duplicated runs, splices of two seeds.
"""

from __future__ import annotations

import random

BOUNDARY_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)
BOUNDARY_INTS = (0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, -0x80000000)
MAX_GROWTH = 256


class Mutator:
    def __init__(self, seeds: list[bytes], seed: int = 0) -> None:
        self.seeds = seeds or [b""]
        self.random = random.Random(seed)

    def next(self) -> bytes:
        r = self.random
        data = bytearray(r.choice(self.seeds))
        limit = len(data) + MAX_GROWTH
        for _ in range(r.randint(1, 4)):
            getattr(self, r.choice(EDITS))(data, r)
        return bytes(data[:limit])

    @staticmethod
    def flip(data: bytearray, r: random.Random) -> None:
        if data:
            data[r.randrange(len(data))] ^= 1 << r.randrange(8)

    @staticmethod
    def boundary_byte(data: bytearray, r: random.Random) -> None:
        if data:
            data[r.randrange(len(data))] = r.choice(BOUNDARY_BYTES)

    @staticmethod
    def boundary_int(data: bytearray, r: random.Random) -> None:
        width = r.choice((2, 4))
        if len(data) >= width:
            at = r.randrange(len(data) - width + 1)
            value = r.choice(BOUNDARY_INTS) & ((1 << 8 * width) - 1)
            data[at:at + width] = value.to_bytes(width, "big")

    @staticmethod
    def cut(data: bytearray, r: random.Random) -> None:
        if data:
            del data[r.randrange(len(data)):]

    @staticmethod
    def delete(data: bytearray, r: random.Random) -> None:
        if data:
            at = r.randrange(len(data))
            del data[at:at + r.randint(1, 8)]

    @staticmethod
    def insert(data: bytearray, r: random.Random) -> None:
        at = r.randint(0, len(data))
        data[at:at] = bytes(r.randrange(256) for _ in range(r.randint(1, 8)))

    @staticmethod
    def duplicate(data: bytearray, r: random.Random) -> None:
        if data:
            at = r.randrange(len(data))
            data[at:at] = data[at:at + r.randint(1, 32)]

    def splice(self, data: bytearray, r: random.Random) -> None:
        other = r.choice(self.seeds)
        if data and other:
            data[r.randrange(len(data)):] = other[r.randrange(len(other)):]


EDITS = ("flip", "boundary_byte", "boundary_int", "boundary_int", "cut", "delete", "insert", "duplicate",
         "splice")
