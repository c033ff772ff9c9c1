"""Scenario schema: validated models mirroring ``crates/reorderlab/src/spec``.

The models here are the Python side of the contract described in
``docs/scenario-format.md``: the same fields, defaults and ``kind`` tags as the
serde structs of the Rust core (which validates again). A scenario is built
from Python objects, a dict, or a TOML file, and serialised to the JSON the
core accepts with :meth:`Scenario.to_json` (``None`` fields are omitted so the
core's own defaults apply: e.g. a ``TcpSpec`` field left ``None`` means "the
variant's default").

Every validation error names the field by its path and the bad value, e.g.
``topology.bottleneck_rate: must be > 0, got -5``; they are collected in a
:class:`ScenarioError` (a ``ValueError``).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import operator
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import orjson
import tomli_w
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

__all__ = [
    "SERIES_NAMES",
    "ArqImpairment",
    "BurstLossImpairment",
    "ChainTopology",
    "ConstantVar",
    "CustomTopology",
    "DelayImpairment",
    "DelayedAck",
    "DroptailQueue",
    "DumbbellTopology",
    "EmpiricalVar",
    "ExponentialVar",
    "FieldError",
    "FlowSpec",
    "GilbertElliottImpairment",
    "HyperexponentialVar",
    "Impairment",
    "LinkSpec",
    "LossImpairment",
    "MultipathSpec",
    "NormalVar",
    "Pareto2Var",
    "ParetoVar",
    "ParkingLotTopology",
    "PcapTap",
    "PositionedImpairment",
    "Queue",
    "RandomVar",
    "ReceiverSpec",
    "RecordSpec",
    "RedQueue",
    "ReorderImpairment",
    "Scenario",
    "ScenarioError",
    "SwapImpairment",
    "TcpSpec",
    "Topology",
    "TrafficSpec",
    "UniformVar",
    "canonical_json",
    "format_value",
    "load_scenario",
    "set_path",
    "without_outputs",
]

U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1

SeriesName = Literal[
    "cwnd", "ssthresh", "srtt", "rto", "dupthresh", "pipe", "delivered", "fa_ratio", "sent"
]

#: Sender variables that ``record.series`` may name (``spec::SERIES_NAMES``).
SERIES_NAMES: tuple[str, ...] = get_args(SeriesName)

# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldError:
    """One invalid field: its path (``flows[1].tcp.mss``) and what is wrong."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ScenarioError(ValueError):
    """An invalid scenario. ``str()`` is one line: ``path: message[; ...]``."""

    def __init__(self, errors: Sequence[FieldError], source: str | None = None) -> None:
        self.errors: list[FieldError] = list(errors)
        self.source = source
        super().__init__("; ".join(str(e) for e in self.errors))

    @classmethod
    def from_core(cls, message: str, source: str | None = None) -> ScenarioError:
        """Wrap a core ``SpecError`` text (``"<field path>: <message>"``)."""
        path, sep, rest = message.partition(": ")
        if sep and " " not in path:
            return cls([FieldError(path, rest)], source)
        return cls([FieldError("", message)], source)


def check_seed(value: Any, path: str = "seed") -> int:
    """``value`` as a run seed (an integer in 0..2**64-1, what the core
    takes), else a :class:`ScenarioError` naming ``path`` and the value:
    a seed given to ``run``/``sweep`` or on the command line is checked
    here, not by the core (which would raise an ``OverflowError``)."""
    if not isinstance(value, bool):
        try:
            seed = operator.index(value)  # ints, numpy's integers; not floats
        except TypeError:
            seed = -1
        if 0 <= seed <= U64_MAX:
            return seed
    message = f"must be an integer from 0 to {U64_MAX}, got {format_value(value)}"
    raise ScenarioError([FieldError(path, message)])


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
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _custom(path: str, message: str) -> PydanticCustomError:
    """An error for a path relative to the model being validated."""
    return PydanticCustomError(
        "reorderlab", "{path}: {message}", {"path": path, "message": message}
    )


_TYPE_WORDS = {
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
}


def _error_path(loc: tuple[int | str, ...], data: Any) -> tuple[str, Any]:
    """Turn a pydantic ``loc`` into ``a.b[2].c``, dropping union tags.

    Walks ``data`` (the raw input) alongside, so that the ``kind`` tag pydantic
    inserts for a tagged union (``('topology', 'chain', 'bottleneck_rate')``)
    is recognised and left out.
    """
    parts: list[str] = []
    cur: Any = data
    fresh = True  # just entered ``cur``: pydantic puts a union's tag first
    for elem in loc:
        if isinstance(cur, BaseModel):
            cur = cur.model_dump(by_alias=True)
        if isinstance(elem, int):
            parts.append(f"[{elem}]")
            cur = cur[elem] if isinstance(cur, list) and 0 <= elem < len(cur) else None
            fresh = True
            continue
        if isinstance(cur, Mapping):
            if fresh and elem in (cur.get("kind"), cur.get("dist")):
                fresh = False
                continue  # tag of a discriminated union
            parts.append(("." if parts else "") + elem)
            cur = cur.get(elem)
        else:
            if elem.startswith(("function-", "tagged-union[")):
                continue
            parts.append(("." if parts else "") + elem)
            cur = None
        fresh = True
    return "".join(parts), cur


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


