"""The field types of the generated scenario models (``_scenario_models.py``).

Strict scalars (a string is not a number, ``0`` is not ``false``), the
upper bounds of the core's integer types, a field's :class:`Range` as the
core's schema declares it, checked with the core's own message
(``crates/reorderlab/src/spec/fields.rs``; ``tests/test_schema.py``
compares both), and the registry names (``variant``, ``cc``) spelled as
the registry spells them.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from reorderlab import _core
from reorderlab.units import UNITS, UnitError, parse_quantity

U8_MAX = 2**8 - 1
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

#: A float field: a finite number (an int is one too), not a bool or a string.
Real = Annotated[float, Field(strict=True, allow_inf_nan=False)]
#: Unsigned integers of the core's widths (the lower bound is the field's
#: :class:`Range`, ``>= 0`` unless it declares more).
U8 = Annotated[int, Field(strict=True, le=U8_MAX)]
U32 = Annotated[int, Field(strict=True, le=U32_MAX)]
U64 = Annotated[int, Field(strict=True, le=U64_MAX)]
#: An integer whose declared range is within its type's.
Int = Annotated[int, Field(strict=True)]
Bool = Annotated[bool, Field(strict=True)]


def _text(value: str) -> str:
    """A string field's value if UTF-8 can encode it (the core and the
    store take UTF-8): a lone surrogate (``"a\\udcff"``, what
    ``surrogateescape`` makes of undecodable bytes) is refused naming the
    field, not met as a TypeError naming none when the scenario is sent to
    the core."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        message = "must be text: it holds a lone surrogate (not valid UTF-8)"
        raise _refuse(f"{message}, got {format_value(value)}") from None
    return value


Name = Annotated[str, Field(strict=True), AfterValidator(_text)]

#: The clock's step: a positive time below it would round to 0
#: (``engine::time::MIN_STEP_SECONDS``).
MIN_STEP_SECONDS = 1e-9


class Model(BaseModel):
    """Base of every scenario model: unknown fields refused, defaults kept
    as declared (not validated), fields settable by name or alias."""

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        validate_default=False,
        frozen=False,
    )


