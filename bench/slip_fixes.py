"""Which slips of llm-notes-dev get a right fix, and why the others do not (issue 25, point 4).

Each positive record of llm-notes-dev holds one slip at a known span, with the text that
should stand there (`correct_text`). This bench runs the engine on every record and, per
variant (misquote, scale, wrong_period, wrong_result), counts:

- slips given a right fix: a fix whose find holds the slip's digits and whose replacement
  holds the right digits (and the right scale word, when the right text has one), as
  ``score.py`` judges it;
- wrong fixes: a fix over the slip's span that is not the right one (a value other than
  the truth: it counts against the engine);
- leaks: records the engine approves;
- the slips without a right fix, by what the engine says about the slip's span (the kind
  of the finding on it: ``orphan``, ``cannot_verify``, ``close_but_wrong`` ...; "none"
  when no finding marks it).

    .venv/bin/python -m bench.slip_fixes [--set PATH] [--show]

(as a module, from the work tree's root: the engine imported is that tree's).

It prints counts only; no test times or asserts it.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from validation.engine.pipeline import validate
from validation.engine.types import Bundle, EngineSettings, Verdict

DEFAULT_SET = Path(__file__).resolve().parent.parent.parent / "shared/evaldata/llm-notes-dev.jsonl"
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_SCALE_WORD = re.compile(r"(?i)\b(thousand|million|billion|trillion)\b")


def right_fix(verdict: Verdict, body: str, label: dict[str, Any]) -> bool:
    """A fix whose find holds the slip's digits and whose replacement the right ones, at
    the right scale (the scorer's rule)."""
    (start, end), right = label["spans"][0], label["correct_text"]
    wrong_digits = re.sub(r"[^\d.]", "", body[start:end])
    right_number = _NUMBER.search(right)
    if not wrong_digits or right_number is None:
        return False
    right_digits = right_number.group().replace(",", "")
    scale = _SCALE_WORD.search(right)
    for fix in verdict.fixes:
        if wrong_digits not in re.sub(r"[^\d.]", "", fix.find):
            continue
        if right_digits in fix.replace.replace(",", "") and (
            scale is None or scale.group(1).lower() in fix.replace.lower()
        ):
            return True
    return False


def wrong_fix(verdict: Verdict, body: str, label: dict[str, Any]) -> bool:
    """A fix of the slip's span that is not the right one: it changes the wrong number
    to another wrong value (it counts against the engine)."""
    start, end = label["spans"][0]
    for fix in verdict.fixes:
        at = body.find(fix.find)
        if at >= 0 and at < end and start < at + len(fix.find) and fix.replace != fix.find:
            return not right_fix(verdict, body, label)
    return False


def cause(verdict: Verdict, label: dict[str, Any]) -> str:
    """The kind of the first finding on the slip's span, or "none"."""
    start, end = label["spans"][0]
    for finding in verdict.findings:
        if finding.end > finding.start and finding.start < end and start < finding.end:
            return finding.kind
    return "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default=str(DEFAULT_SET))
    parser.add_argument("--show", action="store_true", help="print each slip without a fix")
    args = parser.parse_args()
    settings = EngineSettings(citations="none")
    counts: Counter[tuple[str, str]] = Counter()
    causes: Counter[tuple[str, str]] = Counter()
    with Path(args.set).open() as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    for record in records:
        label = record["label"]
        if not label.get("positive") or not label.get("spans") or not label.get("correct_text"):
            continue
        raw = record["bundle"]
        body = raw["body"]
        verdict = validate(
            Bundle(query=raw["query"], body=body, evidence=raw["evidence"]), settings
        )
        variant = label["variant"]
        counts[variant, "slips"] += 1
        counts[variant, "leaks"] += verdict.decision == "APPROVE"
        if right_fix(verdict, body, label):
            counts[variant, "fixed"] += 1
            continue
        why = cause(verdict, label)
        if wrong_fix(verdict, body, label):
            counts[variant, "wrong"] += 1
            why += " (wrong fix)"
        causes[variant, why] += 1
        if args.show:
            (start, end) = label["spans"][0]
            print(f"{raw['id']}: {body[start:end]!r} -> {label['correct_text']!r} [{why}]")
    variants = sorted({variant for variant, _ in counts})
    print(
        f"{'variant':<14}{'slips':>6}{'fixed':>7}{'rate':>7}{'wrong':>7}{'leaks':>7}"
        "  without a right fix"
    )
    for variant in variants:
        slips = counts[variant, "slips"]
        fixed = counts[variant, "fixed"]
        rest = ", ".join(
            f"{why} {n}"
            for (name, why), n in sorted(causes.items(), key=lambda kv: -kv[1])
            if name == variant
        )
        print(
            f"{variant:<14}{slips:>6}{fixed:>7}{fixed / slips:>7.1%}"
            f"{counts[variant, 'wrong']:>7}{counts[variant, 'leaks']:>7}  {rest}"
        )
    slips = sum(counts[variant, "slips"] for variant in variants)
    fixed = sum(counts[variant, "fixed"] for variant in variants)
    leaks = sum(counts[variant, "leaks"] for variant in variants)
    wrong = sum(counts[variant, "wrong"] for variant in variants)
    print(f"{'all':<14}{slips:>6}{fixed:>7}{fixed / slips:>7.1%}{wrong:>7}{leaks:>7}")


if __name__ == "__main__":
    main()