def _field_errors(exc: ValidationError, data: Any) -> list[FieldError]:
    out: list[FieldError] = []
    for err in exc.errors(include_url=False):
        etype = err["type"]
        ctx = err.get("ctx") or {}
        path, _ = _error_path(tuple(err["loc"]), data)
        value = err.get("input")
        show_value = True
        if etype == "reorderlab":
            path = _join(path, str(ctx["path"]))
            msg = str(ctx["message"])
            show_value = False
        elif etype == "reorderlab_value":
            msg = str(err["msg"])
            show_value = False
        elif etype == "missing":
            msg = "missing required field"
            show_value = False
        elif etype == "extra_forbidden":
            msg = "unknown field"
        elif etype == "greater_than":
            msg = f"must be > {format_value(ctx['gt'])}"
        elif etype == "greater_than_equal":
            msg = f"must be >= {format_value(ctx['ge'])}"
        elif etype == "less_than":
            msg = f"must be < {format_value(ctx['lt'])}"
        elif etype == "less_than_equal":
            msg = f"must be <= {format_value(ctx['le'])}"
        elif etype == "literal_error":
            expected = str(ctx.get("expected", ""))
            if path.endswith(("kind", "dist")):
                msg = f"unknown kind {format_value(value)} (known: {expected})"
                show_value = False
            else:
                msg = f"must be one of {expected}"
        elif etype == "union_tag_invalid":
            path = _join(path, str(ctx.get("discriminator", "kind")).strip("'"))
            msg = (
                f"unknown kind {format_value(ctx.get('tag'))} "
                f"(known: {ctx.get('expected_tags', '')})"
            )
            show_value = False
        elif etype == "union_tag_not_found":
            path = _join(path, str(ctx.get("discriminator", "kind")).strip("'"))
            msg = "missing required field"
            show_value = False
        elif etype in ("too_short", "too_long"):
            word = "at least" if etype == "too_short" else "at most"
            limit = ctx.get("min_length") if etype == "too_short" else ctx.get("max_length")
            msg = f"must have {word} {limit} item(s)"
        elif etype in _TYPE_WORDS:
            msg = _TYPE_WORDS[etype]
        elif etype in ("value_error", "assertion_error"):
            msg = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        else:
            msg = str(err["msg"])
        if show_value:
            msg = f"{msg}, got {format_value(value)}"
        out.append(FieldError(path, msg))
    return out


# --------------------------------------------------------------------------
# Field types
# --------------------------------------------------------------------------


def _not_bool(value: Any) -> Any:
    """pydantic reads ``true`` as 1.0 for a float field: a number field must
    be given a number (``bottleneck_rate = true`` made a 1 b/s link)."""
    if isinstance(value, bool):
        raise ValueError("must be a number")
    return value


#: A float field (every float field of the schema uses it, or one below).
Real = Annotated[float, BeforeValidator(_not_bool)]
PosFloat = Annotated[Real, Field(gt=0, allow_inf_nan=False)]
NonNegFloat = Annotated[Real, Field(ge=0, allow_inf_nan=False)]
U32 = Annotated[int, Field(ge=0, le=U32_MAX, strict=True)]
PosU32 = Annotated[int, Field(ge=1, le=U32_MAX, strict=True)]
U64 = Annotated[int, Field(ge=0, le=U64_MAX, strict=True)]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        validate_default=False,
        frozen=False,
    )


# --------------------------------------------------------------------------
# Queues
# --------------------------------------------------------------------------


class DroptailQueue(_Model):
    """Tail drop when either limit would be exceeded (``kind = "droptail"``)."""

    kind: Literal["droptail"] = "droptail"
    limit_packets: PosU32 | None = None
    limit_bytes: Annotated[int, Field(ge=1, le=U64_MAX, strict=True)] | None = None


