"""Redline's validation engine: pure Python, no Django.

Import what you need from the module that defines it::

    from validation.engine.pipeline import validate
    from validation.engine.checks.numeric import build_index
    from validation.engine.types import Bundle, EngineSettings

    verdict = validate(bundle)                         # builds the evidence index itself
    index = build_index(bundle.evidence)               # or build it once ...
    verdict = validate(bundle, settings, index=index)  # ... and reuse it on warm calls

This package module imports nothing, so a light consumer such as
``validation.engine.fixes`` or ``validation.engine.seedformat`` never pays for -- or
depends on -- the numbers machinery.
"""
