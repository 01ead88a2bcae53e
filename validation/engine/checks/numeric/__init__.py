"""The numeric check: every number of a report judged against the evidence.

Its public face is small::

    from validation.engine.checks.numeric import analyze, build_index

    index = build_index(bundle.evidence)      # the evidence index (reusable)
    result = analyze(body, index, settings=settings)

``validate()`` reads the body once for every check (``checks/reading.py``) and passes
its number mentions and line breaks here (``analyze(..., mentions=, newlines=)``);
called alone, ``analyze`` reads them itself with ``extract`` and ``newlines_of``.

The work is done in private modules, in the order a number travels:

- reading numbers: ``_extract`` (mentions in text) with ``_lexicon`` (the words
  around them), ``_tables`` (markdown tables and their scales), ``_layout`` (tables
  laid out with spaces: their columns of percentages), ``_labels`` (what a
  number is of), ``_scales`` (scale words), ``_formatting`` (writing a number back);
- the evidence index: ``_evidence`` (``EvidenceIndex`` and its lookups,
  ``EvidenceNumber``, ``build_index``), built in layers -- ``_index_state`` (entry
  kinds and the state the layers share), ``_index_build`` (walking JSON and text into
  entries), ``_index_labels`` (paths, labels, excerpts, declared scales), ``_number_words``
  (counts the evidence writes in words: "twenty-four arches"), ``_durations`` (a length
  of time in its neighbouring units: "a minute and a half" as 90 seconds), ``_identifiers`` (the
  parts of codes, phones and dimensions: "AS1283", "5035550172", "2880x1800");
- matching a claim: ``_matching`` (exact, rounded, another scale) and ``_readings``
  (the values a report number may stand for);
- derivation and support: ``_operations`` (operands and outcomes), ``_cues`` (what
  the words say), ``_search`` and ``_paired`` (the bounded search for an operation),
  ``_support`` (grounding), ``_misses`` (what a failed search means, with
  ``_second_look`` after the closed search), ``_references``
  (numbers that refer to something else), ``_derive`` with ``_derive_pool`` (the
  closed search for what the writer computed a still-unsupported number from,
  accepted by its chance of a coincidence; a result that needs another period's cell
  flags the stated one);
- written calculations: ``_calculations`` and ``_expressions`` (reading and
  evaluating an expression), ``_arithmetic``, ``_equations``, ``_links`` and
  ``_precision`` (checking it);
- the check itself: ``_check`` (``analyze``), ``_context`` (citations, lines and
  sentences, ``newlines_of``), ``_outcome`` (``NumericResult`` and what the steps
  share), ``_assemble`` (one outcome per number), ``_findings`` (findings and fixes)
  and ``_other_item`` (a figure set beside another line item's figure of another
  period, restating a cell of its own period's other line: that line's cell misplaced).

``_types`` holds what both halves share (``NumberMention``, the expression tree,
``WrittenCalculation``, ``CheckedCalculation``), so no two modules import each other.
"""

from validation.engine.checks.numeric._check import analyze, reset_caches
from validation.engine.checks.numeric._context import newlines_of
from validation.engine.checks.numeric._cues import CHANGE, cue_of
from validation.engine.checks.numeric._durations import durations_in_units
from validation.engine.checks.numeric._evidence import EvidenceIndex, EvidenceNumber, build_index
from validation.engine.checks.numeric._extract import (
    extract,
    extract_judged,
    extract_values,
    scan_numbers,
)
from validation.engine.checks.numeric._number_words import (
    ONES,
    TEENS,
    TENS,
    WORD_VALUES,
    number_words,
)
from validation.engine.checks.numeric._outcome import NumericResult
from validation.engine.checks.numeric._types import NumberMention

__all__ = [
    "CHANGE",
    "ONES",
    "TEENS",
    "TENS",
    "WORD_VALUES",
    "EvidenceIndex",
    "EvidenceNumber",
    "NumberMention",
    "NumericResult",
    "analyze",
    "build_index",
    "cue_of",
    "durations_in_units",
    "extract",
    "extract_judged",
    "extract_values",
    "newlines_of",
    "number_words",
    "reset_caches",
    "scan_numbers",
]
