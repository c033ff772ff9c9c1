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

This module is the public face; its parts are :mod:`reorderlab.scenario_errors`
(the errors, and pydantic's put in the core's words),
:mod:`reorderlab.canonical` (the canonical JSON a cache key hashes) and
:mod:`reorderlab.field_path` (setting a field by its path), whose names it
re-exports.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import tomli_w
from pydantic import ValidationError, model_validator

from reorderlab import _core
from reorderlab._field_types import did_you_mean, format_value, known_names
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
from reorderlab.canonical import canonical_json, plain
from reorderlab.field_path import FIELD_PATH, set_path
from reorderlab.scenario_errors import (
    FieldError,
    ScenarioError,
    check_seed,
    field_errors,
    pydantic_error,
    suggest_name,
)
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
    "check_seed",
    "did_you_mean",
    "format_value",
    "known_names",
    "load_scenario",
    "set_path",
    "without_outputs",
]

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
            raise pydantic_error(error.path, suggest_name(error.message)) from None
        return self

    # -- construction -----------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> Scenario:
        """Validate a plain dict; raises :class:`ScenarioError`."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(field_errors(exc, data), source) from None

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
            set_path(data, path, plain(value))
        return Scenario.from_dict(data)


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
