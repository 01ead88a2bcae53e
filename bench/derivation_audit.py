"""What the derived search finds on reports as LLMs write them, and what it passes by chance.

On llm-notes-dev every number of a correct report is annotated with the writer's
expression, and each variant holds one slip at a known span. This bench runs the engine
on every record and reports:

- per operation (read from the writer's expression), how many derived numbers of the
  correct reports are supported (no numeric finding on them);
- how many slips some accepted derivation "explains": the slip's number is judged
  supported by a derivation, i.e. support by coincidence (the target is at most 3 %),
  and how many slips get no numeric finding at all.

    .venv/bin/python bench/derivation_audit.py [--set PATH] [--show]

It prints the counts with 95 % Wilson intervals; no test times or asserts it.
"""

from __future__ import annotations

import argparse
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
    low, high = wilson(explained, slips)
    print(
        f"slips explained by an accepted derivation: {explained}/{slips} = "
        f"{explained / max(slips, 1):.3f} (95% CI {low:.3f}-{high:.3f})"
    )
    print(f"slips with no numeric finding on them: {unflagged}/{slips}")


if __name__ == "__main__":
    main()
