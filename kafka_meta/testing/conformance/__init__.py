"""Differential conformance: the project and Kafka's own classes side by side, case by case.

Kafka's code runs as a peer (the lab's ``kafkameta.lab.peer.Peer``, one JVM for a whole run): the same values
go through both, and every byte, decoded value, refusal and assignment is compared (docs/conformance.md).
"""
