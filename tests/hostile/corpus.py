"""A generated corpus of hostile bundles (issue 12): bad input that must be refused with a
clear message, and pathological but valid reports that must get a verdict.

Each :class:`Case` is raw bytes as a client would send them, so the same case goes through
ingest (``analysis_ingest``) and the command line (``redline check``) unchanged. Wall
patterns are generated at any size: the tests use :data:`TEST_SIZE`, ``bench/hostile.py``
10 KB and 200 KB.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["refused", "verdict"]

# Small enough that the whole corpus runs in the test suite in seconds whatever the cost per
# byte of a stage; bench/hostile.py measures how each pattern scales.
TEST_SIZE = 4_000
# The body limit (REDLINE_MAX_BODY_BYTES default): the largest body ingest accepts.
BODY_LIMIT = 200_000


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    outcome: Outcome
    # A fragment of the message a refusal must carry (ingest's and the CLI's are the same).
    message: str = ""


def bundle(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": "Hostile",
        "query": "Is ACME a buy? Show owner earnings.",
        "body": "Owner earnings were $14.8B [acme] in 2024.\n\nFINAL DECISION: WATCH\n",
        "evidence": [
            {
                "source_ref": "acme",
                "kind": "tool_output",
                "url": "https://example.com/acme",
                "content": {"owner_earnings": 14_800_000_000, "revenue": 40_100_000_000},
            }
        ],
    }
    data.update(changes)
    return data


def encode(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _with_evidence(**item: Any) -> dict[str, Any]:
    base = {"source_ref": "acme", "content": "Owner earnings $14.8B"}
    base.update(item)
    return bundle(evidence=[base])


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


# ---------------------------------------------------------------- refused

REFUSED: list[tuple[str, Callable[[], bytes], str]] = [
    ("not json", lambda: b"{not json", "malformed JSON"),
    ("empty input", lambda: b"", "malformed JSON"),
    ("json array", lambda: b"[1, 2]", "bundle must be a JSON object"),
    ("json string", lambda: b'"body"', "bundle must be a JSON object"),
    ("json null", lambda: b"null", "bundle must be a JSON object"),
    ("truncated json", lambda: encode(bundle())[:-7], "malformed JSON"),
    ("deep json", lambda: b'{"body": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested"),
    (
        "non-utf8 in body",
        lambda: encode(bundle()).replace(b"Owner", b"Own\xffer", 1),
        "body is not valid UTF-8",
    ),
    ("non-utf8 outside strings", lambda: b'{"query": "q", \xfe "body": "b"}', "not valid UTF-8"),
    ("latin-1 text", lambda: encode(bundle()).decode().encode("utf-16"), "UTF-8"),
    ("NaN field", lambda: encode(bundle(fields={"x": 1})).replace(b"1}", b"NaN}"), "NaN"),
    ("Infinity field", lambda: encode(bundle(fields={"x": 1})).replace(b"1}", b"Infinity}"), "Inf"),
    (
        "-Infinity evidence",
        lambda: encode(_with_evidence(content={"v": 1})).replace(b'"v": 1', b'"v": -Infinity'),
        "-Infinity",
    ),
    ("NaN intrinsic value", lambda: encode(bundle(fields={"intrinsic_value": "NaN"})), "number"),
    ("1e999 field", lambda: encode(bundle(fields={"x": 1})).replace(b"1}", b"1e999}"), "finite"),
    (
        "1e999 evidence",
        lambda: encode(_with_evidence(content={"v": 1})).replace(b'"v": 1', b'"v": 1e999'),
        "finite",
    ),
    (
        "5000-digit integer field",
        lambda: encode(bundle(fields={"x": 1})).replace(b"1}", b"9" * 5000 + b"}"),
        "fields.x: an integer of 5000 digits",
    ),
    (
        "5000-digit integer evidence",
        lambda: encode(_with_evidence(content={"v": 1})).replace(b'"v": 1', b'"v": ' + b"7" * 5000),
        "evidence[0].content.v: an integer of 5000 digits",
    ),
    (
        "5000-digit negative integer in a list",
        lambda: encode(_with_evidence(content=[1])).replace(b"[1]", b"[-" + b"8" * 5000 + b"]"),
        "an integer of 5000 digits",
    ),
    ("NUL in body", lambda: encode(bundle(body="a\x00b")), "body: contains a NUL character"),
    ("NUL in query", lambda: encode(bundle(query="q\x00")), "query: contains a NUL"),
    ("NUL in title", lambda: encode(bundle(title="\x00")), "title: contains a NUL"),
    ("NUL in evidence", lambda: encode(_with_evidence(content="x\x00y")), "contains a NUL"),
    ("NUL in a key", lambda: encode(bundle(fields={"a\x00": 1})), "contains a NUL"),
    # As the JSON escape \ud800: valid UTF-8 that decodes to a lone surrogate.
    (
        "lone surrogate",
        lambda: json.dumps(bundle(body="bad \ud800 x")).encode(),
        "unpaired surrogate",
    ),
    ("surrogate bytes", lambda: encode(bundle(body="bad \ud800 x")), "body is not valid UTF-8"),
    ("blank body spaces", lambda: encode(bundle(body="     ")), "body: must not be blank"),
    ("blank body newlines", lambda: encode(bundle(body="\n" * 5000)), "must not be blank"),
    ("blank body tabs", lambda: encode(bundle(body="\t \r\n")), "must not be blank"),
    ("blank body nbsp", lambda: encode(bundle(body="\u00a0\u2003")), "must not be blank"),
    ("empty body", lambda: encode(bundle(body="")), "body: must not be blank"),
    ("blank query", lambda: encode(bundle(query="  ")), "query: must not be blank"),
    ("missing body", lambda: encode({"query": "q"}), "body: field required"),
    ("missing query", lambda: encode({"body": "b"}), "query: field required"),
    ("body a number", lambda: encode(bundle(body=5)), "body: input should be a valid string"),
    ("body a list", lambda: encode(bundle(body=["a"])), "body: input should be a valid string"),
    (
        "oversized body",
        lambda: encode(bundle(body="x" * (BODY_LIMIT + 1))),
        "body: exceeds the 200000-byte limit",
    ),
    (
        "oversized body in multibyte characters",
        lambda: encode(bundle(body="é" * (BODY_LIMIT // 2 + 1))),
        "body: exceeds the 200000-byte limit",
    ),
    (
        "oversized evidence",
        lambda: encode(
            bundle(evidence=[{"source_ref": f"e{i}", "content": "x" * 1_000_000} for i in range(6)])
        ),
        "evidence: exceeds the 5000000-byte limit",
    ),
    ("oversized input", lambda: b" " * 7_000_000, "input limit"),
    ("too many fields", lambda: encode(bundle(fields={f"f{i}": 1 for i in range(101)})), "at most"),
    ("huge fields", lambda: encode(bundle(fields={"notes": "x" * 100_001})), "bytes of JSON"),
    ("blank field name", lambda: encode(bundle(fields={" ": 1})), "is not a field name"),
    ("long field name", lambda: encode(bundle(fields={"n" * 101: 1})), "is not a field name"),
    ("decision a number", lambda: encode(bundle(fields={"decision": 3})), "fields.decision"),
    ("decision prose", lambda: encode(bundle(fields={"decision": "buy?!"})), "fields.decision"),
    ("conviction long", lambda: encode(bundle(fields={"conviction": "X" * 30})), "conviction"),
    ("numeric field text", lambda: encode(bundle(fields={"fair_value": "lots"})), "fair_value"),
    (
        "huge number string field",
        lambda: encode(bundle(fields={"fair_value": "9" * 5000})),
        "fields.fair_value: must be a number",
    ),
    ("numeric field bool", lambda: encode(bundle(fields={"target_price": True})), "target_price"),
    ("nested fields", lambda: encode(bundle(fields={"x": _nested(80)})), "nested deeper"),
    ("nested evidence", lambda: encode(_with_evidence(content=_nested(80))), "nested deeper"),
    (
        "duplicate source_ref",
        lambda: encode(bundle(evidence=[{"source_ref": "a", "content": "x"}] * 2)),
        "used more than once",
    ),
    ("blank source_ref", lambda: encode(_with_evidence(source_ref="  ")), "must not be blank"),
    ("javascript url", lambda: encode(_with_evidence(url="javascript:alert(1)")), "valid URL"),
    ("url with spaces", lambda: encode(_with_evidence(url="http://a b.com/")), "valid URL"),
    ("url without host", lambda: encode(_with_evidence(url="https:///x")), "valid URL"),
    ("data url", lambda: encode(_with_evidence(url="data:text/html,<b>")), "valid URL"),
    ("blank text evidence", lambda: encode(_with_evidence(content=" \n ")), "must not be empty"),
    ("evidence content a number", lambda: encode(_with_evidence(content=15.5)), "text or JSON"),
    ("evidence not a list", lambda: encode(bundle(evidence={"a": 1})), "valid list"),
    (
        "too many evidence items",
        lambda: encode(
            bundle(evidence=[{"source_ref": f"e{i}", "content": "x"} for i in range(501)])
        ),
        "evidence",
    ),
    ("too many goals", lambda: encode(bundle(goals=["g"] * 21)), "goals"),
    ("long goal", lambda: encode(bundle(goals=["g" * 2001])), "goals[0]: at most 2000"),
    ("blank goal", lambda: encode(bundle(goals=["ok", " "])), "goals[1]: must not be blank"),
    ("long query", lambda: encode(bundle(query="q" * 20_001)), "query"),
    ("long title", lambda: encode(bundle(title="t" * 301)), "title"),
    ("external_id padded", lambda: encode(bundle(external_id=" x ")), "whitespace"),
    ("unknown field", lambda: encode(bundle(author="me")), "author: unknown field"),
    ("unknown evidence field", lambda: encode(_with_evidence(contents="x")), "unknown field"),
]


# ---------------------------------------------------------------- pathological, valid

# Walls of one pattern, repeated to the size asked. The first line keeps the report readable.
WALLS: list[tuple[str, str]] = [
    ("spaces", " "),
    ("stars", "*"),
    ("underscores", "_"),
    ("pipes", "|"),
    ("newlines", "\n"),
    ("crlf", "\r\n"),
    ("tabs", "\t"),
    ("open brackets", "["),
    ("close brackets", "]"),
    ("link openers", "[a]("),
    ("image openers", "!["),
    ("bracket pairs", "[["),
    ("guillemets", "‹"),  # noqa: RUF001
    ("angle brackets", "<"),
    ("raw tags", "<b>"),
    ("script tags", "<script>x</script>"),
    ("quotes", "> "),
    ("list markers", "- "),
    ("ordered markers", "1. "),
    ("headings", "#"),
    ("backticks", "`"),
    ("fences", "```\n"),
    ("tildes", "~~~\n"),
    ("ampersands", "&"),
    ("entities", "&amp;"),
    ("backslashes", "\\"),
    ("emphasis soup", "*a _b "),
    ("strong openers", "**a"),
    ("table rows", "|a|b|\n|-|-|\n"),
    ("table body", "| 1 | 2 |\n"),
    ("parentheses", "("),
    ("nested parens", "((((1))))"),
    ("dollars", "$"),
    ("percents", "%"),
    ("five percent", "5% "),
    ("digits", "1"),
    ("digit groups", "1,"),
    ("decimals", "1."),
    ("money", "$1 "),
    ("from-to", "from $1 to "),
    ("sums", "1 + 1 = 2 "),
    ("equals", "="),
    ("minus", "-"),
    ("dashes", "—"),
    ("percent changes", "up 5% from $10 to $10.5, "),
    ("ranges", "$1-2B "),
    ("ranges in words", "four to six eggs, "),
    ("range ends", "4 to 7 eggs, "),
    ("day ranges", "Dec 3-6, "),
    ("hyphen units", "a 44-kilogram "),
    ("codes", "AS1283 "),
    ("phones", "5035550172 "),
    ("dimensions", "2880x1800 "),
    ("counted roles", "12 points and 9 rebounds. "),
    ("scale words", "1 billion "),
    ("years", "2024 "),
    ("raw urls", "http://x.example "),
    ("link refs", "[a]: http://x.example\n"),
    ("citations", "[acme] "),
    ("decision labels", "FINAL DECISION: "),
    ("weak labels", "Decision: "),
    ("conviction labels", "Conviction: "),
    ("numeric labels", "Intrinsic value: -"),
    ("iv", "IV "),
    ("emoji", "📈"),
    ("combining marks", "a\u0301\u0302"),
    ("rtl", "\u202eabc"),
    ("zero width", "\u200b"),
    ("private use", "\ue000"),
    ("replacement", "\ufffd"),
    ("calculator bombs", "= 9**9**9 "),
    ("powers", "2^2^2^2 "),
    # Issue 19: one unit and number repeated, and numbers longer than a decimal context.
    ("money with scale", "$14.8B "),
    ("decimal percents", "4.25% "),
    ("long decimals", "$42.999999999999999999999999999B "),
    ("long decimal percents", "0.123456789012345678901234567891% "),
    # Issue 18: the words that state a result, each repeated.
    ("worded decreases", "a decrease of "),
    ("shares of", "represents 12% of "),
    ("multiples", "1.2 times "),
    ("amounts averaged", "averaged $1,100, "),
    ("percentage points", "0.5 percentage points and "),
    # Issue 26: the notations a person reads as numbers, each repeated.
    ("clock times", "9 am to 11:30 pm, "),
    ("opening hours", "10:0-22:0 "),
    ("time ranges", "12:30-4 pm "),
    ("noon to midnight", "noon to midnight, "),
    ("json records", '{"address": "1418 Mission Street", "seats": "about 80"} '),
    ("instructions", "Summarize in about 90 words. "),
    # Issue 26 point 5: each notation's wall in its mixed forms (also in JSON evidence
    # strings: EVIDENCE_WALLS below).
    ("times mixed", "9:30 pm, 11:0-21:30, noon, midnight, closed, 7 a.m. to 10:15 p.m., "),
    ("number words", "four fifteen a dozen twice half two-thirds a third nine to four, "),
    ("ranges mixed", "4 to 15, $15-$25, April 18-26, Apr. 18 through 26, 1,500-plus, 9-4, "),
    ("durations", "a minute and a half, half an hour, two decades, 90 seconds, 3 days, "),
    # Each of those notations alone: a run of clock times, of number words, of bare ranges.
    ("clock time run", "11:45 "),
    ("number word run", "twenty-two "),
    ("bare range run", "15-20 "),
    ("lengths in words", "for another four weeks, seven straight days, "),
    ("finishing times", "2:19:24, 2 hours, 9 minutes and 14 seconds, 41 seconds, "),
]

# The new notations as the string values of JSON evidence, at the size asked: one long
# string, and a record of many short ones (opening hours, prices, counts in words).
EVIDENCE_WALLS: list[tuple[str, str]] = [
    ("times", "9:30 pm, 11:0-21:30, noon, midnight, closed, "),
    ("number words", "four fifteen a dozen twice half two-thirds nine to four, "),
    ("ranges", "4 to 15, $15-$25, April 18-26, 1,500-plus, "),
    ("durations", "a minute and a half, two and a half hours, two decades, 48 hours, "),
    ("finishing times", "2:19:42, 2 hours, 9 minutes and 14 seconds, 87 seconds, "),
]

# Constructed reports, by lines.
LINES: list[tuple[str, Callable[[int], str]]] = [
    ("row equations", lambda i: f"Row {i}: {i} + {i} = {2 * i + 1}\n"),
    ("table of numbers", lambda i: f"| {i} | ${i}.5B | {i % 100}% |\n"),
    ("growth sentences", lambda i: f"Revenue grew from ${i} to ${i + 1}, up {i % 9}%.\n"),
    ("owner earnings", lambda i: f"Owner earnings {i}: $15.5B - $0.7B = $14.8B [acme].\n"),
    ("long words", lambda i: "a" * 997 + "\n"),
    (
        "long decimals near the evidence",
        lambda i: f"Owner earnings were ${14 + i % 2}.{'9' * 28}{i % 10}B [acme].\n",
    ),
]


def wall_body(pattern: str, size: int) -> str:
    head = "# Hostile report\n\n"
    count = max(1, (size - len(head)) // len(pattern.encode("utf-8")))
    return head + pattern * count


def lines_body(make: Callable[[int], str], size: int) -> str:
    parts = ["# Hostile report\n\n"]
    total = len(parts[0])
    i = 1
    while True:
        line = make(i)
        if total + len(line.encode("utf-8")) > size:
            break
        parts.append(line)
        total += len(line.encode("utf-8"))
        i += 1
    return "".join(parts)


def evidence_wall(pattern: str, size: int, *, many: bool) -> dict[str, Any]:
    """JSON evidence whose string values make a wall of `pattern` of about `size` bytes:
    one string, or (`many`) one short string per key."""
    if not many:
        return {"notes": wall_body(pattern, size)}
    count = max(1, size // (len(pattern.encode("utf-8")) + 12))
    return {f"k{i}": pattern.strip(" ,") for i in range(count)}


def evidence_wall_bundle(pattern: str, size: int, *, many: bool) -> dict[str, Any]:
    """A short report against a JSON evidence wall (`evidence_wall`)."""
    return bundle(
        body="Opens at 9:30 pm [acme]; four to fifteen seats, $15-$25 [acme].\n\n"
        "FINAL DECISION: WATCH\n",
        evidence=[{"source_ref": "acme", "content": evidence_wall(pattern, size, many=many)}],
    )


def pathological_bodies(size: int) -> Iterator[tuple[str, str]]:
    for name, pattern in WALLS:
        yield f"wall of {name}", wall_body(pattern, size)
    for name, make in LINES:
        yield name, lines_body(make, size)


SPECIAL_VALID: list[tuple[str, Callable[[], bytes]]] = [
    ("long number in body", lambda: encode(bundle(body="Value: " + "9" * 5000 + ".\n"))),
    ("long decimal in body", lambda: encode(bundle(body="Value: 0." + "1" * 5000 + "\n"))),
    ("long money in body", lambda: encode(bundle(body="$" + "9" * 5000 + "B [acme]\n"))),
    ("exponent in body", lambda: encode(bundle(body="Owner earnings 1e999 [acme].\n"))),
    ("BOM", lambda: b"\xef\xbb\xbf" + encode(bundle())),
    ("evidence 4000-digit integer", lambda: encode(_with_evidence(content={"v": int("9" * 4000)}))),
    ("evidence deep but allowed", lambda: encode(_with_evidence(content=_nested(60)))),
    ("body at the limit", lambda: encode(bundle(body="x" * BODY_LIMIT))),
    (
        "script and markup",
        lambda: encode(bundle(body="<script>alert(1)</script>[x](javascript:y)")),
    ),
    ("100 fields", lambda: encode(bundle(fields={f"f{i}": i for i in range(100)}))),
    # Issue 26 round 2: lengths of time in words, against evidence full of them.
    (
        "lengths in words against lengths",
        lambda: encode(
            bundle(
                body="fed for another four weeks in the nest, " * 4_500,
                evidence=[
                    {"source_ref": "acme", "content": "fed for 3 more weeks in the nest, " * 5_000}
                ],
            )
        ),
    ),
    # Issue 26 round 2: counts in words without a noun, against many values of one topic.
    (
        "bare counts against many values",
        lambda: encode(
            bundle(
                body="It seats fifteen at the counter, " * 6_000,
                evidence=[
                    {
                        "source_ref": "acme",
                        "content": " ".join(
                            f"Room {i} has {i} seats near the counter." for i in range(100, 2_300)
                        ),
                    }
                ],
            )
        ),
    ),
    # Issue 26 round 2: times said of weekdays, against a record's hours by weekday.
    (
        "weekday hours wall",
        lambda: encode(
            bundle(
                body="Monday-Thursday 10 am to 9 pm, Sun 9 am to 10 pm, " * 4_000,
                evidence=[
                    {
                        "source_ref": "acme",
                        "content": {"hours": {"Mon-Thu": "10:0-22:0", "Sun": "9:0-21:0"}},
                    }
                ],
            )
        ),
    ),
    # Issue 19: ingest took these and the worker errored on them.
    (
        "100 fields and the report's own",
        lambda: encode(
            bundle(
                fields={f"f{i}": i for i in range(100)},
                body="Intrinsic value: $195. Fair value: $180. Target price: $200.\n"
                "Margin of safety: 10%. Current price: $150.\n\n"
                "FINAL DECISION: WATCH\nFINAL CONVICTION: HIGH\n",
            )
        ),
    ),
    (
        "27 decimals near the evidence",
        lambda: encode(
            bundle(
                body="Owner earnings were $42.999999999999999999999999999B [acme].",
                evidence=[{"source_ref": "acme", "content": {"owner_earnings": 44_000_000_000}}],
            )
        ),
    ),
    (
        "60 decimals in a calculation",
        lambda: encode(bundle(body=f"Owner earnings: $15.5B - $0.7B = $14.{'7' * 60}B [acme].")),
    ),
    (
        "500 evidence items",
        lambda: encode(
            bundle(evidence=[{"source_ref": f"e{i}", "content": f"v {i}"} for i in range(500)])
        ),
    ),
]


def corpus(size: int = TEST_SIZE) -> list[Case]:
    """Every case; pathological bodies are `size` bytes."""
    cases = [Case(name, make(), "refused", message) for name, make, message in REFUSED]
    cases += [
        Case(f"{name} ({size} B)", encode(bundle(body=body)), "verdict")
        for name, body in pathological_bodies(size)
    ]
    # The same walls as the whole of a decision line, a field value and the query.
    for name, pattern in WALLS[:12]:
        wall = wall_body(pattern, size)
        cases.append(
            Case(
                f"{name} around a decision",
                encode(bundle(body=f"FINAL DECISION:{wall}BUY\n")),
                "verdict",
            )
        )
        cases.append(
            Case(f"{name} in evidence text", encode(_with_evidence(content=wall)), "verdict")
        )
    for name, pattern in WALLS[:16]:
        query = "Is ACME a buy? " + wall_body(pattern, min(size, 15_000))
        cases.append(Case(f"{name} in the query", encode(bundle(query=query)), "verdict"))
    for name, pattern in WALLS[:12]:
        title = wall_body(pattern, 250)[:250]
        cases.append(Case(f"{name} in the title", encode(bundle(title=title)), "verdict"))
    for name, pattern in EVIDENCE_WALLS:
        for many, form in ((False, "one string"), (True, "many strings")):
            data = evidence_wall_bundle(pattern, size, many=many)
            cases.append(Case(f"{name} in JSON evidence, {form}", encode(data), "verdict"))
    cases += [Case(name, make(), "verdict") for name, make in SPECIAL_VALID]
    return cases


# The failures issue 12 reported, at the sizes it reported them (bench/hostile.py runs these;
# the tests run the same patterns at TEST_SIZE).
ISSUE_BODIES: list[tuple[str, Callable[[], str]]] = [
    ("190,000 [", lambda: "[" * 190_000),
    ("[a]( x 40,000", lambda: "[a](" * 40_000),
    ("60 KB of spaces", lambda: "Report.\n" + " " * 60_000),
    ("20,000 newlines", lambda: "Report." + "\n" * 20_000),
    ("40,000 *", lambda: "Report." + "*" * 40_000),
    ("5% x 60,000", lambda: "5% " * 60_000),
    (
        "5,200 row equations",
        lambda: lines_body(lambda i: f"Row {i}: {i} + {i} = {2 * i + 1}\n", 200_000),
    ),
    (
        "7,000-row table",
        lambda: "| a | b |\n|---|---|\n" + "".join(f"| {i} | {i * 3} |\n" for i in range(7_000)),
    ),
    ("from $1 to x 18,000", lambda: "from $1 to " * 18_000),
    # Issue 18, at the counts it named.
    ("a decrease of x 13,000", lambda: "a decrease of " * 13_000),
    ("represents 12% of x 11,000", lambda: "represents 12% of " * 11_000),
    ("1.2 times x 19,000", lambda: "1.2 times " * 19_000),
    ("averaged $1,100, x 20,000", lambda: "Backlog averaged " + "$1,100, " * 20_000),
    ("0.5 pp and x 7,000", lambda: "0.5 percentage points and " * 7_000),
    ("Source + 190,000 spaces", lambda: "Source" + " " * 190_000),
]
