"""Re-verification of an edited fix: does the reviewer's replacement still agree with the
proof the fix carries?

The engine verified the proposed replacement (a calculator call, or an evidence value); the
edit is checked the same way: each number of the edit must equal, at the precision it is
shown, the value its proof gives: the calculator call recomputed, else the number the
engine proposed (which it read from the evidence). Anything the engine cannot check is
"unverified": a person may still accept it one by one, never in bulk.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from validation.engine.calculator import CalculatorError, evaluate
from validation.engine.checks.numeric import NumberMention, extract_values
from validation.models import Fix

# The confidence of an edit its proof contradicts: below any sensible bulk-accept threshold.
UNVERIFIED_CONFIDENCE = 0.25


@dataclass(frozen=True)
class EditCheck:
    status: str  # a Fix.EditCheck value
    note: str

    @property
    def agrees(self) -> bool:
        return self.status != Fix.EditCheck.UNVERIFIED


def _recomputed(fix: Fix) -> list[Decimal]:
    """The fix's calculator calls, recomputed now (not read back from their stored output)."""
    values = []
    for call in fix.tool_calls.all():
        expression = call.input.get("expression") if isinstance(call.input, dict) else None
        if call.tool != "calculator" or call.error or not isinstance(expression, str):
            continue
        try:
            values.append(evaluate(expression))
        except CalculatorError:
            continue
    return values


def _agrees(mention: NumberMention, expected_value: Decimal) -> bool:
    """Equal at the precision shown: within half a unit in the last place written."""
    return abs(mention.value - expected_value) * 2 <= mention.quantum


def _plain(value: Decimal, decimals: int) -> str:
    return f"{value:,.{max(decimals, 0)}f}"


def _proof_numbers(fix: Fix) -> list[NumberMention]:
    """The numbers the proof itself shows: its VERIFIED_WITH and evidence excerpts (an edit
    may quote them, "= $14.8B (15.5 - 0.7)")."""
    texts = [fix.verified_with]
    texts += [str(item.get("excerpt") or "") for item in fix.evidence if isinstance(item, dict)]
    return [mention for text in texts for mention in extract_values(text)]


def fix_edit_check(fix: Fix, replace: str) -> EditCheck:
    """Check `replace` (an edit of `fix`'s replacement) against the fix's proof: every number
    the proof verified must still be there, at the value the proof gives; any other number
    must be one the proof shows."""
    if replace == fix.proposed_replace:
        return EditCheck(Fix.EditCheck.NONE, "")
    proof = fix.verified_with or "its proof"
    proposed = extract_values(fix.proposed_replace)
    if not proposed:
        return EditCheck(
            Fix.EditCheck.UNVERIFIED,
            "The engine cannot re-verify an edit of a change without numbers; "
            f"{proof} verifies only the proposed replacement.",
        )
    computed = _recomputed(fix)
    # What the proof gives for each proposed number: the exact result of a calculator call
    # the proposed number rounds (recomputed now), else that number as the engine read it.
    expected = [
        (want, next((v for v in computed if _agrees(want, v * want.scale)), want.written))
        for want in proposed
    ]
    shown = ", ".join(_plain(value, want.decimals) for want, value in expected)
    quoted = _proof_numbers(fix)
    found: set[int] = set()
    for got in extract_values(replace):
        index = next(
            (
                i
                for i, (want, value) in enumerate(expected)
                if got.unit == want.unit
                and got.currency == want.currency
                and _agrees(got, value * want.scale)
            ),
            None,
        )
        if index is not None:
            found.add(index)
        elif not any(_agrees(got, abs(q.value)) or _agrees(got, q.value) for q in quoted):
            return EditCheck(
                Fix.EditCheck.UNVERIFIED,
                f"{got.text.strip()} disagrees with the proof: {proof} gives {shown}.",
            )
    missing = [want.text.strip() for i, (want, _) in enumerate(expected) if i not in found]
    if missing:
        return EditCheck(
            Fix.EditCheck.UNVERIFIED,
            f"The edit drops the verified value {', '.join(missing)} ({proof} gives {shown}).",
        )
    return EditCheck(Fix.EditCheck.VERIFIED, f"Re-verified on save: the edit agrees with {proof}.")
