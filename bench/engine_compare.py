"""engine_bench's cold and warm times of several commits, measured in one run, alternating.

    git worktree add --detach /tmp/rl-old 528e2fb        # one work tree per commit
    .venv/bin/python bench/engine_compare.py [--rounds 3] [--runs 15] /tmp/rl-old .

Each round runs every tree once, in turn, as a subprocess in that tree (its own engine and
its own ``bench/engine_bench.py`` inputs, older layouts included): build_index + analyze
with the module caches cleared (cold), analyze with a reused index (warm), and the whole
pipeline (``validate``) cold and warm. Times are CPU seconds of the process
(``time.process_time``), so other processes' turns on the cores count less than in wall
time; on a shared machine the best of the runs is the steadier figure, and both the best
and the median over all rounds are printed, with each tree's ratio to the first.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

METRICS = ("cold", "warm", "pipeline_cold", "pipeline_warm")


def child(runs: int) -> None:
    """Inside a tree (its root the working directory): one line of JSON, every run's ms."""
    import random

    root = Path.cwd()
    sys.path[:0] = [str(root), str(root / "bench")]
    bench: Any = importlib.import_module("engine_bench")  # the tree's own inputs

    kwargs: dict[str, Any] = {}
    try:
        numeric: Any = importlib.import_module("validation.engine.checks.numeric")
        build_index, analyze, reset_caches = (
            numeric.build_index,
            numeric.analyze,
            numeric.reset_caches,
        )
        kwargs = {"settings": bench.SETTINGS}
    except ImportError:  # the layout before the numeric package (528e2fb and older)
        build_index = importlib.import_module("validation.engine.numbers").build_index
        older: Any = importlib.import_module("validation.engine.numeric")
        analyze, reset_caches = older.analyze, older.reset_caches
    validate = importlib.import_module("validation.engine.pipeline").validate
    Bundle = importlib.import_module("validation.engine.types").Bundle

    evidence = bench.make_evidence(random.Random(7))
    body = bench.make_report(random.Random(11), evidence)
    index = build_index(evidence)
    analyze(body, index, **kwargs)
    bundle = Bundle(query="How did the companies trade and earn?", body=body, evidence=evidence)

    def times(action: Any, before: Any) -> list[float]:
        found = []
        for _ in range(runs):
            before()
            start = time.process_time()
            action()
            found.append((time.process_time() - start) * 1000)
        return found

    out = {
        "cold": times(lambda: analyze(body, build_index(evidence), **kwargs), reset_caches),
        "warm": times(lambda: analyze(body, index, **kwargs), lambda: None),
        "pipeline_cold": times(lambda: validate(bundle), reset_caches),
        "pipeline_warm": times(lambda: validate(bundle, index=index), lambda: None),
    }
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", help="work trees, the first the baseline")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15, help="runs of each metric per round")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.runs)
        return
    trees = [Path(tree).resolve() for tree in args.trees]
    found: dict[Path, dict[str, list[float]]] = {tree: {m: [] for m in METRICS} for tree in trees}
    for round_ in range(args.rounds):
        for tree in trees:
            done = subprocess.run(
                [
                    sys.executable,
                    str(Path(__file__).resolve()),
                    "--child",
                    "--runs",
                    str(args.runs),
                ],
                cwd=tree,
                capture_output=True,
                text=True,
                check=True,
            )
            result = json.loads(done.stdout.strip().splitlines()[-1])
            for metric in METRICS:
                found[tree][metric] += result[metric]
            print(f"  round {round_ + 1}: {tree.name} done", flush=True)
    for label, pick in (("best", min), ("median", statistics.median)):
        print(f"\n{label} of {args.rounds * args.runs} runs, CPU ms (ratio to {trees[0].name}):")
        print(f"  {'':14s}" + "".join(f"{tree.name:>22s}" for tree in trees))
        for metric in METRICS:
            base = pick(found[trees[0]][metric])
            cells = [pick(found[tree][metric]) for tree in trees]
            print(
                f"  {metric:14s}" + "".join(f"{cell:12.1f} ({cell / base:5.2f}x)" for cell in cells)
            )


if __name__ == "__main__":
    main()
