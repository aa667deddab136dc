"""Kafka's own `--generate` placement, to compare policylint's plans against.

Ported (the algorithm, in Python) from Apache Kafka's
``metadata/src/main/java/org/apache/kafka/metadata/placement/StripedReplicaPlacer.java``,
the controller's placer, which ``kafka-reassign-partitions.sh --generate`` uses on Kafka 4.x
(KAFKA-18798): per topic a fresh rack list with random starting offsets, racks taken
round-robin, brokers round-robin within each rack, no look at where replicas are today.
All brokers are unfenced here, as the tool treats the brokers it is given. Java's
``Random`` is replaced by Python's, seeded: the placement's shape, not its exact draws,
is what the bench compares.
"""

from __future__ import annotations

import random as _random


class _Brokers:
    def __init__(self, ids: list[int], rng: _random.Random):
        self.ids = sorted(ids)
        self.offset = rng.randrange(len(self.ids)) if self.ids else 0
        self.index = 0
        self.epoch = 0

    def next(self, epoch: int) -> int:
        if not self.ids:
            return -1
        if self.epoch != epoch:
            self.epoch, self.index = epoch, 0
            self.offset = (self.offset + 1) % len(self.ids)
        if self.index >= len(self.ids):
            return -1
        broker = self.ids[(self.index + self.offset) % len(self.ids)]
        self.index += 1
        return broker


class _RackList:
    def __init__(self, brokers: dict[int, str | None], rng: _random.Random):
        self.rng = rng
        by_rack: dict = {}
        for b, r in brokers.items():
            by_rack.setdefault(r, []).append(b)
        self.names = sorted(by_rack, key=lambda r: (r is not None, r or ""))
        self.racks = {r: _Brokers(ids, rng) for r, ids in by_rack.items()}
        self.total = len(brokers)
        self.epoch = 0
        self.offset = rng.randrange(len(self.names)) if self.names else 0

    def place(self, rf: int) -> list[int]:
        if rf > self.total:
            raise ValueError(f"RF {rf} > {self.total} brokers")
        if self.epoch == self.total and self.total > 1:
            self.rng.shuffle(self.names)
            for rack in self.racks.values():
                self.rng.shuffle(rack.ids)
            self.epoch = 0
        if self.offset == len(self.names):
            self.offset = 0
        first = self.offset
        while True:
            got = self.racks[self.names[first]].next(self.epoch)
            if got >= 0:
                out = [got]
                break
            first = (first + 1) % len(self.names)
        index = self.offset
        for _ in range(1, rf):
            got = -1
            while got < 0:
                if index == first:
                    first = -1
                else:
                    got = self.racks[self.names[index]].next(self.epoch)
                index = (index + 1) % len(self.names)
            out.append(got)
        self.epoch += 1
        self.offset += 1
        return out


def generate(topics: dict[str, tuple[int, int]], brokers: dict[int, str | None],
             seed: int = 0) -> dict[tuple[str, int], list[int]]:
    """(topic, partition) -> replicas, as ``--generate`` proposes for ``topics`` (name ->
    partitions, RF) over ``brokers`` (id -> rack)."""
    rng = _random.Random(seed)
    out = {}
    for name in sorted(topics):
        partitions, rf = topics[name]
        racks = _RackList(brokers, rng)
        for p in range(partitions):
            out[name, p] = racks.place(rf)
    return out
