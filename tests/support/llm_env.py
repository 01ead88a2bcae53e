"""The LLM path's REDLINE_LLM_* variables in a test.

The Django side reads them once, in settings (``settings.REDLINE_LLM_ENV``): a test sets that
for this process, and, when it starts worker processes, the environment they inherit too.
"""

from __future__ import annotations

import pytest
from django.conf import settings


def llm_variables(
    monkeypatch: pytest.MonkeyPatch, values: dict[str, str], *, for_workers: bool = False
) -> None:
    """Set `values` over the current ones (an empty string: as if unset)."""
    current = {**settings.REDLINE_LLM_ENV, **values}
    monkeypatch.setattr(
        settings, "REDLINE_LLM_ENV", {name: value for name, value in current.items() if value}
    )
    if for_workers:
        for name, value in values.items():
            monkeypatch.setenv(name, value)


def no_llm_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings, "REDLINE_LLM_ENV", {})
