"""Golden vectors from the lab's recordings: bytes Kafka 4.4.0's broker, its Java clients and Kafka Streams
(2.4.1 and 4.4.0) wrote, taken from the committed recordings (fixtures/lab/<scenario>/) with kafka_meta's own
readers and written as one JSON Lines file in the shape of the shared golden vectors, which
``python -m kafka_meta.golden.build`` reads beside them (docs/golden.md).

``lab/extract_vectors`` runs it. Unlike labkit, which must run before the project is installed, this needs
kafka_meta: it reads the recordings as the project reads any capture or log directory. kafka_meta never
imports it.
"""
