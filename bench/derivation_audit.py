"""What the derived search finds on reports as LLMs write them, and what it passes by chance.

On llm-notes-dev every number of a correct report is annotated with the writer's
expression, and each variant holds one slip at a known span. This bench runs the engine
on every record and reports:

- per operation (read from the writer's expression), how many derived numbers of the
  correct reports are supported (no numeric finding on them);
- of those found by a derivation, how many by another calculation than the writer's: an
  operand of the derivation (its formula's numbers, compared by their leading digits, so a
  figure restated at another scale counts as the same) is neither an operand of the
  writer's expression nor the result of one of its steps. Support by a calculation that is
  not the writer's is what the chance threshold is meant to keep rare on correct numbers
  too;
- how many slips some accepted derivation "explains": the slip's number is judged
  supported by a derivation, i.e. support by coincidence (the target is at most 3 %),
  and how many slips get no numeric finding at all.

    .venv/bin/python bench/derivation_audit.py [--set PATH] [--show]

It prints the counts with 95 % Wilson intervals; no test times or asserts it.
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings

DEFAULT_SET = Path(__file__).resolve().parent.parent.parent / "shared/evaldata/llm-notes-dev.jsonl"
_NUMERIC = re.compile(r"orphan|close|number|numeric|arith|scale|follows|unsupported")


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if not total:
        return 0.0, 0.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def operation(expression: str) -> str:
    """The operation a writer's expression performs, as an analyst would name it."""
    text = expression.replace(" ", "")
    if "**" in text or "^" in text:
        return "CAGR"
    if re.fullmatch(r"\$?[\d.,()]+", text):
        return "restated"
    if re.fullmatch(r"[\d.]+/1000+", text) or re.fullmatch(r"[\d.]+\*1000+", text):
        return "scale conversion"
    if "*100" in text:
        if re.search(r"\)/\(", text):
            return "share of a change"
        if "-" in text:
            return "percent change"
        return "share"
    if re.search(r"\)/\d+(/1000)?$", text):
        return "average"
    if "/" in text:
        return "ratio"
    if "+" in text and "-" not in text:
        return "sum"
    if "-" in text and "+" not in text:
        return "difference"
    return "other"


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE = re.compile(r"\b\d{1,2},? (?:19|20)\d\d\b")
_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[-+*/()]")
_CONSTANTS = frozenset(("100", "1000", "1000000", "2", "3", "4", "5", "1", "12"))


def _leading(text: str) -> float:
    """A number's leading digits as a value in [1, 10): 3,777 and "3.8" (million) alike."""
    value = float(text.replace(",", ""))
    while value >= 10:
        value /= 10
    while 0 < value < 1:
        value *= 10
    return value


def _the_writers(expression: str, formula: str) -> bool:
    """The derivation is the writer's calculation: each operand of one is an operand of the
    other or the result of one of its steps (8.5% as 3.5 / 41.0 is the writer's (44.5 -
    41.0) / 41.0, and the other way round), compared by leading digits to rounding."""
    bare = formula.split(" (chance")[0]
    # A label the formula quotes with its operand may write a date ("June 30, 2019 1,046"):
    # neither its day nor its year is an operand.
    bare = _DATE.sub(" ", bare)
    used = [n for n in _NUMBER.findall(bare) if not _YEAR.fullmatch(n)]
    wanted = _NUMBER.findall(expression)
    return _within(used, _values(expression)) or _within(wanted, _values(_arithmetic(bare)))


def _within(numbers: list[str], values: list[float]) -> bool:
    steps = [_leading(repr(abs(value))) for value in values if value]
    return bool(steps) and all(
        any(abs(_leading(n) - step) <= 0.01 * step for step in steps)
        for n in numbers
        if n.replace(",", "") not in _CONSTANTS and float(n.replace(",", ""))
    )


def _arithmetic(formula: str) -> str:
    """A formula's numbers and operators alone ("$3.5 million / $41.0 million * 100": 3.5 /
    41.0 * 100), years dropped: what `_values` reads, or nothing it can."""
    tokens = [t for t in _TOKEN.findall(formula) if not _YEAR.fullmatch(t)]
    return " ".join(tokens)


