"""The hostile corpus (tests/hostile/corpus.py) through ingest and through `redline check`:
each bundle gets a clear error or a verdict, and a refusal writes nothing. Outcomes only;
bench/hostile.py measures time per KB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analyses.models import Analysis
from redline_errors import IngestError
from tests.hostile.corpus import Case, corpus
from tests.support.bundles import row_counts
from validation.engine.cli import main
from validation.engine.types import Verdict, VerdictError
from validation.services import analysis_submit

CASES = corpus()


def test_the_corpus_is_large_and_covers_both_outcomes() -> None:
    assert len(CASES) >= 200
    assert len({case.name for case in CASES}) == len(CASES)
    assert {case.outcome for case in CASES} == {"refused", "verdict"}


@pytest.mark.django_db
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_ingest_refuses_with_a_clear_message_or_accepts(case: Case) -> None:
    before = row_counts()
    if case.outcome == "refused":
        with pytest.raises(IngestError) as caught:
            analysis_submit(data=case.data, submitter=None)
        assert case.message in str(caught.value)
        assert row_counts() == before
    else:
        # Validation is queued on commit, which a test transaction never reaches: this is
        # ingest alone (the command line below runs the engine).
        result = analysis_submit(data=case.data, submitter=None)
        assert result.created
        assert Analysis.objects.filter(pk=result.analysis.pk).exists()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_command_line_refuses_with_the_same_message_or_gives_a_verdict(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bundle.json"
    path.write_bytes(case.data)

    code = main(["check", str(path)])

    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if case.outcome == "refused":
        assert (code, out) == (2, ""), err
        assert case.message in err
    else:
        assert code == 0, err
        Verdict.model_validate_json(out)


def test_a_jsonl_batch_of_the_whole_corpus_answers_every_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One bundle per line (as JSONL needs), blank lines aside: those are skipped, as documented.
    expected = [case for case in CASES if case.data.strip() and b"\n" not in case.data.strip()]
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(b"\n".join(case.data for case in expected) + b"\n")

    assert main(["check", "--jsonl", str(path)]) == 0

    answers = capsys.readouterr().out.splitlines()
    assert len(answers) == len(expected)
    for case, answer in zip(expected, answers, strict=True):
        if case.outcome == "refused":
            assert VerdictError.model_validate_json(answer).line, case.name
        else:
            assert "decision" in json.loads(answer), case.name
