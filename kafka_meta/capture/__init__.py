"""Kafka exchanges read straight from packet captures (pcap / pcapng, plain or gzip).

Layers, each sans-IO (bytes or values in, values out) except the file face:

* ``containers``: pcap/pcapng records -> ``Packet``s (``records``: the shared reader; ``pcap``, ``pcapng``);
* ``links``: a packet -> its TCP segment (Ethernet, Linux cooked v1/v2, BSD loopback, raw IP; IPv4/IPv6);
* ``tcp``: per-direction reassembly -> contiguous bytes and reported holes;
* ``framing``: Kafka's size-prefixed frames, with resynchronisation after damage;
* ``connections``: the connection table, which side is the client, request/response frames;
* ``decoder``: all of the above plus the protocol layer's ``Correlator`` -> ``Exchange``s;
* ``files``: ``read_capture`` / ``iter_capture`` on a file (or a pipe);
* ``jsonable``: exchanges as JSON text (bytes as base64, uuids as Kafka writes them), for the faces.
"""

from kafka_meta.capture.decoder import CaptureDecoder, Summary
from kafka_meta.capture.events import CaptureError, Packet, Problem
from kafka_meta.capture.files import capture_kind, iter_capture, read_capture

__all__ = ["CaptureDecoder", "CaptureError", "Packet", "Problem", "Summary", "capture_kind", "iter_capture",
           "read_capture"]
