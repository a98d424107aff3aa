"""A record's JSON straight from its bytes: what ``record_json(decode_record(key, value))`` gives, without models.

Printing every record of a log (``kafka-meta log --decode``, ``kafka-meta offsets``) spent most of its time
building pydantic records and dumping them back into dicts. :class:`PlainRenderer` reads key and value with
the generated decoders of :mod:`kafka_meta.models.json_mode`, which produce that JSON directly, and
decodes a consumer group's nest (members' subscriptions, assignments and assignor user data; a KIP-848
classic member's protocol metadata) the same way, following :mod:`kafka_meta.offsets.nest` and
:func:`kafka_meta.offsets.render.record_json` rule for rule: same keys in the same order, same values.

Whatever it does not cover goes through ``decode_record`` and ``record_json`` as before, so errors and
their texts are the typed reader's own: keys or values that are not ``bytes``, anything that does not
decode (the record, or a nested part, which the typed path reports in the member's ``errors``), bytes no
variant of a layout reads (a layout's fallback value), version probes, and formats whose models are not
generated from their specs. ``tests/test_offsets_plain_render.py`` checks the two paths give equal JSON.

For printing, :meth:`PlainRenderer.text` goes one step further for the records without a nest: the JSON
text itself, from the text decoders of the same module, so no dict is built or encoded.
"""

from __future__ import annotations

from binascii import a2b_base64
from collections.abc import Callable
from typing import Any

from kafka_meta.api import get_format, types
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.formats.control import KEY_TYPE, marker_name
from kafka_meta.models.json_mode import JSON, JSON_TEXT, NoJsonDecoder, encode_basestring, json_bytes, renders_alike
from kafka_meta.offsets.catalog import RecordType, catalog
from kafka_meta.offsets.nest import NEST_RULES, json_field
from kafka_meta.offsets.reader import decode_record, marker_value_type
from kafka_meta.offsets.render import record_json

MISSING: Any = object()
READ_FORWARD = ', "readForward": true'

# one message read: (its JSON, as a dict or as text; wire version; variant label or None; newest known version;
# its model's type name)
Read = tuple[Any, int, str | None, int, str]


class NotCovered(Exception):
    """The plain path leaves this record to the typed one."""


def _uncovered(name: str) -> Callable[[bytes], Any]:
    def read(buf: bytes) -> Any:
        raise NotCovered(name)
    return read


def _layout_readers(fmt: Any, version: int | None, strict: bool, label: str | None,
                    mode: Any) -> tuple[Callable[[bytes], Read], Callable[[bytes], tuple[Read, bool]]]:
    """One layout of a format, read into JSON (``mode``: as dicts or as text) as the typed ``decode`` reads it
    into a model: a function giving what was read, and one also saying whether the body took every byte; both
    raise what the typed reader would (any exception) or :class:`NotCovered`. ``version``: for formats that do
    not carry it."""
    decode_message = _message_decoder(fmt, version, strict, mode)
    if decode_message is None:
        return _uncovered(fmt.name), _uncovered(fmt.name)
    newest, kafka_type = fmt.model.newest_version, fmt.model.kafka_type

    def read(buf: bytes) -> Read:
        found = decode_message(buf)
        if found is None:
            raise NotCovered(f"{fmt.name}: a version probe")
        return found[0], found[1], label, newest, kafka_type

    def read_with_fit(buf: bytes) -> tuple[Read, bool]:
        found = decode_message(buf)
        if found is None:
            raise NotCovered(f"{fmt.name}: a version probe")
        return (found[0], found[1], label, newest, kafka_type), found[2] == len(buf)

    return read, read_with_fit


def _message_decoder(fmt: Any, version: int | None, strict: bool, mode: Any) -> Callable | None:
    """The format's whole-message decoder in ``mode``, or None when its JSON is not its models' JSON."""
    if not renders_alike(fmt):
        return None
    try:
        return fmt.message_decoder_in(mode, version, strict)  # type: ignore[no-any-return]
    except NoJsonDecoder:
        return None


