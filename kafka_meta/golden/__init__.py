"""Golden files: real bytes pinned beside what they decode to, checked in both directions.

Layout (:mod:`kafka_meta.golden.layout`): ``<root>/<TypeName>/v<N>/<case>.bin`` + ``<case>.json``, and
``<case>.key.bin`` for key + value records. :func:`verify_directory` checks a directory,
:func:`add_from_bytes` / :func:`add_from_json` write cases, ``python -m kafka_meta.golden.build`` rebuilds
the project's own corpus, and the pytest plugin turns any directory into test items.
"""

from kafka_meta.golden.layout import CaseRef, find_cases
from kafka_meta.golden.store import GoldenError, add_from_bytes, add_from_json
from kafka_meta.golden.subjects import CaseBytes, MessageSubject, RecordSubject, Subject, subject_for, subjects
from kafka_meta.golden.verify import CaseResult, VerifyReport, verify_case, verify_directory

__all__ = [
    "CaseBytes",
    "CaseRef",
    "CaseResult",
    "GoldenError",
    "MessageSubject",
    "RecordSubject",
    "Subject",
    "VerifyReport",
    "add_from_bytes",
    "add_from_json",
    "find_cases",
    "subject_for",
    "subjects",
    "verify_case",
    "verify_directory",
]
