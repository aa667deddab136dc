"""Apache Kafka itself is the judge: every verdict of the corpus (tests/kafka_oracle.py) that
policylint gives, Kafka must give too, on the oldest and the newest release the config table
covers (bench/kafka_oracle.py asks every release between them)."""

from __future__ import annotations

import pytest

from conftest import LIVE_RELEASES
from kafka_oracle import judged


@pytest.mark.parametrize("minor", LIVE_RELEASES)
def test_every_verdict_is_kafkas_own(kafka_cluster, minor, tmp_path):
    found = judged(kafka_cluster(minor), minor, tmp_path)
    assert found.cases >= 400
    said = [f"{case.what}: Kafka {'refuses (' + k.why + ')' if k.refused else 'accepts'}, "
            f"policylint {'refuses (' + p.why + ')' if p.refused else 'accepts'}"
            for case, k, p in found.disagree]
    assert said == []
    # refusals of every kind were asked, not only acceptances
    assert {"PL203", "PL601", "PL602", "PL603"} <= set(found.by_rule)
