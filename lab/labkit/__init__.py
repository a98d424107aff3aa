"""The lab's Python side: build the Maven project, run a KRaft broker, capture loopback traffic, record scenarios.

Only the standard library: the lab must run before the project is installed, and from the tests' fixtures.
"""
