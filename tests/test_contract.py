"""The pydantic models mirror the serde structs of the Rust core.

Parses ``crates/reorderlab/src/spec/*.rs`` (field names of the structs, the
variants and fields of the tagged enums, ``SERIES_NAMES``) and compares them
with the models of ``reorderlab.scenario``, so that a field added on one side
and not the other fails here rather than at a user's first run.
"""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from reorderlab import scenario as sc

from .conftest import ROOT

SPEC_DIR = ROOT / "crates" / "reorderlab" / "src" / "spec"


def rust_source() -> str:
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SPEC_DIR.glob("*.rs")))
    text = re.sub(r"//[^\n]*", "", text)  # comments
    return re.sub(r"#\[[^\]]*\]", "", text)  # attributes


def block(text: str, header: str) -> str:
    """The body between the braces that follow ``header``."""
    start = text.index(header)
    open_at = text.index("{", start)
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[open_at + 1 : i]
    raise AssertionError(f"unbalanced braces after {header}")


def struct_fields(text: str, name: str) -> set[str]:
    return set(re.findall(r"pub\s+(\w+)\s*:", block(text, f"pub struct {name} ")))


def enum_variants(text: str, name: str) -> dict[str, set[str]]:
    """``{snake_case tag: {field names}}`` of an enum with struct variants."""
    body = block(text, f"pub enum {name} ")
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"(\w+)\s*(\{[^{}]*\})?\s*,?", body):
        variant, fields = m.group(1), m.group(2) or ""
        if not variant[0].isupper():
            continue
        tag = re.sub(r"(?<!^)(?=[A-Z])", "_", variant).lower()
        out[tag] = set(re.findall(r"(\w+)\s*:", fields))
    return out


def model_fields(model: type[BaseModel], skip: tuple[str, ...] = ()) -> set[str]:
    return {(info.alias or name) for name, info in model.model_fields.items() if name not in skip}


def union_members(annotation: Any) -> list[type[BaseModel]]:
    args = get_args(annotation)
    members = get_args(args[0]) if args and get_args(args[0]) else args
    return [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]


def tag_of(model: type[BaseModel], tag: str) -> str:
    return str(model.model_fields[tag].default)


@pytest.fixture(scope="module")
def rust() -> str:
    return rust_source()


@pytest.mark.parametrize(
    ("rust_name", "model"),
    [
        ("Scenario", sc.Scenario),
        ("LinkSpec", sc.LinkSpec),
        ("FlowSpec", sc.FlowSpec),
        ("TcpSpec", sc.TcpSpec),
        ("ReceiverSpec", sc.ReceiverSpec),
        ("RecordSpec", sc.RecordSpec),
        ("MultipathSpec", sc.MultipathSpec),
        ("TrafficSpec", sc.TrafficSpec),
    ],
)
def test_struct_fields_match(rust: str, rust_name: str, model: type[BaseModel]) -> None:
    assert model_fields(model) == struct_fields(rust, rust_name)


@pytest.mark.parametrize(
    ("rust_name", "union", "tag", "common"),
    [
        ("Topology", sc.Topology, "kind", ()),
        ("QueueSpec", sc.Queue, "kind", ()),
        ("ImpairmentModel", sc.Impairment, "kind", ("link", "position")),
        ("RandomVar", sc.RandomVar, "dist", ()),
    ],
)
def test_tagged_enums_match(
    rust: str, rust_name: str, union: Any, tag: str, common: tuple[str, ...]
) -> None:
    variants = enum_variants(rust, rust_name)
    python = {tag_of(m, tag): model_fields(m, skip=(tag, *common)) for m in union_members(union)}
    assert python == variants


def test_impairment_spec_common_fields(rust: str) -> None:
    assert struct_fields(rust, "ImpairmentSpec") - {"model"} == {"link", "position"}


def test_series_names_match(rust: str) -> None:
    body = re.search(r"SERIES_NAMES\s*:[^=]*=\s*&\[(.*?)\]", rust, flags=re.S)
    assert body is not None
    assert tuple(re.findall(r'"(\w+)"', body.group(1))) == sc.SERIES_NAMES
