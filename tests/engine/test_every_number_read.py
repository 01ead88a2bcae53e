"""Every number a person reads in the evidence is read by the engine too: digits inside
the text values of a JSON record (a name, an address, "about 80"), the same as in
prose or a markdown table; and a query that is an instruction is judged by the form it
asks for, not by its words (issue 26)."""

from __future__ import annotations

from typing import Any

import pytest

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, EvidenceItem, Finding, Verdict

NUMBERS_ONLY = EngineSettings(citations="none")

RECORD: dict[str, Any] = {
    "name": "Harbor 52 Grill",
    "address": "1418 Mission Street",
    "seats": "about 80",
    "price_range": "$15-$25",
    "rating": 4.4,
}
PROSE = (
    "Harbor 52 Grill sits at 1418 Mission Street. The dining room has about 80 seats, "
    "meals cost $15-$25 a head, and guests rate it 4.4."
)
TABLE = (
    "| name | address | seats | price range | rating |\n|---|---|---|---|---|\n"
    "| Harbor 52 Grill | 1418 Mission Street | about 80 | $15-$25 | 4.4 |"
)
FORMS = {
    "json": EvidenceItem(source_ref="lookup", kind="tool_output", content=RECORD),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=PROSE),
    "markdown": EvidenceItem(source_ref="lookup", kind="text", content=TABLE),
}
ANSWER = (
    "Harbor 52 Grill is at 1418 Mission Street. It has about 80 seats, a meal runs "
    "$15 to $25, and it is rated 4.4."
)


def _check(
    body: str, evidence: EvidenceItem, query: str = "Tell me about Harbor 52 Grill."
) -> Verdict:
    return validate(Bundle(query=query, body=body, evidence=[evidence]), NUMBERS_ONLY)


def _numeric(verdict: Verdict) -> list[Finding]:
    return [f for f in verdict.findings if f.check in ("claims_supported", "no_hallucinations")]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_numbers_in_a_records_text_values_support_the_answer(form: str) -> None:
    verdict = _check(ANSWER, FORMS[form])

    assert _numeric(verdict) == []
    assert verdict.decision == "APPROVE"


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize(
    ("right", "wrong"),
    [("1418 Mission", "1481 Mission"), ("about 80 seats", "about 120 seats"), ("$25,", "$35,")],
)
def test_a_wrong_number_beside_them_is_flagged(form: str, right: str, wrong: str) -> None:
    # A table row's cells are summed only when they are like (one unit): 80 seats and
    # $15 and $25 never make 120 of anything.
    body = ANSWER.replace(right, wrong)
    figure = next(word for word in wrong.split() if any(c.isdigit() for c in word))

    flagged = [body[f.start : f.end] for f in _numeric(_check(body, FORMS[form]))]

    assert any(figure.strip("$,") in text for text in flagged)


# ------------------------------------------------------------------ instructions

ARTICLE = (
    "The Riverside council voted on Tuesday to reopen the Mill Street footbridge, closed "
    "since a flood damaged its supports. Repairs will cost the town about $2 million and "
    "take eight months. Engineers found two of the bridge's piers cracked. Residents had "
    "petitioned for the reopening, saying the detour adds twenty minutes to the walk to "
    "the station. Work starts in March."
)
SUMMARY = (
    "Riverside's council voted to reopen the flood-damaged Mill Street footbridge. "
    "Repairs to its two cracked piers will cost about $2 million and take eight months, "
    "starting in March, after residents petitioned against a long detour."
)


def _query_findings(verdict: Verdict) -> list[Finding]:
    return [f for f in verdict.findings if f.check == "query_addressed"]


def _summarise(query: str, body: str = SUMMARY) -> Verdict:
    evidence = EvidenceItem(source_ref="article", kind="text", content=ARTICLE)
    return validate(Bundle(query=query, body=body, evidence=[evidence]), NUMBERS_ONLY)


