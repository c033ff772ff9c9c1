"""scripts/import_graph.py: the module import graphs, and no cycle in the Rust crate."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts/import_graph.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module
    spec.loader.exec_module(module)
    return module


ig = _load()


@pytest.fixture(scope="module")
def rust_graph() -> dict[str, set[str]]:
    """The crate's graph, read once (each test works on a copy)."""
    return dict(ig.rust_graph())


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_rust_crate_has_no_import_cycle(rust_graph: dict[str, set[str]]) -> None:
    graph = {m: set(deps) for m, deps in rust_graph.items()}
    assert len(graph) > 100 and "tcp::sender" in graph, "the crate's modules are read"
    cycles = ig.cycles(graph)
    assert not cycles, "import cycles in the Rust crate:\n" + "\n".join(
        " -> ".join(c) for c in cycles
    )


def test_the_sender_sits_above_its_components(rust_graph: dict[str, set[str]]) -> None:
    """No TCP component imports the sender or the registry: they are the
    top of tcp/ (docs/architecture.md, "The sender")."""
    graph = rust_graph
    top = ("tcp::sender", "tcp::variants")
    for module, deps in graph.items():
        if not module.startswith("tcp::") or module.startswith(top):
            continue
        if module.endswith("tests") or "::tests" in module:
            continue
        above = sorted(d for d in deps if d.startswith(top))
        assert not above, f"{module} imports {above}"


def test_a_rust_cycle_is_found_and_what_is_no_dependency_is_not(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "lib.rs": "pub mod a;\npub mod b;\npub mod c;\npub use a::Thing;\n",
            # a facade: re-exports its children, defines nothing they use
            "a/mod.rs": "mod inner;\npub use inner::Thing;\npub fn helper() {}\n",
            "a/inner.rs": (
                "use crate::b::Other;\n"
                "// use crate::c::Commented;\n"
                'const S: &str = "crate::c::InAString";\n'
                "pub struct Thing(Other);\n"
                "#[cfg(test)]\nmod tests {\n    use super::super::helper;\n"
                "    use crate::c::Tested;\n}\n"
            ),
            # b reaches a::Thing through the facade: an edge to a::inner
            "b.rs": "use crate::a::Thing;\npub struct Other;\nfn f(_: Thing) {}\n",
            "c.rs": "pub struct Commented;\npub struct InAString;\npub struct Tested;\n",
        },
    )
    graph = ig.rust_graph(tmp_path)
    assert graph["b"] == {"a::inner"}
    assert graph["a::inner"] == {"b"}, "comments, strings and inline tests are not its edges"
    assert graph["a::inner::tests"] == {"a", "c"}
    assert graph["a"] == {"a::inner"}
    assert ig.components(graph) == [["a::inner", "b"]]
    assert ig.cycles(graph) == [["a::inner", "b", "a::inner"]]


def test_rust_use_trees_super_self_and_aliases_resolve(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "lib.rs": "pub mod x;\npub mod y;\n",
            "x/mod.rs": "pub mod p;\npub mod q;\n",
            "x/p.rs": (
                "use super::q::{self, Q as Renamed};\n"
                "use crate::{y::{self as why}, x::q::*};\n"
                "fn f() { q::g(); crate::y::h(); }\n"
            ),
            "x/q.rs": "pub struct Q;\npub fn g() {}\n",
            "y.rs": "pub fn h() {}\nfn k() { super::x::q::g(); }\n",
        },
    )
    graph = ig.rust_graph(tmp_path)
    assert graph["x::p"] == {"x::q", "y"}
    assert graph["y"] == {"x::q"}
    assert ig.components(graph) == []


def test_python_imports_anywhere_in_a_module_are_edges(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    _write(
        pkg,
        {
            "__init__.py": "from .a import A\n",
            "a.py": "import json\nA = 1\n\ndef f() -> None:\n    from pkg.sub import b\n",
            "sub/__init__.py": "",
            "sub/b.py": "from .. import a\nfrom ..a import A\nimport pkg.sub.c\n",
            "sub/c.py": "from pkg import sub\n",
            # an extension module's stub: importing it is no edge to the package
            "_native.pyi": "def f() -> None: ...\n",
            "d.py": "from pkg import _native\nfrom . import A\n",
        },
    )
    graph = ig.python_graph(pkg)
    assert graph["pkg"] == {"pkg.a"}
    assert graph["pkg.d"] == {"pkg._native", "pkg"}
    assert graph["pkg._native"] == set()
    assert graph["pkg.a"] == {"pkg.sub.b"}, "an import inside a function counts"
    assert graph["pkg.sub.b"] == {"pkg.a", "pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.sub"}
    assert ig.components(graph) == [["pkg.a", "pkg.sub.b"]]


def test_the_python_package_has_no_import_cycle() -> None:
    """Every import counts, also one inside a function: a cycle hidden in a
    function body is still a cycle a reader has to untangle."""
    graph = ig.python_graph()
    assert "reorderlab.cli" in graph and len(graph) > 20
    assert all(dep in graph for deps in graph.values() for dep in deps)
    cycles = ig.cycles(graph)
    assert not cycles, "import cycles in the Python package:\n" + "\n".join(
        " -> ".join(c) for c in cycles
    )


def test_the_command_prints_the_graphs_and_checks_the_crate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert ig.main(["--rust", "--cycles"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# rust:")
    _write(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "use crate::b::B;\npub struct A;\n",
            "b.rs": "use crate::a::A;\npub struct B;\n",
        },
    )
    assert ig.main(["--rust", "--check", "--rust-src", str(tmp_path)]) == 1
    assert "cycle: a -> b -> a" in capsys.readouterr().out
    _write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "def f():\n    from pkg import a\n",
        },
    )
    assert ig.main(["--python", "--check", "--python-pkg", str(tmp_path / "pkg")]) == 1
