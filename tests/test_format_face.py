"""Every registered format has the same face (kafka_meta.codec.face.Format): its header and its body
decoder read the project's golden bytes as decode_plain does, whatever strategy stands behind it."""

from __future__ import annotations

import pytest
from conftest import ROOT

import kafka_meta as km
from kafka_meta.codec.face import Format
from kafka_meta.golden import find_cases
from kafka_meta.golden.verify import read_bytes
from kafka_meta.wire.codegen import PLAIN

CASES, _ = find_cases(ROOT / "fixtures" / "golden")
TYPES = set(km.types())
MESSAGE_CASES = [c for c in CASES if c.subject in TYPES and c.version is not None]


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_registered_format_has_the_one_face(name):
    fmt = km.get_format(name)
    assert isinstance(fmt, Format) and fmt.name == name
    assert fmt.versions.low <= fmt.versions.high and issubclass(fmt.model, km.Message)


def test_the_golden_cases_reach_every_kind_of_format():
    kinds = {type(km.get_format(c.subject)).__name__ for c in MESSAGE_CASES}
    assert {"SpecFormat", "DeclaredFormat", "VariantFormat"} <= kinds


@pytest.mark.parametrize("case", MESSAGE_CASES, ids=[c.id for c in MESSAGE_CASES])
def test_header_and_body_decoder_read_as_decode_plain_does(case):
    fmt = km.get_format(case.subject)
    data = read_bytes(case).body
    plain, wire = fmt.decode_plain(data, version=case.version)
    header = fmt.header(data, case.version)
    if header.layout_version is None:  # version probing: the strategy reads no body layout
        assert wire == header.wire_version > fmt.versions.high
        return
    primary_reads = True
    try:
        value, end = fmt.body_decoder(header.layout_version, PLAIN)(data, header.body_offset, len(data))
    except Exception:  # noqa: BLE001 - a variant format's primary layout need not read every variant's bytes
        primary_reads = False
    if getattr(fmt, "variants", None) and (not primary_reads or end != len(data)):
        return  # another variant read these bytes: the strategy behind decode_plain, not the face
    assert primary_reads and (value, header.wire_version) == (plain, wire)
