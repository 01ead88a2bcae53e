"""Property-based tests: numbers written in many styles are read back exactly,
and the calculator never hangs nor evaluates names or attributes."""

import contextlib
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from validation.engine.calculator import CalculatorError, evaluate
from validation.engine.checks.numeric import analyze, build_index, extract
from validation.engine.checks.numeric._formatting import (
    SUFFIX_SCALES,
    SUFFIX_UNITS,
    NumberStyle,
    render,
)
from validation.engine.types import EngineSettings, EvidenceItem

DEFAULTS = EngineSettings()  # resolved once, as validate() does

# ------------------------------------------------------------------ formatting round trip

CURRENCIES = ["", "$", "€", "£", "USD "]
SUFFIXES = list(SUFFIX_SCALES) + list(SUFFIX_UNITS)


@st.composite
def styled_numbers(draw: st.DrawFn) -> tuple[Decimal, NumberStyle]:
    decimals = draw(st.integers(0, 3))
    magnitude = draw(st.decimals(min_value=0, max_value=10**9, places=decimals))
    negative = draw(st.booleans())
    suffix = draw(st.sampled_from(SUFFIXES))
    unit_suffix = suffix in SUFFIX_UNITS
    currency = "" if unit_suffix else draw(st.sampled_from(CURRENCIES))
    negative_style = draw(st.sampled_from(["-", "\u2212", "()"]))
    if unit_suffix and negative_style == "()":
        negative_style = "-"  # "(5%)" in prose is an aside, not a negative
    style = NumberStyle(
        currency=currency.strip() if currency.startswith("USD") else currency,
        currency_after=False,
        suffix=suffix,
        decimals=decimals,
        separators=draw(st.booleans()),
        negative=negative_style,
    )
    if currency.startswith("USD"):
        style = NumberStyle(
            currency="USD ",
            suffix=suffix,
            decimals=decimals,
            separators=style.separators,
            negative=negative_style,
        )
    return (-magnitude if negative else magnitude), style


def _is_bare_year(written: Decimal, style: NumberStyle) -> bool:
    plain = not (style.currency or style.suffix or style.separators) and style.decimals == 0
    return plain and 1900 <= abs(written) <= 2100 and written >= 0


@given(styled_numbers())
@settings(max_examples=400)
def test_a_rendered_number_is_extracted_with_its_value_scale_and_unit(
    case: tuple[Decimal, NumberStyle],
) -> None:
    written, style = case
    assume(not _is_bare_year(written, style))
    text = render(written, style)
    mentions = extract(f"The figure was {text} at the close.")
    assert len(mentions) == 1, (text, [mention.text for mention in mentions])
    (mention,) = mentions
    shown = abs(written).quantize(Decimal(1).scaleb(-style.decimals), rounding=ROUND_HALF_UP)
    expected = -shown if written < 0 and shown != 0 else shown
    assert mention.written == expected, text
    assert mention.decimals == style.decimals
    scale = SUFFIX_SCALES.get(style.suffix, Decimal(1))
    assert mention.scale == scale, text
    assert mention.value == expected * scale
    if style.suffix in SUFFIX_UNITS:
        assert mention.unit == SUFFIX_UNITS[style.suffix]
    elif style.currency:
        assert mention.unit == style.currency.strip()
    else:
        assert mention.unit == ""


@given(styled_numbers())
@settings(max_examples=150)
def test_a_number_is_supported_by_evidence_holding_its_value(
    case: tuple[Decimal, NumberStyle],
) -> None:
    written, style = case
    assume(not _is_bare_year(written, style) and written != 0)
    assume(style.suffix not in SUFFIX_UNITS)
    text = render(written, style)
    shown = abs(written).quantize(Decimal(1).scaleb(-style.decimals), rounding=ROUND_HALF_UP)
    assume(shown != 0 and shown > 10)  # small bare counts are not claims
    full = shown * SUFFIX_SCALES[style.suffix]
    index = build_index([EvidenceItem(source_ref="fin", content={"figure": str(full)})])
    result = analyze(f"The figure was {text} at the close.", index, settings=DEFAULTS)
    assert [match.status for match in result.report.matches] == ["exact"], text