class RedQueue(_Model):
    """Random Early Detection (Floyd & Jacobson 1993), thresholds in packets."""

    kind: Literal["red"] = "red"
    limit_packets: PosU32
    min_th: NonNegFloat
    max_th: PosFloat
    max_p: Annotated[Real, Field(allow_inf_nan=False)] = 0.1
    w_q: Annotated[Real, Field(allow_inf_nan=False)] = 0.002
    gentle: bool = False
    instantaneous: bool = False

    @model_validator(mode="after")
    def _thresholds(self) -> RedQueue:
        if self.min_th >= self.max_th:
            raise _custom(
                "max_th",
                f"must be > min_th ({format_value(self.min_th)}), got {format_value(self.max_th)}",
            )
        for name in ("max_p", "w_q"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise _custom(name, f"must be in (0, 1], got {format_value(value)}")
        return self


Queue = Annotated[DroptailQueue | RedQueue, Field(discriminator="kind")]


def _default_queue() -> DroptailQueue:
    return DroptailQueue(limit_packets=100)


# --------------------------------------------------------------------------
# Topologies
# --------------------------------------------------------------------------


class LinkSpec(_Model):
    """One unidirectional link of a custom topology (``from`` -> ``to``)."""

    from_: str = Field(alias="from")
    to: str
    rate: PosFloat
    delay: NonNegFloat
    queue: Queue = Field(default_factory=_default_queue)
    duplex: bool = True


class ChainTopology(_Model):
    """Seed 000 Fig. 3: ``S1 -(access)- R1 -(bottleneck)- R2 -(access)- D``."""

    kind: Literal["chain"] = "chain"
    access_rate: PosFloat = 10e6
    access_delay: NonNegFloat = 0.001
    bottleneck_rate: PosFloat
    bottleneck_delay: NonNegFloat
    queue: Queue = Field(default_factory=_default_queue)
    access_queue: Queue | None = None

    def nodes(self) -> list[str]:
        return ["S1", "R1", "R2", "D"]

    def links(self) -> list[str]:
        return _duplex([("S1", "R1"), ("R1", "R2"), ("R2", "D")])


class DumbbellTopology(_Model):
    """``S0..S{n-1} - R1 - R2 - D0..D{n-1}``; pair i uses ``S{i}`` and ``D{i}``."""

    kind: Literal["dumbbell"] = "dumbbell"
    pairs: Annotated[int, Field(ge=1, le=100_000, strict=True)]
    access_rate: PosFloat = 10e6
    access_delays: list[NonNegFloat] = Field(default_factory=list)
    access_delay: NonNegFloat = 0.001
    bottleneck_rate: PosFloat
    bottleneck_delay: NonNegFloat
    queue: Queue = Field(default_factory=_default_queue)
    access_queue: Queue | None = None

    @model_validator(mode="after")
    def _delays(self) -> DumbbellTopology:
        if self.access_delays and len(self.access_delays) != self.pairs:
            raise _custom(
                "access_delays",
                f"must have one delay per pair ({self.pairs}), got {len(self.access_delays)}",
            )
        return self

    def nodes(self) -> list[str]:
        n = self.pairs
        return [f"S{i}" for i in range(n)] + ["R1", "R2"] + [f"D{i}" for i in range(n)]

    def links(self) -> list[str]:
        pairs = [(f"S{i}", "R1") for i in range(self.pairs)]
        pairs.append(("R1", "R2"))
        pairs += [("R2", f"D{i}") for i in range(self.pairs)]
        return _duplex(pairs)


class ParkingLotTopology(_Model):
    """Seed 001 Fig. 3: routers ``R0..R{h}``, hop i = ``R{i-1} -> R{i}``."""

    kind: Literal["parking_lot"] = "parking_lot"
    hop_rates: list[PosFloat]
    hop_delay: NonNegFloat = 0.002
    access_rate: PosFloat = 10e6
    cross_access_rates: list[PosFloat] = Field(default_factory=list)
    access_delay: NonNegFloat = 0.001
    queue: Queue = Field(default_factory=_default_queue)
    access_queue: Queue | None = None

    @model_validator(mode="after")
    def _hops(self) -> ParkingLotTopology:
        if not self.hop_rates:
            raise _custom("hop_rates", "must list at least one hop rate, got []")
        if self.cross_access_rates and len(self.cross_access_rates) != len(self.hop_rates):
            raise _custom(
                "cross_access_rates",
                f"must list one rate per hop ({len(self.hop_rates)}) or none, "
                f"got {len(self.cross_access_rates)}",
            )
        return self

    def nodes(self) -> list[str]:
        h = len(self.hop_rates)
        out = [f"R{i}" for i in range(h + 1)] + ["S", "D"]
        for i in range(1, h + 1):
            out += [f"CS{i}", f"CD{i}"]
        return out

    def links(self) -> list[str]:
        h = len(self.hop_rates)
        pairs = [(f"R{i - 1}", f"R{i}") for i in range(1, h + 1)]
        pairs += [("S", "R0"), (f"R{h}", "D")]
        for i in range(1, h + 1):
            pairs += [(f"CS{i}", f"R{i - 1}"), (f"R{i}", f"CD{i}")]
        return _duplex(pairs)


class CustomTopology(_Model):
    """Explicit nodes and links."""

    kind: Literal["custom"] = "custom"
    nodes_: list[str] = Field(alias="nodes")
    links_: list[LinkSpec] = Field(alias="links")

    @model_validator(mode="after")
    def _endpoints(self) -> CustomTopology:
        if not self.nodes_:
            raise _custom("nodes", "must not be empty, got []")
        seen: set[str] = set()
        for i, node in enumerate(self.nodes_):
            if not node or node in seen:
                raise _custom(
                    f"nodes[{i}]",
                    f"node names must be unique and non-empty, got {format_value(node)}",
                )
            seen.add(node)
        for i, link in enumerate(self.links_):
            for end, name in (("from", link.from_), ("to", link.to)):
                if name not in seen:
                    raise _custom(
                        f"links[{i}].{end}",
                        f"unknown node {format_value(name)} (known: {', '.join(self.nodes_)})",
                    )
            if link.from_ == link.to:
                raise _custom(
                    f"links[{i}].to",
                    f"a link must join two different nodes, got {format_value(link.to)} twice",
                )
        names: set[str] = set()
        for i, link in enumerate(self.links_):
            for name in _link_names(link):
                if name in names:
                    raise _custom(f"links[{i}]", f"duplicate link {format_value(name)}")
                names.add(name)
        return self

    def nodes(self) -> list[str]:
        return list(self.nodes_)

    def links(self) -> list[str]:
        return [name for link in self.links_ for name in _link_names(link)]


def _check_multipath(p: str, mp: MultipathSpec, nodes: list[str], links: list[str]) -> None:
    """Paths are chains of known links from ``at`` to ``dst`` (as the core checks)."""
    for field_name, node in (("at", mp.at), ("dst", mp.dst)):
        if node not in nodes:
            raise _custom(f"{p}.{field_name}", f"unknown node {format_value(node)}")
    for k, path in enumerate(mp.paths):
        at = mp.at
        for j, name in enumerate(path):
            if name not in links:
                raise _custom(f"{p}.paths[{k}][{j}]", f"unknown link {format_value(name)}")
            src, _, dst = name.partition("->")
            if src != at:
                raise _custom(
                    f"{p}.paths[{k}][{j}]",
                    f"link {format_value(name)} does not start at {format_value(at)}",
                )
            at = dst
        if at != mp.dst:
            raise _custom(
                f"{p}.paths[{k}]", f"ends at {format_value(at)}, not at dst {format_value(mp.dst)}"
            )


def _connected(links: list[str], a: str, b: str) -> bool:
    """A route from a to b and one from b to a over the named links."""
    adjacency: dict[str, list[str]] = {}
    for name in links:
        src, _, dst = name.partition("->")
        adjacency.setdefault(src, []).append(dst)

    def reaches(start: str, goal: str) -> bool:
        seen = {start}
        stack = [start]
        while stack:
            node = stack.pop()
            if node == goal:
                return True
            for nxt in adjacency.get(node, []):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return False

    return reaches(a, b) and reaches(b, a)


def _link_names(link: LinkSpec) -> list[str]:
    names = [f"{link.from_}->{link.to}"]
    if link.duplex:
        names.append(f"{link.to}->{link.from_}")
    return names


def _duplex(pairs: list[tuple[str, str]]) -> list[str]:
    out = [f"{a}->{b}" for a, b in pairs]
    out += [f"{b}->{a}" for a, b in pairs]
    return out


Topology = Annotated[
    ChainTopology | DumbbellTopology | ParkingLotTopology | CustomTopology,
    Field(discriminator="kind"),
]

# --------------------------------------------------------------------------
# Impairments
# --------------------------------------------------------------------------


# -- random variables (``spec::RandomVar``, tagged by ``dist``) ------------


def _probability_check(path: str, value: float, allow_one: bool) -> None:
    ok = math.isfinite(value) and value >= 0 and (value < 1 or (allow_one and value == 1))
    if not ok:
        hi = "1]" if allow_one else "1)"
        raise _custom(path, f"must be in [0, {hi}, got {format_value(value)}")


def _finite_nonneg(value: float) -> bool:
    return math.isfinite(value) and value >= 0


class ConstantVar(_Model):
    """Always ``value``."""

    dist: Literal["constant"] = "constant"
    value: Real

    @model_validator(mode="after")
    def _check(self) -> ConstantVar:
        if not _finite_nonneg(self.value):
            raise _custom("value", f"must be >= 0, got {format_value(self.value)}")
        return self


class UniformVar(_Model):
    """Uniform on ``[low, high]``."""

    dist: Literal["uniform"] = "uniform"
    low: Real
    high: Real

    @model_validator(mode="after")
    def _check(self) -> UniformVar:
        if not _finite_nonneg(self.low):
            raise _custom("low", f"must be >= 0, got {format_value(self.low)}")
        if not (math.isfinite(self.high) and self.high >= self.low):
            raise _custom(
                "high",
                f"must be >= low ({format_value(self.low)}), got {format_value(self.high)}",
            )
        return self


class NormalVar(_Model):
    """Normal with ``mean`` and standard deviation ``sd``, truncated at 0."""

    dist: Literal["normal"] = "normal"
    mean: Real
    sd: Real

    @model_validator(mode="after")
    def _check(self) -> NormalVar:
        if not math.isfinite(self.mean):
            raise _custom("mean", f"must be finite, got {format_value(self.mean)}")
        if not _finite_nonneg(self.sd):
            raise _custom("sd", f"must be >= 0, got {format_value(self.sd)}")
        return self


class ExponentialVar(_Model):
    """Exponential with the given ``mean``."""

    dist: Literal["exponential"] = "exponential"
    mean: Real

    @model_validator(mode="after")
    def _check(self) -> ExponentialVar:
        if not (math.isfinite(self.mean) and self.mean > 0):
            raise _custom("mean", f"must be > 0, got {format_value(self.mean)}")
        return self


class HyperexponentialVar(_Model):
    """With probability ``probs[i]`` an exponential of mean ``means[i]``."""

    dist: Literal["hyperexponential"] = "hyperexponential"
    means: list[Real]
    probs: list[Real]

    @model_validator(mode="after")
    def _check(self) -> HyperexponentialVar:
        if not self.means or len(self.means) != len(self.probs):
            raise _custom(
                "probs",
                f"must have one probability per mean ({len(self.means)}), got {len(self.probs)}",
            )
        for m in self.means:
            if not (math.isfinite(m) and m > 0):
                raise _custom("means", f"every mean must be > 0, got {format_value(m)}")
        total = sum(self.probs)
        if any(p < 0 for p in self.probs) or abs(total - 1) > 1e-9:
            raise _custom("probs", f"must be >= 0 and sum to 1, got sum {format_value(total)}")
        return self


class _ScaleShape(_Model):
    scale: Real
    shape: Real

    @model_validator(mode="after")
    def _check(self) -> _ScaleShape:
        for name in ("scale", "shape"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise _custom(name, f"must be > 0, got {format_value(value)}")
        return self


class ParetoVar(_ScaleShape):
    """Pareto type I: P(X > x) = (scale / x)^shape for x >= scale."""

    dist: Literal["pareto"] = "pareto"


class Pareto2Var(_ScaleShape):
    """Pareto type II (Lomax): P(X > x) = (1 + x / scale)^-shape."""

    dist: Literal["pareto2"] = "pareto2"


class EmpiricalVar(_Model):
    """Empirical CDF: ``cdf[i]`` = P(X <= ``values[i]``)."""

    dist: Literal["empirical"] = "empirical"
    values: list[Real]
    cdf: list[Real]

    @model_validator(mode="after")
    def _check(self) -> EmpiricalVar:
        v, c = self.values, self.cdf
        if not v or len(v) != len(c):
            raise _custom("cdf", f"must have one cdf value per value ({len(v)}), got {len(c)}")
        if any(b < a for a, b in itertools.pairwise(v)) or not all(map(_finite_nonneg, v)):
            raise _custom("values", "must be >= 0 and ascending")
        if any(b < a for a, b in itertools.pairwise(c)) or not all(0 <= x <= 1 for x in c):
            raise _custom("cdf", "must be ascending within [0, 1]")
        if abs(c[-1] - 1) > 1e-9:
            raise _custom("cdf", f"must end at 1, got {format_value(c[-1])}")
        return self


RandomVar = Annotated[
    ConstantVar
    | UniformVar
    | NormalVar
    | ExponentialVar
    | HyperexponentialVar
    | ParetoVar
    | Pareto2Var
    | EmpiricalVar,
    Field(discriminator="dist"),
]

# -- impairment models (``spec::ImpairmentModel``, tagged by ``kind``) ------

Position = Literal["ingress", "egress"]


class _Impairment(_Model):
    """Fields common to every impairment element (``spec::ImpairmentSpec``)."""

    link: str
    #: ``ingress`` (before the queue) or ``egress`` (after the link); None =
    #: the model's default (egress for ``arq``, ingress otherwise).
    position: Position | None = None


class LossImpairment(_Impairment):
    """Independent (Bernoulli) drop of each packet with probability ``p``."""

    kind: Literal["loss"] = "loss"
    p: Real
    data_only: bool = True

    @model_validator(mode="after")
    def _check(self) -> LossImpairment:
        _probability_check("p", self.p, allow_one=False)
        return self


class DelayImpairment(_Impairment):
    """Each packet, with probability ``fraction``, held for a drawn ``delay`` (s)."""

    kind: Literal["delay"] = "delay"
    fraction: Real
    delay: RandomVar
    data_only: bool = False

    @model_validator(mode="after")
    def _check(self) -> DelayImpairment:
        _probability_check("fraction", self.fraction, allow_one=True)
        return self


class BurstLossImpairment(_Impairment):
    """Drop episodes starting with probability ``q`` per packet, lasting ``duration`` (s)."""

    kind: Literal["burst_loss"] = "burst_loss"
    q: Real
    duration: RandomVar
    data_only: bool = True

    @model_validator(mode="after")
    def _check(self) -> BurstLossImpairment:
        _probability_check("q", self.q, allow_one=False)
        return self


class GilbertElliottImpairment(_Impairment):
    """Two-state Markov loss, stepped once per packet."""

    kind: Literal["gilbert_elliott"] = "gilbert_elliott"
    p_gb: Real
    p_bg: Real
    loss_good: Real = 0.0
    loss_bad: Real = 1.0
    data_only: bool = True

    @model_validator(mode="after")
    def _check(self) -> GilbertElliottImpairment:
        for name in ("p_gb", "p_bg", "loss_good", "loss_bad"):
            _probability_check(name, getattr(self, name), allow_one=True)
        return self


class PositionedImpairment(_Impairment):
    """Drop the listed data segments (0-based) of flow ``flow``."""

    kind: Literal["positioned"] = "positioned"
    flow: U32
    segments: list[U32]
    copies: Literal["original", "all"] = "original"

    @model_validator(mode="after")
    def _check(self) -> PositionedImpairment:
        if not self.segments:
            raise _custom("segments", "must list at least one segment, got []")
        return self


class SwapImpairment(_Impairment):
    """Every ``period`` s, ``swaps`` times exchange two packets waiting in the queue."""

    kind: Literal["swap"] = "swap"
    period: PosFloat
    swaps: PosU32


class ReorderImpairment(_Impairment):
    """The reordering generator of seed 003 Sec. III (interval, delay, block)."""

    kind: Literal["reorder"] = "reorder"
    interval: RandomVar
    delay: RandomVar | None = None
    delay_packets: RandomVar | None = None
    block: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))
    max_hold: PosFloat = 0.01
    data_only: bool = True

    @model_validator(mode="after")
    def _check(self) -> ReorderImpairment:
        if (self.delay is None) == (self.delay_packets is None):
            raise _custom("delay", "give exactly one of delay (s) and delay_packets")
        return self


