"""The fast path and the reference agree for every registered type and version: on the values they write
and read back, and on where they fail, for good values and for damaged ones (damaged bytes: see
test_malformed.py, which runs the same helper)."""

from __future__ import annotations

import pytest
from formats import ids, registered_formats, versioned
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Unframed
from kafka_meta.spec import load_spec_text
from kafka_meta.testing.agreement import damaged_value, read_both, write_both
from kafka_meta.testing.strategies import values_for

PAIRS = versioned(registered_formats())
SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("pair", PAIRS, ids=ids)
@SETTINGS
@given(data=st.data())
def test_the_paths_agree_on_good_and_damaged_values(pair, data):
    fmt, version = pair
    value = data.draw(values_for(fmt.construct(version)))
    assert write_both(fmt, value, version) == []
    good = fmt.encode(value, version)
    for strict in (False, True):
        assert read_both(fmt, good, version, strict) == []
    assert write_both(fmt, data.draw(damaged_value(value)), version) == []


WIDGET = SpecFormat(load_spec_text("""{"type": "data", "name": "Widget", "validVersions": "0",
  "flexibleVersions": "none", "fields": [{"name": "Id", "type": "int32", "versions": "0+"},
  {"name": "Label", "type": "string", "versions": "0+"}]}"""), Unframed())


def test_a_disagreement_is_reported():
    """The helpers can fail: a fast path that reads a field differently, or fails alone, is caught."""
    data = WIDGET.encode({"id": 7, "label": "x"}, 0)
    assert read_both(WIDGET, data, 0, False) == []
    assert read_both(WIDGET, data[:5], 0, False) == []  # both fail, at the same place
    table = WIDGET._table("d", "plain", False)

    def misreads(buf: bytes, pos: int, blen: int) -> tuple[dict, int]:
        return {"id": 8, "label": "x"}, blen

    def fails(buf: bytes, pos: int, blen: int) -> tuple[dict, int]:
        raise ValueError("fails")

    try:
        table[0] = misreads
        assert "they read differently" in read_both(WIDGET, data, 0, False)[0]
        assert "the reference fails to read" in read_both(WIDGET, data[:5], 0, False)[0]
        table[0] = fails
        assert "the fast path fails to read" in read_both(WIDGET, data, 0, False)[0]
    finally:
        del table[0]
    assert write_both(WIDGET, {"id": 2**40, "label": "x"}, 0) == []  # both refuse, naming id
    assert write_both(WIDGET, {"id": 1, "label": "x", "_unknown_tagged_fields": [(1, b"")]}, 0) == []
