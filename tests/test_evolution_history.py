"""Two views of the same history agree: a Kafka spec as it read when version R was the newest
(spec_as_of) evolved into the spec itself only by compatible changes, and a spec is unchanged against
itself."""

from __future__ import annotations

import pytest
from conftest import SHARED_REASON, SPEC_DIR

from kafka_meta.evolution import Level, compare_pair
from kafka_meta.spec.history import spec_as_of
from kafka_meta.spec.loader import load_specs

SPECS = load_specs(SPEC_DIR) if SPEC_DIR.is_dir() else []


@pytest.mark.skipif(not SPECS, reason=SHARED_REASON)
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s.name}@{'newer' if 'newer' in s.source else '2024'}")
def test_kafka_grew_each_spec_compatibly_version_by_version(spec):
    assert compare_pair(spec, spec) == []
    for newest in spec.valid_versions:
        earlier = spec_as_of(spec, newest)
        changes = compare_pair(earlier, spec)
        assert [f.message for f in changes if f.level is not Level.INFO] == [], newest
        if newest < spec.valid_versions.high:
            assert any(f.rule == "valid-versions-grown" for f in changes)