@pytest.mark.parametrize(
    "query",
    [
        "Summarize the following news within 60 words:",
        "Summarize the following news article in about 40 words:",
        "Write a short summary of this article in two sentences.",
    ],
)
def test_an_instruction_is_met_by_an_answer_of_the_asked_form(query: str) -> None:
    verdict = _summarise(query)

    assert _query_findings(verdict) == []
    assert verdict.checks.query_addressed is True
    assert verdict.decision == "APPROVE"


def test_an_answer_far_over_the_stated_length_gets_a_minor_finding_only() -> None:
    long_summary = SUMMARY + " " + ARTICLE  # about 100 words against a limit of 40

    verdict = _summarise("Summarize the following news within 40 words:", long_summary)

    findings = _query_findings(verdict)
    assert [(f.kind, f.severity) for f in findings] == [("over_length", "minor")]
    assert "within 40 words" in findings[0].message
    assert verdict.checks.query_addressed is True


def test_a_little_over_the_stated_length_is_within_reason() -> None:
    verdict = _summarise("Summarize the following news in about 36 words:")  # 40 words

    assert _query_findings(verdict) == []


def test_a_list_shorter_than_asked_gets_a_minor_finding() -> None:
    body = "- Footbridge problems: two cracked piers.\n- Repairs cost about $2 million.\n"

    verdict = _summarise("List three problems the footbridge has.", body)

    kinds = [(f.kind, f.severity) for f in _query_findings(verdict)]
    assert ("fewer_items", "minor") in kinds
    assert verdict.checks.query_addressed is True


# ------------------------------------------------------------------ clock times

HOURS_RECORD: dict[str, Any] = {
    "name": "Harbor 52 Grill",
    "hours": {"Monday": "11:0-21:30", "Friday": "11:0-23:0", "Sunday": "12:0-20:0"},
}
HOURS_TEXT = "Open Monday 11 a.m. to 9:30 p.m., Friday 11 a.m. to 11 p.m., Sunday noon to 8 p.m."
HOURS_TABLE = (
    "| day | opens | closes |\n|---|---|---|\n| Monday | 11:00 | 21:30 |\n"
    "| Friday | 11:00 | 23:00 |\n| Sunday | 12:00 | 20:00 |"
)
HOURS = {
    "json": EvidenceItem(source_ref="lookup", kind="tool_output", content=HOURS_RECORD),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=HOURS_TEXT),
    "markdown": EvidenceItem(source_ref="lookup", kind="text", content=HOURS_TABLE),
}
HOURS_ANSWER = (
    "On Mondays it opens at 11 am and closes at 9:30 pm; Fridays run 11 am to 11 pm, "
    "and Sundays noon to 8 pm."
)


@pytest.mark.parametrize("form", sorted(HOURS))
def test_opening_hours_are_compared_as_times(form: str) -> None:
    verdict = _check(HOURS_ANSWER, HOURS[form])

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(HOURS))
@pytest.mark.parametrize(("right", "wrong"), [("9:30 pm", "10:30 pm"), ("noon", "10 am")])
def test_a_wrong_time_is_flagged_as_a_time(form: str, right: str, wrong: str) -> None:
    body = HOURS_ANSWER.replace(right, wrong)

    findings = _numeric(_check(body, HOURS[form]))

    assert [(body[f.start : f.end], f.kind) for f in findings] == [(wrong, "unsupported_time")]


def test_a_time_without_any_time_in_the_evidence_is_left_to_the_numbers() -> None:
    evidence = EvidenceItem(source_ref="lookup", kind="text", content="The grill seats 80.")

    verdict = _check("It seats 80 and opens at 11 am.", evidence)

    assert all(f.kind != "unsupported_time" for f in verdict.findings)


# ------------------------------------------------------------------ number words

BRIDGE_TEXT = "The viaduct is carried on twenty-four arches and took a dozen years to build."
BRIDGE = {
    "json": EvidenceItem(
        source_ref="lookup",
        kind="tool_output",
        content={"arches": "twenty-four", "build": "a dozen years"},
    ),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=BRIDGE_TEXT),
    "markdown": EvidenceItem(
        source_ref="lookup",
        kind="text",
        content=(
            "| feature | count |\n|---|---|\n| arches | twenty-four |\n| years to build | a dozen |"
        ),
    ),
}


