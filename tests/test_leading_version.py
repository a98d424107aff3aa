"""The leading-version framing: a version that is the body's first field, its companions, version probing,
and the number constructs that carry the framing's rules."""

from __future__ import annotations

from io import BytesIO

import pytest
from construct import Container

import kafka_meta as km
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.framing import Companion, ForwardPolicy, LeadingVersion, Unframed, read_number
from kafka_meta.spec import load_spec_text
from kafka_meta.wire.checked import Bounded, LayoutVersion
from kafka_meta.wire.codegen import compile_decoder, compile_encoder
from kafka_meta.wire.errors import BuildError, WireError
from kafka_meta.wire.runtime import Malformed

SPEC = load_spec_text("""{
  "type": "data", "name": "Versioned", "validVersions": "1-2", "flexibleVersions": "none",
  "fields": [
    { "name": "Version", "type": "int32", "versions": "1+" },
    { "name": "Latest", "type": "int32", "versions": "2+", "default": "-1" },
    { "name": "Payload", "type": "string", "versions": "1+" }
  ]
}""")


def versioned(forward: ForwardPolicy) -> SpecFormat:
    framing = LeadingVersion("int32", "version", forward, [Companion("latest", since=2, at_least_version=True)])
    return SpecFormat(SPEC, framing, name=f"Versioned-{forward.value}")


def test_the_version_is_read_as_a_field_and_written_as_the_version():
    fmt = versioned(ForwardPolicy.PROBE)
    message = fmt.decode(bytes.fromhex("00000001" + "000161"))
    assert (message.version, message.version_, message.payload) == (1, 1, "a")
    message.latest = 5
    assert fmt.encode(message, 2).hex() == "00000002" + "00000005" + "000161"
    message.version_, message.latest = 99, -1  # the field mirrors the framing: the version written wins
    assert fmt.encode(message, 1).hex() == "00000001" + "000161"


def test_probe_policy_and_the_others():
    data = bytes.fromhex("00000003" + "00000004" + "ffff")
    probing = versioned(ForwardPolicy.PROBE)
    probe = probing.decode(data)
    assert isinstance(probe, km.VersionProbe) and (probe.version_, probe.latest) == (3, 4)
    assert probe.unknown_trailing == b"\xff\xff" and probing.encode(probe) == data
    with pytest.raises(km.EncodeError, match="cannot be encoded"):
        versioned(ForwardPolicy.CLAMP).encode(probe)  # another format's probe
    with pytest.raises(km.DecodeError, match="newer than the newest known"):
        versioned(ForwardPolicy.REFUSE).decode(data)
    with pytest.raises(km.DecodeError, match="newer than the newest known"):
        versioned(ForwardPolicy.PROBE).decode(data, strict=True)
    clamped = versioned(ForwardPolicy.CLAMP).decode(bytes.fromhex("00000003" + "00000004" + "000162"))
    assert (clamped.version, clamped.version_, clamped.latest, clamped.payload) == (3, 3, 4, "b")


def test_companion_rule():
    fmt = versioned(ForwardPolicy.PROBE)
    with pytest.raises(km.DecodeError) as info:
        fmt.decode(bytes.fromhex("00000002" + "00000001" + "0000"))
    assert (info.value.path, info.value.offset) == ("latest", 4)
    with pytest.raises(km.DecodeError) as info:
        fmt.decode(bytes.fromhex("00000007" + "00000006"))
    assert (info.value.path, info.value.offset, info.value.version) == ("latest", 4, 7)


def test_framing_numbers():
    assert read_number("uvarint", bytes.fromhex("008001"), 1, "frame", "T") == (128, 3)
    assert read_number("int32", bytes.fromhex("00fffffffe"), 1, "v", "T") == (-2, 5)
    # as Kafka's readUnsignedVarint: at most 5 bytes, the fifth byte's bits beyond 32 shifted out of Java's int
    assert read_number("uvarint", bytes.fromhex("ffffffff7f"), 0, "frame", "T") == (0xFFFFFFFF, 5)
    for data in ("80808080", "ffffffffff01", ""):
        with pytest.raises(km.DecodeError) as info:
            read_number("uvarint", bytes.fromhex(data), 0, "frame", "T")
        assert info.value.path == "frame" and info.value.offset == 0
    with pytest.raises(km.DecodeError, match="needs 4 bytes, 2 left"):
        read_number("int32", b"\x00\x00", 0, "v", "T")


def test_layout_version_and_bounded_constructs():
    lv = LayoutVersion("uvarint", 300)
    out = bytearray()
    compile_encoder(lv)("ignored", out)
    assert bytes(out).hex() == "ac02" and lv._parse(BytesIO(b"\xac\x02"), Container(), "") == 300
    bounded = Bounded("int16", 0, 10, "why")
    assert compile_decoder(bounded)(b"\x00\x0a", 0, 2) == (10, 2)
    with pytest.raises(WireError, match=r"11 is outside 0\.\.10: why"):
        bounded._parse(BytesIO(b"\x00\x0b"), Container(), "")
    with pytest.raises(Malformed):
        compile_decoder(bounded)(b"\x00\x0b", 0, 2)
    with pytest.raises(BuildError, match="outside"):
        bounded._build(-1, BytesIO(), Container(), "")


def test_unframed_forward_policy():
    assert Unframed().forward is ForwardPolicy.REFUSE
    fmt = km.get_format("FeatureLevelRecord")
    assert fmt.framing.forward is ForwardPolicy.RANGES
    assert fmt.decode(bytes.fromhex("0261" + "0001" + "00"), version=4).feature_level == 1