class ArqImpairment(_Impairment):
    """Link-layer ARQ: each attempt fails with ``frame_error``, retried one ``link_rtt`` later."""

    kind: Literal["arq"] = "arq"
    frame_error: Real
    link_rtt: NonNegFloat
    in_order: bool = False
    max_attempts: PosU32 | None = None

    @model_validator(mode="after")
    def _check(self) -> ArqImpairment:
        _probability_check("frame_error", self.frame_error, allow_one=False)
        return self


Impairment = Annotated[
    LossImpairment
    | DelayImpairment
    | BurstLossImpairment
    | GilbertElliottImpairment
    | PositionedImpairment
    | SwapImpairment
    | ReorderImpairment
    | ArqImpairment,
    Field(discriminator="kind"),
]


class MultipathSpec(_Model):
    """Per-packet multipath splitter at node ``at`` for destination ``dst``."""

    at: str
    dst: str
    #: each path a list of link names from ``at`` to ``dst``
    paths: list[list[str]]
    epsilon: NonNegFloat | None = None
    scale: PosFloat = 1.0
    weights: list[Real] | None = None
    data_only: bool = True

    @model_validator(mode="after")
    def _check(self) -> MultipathSpec:
        if not self.paths:
            raise _custom("paths", "must list at least one path, got []")
        for k, path in enumerate(self.paths):
            if not path:
                raise _custom(f"paths[{k}]", "must list at least one link, got []")
        if self.weights is not None:
            if len(self.weights) != len(self.paths):
                raise _custom(
                    "weights",
                    f"must have one weight per path ({len(self.paths)}), got {len(self.weights)}",
                )
            if not all(map(_finite_nonneg, self.weights)) or sum(self.weights) <= 0:
                raise _custom(
                    "weights",
                    f"must be >= 0 with a positive sum, got {format_value(self.weights)}",
                )
        return self


