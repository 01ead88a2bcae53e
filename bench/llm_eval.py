"""Measure the LLM path on the dev sets (docs/spec.md §12.5, docs/figures.md): `.venv/bin/python
bench/llm_eval.py [SET.jsonl ...] [--limit N] [--settings JSON] [--json OUT] [--local]`.

Runs a fixed sample of N bundles (default 300; the same sample as ``score.py --limit N``) of
each labelled set (default: ``../shared/evaldata/*-dev.jsonl``, records ``{"bundle": ...,
"label": ...}``) through the deterministic engine and then the LLM path, against the
endpoint of ``REDLINE_LLM_BASE_URL`` (``REDLINE_LLM_MODEL``, ...) or, with ``--local``, the
local model (SmolLM2-135M-Instruct on llama.cpp's server, started on a free 127.0.0.1 port
and stopped at the end; ``bin/install-local-llm`` installs it). It prints, each rate with a
95 % Wilson interval:

- first-attempt success, final success, retry use and, per error category, how many judge
  runs met it and how many of those recovered; errored attempts (never APPROVE);
- LLM calls and seconds per attempt (mean and median);
- the fixer's proposals: kept verified / kept unverified, refused for disagreeing with their
  own tool calls, for a wrong stated calculation, because the engine still flags them, and
  conflicts / malformed blocks; fix precision (clean on re-validation);
- dev-set scores beside the deterministic engine's: numeric recall, FPR, APP% (correct
  reports approved) and leak% (wrong reports approved), computed by ``score.py``'s own
  ``score_set`` (``../shared/evaldata/score.py``) so the numbers match its table; and the
  number of attempts where the LLM lost an engine finding (must be 0).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation.engine.fixes import FixToApply, apply_fixes
from validation.engine.llm import (
    Deadline,
    LLMSettings,
    RetryMetrics,
    run_llm_path,
    settings_from_env,
)
from validation.engine.llm.local import local_server
from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, FixProposal, Verdict

ROOT = Path(__file__).resolve().parent.parent
EVALDATA = ROOT.parent / "shared" / "evaldata"
Z = 1.96


def wilson(successes: int, n: int) -> tuple[float, float]:
    """95 % Wilson score interval of a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denominator
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(successes: int, n: int) -> str:
    if n == 0:
        return f"{successes:>4}/{n:<4}      -"
    low, high = wilson(successes, n)
    return (
        f"{successes:>4}/{n:<4} {100 * successes / n:5.1f}%  [{100 * low:5.1f}, {100 * high:5.1f}]"
    )


def load_records(path: Path, limit: int | None) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if limit and limit < len(records):  # the same deterministic sample as score.py
        picked = sorted(random.Random(0).sample(range(len(records)), limit))
        records = [records[index] for index in picked]
    return records


def as_bundle(raw: dict[str, Any]) -> Bundle:
    data = dict(raw)
    if "id" in data:
        data["external_id"] = str(data.pop("id"))
    return Bundle.model_validate(data)


def load_engine_settings(path: str | None) -> EngineSettings:
    if not path:
        return EngineSettings()
    data = json.loads(Path(path).read_text())
    known = {key: value for key, value in data.items() if key in EngineSettings.model_fields}
    ignored = sorted(set(data) - set(known))
    if ignored:
        print(f"note: settings this engine does not know are ignored: {ignored}", file=sys.stderr)
    return EngineSettings.model_validate(known)