@given(st.text(max_size=300))
@settings(max_examples=300)
def test_extraction_never_fails_and_spans_are_honest(text: str) -> None:
    for mention in extract(text):
        assert 0 <= mention.start < mention.end <= len(text)
        assert text[mention.start : mention.end] == mention.text
        assert mention.start <= mention.num_start < mention.num_end <= mention.end


# ------------------------------------------------------------------ calculator


@dataclass(frozen=True)
class Expr:
    text: str
    unsafe: bool  # contains a name, an attribute or another forbidden construct


SAFE_FUNCTIONS = ["abs", "round", "min", "max", "sum", "sqrt", "log", "log10"]
UNSAFE_FUNCTIONS = ["eval", "exec", "open", "__import__", "getattr", "print"]

leaves = st.one_of(
    st.integers(-(10**30), 10**30).map(lambda n: Expr(str(n), False)),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda f: Expr(repr(f), False)),
    st.sampled_from(["9", "99", "999999", "0", "1e308", "1e-308"]).map(lambda s: Expr(s, False)),
    st.sampled_from(["x", "os", "__builtins__", "self", "True"]).map(lambda s: Expr(s, True)),
    st.just(Expr("'text'", True)),
)


def _extend(children: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), children)
    return st.one_of(
        binary.map(lambda t: Expr(f"({t[0].text} {t[1]} {t[2].text})", t[0].unsafe or t[2].unsafe)),
        children.map(lambda c: Expr(f"-{c.text}", c.unsafe)),
        st.tuples(st.sampled_from(SAFE_FUNCTIONS), st.lists(children, min_size=1, max_size=3)).map(
            lambda t: Expr(
                f"{t[0]}({', '.join(c.text for c in t[1])})", any(c.unsafe for c in t[1])
            )
        ),
        st.tuples(st.sampled_from(UNSAFE_FUNCTIONS), children).map(
            lambda t: Expr(f"{t[0]}({t[1].text})", True)
        ),
        children.map(lambda c: Expr(f"({c.text}).real", True)),
        children.map(lambda c: Expr(f"({c.text}).__class__", True)),
        children.map(lambda c: Expr(f"[{c.text}][0]", True)),
        children.map(lambda c: Expr(f"(lambda: {c.text})()", True)),
        st.integers(2, 12).map(lambda n: Expr("**".join(["9"] * n), False)),  # power towers
    )


expressions = st.recursive(leaves, _extend, max_leaves=25)


@given(expressions)
@settings(max_examples=500, deadline=200)
def test_the_calculator_never_hangs_and_never_evaluates_names(expression: Expr) -> None:
    try:
        result = evaluate(expression.text)
    except CalculatorError:
        return
    assert not expression.unsafe, expression.text
    assert isinstance(result, Decimal)
    assert abs(result) <= Decimal(10) ** 100


@given(st.text(max_size=600))
@settings(max_examples=300, deadline=200)
def test_the_calculator_only_ever_raises_calculator_errors(text: str) -> None:
    with contextlib.suppress(CalculatorError):
        evaluate(text)


# ------------------------------------------------------------------ the whole check

_INDEX = build_index(
    [
        EvidenceItem(source_ref="quote", content={"symbol": "NVO", "price": 190.68, "pe": 25.3}),
        EvidenceItem(source_ref="news", content="Revenue rose 12% to $40.1 billion (in millions)."),
    ]
)
_REPORTISH = st.text(
    alphabet=st.sampled_from(list("0123456789 .,%$()-=+*/x|#\nabcQFYBMK[]:")), max_size=400
)


@given(_REPORTISH)
@settings(max_examples=300, deadline=None)
def test_analyze_never_fails_and_every_fix_applies(body: str) -> None:
    result = analyze(body, _INDEX, query="NVO 2024", settings=DEFAULTS)
    for fix in result.fixes:
        assert body.count(fix.find) == 1
        assert body[fix.offset : fix.offset + len(fix.find)] == fix.find
    for start, end in result.claim_spans:
        assert 0 <= start < end <= len(body)
    report = result.report
    # Every claim is in exactly one bucket: supported, suspicious or orphan.
    assert report.exact_matches + len(report.suspicious) + len(report.orphan_numbers) == len(
        report.matches
    )