def format_value(value: Any) -> str:
    """Render a bad value the way a user wrote it (TOML-like)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True, by_alias=True)
    try:
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:
        text = f"<{type(value).__name__} nested too deeply>"
    # an error stays one readable line, whatever was given
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


#: The longest a value is shown in an error message.
_SHOWN = 200


def _after(check: Any, handler: GetCoreSchemaHandler, source: Any) -> core_schema.CoreSchema:
    return core_schema.no_info_after_validator_function(check, handler(source))


def _refuse(message: str) -> PydanticCustomError:
    return PydanticCustomError("reorderlab_value", "{message}", {"message": message})


@dataclass(frozen=True)
class Range:
    """A number's declared range (``minimum`` = ``ge``, ``exclusiveMinimum``
    = ``gt``, ...) and unit. A time (``unit="s"``) is also at least the
    clock's 1-ns step unless 0; a rate (``"bit/s"``) has its own wording."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    unit: str | None = None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        checked = _after(self.check, handler, source)
        if self.unit not in UNITS:
            return checked
        # a time, rate or size may be written with its unit ("30ms")
        return core_schema.no_info_before_validator_function(self.read_units, checked)

    def read_units(self, value: Any) -> Any:
        """A string with a unit (``reorderlab.units``) as the number in
        the field's unit; anything else as it is."""
        if not isinstance(value, str) or self.unit is None:
            return value
        try:
            return parse_quantity(value, self.unit)
        except UnitError as exc:
            raise _refuse(str(exc)) from None

    def check(self, value: Any) -> Any:
        """``value`` (of the field's type already) if it is within the range."""
        message = self.problem(value)
        if message is not None:
            raise _refuse(f"must be {message}, got {format_value(value)}")
        return value

    def problem(self, v: float) -> str | None:
        """What ``v`` must be, if it is outside the range (the core's words)."""
        if self.unit == "s":
            return self._time(v)
        if self.unit == "bit/s":
            return self._rate(v)
        below = (self.ge is not None and not v >= self.ge) or (
            self.gt is not None and not v > self.gt
        )
        above = (self.le is not None and not v <= self.le) or (
            self.lt is not None and not v < self.lt
        )
        if not (below or above):
            return None
        lower = f">= {_num(self.ge)}" if self.ge is not None else f"> {_num(self.gt)}"
        upper = f"<= {_num(self.le)}" if self.le is not None else f"< {_num(self.lt)}"
        has_lower = self.ge is not None or self.gt is not None
        has_upper = self.le is not None or self.lt is not None
        if isinstance(v, int):
            # below two bounds: ">= 1" (pydantic's words, as ever); the core
            # says "in 1..=4" there (spec/fields.rs)
            if below or not has_lower:
                return lower if below else upper
            unit = f" {self.unit}" if self.unit else ""
            return f"in {_num(self.ge)}..={_num(self.le)}{unit}"
        if has_lower and has_upper:
            left = "[" if self.ge is not None else "("
            right = "]" if self.le is not None else ")"
            lo = self.ge if self.ge is not None else self.gt
            hi = self.le if self.le is not None else self.lt
            return f"in {left}{_num(lo)}, {_num(hi)}{right}"
        return lower if has_lower else upper

    def _time(self, v: float) -> str | None:
        zero_ok = self.ge == 0
        if not (math.isfinite(v) and (v > 0 or (zero_ok and v == 0))):
            return ">= 0" if zero_ok else "> 0"
        if self.le is not None and v > self.le:
            return "at most 1e9 s (the longest simulated time)"
        if 0 < v < MIN_STEP_SECONDS:
            return f"{'0 or ' if zero_ok else ''}at least 1 ns (the engine's time step)"
        return None

    def _rate(self, v: float) -> str | None:
        if not (math.isfinite(v) and v > 0):
            return "> 0"
        if self.le is not None and v > self.le:
            return "at most 1e12 b/s (a 125-byte packet must take 1 ns, the engine's time step)"
        return None


def _num(v: float | None) -> str:
    return format_value(v)


@dataclass(frozen=True)
class Registry:
    """A name from one of the core's registries (``variants``,
    ``congestion_controls``), given the registry's spelling: a known name
    in any case, or a variant's alias (one cache key per variant; a
    congestion control's alias, ``hstcp``, stays as written, as its runs
    have always been keyed). An unknown name is left for the core to
    report, with the known ones."""

    kind: str

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return _after(self.spell, handler, source)

    def spell(self, value: str) -> str:
        if self.kind == "variants":
            # the core's one canonical name (tcp::variants::canonical_name)
            return _core.canonical_variant(value) or value
        for name in known_names(self.kind):
            if name.lower() == value.lower():
                return name
        return value


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` for the candidate ``word`` begins (the
    shortest), else the closest to it (difflib, case-insensitive), or
    ``""`` if none is close."""
    names = list(dict.fromkeys(str(c) for c in candidates))
    lowered = {n.lower(): n for n in names}
    # a name cut short ("RACK" for "RACK-TLP") before the closest spelling
    longer = [n for n in lowered if len(word) >= 3 and n.startswith(word.lower()) and n != word]
    if longer:
        return f" (did you mean {lowered[min(longer, key=len)]!r}?)"
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


@functools.cache
def _registry(kind: str) -> tuple[dict[str, Any], ...]:
    """Entries of one of the core's registries."""
    return tuple(json.loads(getattr(_core, kind)()))


def known_names(kind: str) -> tuple[str, ...]:
    """Names in one of the core's registries (``variants``, ``congestion_controls``)."""
    return tuple(str(entry["name"]) for entry in _registry(kind))