@pytest.mark.parametrize("form", sorted(BRIDGE))
def test_a_count_the_evidence_writes_in_words_supports_its_digits(form: str) -> None:
    verdict = _check("The viaduct stands on 24 arches; building it took 12 years.", BRIDGE[form])

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(BRIDGE))
def test_a_wrong_count_against_words_is_flagged(form: str) -> None:
    body = "The viaduct stands on 26 arches; building it took 12 years."

    flagged = [body[f.start : f.end] for f in _numeric(_check(body, BRIDGE[form]))]

    assert any("26" in text for text in flagged)


def test_a_one_or_two_in_words_explains_no_number_by_chance() -> None:
    evidence = EvidenceItem(
        source_ref="call",
        kind="text",
        content="The ratio was 13.8 percent, one of the highest; two analysts asked about it.",
    )

    verdict = _check("The ratio was 14.8 percent.", evidence)

    assert [f.text for f in _numeric(verdict)] != []


# ------------------------------------------------------------------ dates


@pytest.mark.parametrize("written", ["**Apr. 18\u201326**", "(Apr. 18\u201326)", "Apr. 18-26"])
def test_a_shortened_day_range_is_a_date_not_two_amounts(written: str) -> None:
    evidence = EvidenceItem(
        source_ref="article",
        kind="text",
        content="The festival runs from April 18 through April 26 in Corran.",
    )

    verdict = _check(f"The festival runs {written} in Corran.", evidence)

    assert _numeric(verdict) == []


# ------------------------------------------------------------------ goals by meaning

MEMO = (
    "Contoso trades at 16.5 times earnings. By segment, retail brought 62% of sales and "
    "wholesale 38%. It ended the year with 1,146 stores."
)


@pytest.mark.parametrize("goal", ["Assess the valuation", "Explain the segment mix", "Store count"])
def test_a_goal_is_met_by_what_it_names(goal: str) -> None:
    evidence = EvidenceItem(source_ref="filing", kind="text", content=MEMO)

    verdict = validate(
        Bundle(query="Review Contoso.", goals=[goal], body=MEMO, evidence=[evidence]),
        NUMBERS_ONLY,
    )

    assert [g.status for g in verdict.goals] == ["PASS"]


def test_an_unmet_goal_names_the_words_it_looked_for() -> None:
    body = "Contoso opened new offices in Oslo and Lima."
    evidence = EvidenceItem(source_ref="filing", kind="text", content=body)

    verdict = validate(
        Bundle(query="Review Contoso.", goals=["Valuation"], body=body, evidence=[evidence]),
        NUMBERS_ONLY,
    )

    (finding,) = [f for f in verdict.findings if f.kind == "goal_not_met"]
    assert "P/E" in finding.message and "price target" in finding.message


# ------------------------------------------------------------------ counts in words

HOTEL_RECORD: dict[str, Any] = {"name": "Hotel Alder", "rooms": 118, "floors": 9}
HOTEL_TEXT = "Hotel Alder has 118 rooms over nine floors."
HOTEL_TABLE = "| hotel | rooms | floors |\n|---|---|---|\n| Hotel Alder | 118 rooms | 9 floors |"
HOTEL = {
    "json": EvidenceItem(source_ref="lookup", kind="tool_output", content=HOTEL_RECORD),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=HOTEL_TEXT),
    "markdown": EvidenceItem(source_ref="lookup", kind="text", content=HOTEL_TABLE),
}


@pytest.mark.parametrize("form", sorted(HOTEL))
def test_a_count_in_words_that_the_evidence_gives_passes(form: str) -> None:
    verdict = _check("Hotel Alder offers 118 rooms over nine floors.", HOTEL[form])

    assert _numeric(verdict) == []


@pytest.mark.parametrize("form", sorted(HOTEL))
def test_a_wrong_count_in_words_is_flagged_and_fixed_in_words(form: str) -> None:
    body = "Hotel Alder offers 118 rooms over seven floors."

    verdict = _check(body, HOTEL[form])

    assert [(f.text, f.kind) for f in _numeric(verdict)] == [("seven", "unsupported_number_word")]
    (fix,) = verdict.fixes
    assert (fix.find, fix.replace) == ("seven floors", "nine floors")


