"""The fixer's tools: ``calculator`` (the engine's safe calculator) and ``evidence_search``
(this bundle's evidence, excerpts with their source_refs). Every call is recorded as a
:class:`ToolCallRecord`, including one with wrong arguments (its ``error`` says what was
wrong), so the review page shows what the model asked and got."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from validation.engine.calculator import CalculatorError, calculate
from validation.engine.llm.figures import numbers_in
from validation.engine.llm.provider import ToolCallRequest
from validation.engine.llm.view import content_text
from validation.engine.types import EvidenceExcerpt, EvidenceItem, ToolCallRecord

_SEARCH_LIMIT = 5
_EXCERPT_CHARS = 400

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression exactly: + - * / ** ( ), "
            "abs round min max sum sqrt log log10. Plain numbers only (no $ or %).",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string", "maxLength": 500}},
                "required": ["expression"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "evidence_search",
            "description": "Search this report's evidence; returns excerpts with their source_ref.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "maxLength": 300},
                    "limit": {"type": "integer", "minimum": 1, "maximum": _SEARCH_LIMIT},
                },
                "required": ["query"],
            },
        },
    },
]


@dataclass
class ToolRun:
    record: ToolCallRecord
    value: Decimal | None = None  # a calculator result
    excerpts: list[EvidenceExcerpt] = field(default_factory=list)
    # A calculator call proves a number only when it computed something from numbers of the
    # report or the evidence (:func:`grounding`); otherwise this says why not.
    not_proof: str = ""


def run_tool(call: ToolCallRequest, evidence: list[EvidenceItem]) -> ToolRun:
    started = time.perf_counter()
    try:
        arguments = json.loads(call.arguments or "{}")
    except json.JSONDecodeError as error:
        arguments = None
        problem = f"arguments are not valid JSON: {error.msg}"
    else:
        problem = "" if isinstance(arguments, dict) else "arguments must be a JSON object"
    inputs: dict[str, Any] = (
        arguments if isinstance(arguments, dict) else {"raw": call.arguments[:500]}
    )
    run = ToolRun(ToolCallRecord(tool=call.name or "?", input=inputs))
    if not problem:
        if call.name == "calculator":
            _calculator(run, inputs)
        elif call.name == "evidence_search":
            _search(run, inputs, evidence)
        else:
            problem = f"unknown tool {call.name!r}; use calculator or evidence_search"
    if problem:
        run.record.error = problem
    run.record.duration_ms = round((time.perf_counter() - started) * 1000, 3)
    return run


def _calculator(run: ToolRun, inputs: dict[str, Any]) -> None:
    expression = inputs.get("expression")
    if not isinstance(expression, str):
        run.record.error = "calculator needs a string 'expression'"
        return
    try:
        result = calculate(expression)
    except CalculatorError as error:
        run.record.error = f"calculator: {error}"
        return
    run.value = result.value
    run.record.output = result.exact if result.terminating else str(result.value)


_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,%$-]*")


def _search(run: ToolRun, inputs: dict[str, Any], evidence: list[EvidenceItem]) -> None:
    query = inputs.get("query")
    if not isinstance(query, str) or not query.strip():
        run.record.error = "evidence_search needs a non-empty string 'query'"
        return
    limit = inputs.get("limit", 3)
    limit = max(1, min(_SEARCH_LIMIT, limit if isinstance(limit, int) else 3))
    wanted = {term.lower().strip(".,") for term in _TERM.findall(query[:300])}
    wanted.discard("")
    scored: list[tuple[int, int, EvidenceItem, str]] = []
    for position, item in enumerate(evidence):
        best, best_line = 0, ""
        for line in content_text(item)[:500_000].splitlines() or [""]:
            terms = {term.lower().strip(".,") for term in _TERM.findall(line)}
            score = len(terms & wanted)
            if score > best:
                best, best_line = score, line
        if best:
            scored.append((-best, position, item, best_line))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    for _, _, item, line in scored[:limit]:
        run.excerpts.append(
            EvidenceExcerpt(
                source_ref=item.source_ref, url=item.url, excerpt=line.strip()[:_EXCERPT_CHARS]
            )
        )
    run.record.output = json.dumps(
        [excerpt.model_dump(exclude={"label"}) for excerpt in run.excerpts], ensure_ascii=False
    )


# ---------------------------------------------------------------- grounding

_OPERATION = re.compile(r"[-+*/%]|\*\*|\b(?:abs|round|min|max|sum|sqrt|log|log10)\s*\(")
_LITERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
# Constants a calculation may use without finding them anywhere: unit changes, percent,
# halves, days, months, quarters.
_CONSTANTS = frozenset(Decimal(n) for n in (0, 1, 2, 3, 4, 10, 12, 100, 365, 1000, 10**6, 10**9))


def grounding(run: ToolRun, known: set[Decimal]) -> str:
    """Why a calculator call proves nothing ("" when it does): it computed nothing (the
    expression is one number: the model wrote the answer into the tool), or it computed
    from a number that is neither in the report nor in the evidence (an invented operand).
    ``known`` holds the absolute values of the bundle's numbers (:func:`known_numbers`)."""
    if run.value is None:
        return ""
    expression = str(run.record.input.get("expression", ""))
    literals = _LITERAL.findall(expression)
    stripped = expression.strip().lstrip("-+").strip()
    if not _OPERATION.search(stripped) or not literals:
        return "the expression computes nothing: it is the answer written into the tool"
    for literal in literals:
        try:
            value = abs(Decimal(literal))
        except ArithmeticError:  # pragma: no cover - the pattern admits only numbers
            continue
        if value in _CONSTANTS or value in known:
            continue
        return f"operand {literal} is in neither the report nor the evidence"
    return ""


def known_numbers(texts: list[str]) -> set[Decimal]:
    """The absolute values of the numbers in ``texts`` as written, scaled (million ...) and
    as fractions of a percent."""
    known: set[Decimal] = set()
    for text in texts:
        for shown in numbers_in(text[:500_000]):
            value = abs(shown.value)
            known.add(value.normalize())
            known.add((value * shown.scale).normalize())
            if shown.percent:
                known.add((value / 100).normalize())
    return known
