"""A naive checker for comparison: flag every number of the body that is not written
verbatim in the evidence. It speaks the `redline check --jsonl FILE` contract, so
`score.py` can run it beside the engine (see bench/dev_scores.py).

    python bench/naive_checker.py --jsonl BUNDLES.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from typing import cast

NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def verdict(bundle: dict[str, object]) -> dict[str, object]:
    evidence = " ".join(
        item["content"] if isinstance(item["content"], str) else json.dumps(item["content"])
        for item in cast("list[dict[str, object]]", bundle.get("evidence", []))
    )
    body = str(bundle.get("body", ""))
    findings = [
        {
            "check": "no_hallucinations",
            "kind": "orphan",
            "severity": "major",
            "start": m.start(),
            "end": m.end(),
            "text": m.group(),
            "message": "not in the evidence",
        }
        for m in NUMBER.finditer(body)
        if m.group() not in evidence
    ]
    return {"decision": "REVISE" if findings else "APPROVE", "findings": findings, "fixes": []}


def main() -> None:
    path = sys.argv[sys.argv.index("--jsonl") + 1]
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                print(json.dumps(verdict(json.loads(line))))


if __name__ == "__main__":
    main()
