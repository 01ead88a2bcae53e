"""Re-verification of an edited fix: does the reviewer's replacement still agree with the
proof the fix carries, or, when it does not, does the engine's own rule support it?

The engine verified the proposed replacement (a calculator call, or an evidence value); the
edit is checked the same way: each number of the edit must equal, at the precision it is
shown, the value its proof gives: the calculator call recomputed, else the number the
engine proposed (which it read from the evidence). Anything the engine cannot check is
"unverified": a person may still accept it one by one, never in bulk.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal

from analyses.models import Analysis, Evidence
from validation.engine.calculator import CalculatorError, evaluate
from validation.engine.checks.numeric import NumberMention, extract_values
from validation.engine.fixes import EditJudgment, judge_edit
from validation.models import Fix, Policy

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
    must be one the proof shows. An edit the proof does not cover is judged by the engine's
    own rule in the edited report (:func:`engine_edit_check`): a reviewer who writes the
    right value is told so even when the proposed fix came from another derivation."""
    if replace == fix.proposed_replace:
        return EditCheck(Fix.EditCheck.NONE, "")
    check = _proof_check(fix, replace)
    if check.agrees:
        return check
    judged = engine_edit_check(fix, replace)
    if judged.status == "supported":
        return EditCheck(
            Fix.EditCheck.VERIFIED,
            f"Re-verified on save by the engine's rule in the edited report: {judged.note}.",
        )
    if judged.status == "flagged":
        return EditCheck(Fix.EditCheck.UNVERIFIED, f"{check.note} The engine: {judged.note}")
    return check


def engine_edit_check(fix: Fix, replace: str) -> EditJudgment:
    """The engine's judgment of the numbers `replace` writes, spliced into the fix's
    revision and read against the analysis' evidence with its pipeline's settings."""
    revision = fix.revision
    analysis = revision.analysis
    evidence = [item.as_item() for item in analysis.evidence.order_by("id")]
    settings = Policy.for_pipeline(analysis.pipeline_id).engine_settings()
    return judge_edit(revision.body, evidence, fix.find, replace, settings)


def _proof_check(fix: Fix, replace: str) -> EditCheck:
    """`replace` against the proof `fix` carries (module docstring)."""
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


# ---------------------------------------------------------------- a reviewer's own fix

# A reviewer's own fix is checked as far as the engine can: each "expression = value" it
# writes is recomputed, each number it writes is looked up in the evidence; what neither
# settles is the reviewer's word. Confidence says which (bulk accept skips the contradicted).
REVIEWER_CONFIDENCE = {"verified": 1.0, "reviewers_word": 0.5, "unverified": UNVERIFIED_CONFIDENCE}
_EXPRESSION_CHARS = frozenset("0123456789.,+-*/()% \t$€£")


def evidence_texts(analysis_id: int) -> list[tuple[str, str]]:
    """(source_ref, text) of an analysis' evidence, JSON written out, for the look-ups."""
    rows = Evidence.objects.filter(analysis_id=analysis_id).order_by("id")
    return [
        (
            row.source_ref,
            row.content_text
            if row.content_json is None
            else json.dumps(row.content_json, ensure_ascii=False),
        )
        for row in rows
    ]


@dataclass(frozen=True)
class ReviewerFixCheck:
    status: str  # a Fix.EditCheck value: verified, unverified or reviewers_word
    note: str
    excerpts: list[dict[str, str]]  # the evidence that holds the numbers looked up

    @property
    def confidence(self) -> float:
        return REVIEWER_CONFIDENCE[self.status]


def _calculations(text: str) -> list[tuple[str, NumberMention, int, int]]:
    """(expression, stated result, start, end) of each "a op b = c" in `text`:
    the expression read back from each "=" over calculator characters (never past the
    previous "="), the result the first number after it. Linear: each character is read
    back at most once, and the look ahead is bounded."""
    found: list[tuple[str, NumberMention, int, int]] = []
    floor = 0
    for index, char in enumerate(text):
        if char != "=":
            continue
        start = index
        while start > floor and text[start - 1] in _EXPRESSION_CHARS:
            start -= 1
        expression = text[start:index]
        while expression.count("(") > expression.count(")") and "(" in expression:
            cut = expression.index("(") + 1  # "(15.5 - 0.7 = 14.8)": the group's own "("
            start, expression = start + cut, expression[cut:]
        expression = expression.strip()
        floor = index + 1
        after = text[index + 1 : index + 80]
        if expression.count("(") < expression.count(")") + after.count(")"):  # "(a - b = c)"
            after = after.replace(")", " ")
        results = extract_values(after)
        calculated = any(op in expression for op in "+-*/")
        if results and calculated and any(c.isdigit() for c in expression):
            found.append((expression, results[0], start, index + 1 + results[0].end))
    return found


