"""bootstrap.servers as every face that connects reads it (the watch, the reachability check and login probe,
Spark's Kafka source)."""

from __future__ import annotations

import pytest

from kafka_meta.errors import InputError
from kafka_meta.protocol.servers import bootstrap_servers


def test_hosts_and_ports_as_kafkas_clients_take_them():
    assert bootstrap_servers("localhost:9092") == [("localhost", 9092)]
    assert bootstrap_servers(" a:1 , b.example:65535,[::1]:9093") == [("a", 1), ("b.example", 65535), ("::1", 9093)]


@pytest.mark.parametrize("bad", ["localhost", "localhost:", ":9092", "h:0", "h:65536", "h:x", "a:1,,b:2", ""])
def test_a_form_that_is_no_host_and_port_is_the_command_lines_mistake(bad):
    with pytest.raises(InputError, match=r"--bootstrap-server .*expected HOST:PORT"):
        bootstrap_servers(bad, "--bootstrap-server")
