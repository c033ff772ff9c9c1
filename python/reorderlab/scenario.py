"""Scenario schema: validated models mirroring ``crates/reorderlab/src/spec``.

The models here are the Python side of the contract described in
``docs/scenario-format.md``: the same fields, defaults and ``kind`` tags as the
serde structs of the Rust core. A scenario is built from Python objects, a
dict, or a TOML file, and serialised to the JSON the core accepts with
:meth:`Scenario.to_json` (``None`` fields are omitted so the core's own
defaults apply: e.g. a ``TcpSpec`` field left ``None`` means "the variant's
default").

Validation happens once, in two layers: pydantic checks each field's type
(strictly: a string is not a number, 0 is not ``false``), the range of the
core's integer types and the sign of numbers; then the core checks every
other rule, the cross-field ones (routes, link names, endpoints, multipath
paths) and the limits of ``docs/limits.md`` (``_core.validate``). Every
error names the field by its path and the bad value, e.g.
``topology.bottleneck_rate: must be > 0, got -5``; they are collected in a
:class:`ScenarioError` (a ``ValueError``).
"""

from __future__ import annotations

import functools
import hashlib
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
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from reorderlab import _core

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
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    except RecursionError:
        text = f"<{type(value).__name__} nested too deeply>"
    # an error stays one readable line, whatever was given
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


#: The longest a value is shown in an error message.
_SHOWN = 200


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


# Types only (strict: ``"8e6"`` is not a rate, ``1`` not ``true``, bytes not
# a name), the ranges of the core's integer types and the sign of a few
# numbers; every other rule (ranges, limits, cross-field rules: routes, link
# names, endpoints, multipath) is the core's (``_core.validate``), written
# once in ``crates/reorderlab/src/spec/validate.rs``.

#: A float field: a finite number (an int is one too), not a bool or a string.
Real = Annotated[float, Field(strict=True, allow_inf_nan=False)]
PosFloat = Annotated[Real, Field(gt=0)]
NonNegFloat = Annotated[Real, Field(ge=0)]
U8 = Annotated[int, Field(ge=0, le=255, strict=True)]
U32 = Annotated[int, Field(ge=0, le=U32_MAX, strict=True)]
PosU32 = Annotated[int, Field(ge=1, le=U32_MAX, strict=True)]
U64 = Annotated[int, Field(ge=0, le=U64_MAX, strict=True)]
Bool = Annotated[bool, Field(strict=True)]
Name = Annotated[str, Field(strict=True)]


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
    gentle: Bool = False
    instantaneous: Bool = False


Queue = Annotated[DroptailQueue | RedQueue, Field(discriminator="kind")]


def _default_queue() -> DroptailQueue:
    return DroptailQueue(limit_packets=100)


# --------------------------------------------------------------------------
# Topologies
# --------------------------------------------------------------------------


class LinkSpec(_Model):
    """One unidirectional link of a custom topology (``from`` -> ``to``)."""

    from_: Name = Field(alias="from")
    to: Name
    rate: PosFloat
    delay: NonNegFloat
    queue: Queue = Field(default_factory=_default_queue)
    duplex: Bool = True


class ChainTopology(_Model):
    """rr-tcp Fig. 3: ``S1 -(access)- R1 -(bottleneck)- R2 -(access)- D``."""

    kind: Literal["chain"] = "chain"
    access_rate: PosFloat = 10e6
    access_delay: NonNegFloat = 0.001
    bottleneck_rate: PosFloat
    bottleneck_delay: NonNegFloat
    queue: Queue = Field(default_factory=_default_queue)
    access_queue: Queue | None = None


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