def own_fix_check(analysis: Analysis, body: str, find: str, replace: str) -> ReviewerFixCheck:
    """A reviewer's own fix, checked by the same rule as an edit of a proposed one: its
    calculations recomputed and its numbers looked up (:func:`reviewer_fix_check`), then
    the replacement read by the engine in the report it edits. A number the look-up finds
    somewhere in the evidence but the engine's rule does not support there (a cell about
    something else, or a result its own operands contradict) is not verified by it."""
    looked = reviewer_fix_check(replace, evidence_texts(analysis.pk))
    if looked.status == Fix.EditCheck.UNVERIFIED:
        return looked
    evidence = [item.as_item() for item in analysis.evidence.order_by("id")]
    settings = Policy.for_pipeline(analysis.pipeline_id).engine_settings()
    judged = judge_edit(body, evidence, find, replace, settings)
    if judged.status == "flagged":
        return ReviewerFixCheck(
            Fix.EditCheck.UNVERIFIED,
            f"The engine, reading the edit in the report: {judged.note}",
            looked.excerpts,
        )
    if judged.status == "supported" and looked.status == Fix.EditCheck.REVIEWERS_WORD:
        return ReviewerFixCheck(
            Fix.EditCheck.VERIFIED,
            f"Checked on save by the engine's rule in the edited report: {judged.note}.",
            looked.excerpts,
        )
    return looked


def _plain_expression(expression: str) -> str:
    return "".join(c for c in expression if c not in "$€£,%").strip()


def reviewer_fix_check(replace: str, evidence: list[tuple[str, str]]) -> ReviewerFixCheck:
    """Check a reviewer's replacement: recompute its calculations, look its numbers up in
    `evidence` ((source_ref, text) pairs); otherwise it stands on the reviewer's word."""
    settled: list[tuple[int, int]] = []  # the spans of the calculations recomputed
    results: list[Decimal] = []  # and their values, which a number elsewhere may state
    recomputed: list[str] = []
    for expression, stated, start, end in _calculations(replace):
        try:
            value = evaluate(_plain_expression(expression))
        except CalculatorError:
            continue
        if not _agrees(stated, value) and not _agrees(stated, value * stated.scale):
            return ReviewerFixCheck(
                Fix.EditCheck.UNVERIFIED,
                f"{expression} = {stated.text.strip()} disagrees with the calculator, which "
                f"gives {_plain(value, max(stated.decimals, 2))}.",
                [],
            )
        settled.append((start, end))
        results.append(value)
        recomputed.append(f"{expression} = {stated.text.strip()}")
    numbers = extract_values(replace)
    excerpts: list[dict[str, str]] = []
    looked_up: list[str] = []
    unsettled: list[str] = []
    evidence_numbers = [(ref, text, extract_values(text)) for ref, text in evidence]
    for got in numbers:
        if any(start <= got.start < end for start, end in settled):  # recomputed above
            continue
        if any(_agrees(got, value * got.scale) for value in results):  # "$14.8B (… = 14.8)"
            continue
        hit = next(
            (
                (ref, text, mention)
                for ref, text, mentions in evidence_numbers
                for mention in mentions
                if _agrees(got, mention.value) or _agrees(got, mention.written)
            ),
            None,
        )
        if hit is None:
            unsettled.append(got.text.strip())
            continue
        ref, text, mention = hit
        looked_up.append(f"{got.text.strip()} in {ref}")
        around = text[max(0, mention.start - 60) : mention.end + 60]
        excerpts.append({"source_ref": ref, "excerpt": " ".join(around.split())})
    said = []
    if recomputed:
        said.append("recomputed " + "; ".join(recomputed))
    if looked_up:
        said.append("found " + ", ".join(looked_up))
    if unsettled or not (recomputed or looked_up):
        what = ", ".join(unsettled) if unsettled else "this change"
        note = f"The reviewer's word: the engine cannot check {what}."
        if said:
            note += " It " + " and ".join(said) + "."
        return ReviewerFixCheck(Fix.EditCheck.REVIEWERS_WORD, note, excerpts)
    return ReviewerFixCheck(
        Fix.EditCheck.VERIFIED, "Checked on save: " + " and ".join(said) + ".", excerpts
    )
