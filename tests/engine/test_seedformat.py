"""Reading a pipeline's context.md + response.md (docs/spec.md §2.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from validation.engine.seedformat import read_seed

PAIR = Path(__file__).parent / "data" / "pair"


def _read_fixture() -> tuple[str, str]:
    return (PAIR / "context.md").read_text("utf-8"), (PAIR / "response.md").read_text("utf-8")


def test_the_fixture_pair_becomes_a_bundle() -> None:
    bundle = read_seed(*_read_fixture())

    assert bundle.query == (
        "Is Novo Nordisk (NVO) a buy below $110? Show owner earnings and the margin of safety."
    )
    assert bundle.goals == [
        "Owner earnings from operating cash flow and capex",
        "Intrinsic value and margin of safety versus the current price",
    ]
    assert bundle.title == "NVO quick screen"
    assert bundle.body.startswith("# NVO quick screen")
    assert [(e.source_ref, e.kind) for e in bundle.evidence] == [
        ("memory-nvo-2024: prior note", "context"),
        ("§4.1 quote-NVO", "workflow_result"),
        ("§4.2 gurufocus-NVO-cashflow", "workflow_result"),
        ("§4.2 gurufocus-NVO-cashflow #1", "workflow_result"),
        ("§4.3 dcf-NVO", "workflow_result"),
    ]


def test_a_json_fence_alone_under_its_heading_is_json_evidence_with_its_url() -> None:
    bundle = read_seed(*_read_fixture())
    quote = bundle.evidence[1]

    assert quote.content == {
        "ticker": "NVO",
        "price": 104.2,
        "currency": "USD",
        "url": "https://finance.example.com/quote/NVO",
    }
    assert quote.url == "https://finance.example.com/quote/NVO"


def test_text_beside_a_json_fence_keeps_the_ref_and_the_fence_gets_a_numbered_ref() -> None:
    bundle = read_seed(*_read_fixture())
    text_item, json_item = bundle.evidence[2], bundle.evidence[3]

    assert text_item.content == (
        "Operating cash flow 2024: 15.5 billion USD. Capital expenditures: 0.7 billion USD."
    )
    assert json_item.content == {"operating_cash_flow": 15500000000, "capex": 700000000}


def test_a_url_in_text_evidence_becomes_its_url() -> None:
    bundle = read_seed(*_read_fixture())

    assert bundle.evidence[0].url == "https://www.novonordisk.com/investors/guidance.html"


@pytest.mark.parametrize(
    ("query_heading", "evidence_heading"),
    [
        ("## 0. User Query", "## 4. Execution Progress"),
        ("## §0 User Query", "## §4 Execution Progress"),
        ("## §0: User Query", "## §4. Execution Progress"),
        ("# Section 0", "# Section 4"),
        ("**§0 User Query**", "**§4 Execution Progress**"),
        ("## User Query", "## Workflow Results"),
        ("### §0 — User Query", "### §4 — Execution Progress"),
    ],
)
def test_heading_styles_are_read_liberally(query_heading: str, evidence_heading: str) -> None:
    context = f"{query_heading}\n\nWhat is the P/E of ACME?\n\n{evidence_heading}\n\nP/E: 12.5\n"

    bundle = read_seed(context, "ACME trades at 12.5 times earnings.")

    assert bundle.query == "What is the P/E of ACME?"
    assert [(e.source_ref, e.content) for e in bundle.evidence] == [("§4", "P/E: 12.5")]


def test_a_section_without_subheadings_is_split_on_its_list_items() -> None:
    context = (
        "## 0. User Query\nCompare ACME and BETA margins.\n\n"
        "## 4. Execution Progress\nWorkflow results:\n"
        "- ACME gross margin 41.2% (https://data.example.com/acme)\n"
        "  continued detail line\n"
        "- BETA gross margin 38.9%\n"
        '```json\n{"beta_margin": 38.9}\n```\n'
        "\n## 5. Notes\nignored 99\n"
    )

    bundle = read_seed(context, "ACME 41.2% vs BETA 38.9%.")

    assert [(e.source_ref, e.content, e.url) for e in bundle.evidence] == [
        ("§4", "Workflow results:", None),
        (
            "§4.1",
            "ACME gross margin 41.2% (https://data.example.com/acme)\n  continued detail line",
            "https://data.example.com/acme",
        ),
        ("§4.2", "BETA gross margin 38.9%", None),
        ("§4.2 #1", {"beta_margin": 38.9}, None),
    ]


def test_numbered_subheadings_deep_inside_a_section_do_not_open_new_sections() -> None:
    context = (
        "## 0. User Query\nACME revenue?\n\n## 4. Execution Progress\n"
        "### 1. Revenue\nRevenue 10.5 billion.\n### 2. Costs\nCosts 7.1 billion.\n"
    )

    bundle = read_seed(context, "Revenue was $10.5B.")

    assert bundle.query == "ACME revenue?"
    assert [e.source_ref for e in bundle.evidence] == ["§4.1 Revenue", "§4.2 Costs"]


def test_goals_may_be_written_as_goal_lines_or_in_the_plan() -> None:
    from_lines = read_seed(
        "## 0. User Query\nValue ACME.\nGoal 1: revenue growth\nGoal 2: margin trend\n",
        "Body.",
    )
    from_plan = read_seed(
        "## 0. User Query\nValue ACME.\n## 3. Plan\n### Goals\n- revenue growth\n- margin trend\n",
        "Body.",
    )

    assert from_lines.query == "Value ACME."
    assert from_lines.goals == ["revenue growth", "margin trend"]
    assert from_plan.goals == ["revenue growth", "margin trend"]


def test_a_blockquoted_query_is_unquoted() -> None:
    bundle = read_seed("## §0 User Query\n> What is the EV/EBITDA of ACME?\n", "Body.")

    assert bundle.query == "What is the EV/EBITDA of ACME?"


def test_headings_inside_code_fences_are_not_sections() -> None:
    context = (
        "## 0. User Query\nACME?\n## 4. Execution Progress\n"
        "```\n## 5. not a heading\nprice 10\n```\n"
    )

    bundle = read_seed(context, "Body.")

    assert len(bundle.evidence) == 1
    assert "## 5. not a heading" in str(bundle.evidence[0].content)


def test_the_synthesis_section_is_the_body_when_response_md_is_blank() -> None:
    bundle = read_seed("## 0. User Query\nACME?\n## 6. Synthesis\nACME is fine.\n", "  \n")

    assert bundle.body == "ACME is fine."


def test_repeated_headings_get_unique_refs() -> None:
    context = "## 0. User Query\nq\n## 4. Execution\n### quote\na 1\n### quote\nb 2\n"

    bundle = read_seed(context, "Body.")

    assert [e.source_ref for e in bundle.evidence] == ["quote", "quote (2)"]


def test_no_query_section_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no §0 user query section"):
        read_seed("## 4. Execution Progress\nprice 10\n", "Body.")


def test_an_empty_query_section_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="§0 user query section is empty"):
        read_seed("## 0. User Query\n\n## 4. Execution Progress\nprice 10\n", "Body.")


def test_no_body_anywhere_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"response\.md is empty"):
        read_seed("## 0. User Query\nq\n", "")