def _reader(fmt: Any, strict: bool, mode: Any = JSON) -> Callable[[bytes], Read]:
    """A format read as the typed ``decode`` reads it: its single layout, or a variant format's layouts tried
    in its order (the first that reads the bytes exactly, else the first that reads them at all)."""
    variants = getattr(fmt, "variants", None)
    if variants is None:
        return _layout_readers(fmt, None, strict, None, mode)[0]
    if len(variants) == 1:  # read exactly or not, what it reads is the answer
        return _layout_readers(variants[0].format, variants[0].version, strict, variants[0].label, mode)[0]
    layouts = [_layout_readers(v.format, v.version, strict, v.label, mode)[1] for v in variants]

    def read_first_fit(buf: bytes) -> Read:
        loose = None
        for read_with_fit in layouts:
            try:
                found, exact = read_with_fit(buf)
            except NotCovered:
                raise
            except Exception:  # noqa: BLE001 - a miss, as the typed reader's DecodeError
                continue
            if exact:
                return found
            loose = loose or found
        if loose is None:  # an error, or a variant format's fallback value: the typed reader's business
            raise NotCovered("no layout reads the bytes")
        return loose

    return read_first_fit


class _RecordPlan:
    __slots__ = ("key", "name", "retired", "value")

    def __init__(self, rt: RecordType, strict: bool) -> None:
        self.name = rt.name
        self.retired = rt.retired
        self.key = _reader(rt.key, strict)
        self.value = _reader(rt.values, strict)


class _TextPlan:
    """A record type printed as text: its decoders, and the text around what they read."""

    __slots__ = ("head", "key", "label", "labels", "name", "newest", "tail", "value", "variants")

    def __init__(self, rt: RecordType, strict: bool) -> None:
        self.name = rt.name
        self.key = _message_decoder(rt.key, None, strict, JSON_TEXT) or _uncovered(rt.key.name)
        variants = rt.values.variants
        if len(variants) == 1:  # read exactly or not, what it reads is the answer
            only = variants[0]
            self.value = _message_decoder(only.format, only.version, strict, JSON_TEXT) or _uncovered(rt.values.name)
            self.variants = None
            self.label = encode_basestring(only.label)
            self.newest = only.format.model.newest_version if renders_alike(only.format) else 0
        else:
            self.variants = _reader(rt.values, strict, JSON_TEXT)
            self.labels = {v.label: encode_basestring(v.label) for v in variants}
        self.head = f'"recordType": {rt.number}, "record": {encode_basestring(rt.name)}, "key": '
        self.tail = ', "retired": true' if rt.retired else ""


def _message_json(read: Read, user_data: Read | None) -> dict[str, Any]:
    """``render.message_json`` of a message and its user data."""
    out = {"version": read[1], **read[0]}
    if user_data is not None:
        out["userData"] = {"type": user_data[4], "version": user_data[1], "variant": user_data[2], **user_data[0]}
    return out


