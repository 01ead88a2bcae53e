"""Every verdict of the dev sets, written down and compared: proof that a change of
the engine's plumbing changed no verdict.

    .venv/bin/python bench/verdict_compare.py dump OUT.jsonl [SET.jsonl ...]
    .venv/bin/python bench/verdict_compare.py compare BEFORE.jsonl AFTER.jsonl

``dump`` validates every bundle of the given sets (default: every
``../shared/evaldata/*-dev.jsonl``) with the settings the scorer uses
(``numbers-only.json``), the evidence index built once per bundle as ``redline check``
builds it, and writes one line per bundle: its id and the verdict as JSON without its clock
readings -- ``timings_ms`` and every tool call's ``duration_ms``, the only parts of a
verdict that are not a function of its inputs.
``compare`` reads two such files and prints how many verdicts differ and the first
few ids that do; its exit status is 1 when any differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from validation.engine.cli import parse_bundle  # noqa: E402
from validation.engine.pipeline import validate  # noqa: E402
from validation.engine.types import EngineSettings  # noqa: E402

EVALDATA = ROOT.parent / "shared" / "evaldata"


def _sets(names: list[str]) -> list[Path]:
    if names:
        return [Path(name) for name in names]
    return sorted(EVALDATA.glob("*-dev.jsonl"))


def dump(out: Path, names: list[str]) -> int:
    settings = EngineSettings.model_validate(
        json.loads((EVALDATA / "numbers-only.json").read_text())
    )
    count = 0
    with out.open("w") as handle:
        for path in _sets(names):
            for number, line in enumerate(path.open(), start=1):
                if not line.strip():
                    continue
                record = json.loads(line)["bundle"]
                ident = record.pop("id", None) or f"{path.name}:{number}"
                record.setdefault("external_id", ident)
                bundle = parse_bundle(json.dumps(record), f"{path.name} line {number}")
                verdict = _timeless(validate(bundle, settings).model_dump(mode="json"))
                handle.write(json.dumps({"id": ident, "verdict": verdict}, sort_keys=True) + "\n")
                count += 1
    print(f"{count} verdicts written to {out}")
    return 0


_CLOCK = frozenset({"timings_ms", "duration_ms"})


def _timeless(value: Any) -> Any:
    """``value`` without its clock readings, at any depth."""
    if isinstance(value, dict):
        return {key: _timeless(item) for key, item in value.items() if key not in _CLOCK}
    if isinstance(value, list):
        return [_timeless(item) for item in value]
    return value


def _read(path: Path) -> dict[str, str]:
    verdicts: dict[str, str] = {}
    for line in path.open():
        record = json.loads(line)
        verdicts[record["id"]] = json.dumps(_timeless(record["verdict"]), sort_keys=True)
    return verdicts


def compare(before: Path, after: Path) -> int:
    old, new = _read(before), _read(after)
    missing = sorted(set(old) ^ set(new))
    differ = sorted(ident for ident in set(old) & set(new) if old[ident] != new[ident])
    print(f"{len(old)} before, {len(new)} after: {len(differ)} differ, {len(missing)} unpaired")
    for ident in (differ + missing)[:10]:
        print("  ", ident)
    return 1 if differ or missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump")
    dumping.add_argument("out", type=Path)
    dumping.add_argument("sets", nargs="*")
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        return dump(args.out, args.sets)
    return compare(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
