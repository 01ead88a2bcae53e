"""validation.web.rendering: untrusted Markdown becomes safe HTML; findings are marked at their
spans; fixes and revisions are shown as word diffs."""

from __future__ import annotations

import re

from validation.web.diffs import fix_context, fix_diff, line_diff, tokenize, word_diff
from validation.web.rendering import Highlight, render_markdown, render_report, safe_url

XSS = (
    "<script>window.__xss=1</script>\n\n"
    '<img src=x onerror="window.__xss=1">\n\n'
    '<a href="#" onclick="window.__xss=1">click</a>\n\n'
    "[x](javascript:window.__xss=1) [y](JAVASCRIPT:alert(1)) [z](data:text/html,<b>)\n\n"
    "<iframe src=https://evil.example></iframe><style>body{}</style>\n\n"
    "[ok](https://example.com/a)\n"
)


class TestSanitizing:
    def test_script_event_handlers_and_javascript_urls_do_not_survive(self) -> None:
        html = str(render_markdown(XSS))
        # Raw HTML is shown as the text it is (issue 27): no tag of it is ever a tag.
        assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html
        tags = " ".join(re.findall(r"<[^<>]*>", html))
        assert "<script" not in tags
        assert not re.search(r"\son\w+\s*=", tags)
        assert "javascript:" not in tags.lower()
        assert "data:text" not in tags
        assert "<iframe" not in tags
        assert "<style" not in tags
        assert "<img" not in tags

    def test_links_keep_http_urls_and_get_noopener(self) -> None:
        html = str(render_markdown("[ok](https://example.com/a)"))
        assert 'href="https://example.com/a"' in html
        assert 'rel="noopener noreferrer"' in html

    def test_tables_and_fenced_code_render(self) -> None:
        html = str(render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n```\nx < y\n```\n"))
        assert "<table>" in html
        assert "<td>1</td>" in html
        assert "<pre><code>x &lt; y" in html

    def test_safe_url_only_allows_http(self) -> None:
        assert safe_url("https://a.example/x") == "https://a.example/x"
        assert safe_url("http://a.example/") == "http://a.example/"
        assert safe_url("javascript:alert(1)") == ""
        assert safe_url(" JavaScript:alert(1)") == ""
        assert safe_url("data:text/html,x") == ""
        assert safe_url(None) == ""


class TestFindingHighlights:
    body = "Owner Earnings: $15.5B - $0.7B = $15.8B.\n\nROIC reached 22.0% and more.\n"

    def span(self, text: str) -> tuple[int, int]:
        start = self.body.index(text)
        return start, start + len(text)

    def test_each_finding_is_marked_at_its_span_with_its_kind(self) -> None:
        a = Highlight(7, *self.span("$15.8B"), kind="arithmetic", message="wrong sum")
        b = Highlight(8, *self.span("22.0%"), kind="close_but_wrong")
        html = str(render_report(self.body, [a, b]))
        assert re.search(
            r'<mark class="finding finding--arithmetic" data-finding="7" id="finding-7"'
            r' title="wrong sum">\$15.8B</mark>',
            html,
        )
        assert '<mark class="finding finding--close-but-wrong" data-finding="8"' in html
        assert ">22.0%</mark>" in html

    def test_a_span_across_elements_is_split_and_html_stays_well_formed(self) -> None:
        body = "Cash **$15.5B** and more text"
        h = Highlight(1, body.index("Cash"), body.index(" and") + 4, kind="orphan")
        html = str(render_report(body, [h]))
        assert html.count("<mark") == html.count("</mark>") == 3
        assert "<strong><mark" in html  # the mark nests inside, never across, the <strong>

    def test_a_span_inside_a_link_url_marks_the_whole_link_and_keeps_the_href(self) -> None:
        body = "See [the filing](https://example.com/10-k) for details."
        h = Highlight(1, body.index("example"), body.index("example") + 7, kind="raw_url")
        html = str(render_report(body, [h]))
        assert 'href="https://example.com/10-k"' in html
        assert "\ue000" not in html and "\ue001" not in html
        assert '<mark class="finding finding--raw-url" data-finding="1" id="finding-1"' in html

    def test_a_kind_of_a_family_is_coloured_as_its_family_in_the_legend(self) -> None:
        body = "Sales of $4.2 million and 12 stores opened in 2019."
        scale = Highlight(1, body.index("$4.2"), body.index(" and"), kind="wrong_scale")
        year = Highlight(2, body.index("2019"), body.index("2019") + 4, kind="unsupported_year")
        html = str(render_report(body, [scale, year]))
        assert 'class="finding finding--wrong-scale finding--close-but-wrong"' in html
        assert 'class="finding finding--unsupported-year finding--orphan"' in html

    def test_a_span_that_does_not_fit_the_body_is_ignored(self) -> None:
        html = str(render_report("short", [Highlight(1, 3, 99, kind="orphan")]))
        assert "<mark" not in html
        assert html == '<p data-src-start="0" data-src-end="5">short</p>'

    def test_private_use_characters_in_the_body_cannot_forge_marks(self) -> None:
        body = "A \ue000forged\ue001 span and 12.5% real."
        h = Highlight(3, body.index("12.5%"), body.index("12.5%") + 5, kind="orphan")
        html = str(render_report(body, [h]))
        assert html.count("<mark") == 1
        assert ">12.5%</mark>" in html

    def test_highlighting_does_not_weaken_sanitizing(self) -> None:
        start = XSS.index("click")
        html = str(render_report(XSS, [Highlight(1, start, start + 5, kind="orphan")]))
        tags = " ".join(re.findall(r"<[^<>]*>", html))
        assert "<script" not in tags and "javascript:" not in tags.lower()
        assert not re.search(r"\son\w+\s*=", tags)

    def test_a_list_item_span_keeps_the_list(self) -> None:
        body = "Intro\n\n- item 131.40\n- other\n"
        h = Highlight(1, body.index("- item"), body.index("131.40") + 6, kind="orphan")
        html = str(render_report(body, [h]))
        assert re.search(r"<li[^>]*><mark", html)
        assert "<ul" in html and "</ul>" in html


class TestDiffs:
    def test_tokens_keep_numbers_with_their_units(self) -> None:
        assert tokenize("= $15.8B.") == ["=", " ", "$15.8B", "."]
        assert "".join(tokenize("reached 22.0%, well")) == "reached 22.0%, well"

    def test_word_diff_marks_only_the_changed_words(self) -> None:
        html = str(word_diff("CapEx $0.7B = $15.8B.", "CapEx $0.7B = $14.8B."))
        assert html == "CapEx $0.7B = <del>$15.8B</del><ins>$14.8B</ins>."

    def test_word_diff_escapes_markup(self) -> None:
        html = str(word_diff("<b>x</b>", "<script>y</script>"))
        assert "<script" not in html and "<b>" not in html
        assert html.startswith("&lt;<del>b</del><ins>script</ins>&gt;")

    def test_fix_context_is_the_surrounding_sentence(self) -> None:
        body = "First sentence. Owner Earnings are $15.8B this year. Next one."
        before, after = fix_context(body, body.index("$15.8B"), "$15.8B")
        assert before == "Owner Earnings are "
        assert after == " this year."

    def test_fix_diff_falls_back_to_search_when_the_offset_is_off(self) -> None:
        body = "Return reached 22.0%, well above."
        html = str(fix_diff(body, 0, "22.0%", "22.5%"))
        assert "<del>22.0%</del><ins>22.5%</ins>" in html
        assert "Return reached" in html

    def test_line_diff_pairs_changed_lines_and_collapses_unchanged_runs(self) -> None:
        old = "\n".join(f"line {i}" for i in range(20)) + "\nTotal $15.8B."
        new = "\n".join(f"line {i}" for i in range(20)) + "\nTotal $14.8B."
        rows = line_diff(old, new)
        kinds = [row.kind for row in rows]
        assert kinds[0] == "skip"
        assert kinds[-1] == "change"
        assert "<del>$15.8B</del><ins>$14.8B</ins>" in str(rows[-1].html)
        assert rows[-1].old_number == rows[-1].new_number == 21


class TestHostileText:
    """Cost bounded by size: walls of one character render, diff and highlight whole."""

    def test_a_wall_of_markup_is_shown_as_plain_text_with_a_notice(self) -> None:
        body = "[" * 190_000
        html = str(render_report(body, [Highlight(1, 10, 20, kind="orphan")]))
        assert 'class="render-notice"' in html
        assert "shown as plain text" in html
        assert '<pre class="report-plain">[[[' in html
        assert html.count("<mark") == 1

    def test_a_long_report_of_prose_still_renders_as_markdown(self) -> None:
        body = "## Section\n\nRevenue was **$10.5B** in 2024 [ref](https://x.example).\n\n" * 800
        html = str(render_markdown(body))
        assert "render-notice" not in html
        assert html.count("<h2>") == 800

    def test_protected_regions_match_the_link_and_tag_pattern(self) -> None:
        from validation.web.rendering import _protected_regions

        pattern = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>")
        samples = [
            "See [a](b) and <i>x</i> [c]d] ([e](f\n) [[g](h)",
            "[[[[[x](y)",
            "<<<a>",
            "[a](b<c>)",
            "[a]\n(b) [x](y) <\n> <z>",
            "[" * 50 + "](" + ")" * 3,
        ]
        for text in samples:
            expected = [match.span() for match in pattern.finditer(text)]
            assert [(start, end) for start, _inner, end in _protected_regions(text)] == expected

    def test_a_revision_against_itself_is_one_unchanged_row(self) -> None:
        body = "\n" * 200_000
        rows = line_diff(body, body)
        assert [row.kind for row in rows] == ["skip"]

    def test_a_diff_too_large_to_compare_is_shown_as_removed_then_added(self) -> None:
        old = "\n".join(["x", *([""] * 5_000), "y"])
        new = "\n".join(["x", *(["", "z"] * 2_500), "y"])
        rows = line_diff(old, new)
        assert rows[0].kind == "skip" and "too large to compare" in str(rows[0].html)
        assert sum(row.kind == "delete" for row in rows) == 2_000
        assert "more removed lines not shown" in " ".join(str(row.html) for row in rows)

    def test_a_word_diff_of_repetitive_text_is_whole(self) -> None:
        old, new = "5% " * 60_000, "5% " * 30_000 + "6% " + "5% " * 29_999
        html = str(word_diff(old, new))
        assert "<del>5%</del><ins>6%</ins>" in html