# --------------------------------------------------------------------------
# Flows
# --------------------------------------------------------------------------


class TcpSpec(_Model):
    """Sender parameters common to all variants; ``None`` = the variant's default."""

    mss: Annotated[int, Field(ge=1, le=65535, strict=True)] | None = None
    ack_size: Annotated[int, Field(ge=1, le=65535, strict=True)] | None = None
    max_window: PosU32 | None = None
    initial_window: PosU32 | None = None
    initial_ssthresh: Annotated[int, Field(ge=2, le=U32_MAX, strict=True)] | None = None
    min_rto: PosFloat | None = None
    max_rto: PosFloat | None = None
    initial_rto: PosFloat | None = None
    granularity: NonNegFloat | None = None
    dupthresh: PosU32 | None = None
    limited_transmit: bool | None = None
    #: limited transmit up to this many congestion windows (RR-TCP's k)
    limited_transmit_bound: NonNegFloat | None = None
    #: initial (DSACK-TA) or fixed (DSACK-FA) FA ratio in [0, 1]
    fa_ratio: Real | None = None
    #: RTT measurement: one timed segment per RTT (BSD / ns-2, the default)
    #: or every ACK (Linux / timestamps)
    rtt_timing: Literal["per_rtt", "per_ack"] | None = None
    #: TCP-PR srtt decay per RTT, in (0, 1)
    alpha: Real | None = None
    #: TCP-PR mxrtt = beta * srtt, beta >= 1
    beta: Real | None = None
    #: congestion window validation: none | rfc2861 (RFC 2861)
    cwv: Literal["none", "rfc2861"] | None = None
    #: Linux's HyStart in CUBIC's slow start (None: the variant's; on for
    #: Linux and the Linux 3.17 family)
    hystart: bool | None = None
    #: an ns-2 release's RTT estimator and timer rules (docs/variants.md)
    rto_estimator: Literal["ns2-2.1b8", "ns2-2.26", "ns2-2.27", "ns2-2.31"] | None = None
    syn: bool = False

    @model_validator(mode="after")
    def _rto_bounds(self) -> TcpSpec:
        if self.fa_ratio is not None and not 0 <= self.fa_ratio <= 1:
            raise _custom("fa_ratio", f"must be in [0, 1], got {format_value(self.fa_ratio)}")
        if self.alpha is not None and not 0 < self.alpha < 1:
            raise _custom("alpha", f"must be in (0, 1), got {format_value(self.alpha)}")
        if self.beta is not None and not self.beta >= 1:
            raise _custom("beta", f"must be >= 1, got {format_value(self.beta)}")
        # A max_rto below the min_rto given is an error; against a variant's
        # default min RTO the core checks it (and names the field too).
        if self.max_rto is not None and self.min_rto is not None and self.max_rto < self.min_rto:
            raise _custom(
                "max_rto",
                f"must be >= min_rto ({format_value(self.min_rto)}), "
                f"got {format_value(self.max_rto)}",
            )
        return self


