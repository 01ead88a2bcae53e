"""How often the derived search explains a number by chance.

The derived search lets a bare number of a report be "a sum, difference, ratio or
percent change of two evidence numbers". With 50 numbers in a table there are
thousands of pairwise results, so a search that is not constrained explains almost
any number. This bench measures the chance rate on real evidence: for each TAT-QA
dev bundle it writes a sentence that cites two numbers of the evidence and states a
third, random number of the same magnitude and precision, and counts how often the
engine calls that random number "derived" (or matches it at all).

    .venv/bin/python bench/derived_chance.py [--limit N] [--set PATH]

It prints the rate with a 95 % Wilson interval; no test times or asserts it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from validation.engine.numbers.evidence import build_index
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings

DEFAULT_SET = Path(__file__).resolve().parent.parent.parent / "shared/evaldata/tatqa-dev.jsonl"


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if not total:
        return 0.0, 0.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(DEFAULT_SET))
    parser.add_argument("--limit", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(7)
    settings = EngineSettings(citations="none")
    trials = derived = matched = 0
    with Path(args.set).open() as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    rng.shuffle(records)
    for record in records[: args.limit]:
        bundle = record["bundle"]
        index = build_index(Bundle(query="q", body="x", evidence=bundle["evidence"]).evidence)
        values = sorted({abs(float(index.number(e).value)) for e in range(len(index))} - {0.0})
        if len(values) < 3:
            continue
        first, second = rng.sample(values, 2)
        magnitude = max(first, second)
        guess = round(rng.uniform(magnitude * 0.05, magnitude * 2), 1)
        if any(abs(guess - value) < 0.05 for value in values):
            continue  # in the evidence as such: not a chance derivation
        body = f"Line A was {first:,} and line B was {second:,}; the figure was {guess:,}."
        verdict = validate(
            Bundle(query="What was the figure?", body=body, evidence=bundle["evidence"]),
            settings,
        )
        statuses = {match.text.replace("$", ""): match.status for match in verdict.numbers.matches}
        status = statuses.get(f"{guess:,}")
        if status is None:
            continue
        trials += 1
        derived += status == "derived"
        matched += status in ("derived", "exact", "rounded")
    low, high = wilson(derived, trials)
    print(f"bundles tried: {trials}")
    print(f"chance 'derived' rate: {derived / max(trials, 1):.3f}  (95% CI {low:.3f}-{high:.3f})")
    low, high = wilson(matched, trials)
    print(f"chance 'supported' rate: {matched / max(trials, 1):.3f}  (95% CI {low:.3f}-{high:.3f})")


if __name__ == "__main__":
    main()
