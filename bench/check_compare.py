"""`redline check --jsonl` per bundle, of several commits, measured in one run, alternating.

    git worktree add --detach /tmp/rl-old 980a093        # one work tree per commit
    .venv/bin/python bench/check_compare.py [--rounds 5] [--set PATH] /tmp/rl-old .

Each round runs every tree once, in turn: ``python -m validation.engine check --jsonl SET``
in that tree (its own engine), with this project's interpreter, the numbers-only settings
of the dev sets. The time is the child's CPU seconds (user + system) divided by the number
of bundles; the best and the median over the rounds are printed with each tree's ratio to
the first. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "evaldata"
DEFAULT_SET = SHARED / "llm-notes-dev.jsonl"
SETTINGS = str(SHARED / "numbers-only.json")


def _bundles(path: Path) -> Path:
    """The set's bundles in the --jsonl contract (the id as external_id), written once."""
    out = Path("/tmp") / f"check-compare-{path.stem}.jsonl"
    with path.open() as source, out.open("w") as sink:
        for line in source:
            if line.strip():
                bundle = dict(json.loads(line)["bundle"])
                bundle["external_id"] = bundle.pop("id", "")
                sink.write(json.dumps(bundle) + "\n")
    return out


def _run(tree: Path, bundles: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "validation.engine",
            "check",
            "--settings",
            SETTINGS,
            "--jsonl",
            str(bundles),
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", help="work trees, the first the baseline")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--set", default=str(DEFAULT_SET))
    args = parser.parse_args()
    bundles = _bundles(Path(args.set))
    count = sum(1 for line in bundles.open() if line.strip())
    trees = [Path(tree).resolve() for tree in args.trees]
    times: dict[Path, list[float]] = {tree: [] for tree in trees}
    for round_number in range(args.rounds):
        for tree in trees:
            times[tree].append(_run(tree, bundles) / count * 1000)
        print(f"  round {round_number + 1} done", file=sys.stderr)
    for name, pick in (("best", min), ("median", statistics.median)):
        base = pick(times[trees[0]])
        print(f"{name} of {args.rounds} rounds, CPU ms per bundle over {count} bundles:")
        for tree in trees:
            value = pick(times[tree])
            print(f"  {tree.name:24} {value:8.2f}  ({value / base:.2f}x)")


if __name__ == "__main__":
    main()
