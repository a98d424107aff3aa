"""Reader x writer compatibility: for every writer version W and reader version R of a type, what a
Kafka reader whose newest version is R does with bytes of W (reads exactly, reads with fields lost,
probes, or fails), computed from the layouts and the format's forward-reading rule, and checked by
decoding golden bytes of W with a reader limited to R."""

from kafka_meta.compat.check import CellCheck, check_matrix, golden_bytes, verify
from kafka_meta.compat.matrix import Cell, Matrix, Outcome, matrix, matrix_of
from kafka_meta.compat.readers import CompatError, limited_reader
from kafka_meta.compat.rules import Forward, ForwardReading, forward_reading

__all__ = [
    "Cell",
    "CellCheck",
    "CompatError",
    "Forward",
    "ForwardReading",
    "Matrix",
    "Outcome",
    "check_matrix",
    "forward_reading",
    "golden_bytes",
    "limited_reader",
    "matrix",
    "matrix_of",
    "verify",
]
