"""How often the derived search explains a number by chance.

A result a report states in words ("a decrease of X", "averaged X", "X% of", "X times")
is "derived" when an operation over numbers the report cites gives it at its precision.
With dozens of numbers in a table, an unconstrained search explains almost any number;
this bench measures the chance rate on real evidence. For each TAT-QA bundle it writes
a sentence that cites two numbers of the evidence and states a random third one of the
same magnitude and precision, once bare ("the figure was X") and once after each kind
of words a result is stated with, and counts how often the engine calls the random
number "derived" (or supported at all).

    .venv/bin/python bench/derived_chance.py [--limit N] [--set PATH]

It prints each rate with a 95 % Wilson interval; no test times or asserts it.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from pathlib import Path

from validation.engine.checks.numeric import build_index
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


PHRASINGS: dict[str, str] = {
    "bare": "the figure was {amount}",
    "change": "a change of {amount}",
    "total": "{amount} in total",
    "average": "averaging {amount}",
    "percent change": "up {percent}%",
    "share": "{percent}% of the total",
    "multiple": "{ratio} times the other",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(DEFAULT_SET))
    parser.add_argument("--limit", type=int, default=600)
    args = parser.parse_args()
    rng = random.Random(7)
    settings = EngineSettings(citations="none")
    trials = dict.fromkeys(PHRASINGS, 0)
    derived = dict.fromkeys(PHRASINGS, 0)
    matched = dict.fromkeys(PHRASINGS, 0)
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
        guesses = {
            "amount": round(rng.uniform(magnitude * 0.05, magnitude * 2), 1),
            "percent": round(rng.uniform(0.1, 99.9), 1),
            "ratio": round(rng.uniform(0.1, 9.99), 2),
        }
        for name, phrasing in PHRASINGS.items():
            text = phrasing.format(
                amount=f"{guesses['amount']:,}", percent=guesses["percent"], ratio=guesses["ratio"]
            )
            body = f"Line A was {first:,} and line B was {second:,}; {text}."
            verdict = validate(
                Bundle(query="What was the figure?", body=body, evidence=bundle["evidence"]),
                settings,
            )
            last = verdict.numbers.matches[-1] if verdict.numbers.matches else None
            if last is None or last.start < body.index(";"):
                continue  # the random number was read as no claim
            trials[name] += 1
            derived[name] += last.status == "derived"
            matched[name] += last.status in ("derived", "exact", "rounded")
    print(f"{'words':<16}{'trials':>8}{'derived':>10}{'95% CI':>16}{'supported':>11}")
    for name in PHRASINGS:
        low, high = wilson(derived[name], trials[name])
        rate = derived[name] / max(trials[name], 1)
        supported = matched[name] / max(trials[name], 1)
        print(
            f"{name:<16}{trials[name]:>8}{rate:>10.3f}{f'{low:.3f}-{high:.3f}':>16}"
            f"{supported:>11.3f}"
        )


if __name__ == "__main__":
    main()