class ParkingLotTopology(_Model):
    """tcp-pr Fig. 3: routers ``R0..R{h}``, hop i = ``R{i-1} -> R{i}``."""

    kind: Literal["parking_lot"] = "parking_lot"
    hop_rates: list[PosFloat]
    hop_delay: NonNegFloat = 0.002
    access_rate: PosFloat = 10e6
    cross_access_rates: list[PosFloat] = Field(default_factory=list)
    access_delay: NonNegFloat = 0.001
    queue: Queue = Field(default_factory=_default_queue)
    access_queue: Queue | None = None


class CustomTopology(_Model):
    """Explicit nodes and links."""

    kind: Literal["custom"] = "custom"
    nodes_: list[Name] = Field(alias="nodes")
    links_: list[LinkSpec] = Field(alias="links")


Topology = Annotated[
    ChainTopology | DumbbellTopology | ParkingLotTopology | CustomTopology,
    Field(discriminator="kind"),
]

# --------------------------------------------------------------------------
# Impairments
# --------------------------------------------------------------------------


# -- random variables (``spec::RandomVar``, tagged by ``dist``) ------------


class ConstantVar(_Model):
    """Always ``value``."""

    dist: Literal["constant"] = "constant"
    value: Real


class UniformVar(_Model):
    """Uniform on ``[low, high]``."""

    dist: Literal["uniform"] = "uniform"
    low: Real
    high: Real


class NormalVar(_Model):
    """Normal with ``mean`` and standard deviation ``sd``, truncated at 0."""

    dist: Literal["normal"] = "normal"
    mean: Real
    sd: Real


class ExponentialVar(_Model):
    """Exponential with the given ``mean``."""

    dist: Literal["exponential"] = "exponential"
    mean: Real


class HyperexponentialVar(_Model):
    """With probability ``probs[i]`` an exponential of mean ``means[i]``."""

    dist: Literal["hyperexponential"] = "hyperexponential"
    means: list[Real]
    probs: list[Real]


class _ScaleShape(_Model):
    scale: Real
    shape: Real


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

    link: Name
    #: ``ingress`` (before the queue) or ``egress`` (after the link); None =
    #: the model's default (egress for ``arq``, ingress otherwise).
    position: Position | None = None


class LossImpairment(_Impairment):
    """Independent (Bernoulli) drop of each packet with probability ``p``."""

    kind: Literal["loss"] = "loss"
    p: Real
    data_only: Bool = True


class DelayImpairment(_Impairment):
    """Each packet, with probability ``fraction``, held for a drawn ``delay`` (s)."""

    kind: Literal["delay"] = "delay"
    fraction: Real
    delay: RandomVar
    data_only: Bool = False


class BurstLossImpairment(_Impairment):
    """Drop episodes starting with probability ``q`` per packet, lasting ``duration`` (s)."""

    kind: Literal["burst_loss"] = "burst_loss"
    q: Real
    duration: RandomVar
    data_only: Bool = True


class GilbertElliottImpairment(_Impairment):
    """Two-state Markov loss, stepped once per packet."""

    kind: Literal["gilbert_elliott"] = "gilbert_elliott"
    p_gb: Real
    p_bg: Real
    loss_good: Real = 0.0
    loss_bad: Real = 1.0
    data_only: Bool = True


class PositionedImpairment(_Impairment):
    """Drop the listed data segments (0-based) of flow ``flow``."""

    kind: Literal["positioned"] = "positioned"
    flow: U32
    segments: list[U32]
    copies: Literal["original", "all"] = "original"


class SwapImpairment(_Impairment):
    """Every ``period`` s, ``swaps`` times exchange two packets waiting in the queue."""

    kind: Literal["swap"] = "swap"
    period: PosFloat
    swaps: PosU32


class ReorderImpairment(_Impairment):
    """The reordering generator of high-speed Sec. III (interval, delay, block)."""

    kind: Literal["reorder"] = "reorder"
    interval: RandomVar
    delay: RandomVar | None = None
    delay_packets: RandomVar | None = None
    block: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))
    max_hold: PosFloat = 0.01
    data_only: Bool = True
    #: what the delay time counts from: the earliest later packet's
    #: forwarding (None, the default) or the block's own arrival
    anchor: Literal["later-packet", "block-arrival"] | None = None


