"""The engine's one reader of the process environment: its command lines only.

The engine is a library; what it is configured with comes in as arguments (a Django
process reads every variable in ``project/settings.py`` and passes the values down).
Its command lines -- ``redline check`` and ``python -m validation.engine.llm.local`` -- are
processes of their own, and read the environment here: ``REDLINE_MAX_BODY_BYTES`` and
``REDLINE_MAX_EVIDENCE_BYTES`` (``InputLimits.from_env``), the ``REDLINE_LLM_*`` variables
(``llm.settings_from_env``), and the environment a local model server inherits.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def process_environment() -> Mapping[str, str]:
    """The environment of this process, as a command line reads it."""
    return os.environ