DelayedAck = Literal["none", "rfc1122", "quickack"]


class ReceiverSpec(_Model):
    """Receiver ACK policy."""

    delayed_ack: DelayedAck = "none"
    delack_timeout: PosFloat = 0.2
    delack_every: PosU32 = 2
    sack: bool = True
    dsack: bool = True
    max_sack_blocks: Annotated[int, Field(strict=True)] = 4

    @model_validator(mode="after")
    def _sack_blocks(self) -> ReceiverSpec:
        if not 1 <= self.max_sack_blocks <= 4:
            raise _custom(
                "max_sack_blocks", f"must be in 1..=4, got {format_value(self.max_sack_blocks)}"
            )
        return self


class _Transport(_Model):
    """Sender variant, congestion control and their parameters."""

    variant: str = "SACK"
    cc: str = "reno"
    tcp: TcpSpec = Field(default_factory=TcpSpec)
    receiver: ReceiverSpec = Field(default_factory=ReceiverSpec)

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        known = known_names("variants")
        for name in known:
            if name.lower() == value.lower():
                return name  # the registry's spelling: one cache key per variant
        alias = known_aliases("variants").get(value.lower())
        if alias is not None:
            return alias
        if known:
            raise PydanticCustomError(
                "reorderlab_value",
                "unknown variant {value} (known: {known})",
                {"value": format_value(value), "known": ", ".join(known)},
            )
        return value

    @field_validator("cc")
    @classmethod
    def _known_cc(cls, value: str) -> str:
        known = known_names("congestion_controls")
        for name in known:
            if name.lower() == value.lower():
                return name
        if known:
            raise PydanticCustomError(
                "reorderlab_value",
                "unknown congestion control {value} (known: {known})",
                {"value": format_value(value), "known": ", ".join(known)},
            )
        return value


class FlowSpec(_Transport):
    """The transport and application of one flow."""

    name: str | None = None
    src: str
    dst: str
    start: NonNegFloat = 0.0
    segments: U64 = 0


def _pareto_of_mean(mean: float, shape: float) -> ParetoVar:
    return ParetoVar(scale=mean * (shape - 1) / shape, shape=shape)


class TrafficSpec(_Transport):
    """A traffic generator: web-like sessions.

    ``kind="http"``: sessions opening one flow per object; the defaults are
    seed 001's web sessions (Sec. V): page gap Exp(1 s), one object per page,
    inter-object Exp(10 ms), object size Pareto (mean 40 KB, shape 1.2).
    ``kind="page"``: page downloads over up to ``connections`` persistent
    connections, the HTML first (seed 002 Sec. 3.3); ``page_interarrival`` is
    the think time after a page, ``object_sizes`` an optional fixed page.
    See ``docs/traffic.md``.
    """

    name: str | None = None
    kind: Literal["http", "page"] = "http"
    server: str
    client: str
    sessions: PosU32 = 1
    start: NonNegFloat = 0.0
    stop: PosFloat | None = None
    closed_loop: bool = False
    page_interarrival: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=1.0))
    objects_per_page: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))
    inter_object: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=0.01))
    object_size: RandomVar = Field(default_factory=lambda: _pareto_of_mean(40_000.0, 1.2))
    connections: Annotated[int, Field(ge=1, le=64, strict=True)] | None = None
    object_sizes: list[PosFloat] | None = None

    @model_validator(mode="after")
    def _page_fields(self) -> TrafficSpec:
        if self.kind == "http":
            for field in ("connections", "object_sizes"):
                if getattr(self, field) is not None:
                    raise _custom(field, 'is only used by kind = "page", got kind = "http"')
        if self.object_sizes is not None and not self.object_sizes:
            raise _custom("object_sizes", "must list at least one object (the HTML), got []")
        return self

    @model_validator(mode="after")
    def _stop_after_start(self) -> TrafficSpec:
        if self.stop is not None and self.stop <= self.start:
            raise _custom(
                "stop",
                f"must be > start ({format_value(self.start)}), got {format_value(self.stop)}",
            )
        return self


class PcapTap(_Model):
    """A packet capture at one end of a link (``docs/pcap.md``): both
    directions, as ``tcpdump`` on that interface would see them. ``ingress``
    is the end at the link's ``from`` node, ``egress`` the one at its ``to``
    node."""

    link: str
    position: Position = "egress"


class RecordSpec(_Model):
    """What to record besides the per-flow counters.

    ``pcap`` lists packet captures; they are written by a run given an
    output folder (``run(..., pcap_dir=...)``, ``reorderlab run``), never by
    a sweep, and are not part of the run's cache key (see ``docs/pcap.md``).
    """

    series: list[str] = Field(default_factory=list)
    interval: PosFloat = 0.1
    flows: list[U32] = Field(default_factory=list)
    objects: bool = False
    trace_window: list[NonNegFloat] = Field(default_factory=list)
    pcap: list[PcapTap] | None = None

    @model_validator(mode="after")
    def _trace_window(self) -> RecordSpec:
        w = self.trace_window
        if w and not (len(w) == 2 and w[0] < w[1]):
            raise _custom(
                "trace_window",
                f"must be [] or [from, until] with 0 <= from < until, got {format_value(w)}",
            )
        return self

    @model_validator(mode="after")
    def _series_names(self) -> RecordSpec:
        for i, name in enumerate(self.series):
            if name not in SERIES_NAMES:
                raise _custom(
                    f"series[{i}]",
                    f"unknown series {format_value(name)} (known: {', '.join(SERIES_NAMES)})",
                )
        return self