class ArqImpairment(_Impairment):
    """Link-layer ARQ: each attempt fails with ``frame_error``, retried one ``link_rtt`` later."""

    kind: Literal["arq"] = "arq"
    frame_error: Real
    link_rtt: NonNegFloat
    in_order: Bool = False
    max_attempts: PosU32 | None = None


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

    at: Name
    dst: Name
    #: each path a list of link names from ``at`` to ``dst``
    paths: list[list[Name]]
    epsilon: NonNegFloat | None = None
    scale: PosFloat = 1.0
    weights: list[Real] | None = None
    data_only: Bool = True


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
    limited_transmit: Bool | None = None
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
    hystart: Bool | None = None
    #: an ns-2 release's RTT estimator and timer rules (docs/variants.md)
    rto_estimator: Literal["ns2-2.1b8", "ns2-2.26", "ns2-2.27", "ns2-2.31"] | None = None
    #: how an undo restores the window: at once (the rr-tcp paper) or by slow start
    #: back to the earlier cwnd (Blanton-Allman); None = "restore"
    undo_response: Literal["restore", "slow-start"] | None = None
    syn: Bool = False


DelayedAck = Literal["none", "rfc1122", "quickack"]


class ReceiverSpec(_Model):
    """Receiver ACK policy."""

    delayed_ack: DelayedAck = "none"
    delack_timeout: PosFloat = 0.2
    delack_every: PosU32 = 2
    sack: Bool = True
    dsack: Bool = True
    max_sack_blocks: U8 = 4


class _Transport(_Model):
    """Sender variant, congestion control and their parameters."""

    variant: Name = "SACK"
    cc: Name = "reno"
    tcp: TcpSpec = Field(default_factory=TcpSpec)
    receiver: ReceiverSpec = Field(default_factory=ReceiverSpec)

    @field_validator("variant")
    @classmethod
    def _variant_spelling(cls, value: str) -> str:
        """The registry's spelling of a known variant or alias: one cache
        key per variant (an unknown name is the core's to report)."""
        for name in known_names("variants"):
            if name.lower() == value.lower():
                return name
        return known_aliases("variants").get(value.lower(), value)

    @field_validator("cc")
    @classmethod
    def _cc_spelling(cls, value: str) -> str:
        for name in known_names("congestion_controls"):
            if name.lower() == value.lower():
                return name
        return value


class FlowSpec(_Transport):
    """The transport and application of one flow."""

    name: Name | None = None
    src: Name
    dst: Name
    start: NonNegFloat = 0.0
    segments: U64 = 0


def _pareto_of_mean(mean: float, shape: float) -> ParetoVar:
    return ParetoVar(scale=mean * (shape - 1) / shape, shape=shape)


class TrafficSpec(_Transport):
    """A traffic generator: web-like sessions.

    ``kind="http"``: sessions opening one flow per object; the defaults are
    the tcp-pr paper's web sessions (Sec. V): page gap Exp(1 s), one object per page,
    inter-object Exp(10 ms), object size Pareto (mean 40 KB, shape 1.2).
    ``kind="page"``: page downloads over up to ``connections`` persistent
    connections, the HTML first (tail-loss Sec. 3.3); ``page_interarrival`` is
    the think time after a page, ``object_sizes`` an optional fixed page.
    See ``docs/traffic.md``.
    """

    name: Name | None = None
    kind: Literal["http", "page"] = "http"
    server: Name
    client: Name
    sessions: PosU32 = 1
    start: NonNegFloat = 0.0
    stop: PosFloat | None = None
    closed_loop: Bool = False
    page_interarrival: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=1.0))
    objects_per_page: RandomVar = Field(default_factory=lambda: ConstantVar(value=1.0))
    inter_object: RandomVar = Field(default_factory=lambda: ExponentialVar(mean=0.01))
    object_size: RandomVar = Field(default_factory=lambda: _pareto_of_mean(40_000.0, 1.2))
    connections: Annotated[int, Field(ge=1, le=64, strict=True)] | None = None
    object_sizes: list[PosFloat] | None = None


