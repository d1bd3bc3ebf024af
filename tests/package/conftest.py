"""Pulumi mocks for the package's components, as tests/resources uses them for the Python ones."""

from __future__ import annotations

import asyncio

import pulumi
import pytest

from tests.resources.conftest import RecordingMocks


@pytest.fixture
def mocks() -> RecordingMocks:
    recording = RecordingMocks()
    asyncio.set_event_loop(asyncio.new_event_loop())
    pulumi.runtime.set_mocks(recording, project="project", stack="stack", preview=False)
    return recording
