"""Score the engine and a naive checker on every dev set with `score.py`.

    .venv/bin/python bench/dev_scores.py [--limit N] [--out bench/results/dev-scores.md]

Runs `../shared/evaldata/score.py` twice over `../shared/evaldata/*-dev.jsonl`: once
with `redline check --settings numbers-only.json` (the engine as shipped, citations
off because the dev answers cite nothing), once with `bench/naive_checker.py` (flag
every body number not written verbatim in the evidence). Prints both tables and writes
them, with the per-variant flag rates, to a Markdown file. No test runs or times this.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
EVALDATA = ROOT.parent / "shared" / "evaldata"
COLUMNS = (
    ("n", "n"),
    ("bad", "bad"),
    ("precision", "P"),
    ("recall", "R"),
    ("f1", "F1"),
    ("fpr", "FPR"),
    ("span_recall", "span R"),
    ("fix_accuracy", "fix"),
    ("fix_on_correct", "fixneg"),
    ("approved", "APP"),
    ("leak", "leak"),
)


def run(name: str, command: str, limit: int | None) -> dict[str, dict[str, object]]:
    sets = sorted(str(path) for path in EVALDATA.glob("*-dev.jsonl"))
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        score = str(EVALDATA / "score.py")
        argv = [sys.executable, score, "--cmd", command, *sets, "--json", out.name]
        if limit:
            argv += ["--limit", str(limit)]
        printed = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
        print(f"== {name}\n{printed.stdout}")
        return json.loads(Path(out.name).read_text())["sets"]  # type: ignore[no-any-return]


def table(title: str, sets: dict[str, dict[str, object]]) -> str:
    header = "| set | " + " | ".join(label for _, label in COLUMNS) + " |"
    lines = [f"### {title}", "", header, "|---" * (len(COLUMNS) + 1) + "|"]
    variants: list[str] = []
    for name, metrics in sorted(sets.items()):
        cells = [_cell(metrics.get(key)) for key, _ in COLUMNS]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
        variant_rates = cast("dict[str, dict[str, Any]]", metrics.get("variants") or {})
        for variant, rate in sorted(variant_rates.items()):
            kind = "positive" if rate.get("positive") else "negative"
            variants.append(
                f"- {name} `{variant}` ({kind}, n={rate.get('n')}): "
                f"flagged {float(rate.get('flag_rate') or 0):.3f}"
            )
    if variants:
        lines += ["", "Flag rate by variant:", "", *variants]
    return "\n".join(lines)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "dev-scores.md"))
    args = parser.parse_args()
    engine = f"{ROOT / '.venv/bin/redline'} check --settings {EVALDATA / 'numbers-only.json'}"
    naive = f"{sys.executable} {ROOT / 'bench' / 'naive_checker.py'}"
    report = "\n\n".join(
        (
            "# Dev-set scores (`score.py`)",
            table("Redline engine", run("engine", engine, args.limit)),
            table(
                "Naive checker (numbers not verbatim in the evidence)",
                run("naive", naive, args.limit),
            ),
        )
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
