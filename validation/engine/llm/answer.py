"""The judge's answer: the model every answer is parsed into, and what makes one a judgement.

:class:`JudgeAnswer` is the docs/spec.md §6 output schema plus per-goal
scores (§8) and the report's prose claims that the evidence does not support, each *quoted*.
Pydantic refuses, besides the schema's bounds, the placeholders a small model writes: an unnamed
goal score, an issue that is a word and not a sentence ("items"), FAIL without a quoted claim.
:func:`parse_answer` then holds the answer to the bundle it judges: each goal score names its goal,
a FAIL quote is found in the report (:func:`locate`), and an answer that finds fault while naming no
goal, quoting nothing and stating no issue is refused. A refused answer is re-asked with its errors
(:func:`validation.engine.llm.retry.generate_and_validate`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from validation.engine.fixes import strip_thinking
from validation.engine.llm.retry import AnswerRejected
from validation.engine.types import CHECK_NAMES, Decision, LLMFieldError


class JudgeChecks(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claims_supported: bool
    no_hallucinations: bool
    query_addressed: bool
    coherent_format: bool
    source_metadata_present: bool


# A word that carries meaning: three letters or more ("items" is one; "issue 1" has one).
_CONTENT_WORD = re.compile(r"[^\W\d_]{3,}")


def _named_goal(name: str) -> str:
    if not name.strip():
        raise ValueError("name the goal this score is for (empty names are placeholders)")
    return name


def _issue_text(issue: str) -> str:
    if len(_CONTENT_WORD.findall(issue)) < 2:
        raise ValueError("say what is wrong in words: a placeholder such as this is not an issue")
    return issue


class JudgeGoal(BaseModel):
    model_config = ConfigDict(extra="ignore")

    goal: Annotated[str, AfterValidator(_named_goal)] = Field(max_length=2000)
    score: float = Field(ge=0, le=1)


class JudgeClaim(BaseModel):
    """A prose claim of the report that the evidence does not support, quoted verbatim."""

    model_config = ConfigDict(extra="ignore")

    quote: str = Field(min_length=3, max_length=600)
    problem: str = Field(min_length=1, max_length=600)
    check: Literal["claims_supported", "no_hallucinations"] = "claims_supported"
    severity: Literal["critical", "major", "minor"] = "major"


class JudgeAnswer(BaseModel):
    """The docs/spec.md §6 verdict schema, plus goal scores and quoted unsupported claims."""

    model_config = ConfigDict(extra="ignore")

    decision: Decision
    confidence: float = Field(ge=0, le=1)
    issues: list[Annotated[str, AfterValidator(_issue_text)]] = Field(
        default_factory=list, max_length=30
    )
    checks: JudgeChecks
    revision_hints: str = Field(default="", max_length=4000)
    suggested_fixes: str = Field(default="", max_length=4000)
    goals: list[JudgeGoal] = Field(default_factory=list, max_length=20)
    unsupported_claims: list[JudgeClaim] = Field(
        default_factory=list, max_length=30, validate_default=True
    )

    @field_validator("decision", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        # "approve" and " APPROVE " mean APPROVE; anything else is still refused.
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("unsupported_claims")
    @classmethod
    def _fail_shows_a_claim(cls, claims: list[JudgeClaim], info: ValidationInfo) -> Any:
        # FAIL ends the analysis: only a claim of the report the evidence does not support
        # justifies it, never a judgement without content.
        if info.data.get("decision") == "FAIL" and not claims:
            raise ValueError(
                "FAIL needs an unsupported claim quoted from the report; without one, "
                "answer REVISE or RETRY"
            )
        return claims


_CONFIDENCES = [round(step / 20, 2) for step in range(21)]
_SCORES = [0, 0.25, 0.5, 0.75, 1]
_UNSENT = frozenset({"maxLength", "minLength", "maxItems", "minItems", "title", "default"})


def answer_schema(goals: int = 0) -> dict[str, Any]:
    """The JSON schema sent to the model (prompt and ``response_format``). Length bounds
    are left out: grammar-constrained decoders (llama.cpp) expand ``maxLength: 4000`` into
    a grammar they cannot parse; pydantic enforces every bound on the answer anyway.

    Every field is required, and with ``goals`` the goal scores are exactly that many: a
    decoder that follows the schema then cannot leave out what the answer is refused
    without (a small model left out the goal scores every time when they were optional)."""
    schema: dict[str, Any] = _without_bounds(JudgeAnswer.model_json_schema())
    schema["required"] = list(schema["properties"])
    # Grammar decoders do not enforce a number's minimum and maximum (a small model scored
    # goals 2.5 and 2.7 under a schema that said at most 1): the values are listed instead.
    schema["properties"]["confidence"] = {"type": "number", "enum": _CONFIDENCES}
    schema["$defs"]["JudgeGoal"]["properties"]["score"] = {"type": "number", "enum": _SCORES}
    if goals:
        schema["properties"]["goals"] = {
            **schema["properties"]["goals"],
            "minItems": goals,
            "maxItems": goals,
        }
    return schema


def _without_bounds(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _without_bounds(value)
            for key, value in node.items()
            if key not in _UNSENT or key == "properties" or not isinstance(value, int | str)
        }
    if isinstance(node, list):
        return [_without_bounds(value) for value in node]
    return node


# ---------------------------------------------------------------- parsing

_FENCE = re.compile(r"^\s*```[A-Za-z]*\s*\n?|\n?\s*```\s*$")


def parse_answer(text: str, goals: Sequence[str], body: str = "") -> JudgeAnswer:
    """Parse the model's text; raise AnswerRejected / ValidationError for a bad answer.

    Beyond the schema, an answer must be a judgement of *this* report (``goals`` and
    ``body`` are the bundle's): each goal score names its goal; FAIL quotes a claim that is
    in the report; and an answer that finds fault while naming no goal, quoting nothing
    from the report and stating no issue is a placeholder, re-asked with that error."""
    cleaned = _FENCE.sub("", strip_thinking(text)).strip()
    data = _load_json(cleaned)
    answer = JudgeAnswer.model_validate(data)
    problems = _content_problems(answer, goals, body)
    failed = [name for name in CHECK_NAMES if not getattr(answer.checks, name)]
    if answer.decision == "APPROVE" and failed:
        problems.append(
            LLMFieldError(
                category="semantic_error",
                path="decision",
                message="APPROVE requires all five checks to pass",
                expected="REVISE, RETRY or FAIL while a check is false",
                received=f"APPROVE with {', '.join(failed)} false",
            )
        )
    if goals and len(answer.goals) != len(goals):
        problems.append(
            LLMFieldError(
                category="required_missing" if len(answer.goals) < len(goals) else "semantic_error",
                path="goals",
                message=f"give one score for each of the {len(goals)} goals, in order",
                expected=f"{len(goals)} goal scores",
                received=f"{len(answer.goals)} goal scores",
            )
        )
    if problems:
        raise AnswerRejected(problems)
    return answer


def _content_problems(answer: JudgeAnswer, goals: Sequence[str], body: str) -> list[LLMFieldError]:
    """What makes an answer that parses no judgement of this report (see parse_answer)."""
    problems: list[LLMFieldError] = []
    named = False
    for index, (scored, goal) in enumerate(zip(answer.goals, goals, strict=False)):
        if _words(scored.goal) & _words(goal):
            named = True
            continue
        problems.append(
            LLMFieldError(
                category="semantic_error",
                path=f"goals.{index}.goal",
                message=f"goal {index + 1} is not named: give its name as listed",
                expected=goal[:80],
                received=scored.goal[:80],
            )
        )
    quoted = bool(body) and any(
        locate(body, claim.quote) is not None for claim in answer.unsupported_claims
    )
    if answer.decision == "FAIL" and body and not quoted:
        problems.append(
            LLMFieldError(
                category="semantic_error",
                path="decision",
                message="FAIL needs an unsupported claim quoted word for word from the report",
                expected="REVISE or RETRY, or FAIL with a quote found in the report",
                received="FAIL with no quote found in the report",
            )
        )
    failed = [name for name in CHECK_NAMES if not getattr(answer.checks, name)]
    finds_fault = answer.decision != "APPROVE" or bool(failed)
    if finds_fault and not named and not quoted and not answer.issues:
        problems.append(
            LLMFieldError(
                category="semantic_error",
                path="(answer)",
                message="an answer that names no goal and quotes nothing from the report is "
                "not a judgement: say what is wrong with this report",
                expected="issues, goal names or quoted claims",
                received=f"{answer.decision} with nothing named",
            )
        )
    return problems


def _words(text: str) -> set[str]:
    return {word.lower() for word in _CONTENT_WORD.findall(text)}


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:  # prose around one object
            try:
                return json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise AnswerRejected(
            [
                LLMFieldError(
                    category="structural_error",
                    path="(answer)",
                    message=f"not valid JSON: {first.msg} (line {first.lineno}, "
                    f"column {first.colno})",
                    expected="one JSON object",
                    received=text[:80],
                )
            ]
        ) from None


# ---------------------------------------------------------------- anchoring

_QUOTE_MARKS = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb \t\n\u2026"


def locate(body: str, quote: str, within: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """Where the model's ``quote`` sits in ``body``: verbatim first (inside ``within`` when
    given, then anywhere), else ignoring case and runs of whitespace. None if nowhere."""
    quote = quote.strip(_QUOTE_MARKS).removesuffix("...").strip(_QUOTE_MARKS)
    if len(quote) < 3:
        return None
    if within is not None:
        start = body.find(quote, within[0], within[1])
        if start >= 0:
            return start, start + len(quote)
    start = body.find(quote)
    if start >= 0:
        return start, start + len(quote)
    normalized, positions = _normalize(body)
    target, _ = _normalize(quote)
    target = target.strip()
    if not target:
        return None
    found = normalized.find(target)
    if found < 0:
        return None
    last = found + len(target) - 1
    return positions[found], positions[last] + 1


def _normalize(text: str) -> tuple[str, list[int]]:
    """Lower-cased text with each run of whitespace as one space, and for every character
    of the result its offset in ``text``."""
    chars: list[str] = []
    positions: list[int] = []
    in_space = False
    for offset, char in enumerate(text):
        if char.isspace():
            if in_space:
                continue
            in_space = True
            chars.append(" ")
        else:
            in_space = False
            chars.append(char.lower())
        positions.append(offset)
    return "".join(chars), positions
