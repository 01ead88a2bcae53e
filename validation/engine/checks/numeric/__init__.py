"""The numeric check: every number of a report judged against the evidence.

Its public face is small::

    from validation.engine.checks.numeric import analyze, build_index

    index = build_index(bundle.evidence)      # the evidence index (reusable)
    result = analyze(body, index, settings=settings)

The work is done in private modules, in the order a number travels:

- reading numbers: ``_extract`` (mentions in text) with ``_lexicon`` (the words
  around them), ``_tables`` (markdown tables and their scales), ``_labels`` (what a
  number is of), ``_scales`` (scale words), ``_formatting`` (writing a number back);
- the evidence index: ``_evidence`` (``EvidenceIndex`` and its lookups), fed by
  ``_evidence_walk`` (walking JSON and text into entries);
- matching a claim: ``_matching`` (exact, rounded, another scale) and
  ``_readings`` (the readings of a claim);
- derivation and support: ``_operations`` (operands and outcomes), ``_search``
  and ``_paired`` (the search for a derivation), ``_cues`` (what the words say),
  ``_support`` (grounding), ``_misses`` (what a failed search means),
  ``_references`` (numbers that refer to something else);
- written calculations: ``_calculations`` and ``_expressions`` (reading an
  expression), ``_arithmetic``, ``_equations`` and ``_links`` (checking it);
- the check itself: ``_check`` (``analyze``), ``_context`` (citations, lines and
  sentences), ``_assemble`` (one outcome per number) and ``_findings`` (findings
  and fixes).
"""

from validation.engine.checks.numeric._check import analyze, reset_caches
from validation.engine.checks.numeric._evidence import EvidenceIndex, build_index
from validation.engine.checks.numeric._extract import extract, extract_values
from validation.engine.checks.numeric._index_state import EvidenceNumber
from validation.engine.checks.numeric._outcome import NumericResult
from validation.engine.checks.numeric._types import NumberMention

__all__ = [
    "EvidenceIndex",
    "EvidenceNumber",
    "NumberMention",
    "NumericResult",
    "analyze",
    "build_index",
    "extract",
    "extract_values",
    "reset_caches",
]