class PcapTap(_Model):
    """A packet capture at one end of a link (``docs/pcap.md``): both
    directions, as ``tcpdump`` on that interface would see them. ``ingress``
    is the end at the link's ``from`` node, ``egress`` the one at its ``to``
    node."""

    link: Name
    position: Position = "egress"


class RecordSpec(_Model):
    """What to record besides the per-flow counters.

    ``pcap`` lists packet captures; they are written by a run given an
    output folder (``run(..., pcap_dir=...)``, ``reorderlab run``), never by
    a sweep, and are not part of the run's cache key (see ``docs/pcap.md``).
    """

    series: list[Name] = Field(default_factory=list)
    interval: PosFloat = 0.1
    flows: list[U32] = Field(default_factory=list)
    objects: Bool = False
    trace_window: list[NonNegFloat] = Field(default_factory=list)
    pcap: list[PcapTap] | None = None


@functools.cache
def _registry(kind: str) -> tuple[dict[str, Any], ...]:
    """Entries of one of the core's registries."""
    return tuple(json.loads(getattr(_core, kind)()))


def known_names(kind: str) -> tuple[str, ...]:
    """Names in one of the core's registries (``variants``, ``congestion_controls``)."""
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


def without_outputs(data: dict[str, Any]) -> dict[str, Any]:
    """A scenario's plain data without what only says where results go
    (``record.pcap``): a capture observes the run and does not change its
    result, so it is no part of the run's identity (its cache key)."""
    record = data.get("record")
    if isinstance(record, dict) and "pcap" in record:
        data = {**data, "record": {k: v for k, v in record.items() if k != "pcap"}}
    return data


class Scenario(_Model):
    """One simulation run (see ``docs/scenario-format.md``)."""

    name: Name = "scenario"
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
    def _core_checks(self) -> Scenario:
        """Every rule beyond the field types, and the limits, are the core's."""
        try:
            _core.validate(self.to_json())
        except ValueError as exc:
            error = ScenarioError.from_core(str(exc)).errors[0]
            raise _custom(error.path, error.message) from None
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
        except RecursionError:
            raise ScenarioError([FieldError("", _TOO_DEEP.format("TOML"))], source) from None
        return cls.from_dict(data, source)

    @classmethod
    def from_json(cls, text: str, source: str | None = None) -> Scenario:
        """Parse and validate JSON text (e.g. what :meth:`to_json` wrote)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScenarioError([FieldError("", f"invalid JSON: {exc}")], source) from None
        except RecursionError:
            raise ScenarioError([FieldError("", _TOO_DEEP.format("JSON"))], source) from None
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
        """JSON for the core (orjson: several times faster than ``json``,
        and the numbers read back to the same doubles)."""
        return orjson.dumps(self.to_dict()).decode("utf-8")

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
            set_path(data, path, _plain(value))
        return Scenario.from_dict(data)


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars (``np.int64(5)``, ``np.bool_(True)``)
    as the Python numbers they hold, in lists and tables too: a grid built
    with numpy gives the same scenario as one built with Python numbers
    (the field types are strict, and numpy's integers are not ``int``)."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        item = value.item()
        return item if isinstance(item, bool | int | float | str) else value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


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


#: A file nested deeper than the parser's recursion limit.
_TOO_DEEP = "invalid {}: nested too deeply"


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate a scenario file (TOML, or JSON by suffix)."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ScenarioError([FieldError("", f"cannot read {p}: {exc.strerror}")], str(p)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        message = f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}"
        raise ScenarioError([FieldError("", message)], str(p)) from None
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
