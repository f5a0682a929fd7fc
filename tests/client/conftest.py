"""Fixtures of the client tests: one uvicorn server per worker, reset for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.client.support import Server


@pytest.fixture(scope="session")
def _server() -> Iterator[Server]:
    server = Server()
    yield server
    server.stop()


@pytest.fixture
def server(_server: Server) -> Server:
    _server.reset()
    return _server