def _values(expression: str) -> list[float]:
    """The values of an arithmetic expression's numbers and of each of its operations."""
    try:
        tree = ast.parse(expression.replace(",", "").replace("^", "**"), mode="eval")
    except SyntaxError:
        return []
    found: list[float] = []

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            result = float(node.value)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            result = -value(node.operand)
        elif isinstance(node, ast.BinOp):
            left, right = value(node.left), value(node.right)
            operations = {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}
            if isinstance(node.op, ast.Div):
                result = left / right if right else 0.0
            elif isinstance(node.op, ast.Pow):
                result = abs(left) ** right if abs(right) < 10 else 0.0
            else:
                result = operations.get(type(node.op), 0.0)
        else:
            raise ValueError(type(node).__name__)
        found.append(result)
        return result

    try:
        value(tree.body)
    except (ValueError, OverflowError, ZeroDivisionError):
        return []
    return found


def _numeric_spans(verdict: Any) -> list[tuple[int, int]]:
    spans = []
    for finding in verdict.findings:
        if finding.start is None or finding.end is None:
            continue
        if _NUMERIC.search(finding.kind) or any(ch.isdigit() for ch in finding.text or ""):
            spans.append((finding.start, finding.end))
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(DEFAULT_SET))
    parser.add_argument("--show", action="store_true", help="print each slip passed")
    args = parser.parse_args()
    settings = EngineSettings(citations="none")
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    derived: Counter[str] = Counter()
    other: Counter[str] = Counter()
    slips = explained = unflagged = 0
    with Path(args.set).open() as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    for record in records:
        label = record["label"]
        raw = record["bundle"]
        bundle = Bundle(query=raw["query"], body=raw["body"], evidence=raw["evidence"])
        verdict = validate(bundle, settings)
        flagged = _numeric_spans(verdict)
        by_span = {(match.start, match.end): match for match in verdict.numbers.matches}
        if label["variant"] == "correct":
            for number in label.get("numbers", []):
                if number["kind"] != "derived":
                    continue
                start, end = number["span"]
                name = operation(number["expr"])
                total[name] += 1
                if not any(low < end and start < high for low, high in flagged):
                    found[name] += 1
                    match = by_span.get((start, end))
                    if match is not None and match.status == "derived":
                        derived[name] += 1
                        if not _the_writers(number["expr"], match.formula):
                            other[name] += 1
                            if args.show:
                                print(
                                    f"found by another calculation {match.text!r}: "
                                    f"{match.formula}, the writer's {number['expr']}  [{raw['id']}]"
                                )
            continue
        for start, end in label.get("spans", []):
            slips += 1
            match = next(
                (m for (low, high), m in by_span.items() if low < end and start < high), None
            )
            if match is not None and match.status == "derived":
                explained += 1
                if args.show:
                    print(
                        f"explained {match.text!r}: {match.formula}  "
                        f"[{label['variant']}, {raw['id']}]"
                    )
            if not any(low < end and start < high for low, high in flagged):
                unflagged += 1
    print(f"{'derived numbers of correct reports':<36}{'found':>7}{'of':>6}{'rate':>8}")
    for name in sorted(total, key=lambda key: -total[key]):
        print(f"  {name:<34}{found[name]:>7}{total[name]:>6}{found[name] / total[name]:>8.3f}")
    every = sum(total.values())
    print(f"  {'all':<34}{sum(found.values()):>7}{every:>6}{sum(found.values()) / every:>8.3f}")
    print(f"found by a derivation{'':<15}{'by another calculation':>24}")
    for name in sorted(derived, key=lambda key: -derived[key]):
        print(f"  {name:<34}{other[name]:>7} of {derived[name]}")
    print(f"  {'all':<34}{sum(other.values()):>7} of {sum(derived.values())}")
    low, high = wilson(explained, slips)
    print(
        f"slips explained by an accepted derivation: {explained}/{slips} = "
        f"{explained / max(slips, 1):.3f} (95% CI {low:.3f}-{high:.3f})"
    )
    print(f"slips with no numeric finding on them: {unflagged}/{slips}")


if __name__ == "__main__":
    main()