@pytest.mark.parametrize(
    "body",
    [
        "Hotel Alder offers 118 rooms; it reopened within one year of the fire.",
        "It is one of the city's taller hotels, with 118 rooms.",
        "Over three years the hotel kept its 118 rooms.",
        "The team won the series three games to two at Hotel Alder's 118 rooms.",
    ],
)
def test_number_words_that_are_no_count_of_a_counted_thing_are_not_judged(body: str) -> None:
    verdict = _check(body, HOTEL["text"])

    assert all(f.kind != "unsupported_number_word" for f in verdict.findings)


# ------------------------------------------------------------------ qualified numbers


@pytest.mark.parametrize(
    ("evidence", "right", "wrong"),
    [
        (
            "A 1,500-plus crowd watched the final.",
            "More than 1,500 people",
            "More than 1,800 people",
        ),
        ("More than 1,500 people watched the final.", "A 1,500-plus crowd", "A 1,800-plus crowd"),
    ],
)
def test_a_qualified_number_is_read_in_either_form(evidence: str, right: str, wrong: str) -> None:
    item = EvidenceItem(source_ref="article", kind="text", content=evidence)

    assert _numeric(_check(f"{right} watched the final.", item)) == []
    flagged = [f.text for f in _numeric(_check(f"{wrong} watched the final.", item))]
    assert flagged == ["1,800"]


# ------------------------------------------------------------------ closed days

SHUT_RECORD: dict[str, Any] = {
    "name": "Linden Bakery",
    "hours": {"Monday": "7:0-15:0", "Saturday": "8:0-14:0", "Sunday": "closed"},
}
SHUT_TEXT = (
    "Linden Bakery opens 7 a.m. to 3 p.m. Mondays, 8 a.m. to 2 p.m. Saturdays; closed on Sundays."
)
SHUT_TABLE = (
    "| day | hours |\n|---|---|\n| Monday | 07:00-15:00 |\n| Saturday | 08:00-14:00 |\n"
    "| Sunday | closed |"
)
SHUT = {
    "json": EvidenceItem(source_ref="lookup", kind="tool_output", content=SHUT_RECORD),
    "text": EvidenceItem(source_ref="lookup", kind="text", content=SHUT_TEXT),
    "markdown": EvidenceItem(source_ref="lookup", kind="text", content=SHUT_TABLE),
}


@pytest.mark.parametrize("form", sorted(SHUT))
@pytest.mark.parametrize(
    "body",
    [
        "Linden Bakery opens at 8 am on Saturdays and is closed Sundays.",
        "It is open Monday 7 am to 3 pm. Sunday: closed.",
    ],
)
def test_a_day_the_evidence_gives_as_closed_may_be_reported_closed(form: str, body: str) -> None:
    assert _numeric(_check(body, SHUT[form], "When is Linden Bakery open?")) == []


@pytest.mark.parametrize("form", sorted(SHUT))
def test_opening_hours_on_a_closed_day_are_flagged_as_a_time(form: str) -> None:
    body = "Linden Bakery opens at 8 am on Saturdays. On Sundays it opens at 8 am too."

    findings = _numeric(_check(body, SHUT[form], "When is Linden Bakery open?"))

    assert [(f.kind, f.start > body.index("On Sundays")) for f in findings] == [
        ("unsupported_time", True)
    ]
    assert "closed" in findings[0].message and "Sunday" in findings[0].message


# ------------------------------------------------------------------ numbers in JSON keys

SEASONS_RECORD: dict[str, Any] = {
    "club": "Kestrel Rowing",
    "members by season": {"2019 (11)": 236, "2020 (14)": 271, "FY2021": 318},
}


def _seasons(body: str) -> Verdict:
    evidence = EvidenceItem(source_ref="club_stats", kind="tool_output", content=SEASONS_RECORD)
    return _check(body, evidence, "How has Kestrel Rowing grown?")


