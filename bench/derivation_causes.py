"""Why each flagged number of a correct llm-notes report is flagged: the closed derived
search's view of it, tabulated by cause (issue 25).

For every number of a correct report that gets a numeric finding, the bench looks at
what `_derive` was given for it (the pool of operands), checks whether the writer's
operands (from `label.numbers`: the numbers of its expression) are in that pool, and
whether some candidate hits it and at what chance of a coincidence. The causes:

- never searched: the number was read as one end of a range, or judged as another
  period's figure, or close to an evidence cell with no words of a result;
- a restated evidence figure not matched (an evidence reading);
- an operand outside the pool (a row the sentence does not name, a derived figure);
- no candidate hits (an operation the family does not have);
- a hit found, but its chance over `ACCEPT`.

    .venv/bin/python bench/derivation_causes.py [--set PATH] [--show]

It reads the engine's private functions (a bench, not a test): it prints counts only.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from validation.engine.checks.numeric import _derive, _derive_accept
from validation.engine.checks.numeric._derive_candidates import TIERS, candidates
from validation.engine.checks.numeric._derive_pool import Operand
from validation.engine.checks.numeric._derive_years import periods_named
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings

DEFAULT_SET = Path(__file__).resolve().parent.parent.parent / "shared/evaldata/llm-notes-dev.jsonl"
_NUMERIC = re.compile(r"orphan|close|number|numeric|arith|scale|follows|unsupported")
_LITERAL = re.compile(r"\d[\d,]*\.?\d*")
_CONSTANTS = {2.0, 3.0, 4.0, 5.0, 100.0, 1000.0, 1000000.0}


def _has(pool: Sequence[Operand], wanted: float) -> bool:
    def near(value: float) -> bool:
        return abs(value - wanted) <= 1e-6 * max(1.0, abs(wanted))

    return any(near(o.value) or (o.digits and near(o.value / o.digits)) for o in pool)


def _best_hit(claim: Any, body: str, operands: Sequence[Operand], periods: Sequence[int]) -> str:
    """The first candidate in the claim's rounding window and the chance it would carry."""
    mention = claim.mention
    readings = [(abs(float(mention.written)), 10.0**-mention.decimals)]
    kind = "percent" if mention.is_percent else "amount"
    if kind == "amount":
        readings = _derive_accept._readings(mention, body, operands)
    neighbours = [0] * (TIERS + 1)
    hit: tuple[float, float, float] | None = None
    for tier, value, _, _, _ in candidates(operands, kind, periods, 0, compound=True):
        for target, width in readings:
            if (
                target
                and target / _derive_accept._SPREAD <= value <= target * _derive_accept._SPREAD
            ):
                neighbours[int(tier)] += 1
                if hit is None and abs(value - target) <= width / 2 * 1.000001:
                    hit = (tier, target, width)
    if hit is None:
        return "no candidate hits"
    tier, target, width = hit
    chance = sum(neighbours[: int(tier) + 1]) * width / (target * _derive_accept._LOG_SPREAD)
    return f"hit at tier {tier}, chance {chance:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(DEFAULT_SET))
    parser.add_argument("--show", action="store_true", help="print each flagged number")
    args = parser.parse_args()
    seen: dict[tuple[int, int], dict[str, Any]] = {}
    names = vars(_derive)  # the bench watches the search: what it is given for each number
    original_rescue: Callable[..., bool] = names["_rescue"]
    original_pool: Callable[..., list[Operand]] = names["pool"]
    current: dict[str, Any] = {}

    def pool(*arguments: Any) -> list[Operand]:
        current["pool"] = found = original_pool(*arguments)
        current["periods"] = periods_named(arguments[4])
        return found

    def rescue(body: str, claims: Sequence[Any], position: int, *rest: Any, **named: Any) -> bool:
        current.clear()
        result = original_rescue(body, claims, position, *rest, **named)
        mention = claims[position].mention
        seen[(mention.start, mention.end)] = dict(current, claim=claims[position])
        return result

    names["_rescue"] = rescue
    names["pool"] = pool
    causes: Counter[str] = Counter()
    settings = EngineSettings(citations="none")
    with Path(args.set).open() as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    for record in records:
        label = record["label"]
        if label["variant"] != "correct":
            continue
        raw = record["bundle"]
        body = raw["body"]
        seen.clear()
        bundle = Bundle(query=raw["query"], body=body, evidence=raw["evidence"])
        verdict = validate(bundle, settings)
        findings = [
            f
            for f in verdict.findings
            if f.check in ("claims_supported", "no_hallucinations")
            and (_NUMERIC.search(f.kind) or any(ch.isdigit() for ch in f.text or ""))
        ]
        for number in label.get("numbers", []):
            start, end = number["span"]
            finding = next((f for f in findings if f.start < end and start < f.end), None)
            if finding is None:
                continue
            looked = next((v for (a, z), v in seen.items() if a < end and start < z), None)
            if looked is None:
                cause = f"never searched ({finding.kind})"
            elif number["kind"] == "evidence":
                cause = "a restated evidence figure not matched"
            elif "pool" not in looked:
                cause = "close to an evidence cell, no words of a result: not searched"
            else:
                wanted = [float(x.replace(",", "")) for x in _LITERAL.findall(number["expr"])]
                wanted = [w for w in wanted if w not in _CONSTANTS] or wanted
                if not all(_has(looked["pool"], w) for w in wanted):
                    cause = "an operand outside the pool"
                else:
                    why = _best_hit(looked["claim"], body, looked["pool"], looked["periods"])
                    cause = "no candidate hits" if why.startswith("no") else "hit, chance too high"
                    if args.show:
                        print(f"    {why}")
            causes[cause] += 1
            if args.show:
                print(f"{label['task']} {body[start:end]!r} = {number['expr']}: {cause}")
    total = sum(causes.values())
    print(f"flagged numbers of correct reports: {total}")
    for cause, count in causes.most_common():
        print(f"  {count:>4}  {cause}")


if __name__ == "__main__":
    main()
