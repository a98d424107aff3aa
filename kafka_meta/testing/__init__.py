"""Helpers for testing code that uses kafka_meta (and kafka_meta itself): hypothesis strategies."""
