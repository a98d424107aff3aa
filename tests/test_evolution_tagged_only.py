"""KIP-915: __consumer_offsets values grow by tagged fields only."""

from __future__ import annotations

from evolution_support import field, findings, one, rules, spec


def value(fields, valid="0", mtype="coordinator-value", **extra):
    return spec(fields, valid, "0+", name="GroupThingValue", mtype=mtype, **({"apiKey": 30} if mtype != "data"
                                                                                else {}), **extra)


def test_an_inline_field_in_a_new_version_of_a_coordinator_value():
    found = findings(value([field("Epoch")]), value([field("Epoch"), field("Hash", "int64", versions="1+")], "0-1"))
    violation = one(found, "tagged-only-violated")
    assert violation.breaking and violation.path == "GroupThingValue.Hash" and "KIP-915" in violation.message
    assert "layout-changed" not in rules(found)  # version 0 is unchanged; the new version is the problem


def test_a_tagged_addition_is_the_allowed_way():
    found = findings(value([field("Epoch")]), value([field("Epoch"), field("Hash", "int64", taggedVersions="0+",
                                                                           tag=0)]))
    assert rules(found) == ["field-added"] and not any(f.breaking for f in found)


def test_old_convention_values_and_named_messages_are_tagged_only_too():
    old = value([field("Epoch")], mtype="data")
    grown = value([field("Epoch"), field("Hash", "int64", versions="1+")], "0-1", mtype="data")
    assert "tagged-only-violated" in rules(findings(old, grown))
    plain_old = spec([field("A")], "0", "0+", name="Other")
    plain_new = spec([field("A"), field("B", versions="1+")], "0-1", "0+", name="Other")
    assert "tagged-only-violated" not in rules(findings(plain_old, plain_new))
    assert "tagged-only-violated" in rules(findings(plain_old, plain_new, tagged_only=["Oth*"]))
