"""The errors of a scenario: :class:`FieldError` (one field: its path and
what is wrong) and :class:`ScenarioError` (all of them, one line), with
pydantic's validation errors put in the core's words (the field's path,
the bad value, a "did you mean" for a misspelt name) and a run seed
checked (:func:`check_seed`). Re-exported by :mod:`reorderlab.scenario`.
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from reorderlab import _scenario_models as _models
from reorderlab._field_types import U64_MAX, did_you_mean, format_value, known_names

__all__ = [
    "FieldError",
    "ScenarioError",
    "check_seed",
    "field_errors",
    "pydantic_error",
    "suggest_name",
]


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


def pydantic_error(path: str, message: str) -> PydanticCustomError:
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


def suggest_name(message: str) -> str:
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


def field_errors(exc: ValidationError, data: Any) -> list[FieldError]:
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