def test_a_number_in_a_key_names_the_period_of_its_value() -> None:
    body = "Kestrel Rowing had 236 members in 2019, 271 in 2020 and 318 in fiscal 2021."

    assert _numeric(_seasons(body)) == []


@pytest.mark.parametrize("body", ["Kestrel Rowing had 11 members.", "It added 14 members."])
def test_a_number_in_a_key_is_no_value(body: str) -> None:
    findings = _numeric(_seasons(body))

    assert [f.kind for f in findings] == ["orphan"]


@pytest.mark.parametrize(
    ("body", "period"),
    [
        ("Kestrel Rowing had 271 members in 2019.", "2020"),
        ("In 2020 the club counted 318 members.", "2021"),
    ],
)
def test_a_value_given_for_another_period_is_flagged(body: str, period: str) -> None:
    findings = _numeric(_seasons(body))

    # A year written right after the figure is read by the numbers check itself (another
    # period's figure of the same line); otherwise the roles check reads the key's period.
    # Either way one finding names the period the value belongs to.
    assert len(findings) == 1
    assert findings[0].kind in ("number_elsewhere", "close_but_wrong")
    assert period in findings[0].message


def test_a_value_for_another_period_is_fixed_by_the_one_value_of_the_claimed_period() -> None:
    verdict = _seasons("Kestrel Rowing had 271 members in 2019.")

    assert [(fix.find, fix.replace) for fix in verdict.fixes] == [("271", "236")]


def test_a_value_beside_two_periods_is_not_judged_by_period() -> None:
    body = "Membership rose from 2019 to 2021, reaching 318."

    assert _numeric(_seasons(body)) == []


# ------------------------------------------------------------------ ordinals and ranks

RACE_RECORD: dict[str, Any] = {"crew": "Harwick", "race": "the 19th autumn regatta", "place": "5th"}
RACE_TEXT = "The Harwick crew took 5th place at the 19th autumn regatta, among 14 boats."
RACE_TABLE = (
    "| crew | race | result |\n|---|---|---|\n| Harwick | 19th autumn regatta | placed 5th |"
)
RACE = {
    "json": EvidenceItem(source_ref="results", kind="tool_output", content=RACE_RECORD),
    "text": EvidenceItem(source_ref="results", kind="text", content=RACE_TEXT),
    "markdown": EvidenceItem(source_ref="results", kind="text", content=RACE_TABLE),
}


@pytest.mark.parametrize("form", sorted(RACE))
@pytest.mark.parametrize(
    "body",
    [
        "Harwick finished fifth at the regatta.",
        "Harwick came in 5th at the nineteenth regatta.",
        "It was the crew's second regatta of the year, and Harwick placed fifth.",
    ],
)
def test_a_rank_the_evidence_gives_passes_in_words_or_digits(form: str, body: str) -> None:
    assert _numeric(_check(body, RACE[form], "How did Harwick do?")) == []


@pytest.mark.parametrize("form", sorted(RACE))
@pytest.mark.parametrize(
    ("body", "wrong"),
    [
        ("Harwick finished third at the regatta.", "third"),
        ("Harwick placed 4th at the regatta.", "4th"),
        ("Harwick took sixth place.", "sixth"),
    ],
)
def test_a_rank_the_evidence_does_not_give_is_flagged(form: str, body: str, wrong: str) -> None:
    verdict = _check(body, RACE[form], "How did Harwick do?")

    assert [(f.kind, f.text) for f in _numeric(verdict)] == [("unsupported_rank", wrong)]
    assert "5th" in _numeric(verdict)[0].message
    assert verdict.fixes == []  # a rank is flagged, never rewritten


def test_an_ordinal_is_no_amount_and_no_rank_without_a_rank_in_the_evidence() -> None:
    evidence = EvidenceItem(source_ref="log", kind="text", content="The crew rowed 14 km.")

    body = "For the third time this month the crew rowed 14 km; they finished fourth."

    assert _numeric(_check(body, evidence, "How far did the crew row?")) == []
