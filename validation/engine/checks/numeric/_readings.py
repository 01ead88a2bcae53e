"""A report number as matching sees it (`Probe`) and its readings: the values it may
stand for at the scales and roundings its writing allows, generated once per number
and remembered.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from validation.engine.checks.numeric._types import NumberMention

EPSILON = Decimal("1.000000001")
PERCENT_UNITS = ("%", "pp")


@dataclass(slots=True)
class Probe:
    """One reading of a report number in evidence terms. An evidence value E
    matches when |E - target| <= quantum / 2; `factor` converts E back to the
    report's written units (written = E / factor). Read-only once made (probes
    are shared through a cache); built by `probe_of`."""

    target: Decimal
    quantum: Decimal
    factor: Decimal
    units: str  # percent, fraction, percent_only, nonpercent, any
    shifted: bool  # a different scale than written: needs label agreement
    close: bool  # may yield close_but_wrong
    target_float: float
    half_float: float
    half: Decimal  # quantum / 2, with room for the last digit of a float


def probe_of(
    target: Decimal,
    quantum: Decimal,
    factor: Decimal,
    units: str,
    shifted: bool = False,
    close: bool = True,
) -> Probe:
    return Probe(
        target,
        quantum,
        factor,
        units,
        shifted,
        close,
        float(target),
        float(quantum) / 2,
        quantum / 2 * EPSILON,
    )


_ONE = Decimal(1)
_LOOSE_ROUNDING = Decimal("0.1")  # a rounding off by more than this share needs a label
_HUNDREDTH = Decimal("0.01")
_SHIFTS = (Decimal(1), Decimal(10**3), Decimal(10**6), Decimal(10**9))
# An evidence number of a billion or more is in full units: in thousands it would be a
# trillion or more, in millions a quadrillion (so "$88,136 billion" is no reading of a
# net income of 88,136,000,000, whatever the labels say).
_FULL_UNITS = 1e9


def readings_of(mention: NumberMention) -> Iterable[Probe]:
    """The readings of a report number in evidence terms, most natural first:
    as written (scaled); unscaled when the scale came from "(in millions)";
    22.5% as 0.225 and 25bp as 0.25% / 0.0025; 0.225 as 22.5%; and, needing
    label agreement, at another scale ($15.5B vs a JSON 15500 in millions)."""
    # The text fixes the number, unit and written scale; add what context changes.
    key = (
        mention.text,
        mention.unit,
        mention.scale_text,
        mention.scale_from_context,
        mention.approx,
    )
    probes = _READINGS.get(key)
    if probes is None:
        if len(_READINGS) > 8192:
            _READINGS.clear()
        probes = _READINGS[key] = _Readings(
            (
                abs(mention.written),
                mention.decimals,
                mention.unit,
                mention.scale,
                mention.approx,
                mention.scale_from_context,
            )
        )
    return probes


class _Readings:
    """The readings of one number: the first made at once, the rest only when asked
    for. Most claims match under their first reading, and each further one costs
    Decimal arithmetic. Every iteration sees the same sequence, and no generator is
    shared (threads may iterate the same cached readings)."""

    __slots__ = ("_arguments", "_first", "_rest")

    def __init__(self, arguments: tuple[Decimal, int, str, Decimal, bool, bool]) -> None:
        self._arguments = arguments
        self._first = next(_generate(*arguments))
        self._rest: tuple[Probe, ...] | None = None

    def __iter__(self) -> Iterator[Probe]:
        yield self._first
        rest = self._rest
        if rest is None:
            rest = self._rest = tuple(_generate(*self._arguments))[1:]
        yield from rest


_READINGS: dict[tuple[str, str, str, bool, bool], _Readings] = {}


def _generate(
    written: Decimal, decimals: int, unit: str, scale: Decimal, approx: bool, from_context: bool
) -> Iterator[Probe]:
    step = _ONE.scaleb(-decimals)
    if approx and decimals == 0 and written:
        # "about 1,200": the trailing zeros are not precision.
        text = str(int(written))
        step = Decimal(10) ** (len(text) - len(text.rstrip("0")))
        step *= 2  # and hedged numbers may be off by a whole step either way
    elif approx:
        step *= 2
    if unit in PERCENT_UNITS:
        yield probe_of(written, step, _ONE, "percent")
        yield probe_of(written / 100, step / 100, _HUNDREDTH, "fraction")
        return
    if unit == "bp":
        yield probe_of(written, step, _ONE, "any")
        yield probe_of(written / 100, step / 100, _HUNDREDTH, "percent_only")
        yield probe_of(written / 10_000, step / 10_000, Decimal("0.0001"), "fraction")
        return
    units = "nonpercent" if unit and unit != "x" else "any"
    yield probe_of(written * scale, step * scale, scale, units)
    if from_context:
        yield probe_of(written, step, _ONE, units)
    if unit == "x":
        return
    if not unit and 0 < written < 1:
        yield probe_of(written * 100, step * 100, Decimal(100), "percent_only", close=False)
    if not from_context:
        # "$411 million" (or "$411,000,000") and a bare 411 in a filing "in millions":
        # vouched for by the document's declared scale, or by labels. Under one unit of a
        # scale only at its own ("$0.6 million" and a 0.6 "in millions"; matching takes
        # such a cell exactly).
        full = written * scale
        for declared in _SHIFTS[1:]:
            if (full >= declared or declared == scale) and (declared >= scale or scale == 1):
                yield probe_of(
                    full / declared, step * scale / declared, _ONE, "nonpercent", True, False
                )
    if scale != 1 and not from_context:
        for other in _SHIFTS:
            if other < scale:
                yield probe_of(
                    written * scale / other,
                    step * scale / other,
                    other,
                    "nonpercent",
                    shifted=True,
                    close=False,
                )
    elif scale == 1 and written >= 1:
        for other in _SHIFTS[1:]:
            yield probe_of(
                written * other, step * other, other, "nonpercent", shifted=True, close=False
            )


def _units_fit(rule: str, unit: str) -> bool:
    if rule == "any":
        return True
    if rule == "percent":
        return unit in PERCENT_UNITS or not unit
    if rule == "percent_only":
        return unit in PERCENT_UNITS
    if rule == "fraction":
        return unit not in PERCENT_UNITS and unit != "bp"
    return unit not in PERCENT_UNITS and unit != "bp"  # nonpercent


def clear_readings() -> None:
    """Forget the remembered readings (for cold-start benchmarks)."""
    _READINGS.clear()