@functools.cache
def _registry(kind: str) -> tuple[dict[str, Any], ...]:
    """Entries of one of the core's registries; empty without the compiled core."""
    try:
        from reorderlab import _core
    except ImportError:  # pragma: no cover - only without a built extension
        return ()
    return tuple(json.loads(getattr(_core, kind)()))


def known_names(kind: str) -> tuple[str, ...]:
    """Names in one of the core's registries (``variants``, ``congestion_controls``).

    Empty when the compiled core is not importable (then only the core checks).
    """
    return tuple(str(entry["name"]) for entry in _registry(kind))


def known_aliases(kind: str) -> dict[str, str]:
    """Lower-cased alias -> registry name (e.g. ``inc-by-1`` -> ``DSACK-BL-INC``)."""
    return {
        str(alias).lower(): str(entry["name"])
        for entry in _registry(kind)
        for alias in entry.get("aliases", [])
    }


# --------------------------------------------------------------------------
# Scenario
# --------------------------------------------------------------------------


def _check_pcap(taps: Sequence[PcapTap], links: list[str]) -> None:
    """Each tap on a known link; no end of a wire captured twice (``A->B``
    at ``ingress`` and ``B->A`` at ``egress`` are both node A's end)."""
    points: list[tuple[str, str]] = []
    for i, tap in enumerate(taps):
        if tap.link not in links:
            raise _custom(
                f"record.pcap[{i}].link",
                f"unknown link {format_value(tap.link)} (known: {', '.join(links)})",
            )
        src, _, dst = tap.link.partition("->")
        point = (src, dst) if tap.position == "ingress" else (dst, src)
        if point in points:
            raise _custom(
                f"record.pcap[{i}]",
                f"captures at the same end of the same link as record.pcap[{points.index(point)}]",
            )
        points.append(point)


def without_outputs(data: dict[str, Any]) -> dict[str, Any]:
    """A scenario's plain data without what only says where results go
    (``record.pcap``): a capture observes the run and does not change its
    result, so it is no part of the run's identity (its cache key)."""
    record = data.get("record")
    if isinstance(record, dict) and "pcap" in record:
        data = {**data, "record": {k: v for k, v in record.items() if k != "pcap"}}
    return data


def _check_endpoints(
    path: str, a: tuple[str, str], b: tuple[str, str], nodes: Sequence[str]
) -> None:
    """Both ends are known nodes, and distinct."""
    for end, node in (a, b):
        if node not in nodes:
            raise _custom(
                f"{path}.{end}", f"unknown node {format_value(node)} (known: {', '.join(nodes)})"
            )
    if a[1] == b[1]:
        raise _custom(f"{path}.{b[0]}", f"must differ from {a[0]}, got {format_value(b[1])}")


class Scenario(_Model):
    """One simulation run (see ``docs/scenario-format.md``)."""

    name: str = "scenario"
    duration: PosFloat
    seed: U64 = 1
    warmup: NonNegFloat = 0.0
    topology: Topology
    impairments: list[Impairment] = Field(default_factory=list)
    multipath: list[MultipathSpec] = Field(default_factory=list)
    flows: list[FlowSpec] = Field(default_factory=list)
    traffic: list[TrafficSpec] = Field(default_factory=list)
    record: RecordSpec = Field(default_factory=RecordSpec)

    @model_validator(mode="after")
    def _cross_fields(self) -> Scenario:
        if not self.flows and not self.traffic:
            raise _custom("flows", "must list at least one flow (or a traffic generator), got []")
        if self.warmup >= self.duration:
            raise _custom(
                "warmup",
                f"must be < duration ({format_value(self.duration)}), "
                f"got {format_value(self.warmup)}",
            )
        nodes = self.topology.nodes()
        links = self.topology.links()
        for i, flow in enumerate(self.flows):
            _check_endpoints(f"flows[{i}]", ("src", flow.src), ("dst", flow.dst), nodes)
            if flow.start >= self.duration:
                raise _custom(
                    f"flows[{i}].start",
                    f"must be before the end of the run ({format_value(self.duration)} s), "
                    f"got {format_value(flow.start)}",
                )
            if not _connected(links, flow.src, flow.dst):
                raise _custom(
                    f"flows[{i}]",
                    f"no route between {format_value(flow.src)} and {format_value(flow.dst)} "
                    "in both directions",
                )
        for i, gen in enumerate(self.traffic):
            _check_endpoints(f"traffic[{i}]", ("server", gen.server), ("client", gen.client), nodes)
            if gen.start >= self.duration:
                raise _custom(
                    f"traffic[{i}].start",
                    f"must be before the end of the run ({format_value(self.duration)} s), "
                    f"got {format_value(gen.start)}",
                )
            if not _connected(links, gen.server, gen.client):
                raise _custom(
                    f"traffic[{i}]",
                    f"no route between {format_value(gen.server)} and "
                    f"{format_value(gen.client)} in both directions",
                )
        for i, imp in enumerate(self.impairments):
            if imp.link not in links:
                raise _custom(
                    f"impairments[{i}].link",
                    f"unknown link {format_value(imp.link)} (known: {', '.join(links)})",
                )
            if isinstance(imp, PositionedImpairment) and imp.flow >= len(self.flows):
                raise _custom(
                    f"impairments[{i}].flow",
                    f"no flow with index {imp.flow} ({len(self.flows)} flows)",
                )
        for i, mp in enumerate(self.multipath):
            _check_multipath(f"multipath[{i}]", mp, nodes, links)
        for i, index in enumerate(self.record.flows):
            if index >= len(self.flows):
                raise _custom(
                    f"record.flows[{i}]",
                    f"no flow with index {index} ({len(self.flows)} flows)",
                )
        _check_pcap(self.record.pcap or [], links)
        return self

    # -- construction -----------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> Scenario:
        """Validate a plain dict; raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(_field_errors(exc, data), source) from None

    @classmethod
    def from_toml(cls, text: str, source: str | None = None) -> Scenario:
        """Parse and validate TOML text."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError([FieldError("", f"invalid TOML: {exc}")], source) from None
        return cls.from_dict(data, source)

    @classmethod
    def from_json(cls, text: str, source: str | None = None) -> Scenario:
        """Parse and validate JSON text (e.g. what :meth:`to_json` wrote)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError([FieldError("", f"invalid JSON: {exc}")], source) from None
        return cls.from_dict(data, source)

    @classmethod
    def load(cls, path: str | Path) -> Scenario:
        """Load a scenario from a ``.toml`` (or ``.json``) file."""
        return load_scenario(path)

    # -- serialisation ----------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain data as the core expects it (``None`` omitted, ``from`` aliased)."""
        return self.model_dump(mode="json", exclude_none=True, by_alias=True)

    def to_json(self) -> str:
        """JSON for the core."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def to_toml(self) -> str:
        """TOML text that :meth:`from_toml` reads back to an equal scenario."""
        return tomli_w.dumps(self.to_dict())

    def save(self, path: str | Path) -> None:
        """Write the scenario as TOML (or JSON if the suffix is ``.json``)."""
        p = Path(path)
        text = self.to_json() if p.suffix == ".json" else self.to_toml()
        p.write_text(text, encoding="utf-8")

    def canonical_json(self, seed: int | None = None) -> str:
        """Canonical JSON (sorted keys, defaults filled) with the effective
        seed, without the captures (:func:`without_outputs`)."""
        data = without_outputs(self.to_dict())
        if seed is not None:
            data["seed"] = seed
        return canonical_json(data)

    def cache_key(self, seed: int | None, engine_version: str) -> str:
        """sha256 of (canonical scenario, seed, engine version): the store's key."""
        effective = self.seed if seed is None else seed
        text = f"{self.canonical_json(effective)}\n{effective}\n{engine_version}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    # -- variations -------------------------------------------------------

    def with_params(self, params: Mapping[str, Any]) -> Scenario:
        """A copy with fields set by path, e.g. ``{"impairments[0].p": 0.01}``.

        The result is validated again; a bad path or value raises
        :class:`ScenarioError`; ``params`` that is not a mapping of string
        paths a ``TypeError``.
        """
        if not isinstance(params, Mapping):
            raise TypeError(f"params: must be a mapping of field path -> value, got {params!r}")
        data = self.to_dict()
        for path, value in params.items():
            if not isinstance(path, str):
                raise TypeError(f"params: field paths must be strings, got {path!r}")
            set_path(data, path, value)
        return Scenario.from_dict(data)