class PlainRenderer:
    """``record_json(decode_record(key, value, strict=, control=), raw=)`` of records, most without models.

    Raises what ``decode_record`` raises for records it cannot read.
    """

    def __init__(self, strict: bool = False, raw: bool = False) -> None:
        self.strict = strict
        self.raw = raw
        self._plans: dict[int, _RecordPlan | None] = {}
        self._text_plans: dict[int, _TextPlan | None] = {}
        self._generation = -1
        self._types: frozenset[str] = frozenset()
        self._nested: dict[str, Callable[[bytes], Read]] = {}

    def __call__(self, key: bytes | None, value: bytes | None, control: bool = False) -> dict[str, Any]:
        if type(key) is bytes and (value is None or type(value) is bytes):
            try:
                return self.render(key, value, control)
            except Exception:  # noqa: BLE001 - NotCovered, or any failure: the typed path says what it is
                pass
        return record_json(decode_record(key, value, strict=self.strict, control=control), raw=self.raw)

    def render(self, key: bytes, value: bytes | None, control: bool = False) -> dict[str, Any]:
        """The plain path alone: raises :class:`NotCovered` (or whatever failed) where it does not apply."""
        if control:
            return self._control(key, value)
        if len(key) < 2:
            raise NotCovered("no record type")
        number = int.from_bytes(key[:2], "big", signed=True)
        plan = self._plans.get(number, MISSING)
        if plan is MISSING:
            plan = self._plan(number)
        if plan is None:
            if self.strict:
                raise NotCovered("unknown record type")
            return {"recordType": number, "unknown": True, "reason": f"unknown record type {number}",
                    "key": json_bytes(key), "value": None if value is None else json_bytes(value)}
        key_json = plan.key(key)[0]
        if value is None:
            out = {"recordType": number, "record": plan.name, "key": key_json, "value": None, "valueVersion": None}
        else:
            read = plan.value(value)
            value_json, version = read[0], read[1]
            out = {"recordType": number, "record": plan.name, "key": key_json, "value": value_json,
                   "valueVersion": version, "valueVariant": read[2]}
            if version > read[3]:
                out["readForward"] = True
            if number in NEST_RULES:
                self._check_registry()
                self._nest_items(number, value_json)
        if plan.retired:
            out["retired"] = True
        return out

    def text(self, key: bytes | None, value: bytes | None) -> tuple[str, str, bool, bool] | None:
        """The JSON text ``json.dumps`` writes of the record's JSON, without its braces (to follow where the
        record was read), with its record type's name, whether it is a tombstone and whether its value was read
        forward; None where only :meth:`__call__` answers: unknown record types and those whose values hold a
        nest, control records (the caller knows them), and whatever the plain path does not read."""
        if type(key) is not bytes or len(key) < 2 or not (value is None or type(value) is bytes):
            return None
        number = int.from_bytes(key[:2], "big", signed=True)
        plan = self._text_plans.get(number, MISSING)
        if plan is MISSING:
            rt = catalog().get(number)
            nested = number in NEST_RULES
            plan = self._text_plans[number] = None if rt is None or nested else _TextPlan(rt, self.strict)
        if plan is None:
            return None
        try:
            key_text = plan.key(key)[0]
            if value is None:
                return f'{plan.head}{key_text}, "value": null, "valueVersion": null{plan.tail}', plan.name, True, False
            if plan.variants is None:
                value_text, version, _ = plan.value(value)
                label, newest = plan.label, plan.newest
            else:
                value_text, version, variant, newest, _ = plan.variants(value)
                label = plan.labels[variant]
        except Exception:  # noqa: BLE001 - NotCovered, or bytes that do not decode: __call__ says what they are
            return None
        forward = version > newest
        return (f'{plan.head}{key_text}, "value": {value_text}, "valueVersion": {version}, "valueVariant": '
                f'{label}{READ_FORWARD if forward else ""}{plan.tail}', plan.name, False, forward)

    def _plan(self, number: int) -> _RecordPlan | None:
        rt = catalog().get(number)
        plan = self._plans[number] = None if rt is None else _RecordPlan(rt, self.strict)
        return plan

    # ---------------------------------------------------------------- messages of the registry
    def _check_registry(self) -> None:
        """Types registered since the readers were made (specs loaded at run time) may replace them."""
        if REGISTRY.generation != self._generation:
            self._generation = REGISTRY.generation
            self._types = frozenset(types())
            self._nested = {}

    def _read(self, type_name: str, data: bytes) -> Read:
        """``kafka_meta.decode(type_name, data)``'s message, read leniently as there."""
        reader = self._nested.get(type_name)
        if reader is None:
            reader = self._nested[type_name] = _reader(get_format(type_name), strict=False)
        return reader(data)

    def _control(self, key: bytes, value: bytes | None) -> dict[str, Any]:
        """``reader._control``: a transaction marker (its key says which), its value read only for the known ones."""
        self._check_registry()
        key_read = self._read(KEY_TYPE, key)
        marker_type = key_read[0]["type"]
        value_type = marker_value_type(marker_type)
        value_json = None
        if value is not None and value_type is not None:
            value_json = _message_json(self._read(value_type, value), None)
        return {"control": True, "marker": marker_name(marker_type), "key": _message_json(key_read, None),
                "value": value_json}

    # ---------------------------------------------------------------- the nest (kafka_meta.offsets.nest)
    def _decode(self, type_name: str | None, text: str | None) -> Read | None:
        """``nest._decode``: None for no type, no bytes or an unregistered type; a failure is not covered (the
        typed path lists it in the member's errors). Nested messages are read leniently, as there."""
        if type_name is None or not text or type_name not in self._types:
            return None
        return self._read(type_name, a2b_base64(text))

    def _nest(self, holder: dict[str, Any], field: str, message: Read | None, user_data: Read | None) -> None:
        if message is not None:
            if self.raw:
                holder[f"{field}Raw"] = holder[field]
            holder[field] = _message_json(message, user_data)

    def _nest_items(self, number: int, value: dict[str, Any]) -> None:
        """``nest.group_members`` / ``nest.classic_protocols`` and ``render._nest_member`` /
        ``render._nest_protocol``: the same rule (:data:`NEST_RULES`), walked on Kafka's JSON."""
        rule = NEST_RULES[number]
        for item in rule.items_of(value, json_field) or ():
            for nested, user_data_type in zip(rule.nested, rule.user_data_types(value, item, json_field), strict=True):
                message = self._decode(nested.type_name, item[nested.field])
                user_data = None if message is None else self._decode(user_data_type, message[0].get("userData"))
                self._nest(item, nested.field, message, user_data)
