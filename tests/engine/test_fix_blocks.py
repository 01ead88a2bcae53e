"""Parsing `<FIX>` blocks (docs/spec.md §11.2)."""

from __future__ import annotations

from validation.engine.fixes import FixBlockError, ParsedFix, parse_fix_blocks, strip_thinking

SPEC_EXAMPLE = """<FIX>
<FIND>Free cash flow: $14.8B</FIND>
<REPLACE>Free cash flow: $14.8B (cash from operations $15.5B less capital spending $0.7B)
Checked against the 2024 cash-flow statement with the calculator</REPLACE>
<VERIFIED_WITH>calculator: 15.5 - 0.7 = 14.8; evidence cashflow-2024: both inputs</VERIFIED_WITH>
</FIX>"""


def test_the_spec_example_parses_into_one_fix() -> None:
    fixes, errors = parse_fix_blocks(SPEC_EXAMPLE)

    assert errors == []
    assert fixes == [
        ParsedFix(
            number=1,
            find="Free cash flow: $14.8B",
            replace=(
                "Free cash flow: $14.8B (cash from operations $15.5B less capital spending $0.7B)\n"
                "Checked against the 2024 cash-flow statement with the calculator"
            ),
            verified_with="calculator: 15.5 - 0.7 = 14.8; evidence cashflow-2024: both inputs",
            confidence=None,
        )
    ]


def test_confidence_attribute_is_read_in_any_quoting() -> None:
    text = "".join(
        f"<FIX {attr}><FIND>a{n}</FIND><REPLACE>b</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
        for n, attr in enumerate(['confidence="0.95"', "confidence='0.5'", "confidence=1"])
    )

    fixes, errors = parse_fix_blocks(text)

    assert errors == []
    assert [fix.confidence for fix in fixes] == [0.95, 0.5, 1.0]


def test_tags_are_case_insensitive_and_blocks_may_sit_in_prose_and_code_fences() -> None:
    text = (
        "Here are my fixes:\n```xml\n<fix><find>x = 1</find><replace>x = 2</replace>"
        "<verified_with>calculator: 1 + 1 = 2</verified_with></fix>\n```\n"
        "**FINAL DECISION: BUY**"
    )

    fixes, errors = parse_fix_blocks(text)

    assert errors == []
    assert [(f.find, f.replace, f.verified_with) for f in fixes] == [
        ("x = 1", "x = 2", "calculator: 1 + 1 = 2")
    ]


def test_find_text_is_kept_verbatim_except_one_layout_newline_at_each_end() -> None:
    text = (
        "<FIX>\n<FIND>\n  indented  text \n</FIND>\n<REPLACE>\n\nnew\n</REPLACE>\n"
        "<VERIFIED_WITH>\n evidence q-1 \n</VERIFIED_WITH>\n</FIX>"
    )

    (fix,), _ = parse_fix_blocks(text)

    assert fix.find == "  indented  text "
    assert fix.replace == "\nnew"
    assert fix.verified_with == "evidence q-1"


def test_an_empty_replace_is_a_deletion_and_is_allowed() -> None:
    fixes, errors = parse_fix_blocks(
        "<FIX><FIND> (unverified)</FIND><REPLACE></REPLACE>"
        "<VERIFIED_WITH>no source in evidence</VERIFIED_WITH></FIX>"
    )

    assert errors == []
    assert fixes[0].replace == ""


def test_thinking_blocks_are_stripped_before_parsing() -> None:
    considered = "<FIX><FIND>a</FIND><REPLACE>b</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
    final = "<FIX><FIND>c</FIND><REPLACE>d</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
    text = f"<think>maybe {considered}</think>\n{final}\n<Thinking>or {considered}</Thinking>"

    fixes, errors = parse_fix_blocks(text)

    assert errors == []
    assert [fix.find for fix in fixes] == ["c"]


def test_an_unclosed_think_hides_the_rest_and_an_orphan_close_hides_what_precedes_it() -> None:
    assert strip_thinking("answer <think>still thinking <FIX>") == "answer "
    assert strip_thinking("thinking without an opening tag</think>answer") == "answer"


def test_a_malformed_block_is_reported_by_number_and_the_valid_ones_are_still_returned() -> None:
    good = "<FIX><FIND>{0}</FIND><REPLACE>r</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
    text = (
        good.format("first")
        + "<FIX><FIND>second</FIND><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
        + good.format("third")
    )

    fixes, errors = parse_fix_blocks(text)

    assert [fix.find for fix in fixes] == ["first", "third"]
    assert [fix.number for fix in fixes] == [1, 3]
    assert len(errors) == 1
    assert isinstance(errors[0], FixBlockError)
    assert errors[0].block == 2
    assert str(errors[0]) == "FIX block 2: missing <REPLACE>"


def test_each_kind_of_malformation_has_its_own_message() -> None:
    cases = {
        "<FIX><REPLACE>r</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>": "missing <FIND>",
        "<FIX><FIND>f</FIND><REPLACE>r</REPLACE></FIX>": "missing <VERIFIED_WITH>",
        "<FIX><FIND></FIND><REPLACE>r</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>": (
            "<FIND> is empty"
        ),
        "<FIX><FIND>f</FIND><REPLACE>r</REPLACE><VERIFIED_WITH> </VERIFIED_WITH></FIX>": (
            "<VERIFIED_WITH> is empty"
        ),
        "<FIX><FIND>f<REPLACE>r</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>": (
            "<FIND> has no closing </FIND>"
        ),
        "<FIX><FIND>f</FIND><FIND>g</FIND><REPLACE>r</REPLACE>"
        "<VERIFIED_WITH>t</VERIFIED_WITH></FIX>": "more than one <FIND>",
        '<FIX confidence="high"><FIND>f</FIND><REPLACE>r</REPLACE>'
        "<VERIFIED_WITH>t</VERIFIED_WITH></FIX>": (
            "confidence must be a number between 0 and 1, got 'high'"
        ),
        '<FIX confidence="1.5"><FIND>f</FIND><REPLACE>r</REPLACE>'
        "<VERIFIED_WITH>t</VERIFIED_WITH></FIX>": (
            "confidence must be a number between 0 and 1, got '1.5'"
        ),
        "<FIX><FIND>f</FIND><REPLACE>r</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH>": (
            "missing </FIX> closing tag"
        ),
    }
    for text, problem in cases.items():
        fixes, errors = parse_fix_blocks(text)
        assert fixes == [], text
        assert [error.problem for error in errors] == [problem], text


def test_an_unclosed_block_does_not_swallow_the_next_block() -> None:
    text = (
        "<FIX><FIND>a</FIND><REPLACE>b</REPLACE>\n"
        "<FIX><FIND>c</FIND><REPLACE>d</REPLACE><VERIFIED_WITH>t</VERIFIED_WITH></FIX>"
    )

    fixes, errors = parse_fix_blocks(text)

    assert [fix.find for fix in fixes] == ["c"]
    assert [str(error) for error in errors] == ["FIX block 1: missing </FIX> closing tag"]


def test_text_without_fix_blocks_gives_nothing() -> None:
    assert parse_fix_blocks("No fixes needed.\n**FINAL DECISION: WATCH**") == ([], [])