def canonical_json(data: Any) -> str:
    """Deterministic JSON text: sorted keys, no whitespace.

    For plain data (dicts, lists, str, int, float, bool, None: what
    :meth:`Scenario.to_dict` gives) this is exactly ``json.dumps(data,
    sort_keys=True, separators=(",", ":"), allow_nan=False)``: the store's
    keys hash this text, so it must not change. orjson writes the same text
    several times faster (a sweep computes one per run), except where its
    output shows it may differ; ``json.dumps`` writes it then.
    """
    try:
        fast = orjson.dumps(data, option=_ORJSON_OPTIONS, default=_not_plain)
    except (TypeError, orjson.JSONEncodeError):  # big ints, non-str keys, other types
        fast = None
    if fast is not None and not _may_differ_from_json_dumps(fast):
        return fast.decode("ascii")
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _may_differ_from_json_dumps(text: bytes) -> bool:
    """Could ``json.dumps`` write something else than orjson's ``text``?

    Yes where ``text`` has a float with an exponent (Python writes
    ``1e+16``, orjson ``1e16``), a float below 1e-4 (Python ``1e-05``,
    orjson ``0.00001``), a non-ASCII or DEL character (Python escapes them),
    or ``null`` (orjson writes NaN as null, Python refuses NaN). Text inside
    strings can match too, which only costs the slow path. Substring tests
    rather than a regular expression: a few microseconds, not tens.
    ``tests/test_scenario.py`` checks both agree on ~100k random values.
    """
    digits_as_zero = text.translate(_DIGITS_TO_ZERO)
    return (
        b"0e" in digits_as_zero
        or b"0.0000" in text
        or b"null" in text
        or b"\x7f" in text
        or not text.isascii()
    )


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
#: Plain JSON types only: anything else goes to ``_not_plain`` (and then to
#: ``json.dumps``), as do subclasses of str, int, dict and list.
_ORJSON_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def _not_plain(obj: Any) -> Any:
    raise TypeError(f"not plain JSON data: {type(obj).__name__}")


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file (TOML, or JSON by suffix)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError([FieldError("", f"cannot read {p}: {exc.strerror}")], str(p)) from None
    if p.suffix == ".json":
        return Scenario.from_json(text, str(p))
    return Scenario.from_toml(text, str(p))


_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|(\.)")


def _parse_path(path: str) -> list[str | int]:
    tokens: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None:
            raise ScenarioError([FieldError(path, "not a valid field path")])
        if m.group(1) is not None:
            tokens.append(m.group(1))
        elif m.group(2) is not None:
            tokens.append(int(m.group(2)))
        pos = m.end()
    if not tokens:
        raise ScenarioError([FieldError(path, "empty field path")])
    return tokens


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set ``data[path] = value`` for a path like ``flows[0].tcp.max_window``.

    Missing tables on the way are created; a list index must exist.
    """
    tokens = _parse_path(path)
    cur: Any = data
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        if isinstance(tok, int):
            if not isinstance(cur, list) or tok >= len(cur):
                raise ScenarioError([FieldError(path, f"no element [{tok}] to set")])
            if last:
                cur[tok] = value
            else:
                cur = cur[tok]
        else:
            if not isinstance(cur, dict):
                raise ScenarioError([FieldError(path, f"cannot set field {tok!r} here")])
            if last:
                cur[tok] = value
            else:
                nxt = tokens[i + 1]
                if tok not in cur or cur[tok] is None:
                    cur[tok] = [] if isinstance(nxt, int) else {}
                cur = cur[tok]
