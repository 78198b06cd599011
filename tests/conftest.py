"""Shared fixtures."""

from __future__ import annotations

import pytest
from failing_estimators import FailingClassifier

from optrules.registry import METHODS, Method


@pytest.fixture
def failing_method(monkeypatch):
    """Register the test-only method "failing" (tests/failing_estimators.py) for one test."""
    monkeypatch.setitem(METHODS, "failing", Method("failing", FailingClassifier, False, "fails on purpose (tests)"))