def load_scorer(path: Path) -> ModuleType | None:
    if not path.exists():
        return None
    sys.path.insert(0, str(path.parent))  # score.py imports numtok from beside it
    spec = importlib.util.spec_from_file_location("redline_score", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def non_info(verdict: Verdict) -> int:
    return sum(finding.severity != "info" for finding in verdict.findings)


def fix_is_clean(bundle: Bundle, settings: EngineSettings, fix: FixProposal) -> bool:
    """Applied alone, the fix leaves no finding on its replacement and no more problems."""
    before = validate(bundle, settings)
    applied = apply_fixes(bundle.body, [FixToApply(key=0, find=fix.find, replace=fix.replace)])
    if 0 not in applied.applied:
        return False
    start, end = applied.spans[0]
    after = validate(bundle.model_copy(update={"body": applied.body}), settings)
    on_it = any(
        f.severity != "info" and f.start < max(end, start + 1) and start < f.end
        for f in after.findings
    )
    return not on_it and non_info(after) <= non_info(before)


REFUSALS = ("tool_disagrees", "stated_wrong", "engine_flags")


def lost_findings(engine: Verdict, merged: Verdict) -> int:
    """Engine findings that are missing from the merged verdict (the LLM may add findings
    and overrule query terms, never erase one)."""
    kept = {(f.check, f.kind, f.start, f.end) for f in merged.findings}
    return sum((f.check, f.kind, f.start, f.end) not in kept for f in engine.findings)


def evaluate(
    sets: Sequence[Path],
    *,
    limit: int | None,
    settings: EngineSettings,
    llm_settings: LLMSettings,
    scorer: ModuleType | None,
    deadline_s: float | None = None,
    progress: bool = False,
    time_budget_s: float | None = None,
) -> dict[str, Any]:
    """``time_budget_s`` (if given) is shared equally by the sets: a set whose share is spent
    stops after the bundle in progress, and is scored on the prefix of its sample that ran
    (``sample_run`` says how many)."""
    metrics = RetryMetrics(llm_settings.retry)
    totals: dict[str, Any] = {
        "n": 0,
        "first_attempt_success": 0,
        "final_success": 0,
        "retry_used": 0,
        "errored": 0,
        "changed": 0,
        "llm_calls": 0,
        "judge_calls": 0,
        "fixer_calls": 0,
        "tool_calls": 0,
        "tool_call_errors": 0,
        "llm_fixes": 0,
        "llm_fixes_verified": 0,
        "llm_fixes_clean": 0,
        "fixes_proposed": 0,
        "conflict": 0,
        "malformed": 0,
        **{f"refused_{cause}": 0 for cause in REFUSALS},
        "approved_while_errored": 0,
        "lost_engine_findings": 0,
    }
    categories: dict[str, dict[str, int]] = {}
    seconds: list[float] = []
    calls: list[int] = []
    per_set: dict[str, Any] = {}
    started = time.perf_counter()
    for path in sets:
        name = path.name.removesuffix(".jsonl")
        records = load_records(path, limit)
        set_started = time.perf_counter()
        share = time_budget_s / len(sets) if time_budget_s else None
        engine_verdicts: list[dict[str, Any]] = []
        llm_verdicts: list[dict[str, Any]] = []
        ran = 0
        for number, record in enumerate(records, 1):
            if share is not None and time.perf_counter() - set_started > share:
                break
            ran = number
            bundle = as_bundle(record["bundle"])
            verdict = validate(bundle, settings)
            outcome = run_llm_path(
                bundle,
                verdict,
                settings,
                llm_settings,
                Deadline(deadline_s or llm_settings.attempt_budget_s),
                metrics=metrics,
            )
            merged = outcome.verdict
            report = outcome.report
            totals["n"] += 1
            totals["first_attempt_success"] += report.retry.first_attempt_success
            totals["final_success"] += report.retry.final_success
            totals["retry_used"] += any(entry.attempt > 1 for entry in report.retry.history)
            totals["errored"] += outcome.errored
            totals["approved_while_errored"] += outcome.errored and merged.decision == "APPROVE"
            totals["lost_engine_findings"] += lost_findings(verdict, merged)
            totals["changed"] += report.changes.changed()
            totals["llm_calls"] += len(outcome.calls)
            totals["judge_calls"] += sum(call.purpose == "judge" for call in outcome.calls)
            totals["fixer_calls"] += sum(call.purpose == "fixer" for call in outcome.calls)
            totals["tool_calls"] += len(outcome.tool_calls)
            totals["tool_call_errors"] += sum(bool(call.error) for call in outcome.tool_calls)
            totals["fixes_proposed"] += report.fixer.fixes_proposed
            for rejected in report.fixer.rejected:
                key = f"refused_{rejected.cause}" if rejected.cause else rejected.status
                if key in totals:
                    totals[key] += 1
            for category in report.retry.errors_by_category:
                seen = categories.setdefault(category, {"met": 0, "recovered": 0})
                seen["met"] += 1
                seen["recovered"] += report.retry.final_success
            seconds.append(report.elapsed_ms / 1000)
            calls.append(len(outcome.calls))
            for fix in merged.fixes:
                if fix.origin != "llm":
                    continue
                totals["llm_fixes"] += 1
                totals["llm_fixes_verified"] += fix.verified
                totals["llm_fixes_clean"] += fix_is_clean(bundle, settings, fix)
            engine_verdicts.append(verdict.model_dump(mode="json"))
            llm_verdicts.append(merged.model_dump(mode="json", exclude={"llm"}))
            if progress and number % 10 == 0:
                elapsed = time.perf_counter() - started
                print(f"  {name}: {number}/{len(records)} ({elapsed:.0f} s)", file=sys.stderr)
        records = records[:ran]
        if scorer is not None:
            per_set[name] = {
                "engine": scorer.score_set(name, records, engine_verdicts),
                "engine+llm": scorer.score_set(name, records, llm_verdicts),
            }
        else:
            per_set[name] = {"n": len(records)}
        per_set[name]["sample_run"] = ran
    totals["seconds"] = round(time.perf_counter() - started, 3)
    per_attempt = {
        "seconds_mean": statistics.fmean(seconds) if seconds else 0.0,
        "seconds_median": statistics.median(seconds) if seconds else 0.0,
        "seconds_max": max(seconds) if seconds else 0.0,
        "calls_mean": statistics.fmean(calls) if calls else 0.0,
        "calls_median": statistics.median(calls) if calls else 0.0,
    }
    return {
        "totals": totals,
        "per_attempt": per_attempt,
        "categories": categories,
        "sets": per_set,
        "retry_metrics": metrics.snapshot(),
    }


def _counts(m: dict[str, Any]) -> dict[str, tuple[int, int]]:
    positives, negatives = m["tp"] + m["fn"], m["fp"] + m["tn"]
    return {
        "recall": (m["tp"], positives),
        "FPR": (m["fp"], negatives),
        "APP%": (round((m["approved"] or 0) * negatives), negatives),
        "leak%": (round((m["leak"] or 0) * positives), positives),
    }


def print_report(result: dict[str, Any], llm_settings: LLMSettings) -> None:
    t = result["totals"]
    each = result["per_attempt"]
    n = t["n"]
    print(f"llm_eval: {n} bundles against {llm_settings.base_url} (model {llm_settings.model})")
    print(f"  first-attempt success   {rate(t['first_attempt_success'], n)}")
    print(f"  final success           {rate(t['final_success'], n)}")
    print(f"  retry use               {rate(t['retry_used'], n)}")
    for category, seen in sorted(result["categories"].items()):
        recovered = rate(seen["recovered"], seen["met"])
        print(f"    {category:<21} met {seen['met']:>4}, recovered {recovered}")
    print(f"  errored (never APPROVE) {rate(t['errored'], n)}")
    print(f"  verdict changed by LLM  {rate(t['changed'], n)}")
    mean = (t["llm_calls"] / n) if n else 0.0
    judge = (t["judge_calls"] / n) if n else 0.0
    fixer = (t["fixer_calls"] / n) if n else 0.0
    print(f"  mean LLM calls/attempt  {mean:.2f} (judge {judge:.2f}, fixer {fixer:.2f})")
    print(
        f"  seconds/attempt         mean {each['seconds_mean']:.2f}, median "
        f"{each['seconds_median']:.2f}, max {each['seconds_max']:.1f}"
    )
    wrong = t["tool_call_errors"]
    print(f"  fixer tool calls        {t['tool_calls']} ({wrong} with wrong arguments)")
    proposed = t["fixes_proposed"]
    print(f"  fixes proposed          {proposed}")
    print(f"    kept, verified        {rate(t['llm_fixes_verified'], proposed)}")
    unverified = t["llm_fixes"] - t["llm_fixes_verified"]
    print(f"    kept, unverified      {rate(unverified, proposed)}")
    print(
        f"    refused: disagree with own tool calls {rate(t['refused_tool_disagrees'], proposed)}"
    )
    print(f"    refused: wrong stated calculation     {rate(t['refused_stated_wrong'], proposed)}")
    print(f"    refused: engine flags the replacement {rate(t['refused_engine_flags'], proposed)}")
    print(f"    conflict (FIND not once) {rate(t['conflict'], proposed)}")
    print(f"    malformed             {rate(t['malformed'], proposed)}")
    print(f"  fix precision (clean)   {rate(t['llm_fixes_clean'], t['llm_fixes'])}")
    print(f"  fixes verified by tools {rate(t['llm_fixes_verified'], t['llm_fixes'])}")
    print(f"  engine findings lost    {t['lost_engine_findings']}")
    print(f"  seconds                 {t['seconds']:.1f}")
    if t["approved_while_errored"]:
        print(f"  BUG: {t['approved_while_errored']} errored attempts were APPROVE")
    for name, systems in result["sets"].items():
        if "engine" not in systems:
            print(f"\n{name}: score.py not found; dev-set scores skipped")
            continue
        print(f"\n{name} (n={systems['engine']['n']} of the fixed sample of {result['limit']})")
        print(f"  {'system':<11} {'metric':<6} {'count':>9}    %   95% CI")
        for system in ("engine", "engine+llm"):
            for metric, (hits, total) in _counts(systems[system]).items():
                print(f"  {system:<11} {metric:<6} {rate(hits, total)}")


@contextmanager
def endpoint(local: bool) -> Iterator[LLMSettings | None]:
    """The endpoint's settings: the environment's, or a local server's for ``--local``."""
    if not local:
        yield settings_from_env(os.environ)
        return
    log = ROOT / "var" / "llm-eval-server.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with local_server(log=log) as server:
        print(f"llm_eval: local model at {server.base_url} (log {log})", file=sys.stderr)
        yield settings_from_env(server.env())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", type=Path, help="labelled JSONL sets")
    parser.add_argument("--limit", type=int, default=300, help="bundles per set (default 300)")
    parser.add_argument("--settings", help="EngineSettings JSON (e.g. numbers-only.json)")
    parser.add_argument("--score-py", type=Path, default=EVALDATA / "score.py")
    parser.add_argument("--json", dest="json_out", type=Path, help="write the metrics here")
    parser.add_argument("--deadline", type=float, help="seconds per attempt (default: settings)")
    parser.add_argument(
        "--local",
        action="store_true",
        help="start the local model (bin/install-local-llm) on a free 127.0.0.1 port",
    )
    parser.add_argument("--progress", action="store_true", help="report progress on stderr")
    parser.add_argument(
        "--time-budget",
        type=float,
        help="seconds for the whole run, shared by the sets: each runs a prefix of its sample",
    )
    args = parser.parse_args(argv)
    sets = list(args.sets) or sorted(EVALDATA.glob("*-dev.jsonl"))
    if not sets:
        print(f"llm_eval: no sets given and none in {EVALDATA}", file=sys.stderr)
        return 2
    with endpoint(args.local) as llm_settings:
        if llm_settings is None:
            print("llm_eval: set REDLINE_LLM_BASE_URL (or pass --local)", file=sys.stderr)
            return 2
        result = evaluate(
            sets,
            limit=args.limit,
            settings=load_engine_settings(args.settings),
            llm_settings=llm_settings,
            scorer=load_scorer(args.score_py),
            deadline_s=args.deadline,
            progress=args.progress,
            time_budget_s=args.time_budget,
        )
    result["settings"] = llm_settings.model_dump(mode="json", exclude={"api_key"})
    result["limit"] = args.limit
    print_report(result, llm_settings)
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
