"""Scenarios: the models of the core's schema, with their errors, loading,
serialisation and cache keys.

Each field is declared once, in ``crates/reorderlab/src/spec`` (its type,
default, range and one-line doc); the pydantic models are generated from
the core's JSON Schema into ``_scenario_models.py`` (``python -m
reorderlab._schema_gen``) and re-exported here, with :class:`Scenario`'s
methods added. A scenario is built from Python objects, a dict, or a TOML
file, and serialised to the JSON the core accepts with
:meth:`Scenario.to_json` (``None`` fields are omitted so the core's own
defaults apply: e.g. a ``TcpSpec`` field left ``None`` means "the variant's
default").

Validation happens once, in two layers: pydantic checks each field against
its declaration (strictly: a string is not a number, 0 is not ``false``;
the range with the core's words, ``_field_types.Range``); then the core
checks every rule that joins fields (routes, link names, endpoints,
multipath paths) and the limits of ``docs/limits.md`` (``_core.validate``).
Every error names the field by its path and the bad value, e.g.
``topology.bottleneck_rate: must be > 0, got -5``; they are collected in a
:class:`ScenarioError` (a ``ValueError``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import operator
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import tomli_w
from pydantic import BaseModel, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from reorderlab import _core
from reorderlab import _scenario_models as _models
from reorderlab._field_types import U64_MAX, did_you_mean, format_value, known_names
from reorderlab._scenario_models import (
    SERIES_NAMES,
    ArqImpairment,
    BurstLossImpairment,
    ChainTopology,
    ConstantVar,
    CustomTopology,
    DelayedAck,
    DelayImpairment,
    DroptailQueue,
    DumbbellTopology,
    EmpiricalVar,
    ExponentialVar,
    FatTreeTopology,
    FlowSpec,
    GilbertElliottImpairment,
    HyperexponentialVar,
    Impairment,
    LinkSpec,
    LoadBalancing,
    LossImpairment,
    MultipathSpec,
    NormalVar,
    Pareto2Var,
    ParetoVar,
    ParkingLotTopology,
    PcapTap,
    Position,
    PositionedImpairment,
    Queue,
    RandomVar,
    ReceiverSpec,
    RecordSpec,
    RedQueue,
    ReorderImpairment,
    ScenarioFields,
    SwapImpairment,
    TcpSpec,
    Topology,
    TrafficSpec,
    UniformVar,
)
from reorderlab.errors import one_line
from reorderlab.textfile import TextFileError, read_text

__all__ = [
    "FIELD_PATH",
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
    "FatTreeTopology",
    "FieldError",
    "FlowSpec",
    "GilbertElliottImpairment",
    "HyperexponentialVar",
    "Impairment",
    "LinkSpec",
    "LoadBalancing",
    "LossImpairment",
    "MultipathSpec",
    "NormalVar",
    "Pareto2Var",
    "ParetoVar",
    "ParkingLotTopology",
    "PcapTap",
    "Position",
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
    "did_you_mean",
    "format_value",
    "known_names",
    "load_scenario",
    "set_path",
    "without_outputs",
]

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


_UNKNOWN_NAME = re.compile(r"unknown (variant|congestion control) '([^']*)' \(known: ")


def _suggest_name(message: str) -> str:
    """A core message about an unknown variant or congestion control,
    with the closest registered name suggested."""
    m = _UNKNOWN_NAME.match(message)
    if m is None:
        return message
    kind = "variants" if m[1] == "variant" else "congestion_controls"
    hint = did_you_mean(m[2], known_names(kind))
    end = m.end(2) + 1
    return message[:end] + hint + message[end:]


@functools.cache
def _model_fields() -> tuple[frozenset[str], ...]:
    """The field names (and aliases) of every scenario model."""
    out = []
    for obj in vars(_models).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj is not BaseModel:
            names = set(obj.model_fields)
            names |= {f.alias for f in obj.model_fields.values() if f.alias}
            out.append(frozenset(names))
    return tuple(out)


def _field_hint(loc: tuple[int | str, ...], data: Any) -> str:
    """`` (did you mean 'x'?)`` for an unknown field at ``loc``: the
    closest field of the models that have every other key of its table."""
    _, parent = _error_path(loc[:-1], data)
    bad = str(loc[-1])
    keys = set(parent) - {bad} if isinstance(parent, Mapping) else set()
    names: set[str] = set()
    for fields in _model_fields():
        if keys <= fields:
            names |= fields
    return did_you_mean(bad, sorted(names - {"kind", "dist"}))


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
            msg = "unknown field" + _field_hint(tuple(err["loc"]), data)
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
            options = re.findall(r"'([^']*)'", expected)
            hint = did_you_mean(value, options) if isinstance(value, str) else ""
            if path.endswith(("kind", "dist")):
                msg = f"unknown kind {format_value(value)}{hint} (known: {expected})"
                show_value = False
            else:
                msg = f"must be one of {expected}"
                if hint:
                    msg = f"{msg}, got {format_value(value)}{hint}"
                    show_value = False
        elif etype == "union_tag_invalid":
            path = _join(path, str(ctx.get("discriminator", "kind")).strip("'"))
            tags = [t.strip().strip("'") for t in str(ctx.get("expected_tags", "")).split(",")]
            msg = (
                f"unknown kind {format_value(ctx.get('tag'))}"
                f"{did_you_mean(str(ctx.get('tag')), tags)} "
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


class Scenario(ScenarioFields):
    """One simulation run (see ``docs/scenario-format.md``); its fields are
    generated (:class:`~reorderlab._scenario_models.ScenarioFields`)."""

    @model_validator(mode="after")
    def _core_checks(self) -> Scenario:
        """Every rule beyond the field types, and the limits, are the core's."""
        try:
            _core.validate(self.to_json())
        except ValueError as exc:
            error = ScenarioError.from_core(str(exc)).errors[0]
            raise _custom(error.path, _suggest_name(error.message)) from None
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
        text = read_text(p)
    except TextFileError as exc:
        raise ScenarioError([FieldError("", str(exc))], str(p)) from None
    if p.suffix == ".json":
        return Scenario.from_json(text, str(p))
    return Scenario.from_toml(text, str(p))


#: A field path: names and ``[index]`` parts joined by single dots
#: (``flows[0].variant``; not ``flows[0]..variant``, ``.duration`` or ``""``).
FIELD_PATH = re.compile(r"[A-Za-z_]\w*(\[\d+\])*(\.[A-Za-z_]\w*(\[\d+\])*)*", re.ASCII)
_TOKEN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|(\.)")


def _parse_path(path: str) -> list[str | int]:
    if FIELD_PATH.fullmatch(path) is None:
        message = "not a valid field path (names and [index] joined by single dots)"
        raise ScenarioError([FieldError(one_line(path, 80), message)])
    tokens: list[str | int] = []
    for m in _TOKEN.finditer(path):
        if m.group(1) is not None:
            tokens.append(m.group(1))
        elif m.group(2) is not None:
            tokens.append(int(m.group(2)))
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
