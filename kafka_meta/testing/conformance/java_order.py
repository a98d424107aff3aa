"""How Java orders what the project keeps as lists: ``String.compareTo`` (UTF-16 code units, which is not Python's
code point order once characters above U+FFFF meet those between U+E000 and U+FFFF).

Kafka's consumer sorts a subscription's topics and owned partitions before writing them; to know the bytes Kafka
writes for a value, the harness sorts the same way.
"""

from __future__ import annotations


def java_string_key(text: str) -> bytes:
    """A sort key ordering strings as Java's ``String.compareTo`` does: by UTF-16 code units."""
    return text.encode("utf-16-be", "surrogatepass")
