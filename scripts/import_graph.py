"""Print the module import graph of the Rust crate or the Python package, and its cycles.

A node is a module: for Rust a source file (``lib.rs`` is ``crate``,
``tcp/sender/mod.rs`` is ``tcp::sender``, ``tcp/sender/ack.rs`` is
``tcp::sender::ack``); for Python a ``.py`` file of the package
(``reorderlab.papers`` for ``papers/__init__.py``). An edge m -> n means
that module m names module n:

* Rust: a ``use`` path or an inline path that starts with ``crate::``,
  ``super::`` or ``self::``, or with the name of a child module of m;
  the path is cut at its longest prefix that is a module file, so
  ``use crate::tcp::policy::Cwv`` is an edge to ``tcp::policy``. Inline
  modules (``mod tests { ... }``) belong to their file; ``super`` inside
  them climbs from the inline module. Comments and string literals are
  not read.
* Python: ``import reorderlab.x`` and ``from reorderlab.x import y`` (or
  relative ``from .x import y``) anywhere in the file, at module level or
  inside functions; ``from p import y`` is an edge to ``p.y`` when that is
  a module (an extension module such as ``_core`` too: a node without
  edges), else to ``p``.

A self-edge is not kept. A cycle is a path that comes back to its start;
each strongly connected component is printed with the shortest cycle
through each of its edges.

    python scripts/import_graph.py                  # both graphs and their cycles
    python scripts/import_graph.py --rust --cycles  # the Rust crate's cycles only
    python scripts/import_graph.py --check          # exit 1 if either graph has a cycle

Standard library only (tests/test_import_graph.py loads it as a module).
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import deque
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUST_SRC = ROOT / "crates" / "reorderlab" / "src"
PY_PKG = ROOT / "python" / "reorderlab"

Graph = dict[str, set[str]]

# ----- Rust -------------------------------------------------------------------


def rust_module_name(src: Path, file: Path) -> str:
    """``tcp/sender/mod.rs`` -> ``tcp::sender``; ``lib.rs`` -> ``crate``."""
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main") and (len(parts) > 1 or parts[-1] != "mod"):
        parts.pop()
    return "::".join(parts) if parts else "crate"


def _strip_rust(text: str) -> str:
    """The source with comments, string and char literals blanked out
    (same length, newlines kept, so positions stay valid)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and nxt == "*":
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(_blank(text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not _ident_char(text, i - 1):
            m = re.match(r'r(#*)"', text[i:])
            assert m is not None
            end = text.find('"' + m.group(1), i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(m.group(1))
            out.append(_blank(text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(_blank(text[i : j + 1]))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'", text[i:])
            j = i + (len(m.group(0)) if m else 1)
            out.append(_blank(text[i:j]) if m else c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _ident_char(text: str, i: int) -> bool:
    return i >= 0 and (text[i].isalnum() or text[i] == "_")


def _blank(s: str) -> str:
    return "".join("\n" if ch == "\n" else " " for ch in s)


_INLINE_MOD = re.compile(r"\bmod\s+(\w+)\s*\{")
_FILE_MOD = re.compile(r"\bmod\s+(\w+)\s*;")
_USE = re.compile(r"(?<![\w$])use\s+([^;{}]*(?:\{[^;]*\})?[^;{}]*);")
_PATH = re.compile(r"(?<![\w$:])((?:[A-Za-z_]\w*)(?:\s*::\s*[A-Za-z_]\w*)+)")
_DEF = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|union|mod)\s+([A-Za-z_]\w*)"
    r"|\bmacro_rules!\s*([A-Za-z_]\w*)"
)
_EXTERNAL = {"std", "core", "alloc"}


class RustModule:
    """One module (a file, or an inline ``mod name { ... }``): the text
    that is its own (inner inline modules blanked), the names it defines,
    its child modules, and what its ``use`` declarations bind."""

    def __init__(self, name: str, code: str) -> None:
        self.name = name
        self.path = [] if name == "crate" else name.split("::")
        self.code = code
        self.children = {m.group(1) for m in _FILE_MOD.finditer(code)}
        self.children |= {m.group(1) for m in _INLINE_MOD.finditer(code)}
        self.defines = {m.group(1) or m.group(2) for m in _DEF.finditer(code)}
        # name -> relative use path; globs: relative paths of `use x::*`
        self.bindings: dict[str, list[str]] = {}
        self.globs: list[list[str]] = []
        self.uses: list[list[str]] = []
        self.use_spans: list[tuple[int, int]] = []
        for m in _USE.finditer(code):
            self.use_spans.append((m.start(), m.end()))
            for path, alias, glob in _expand_use(m.group(1)):
                if glob:
                    self.globs.append(path)
                elif path and alias != "_":
                    self.bindings[alias or path[-1]] = path
                self.uses.append(path)

    def paths(self) -> list[list[str]]:
        """Paths named outside ``use`` declarations (``crate::x::f()``)."""
        out = []
        for m in _PATH.finditer(self.code):
            if not any(s <= m.start() < e for s, e in self.use_spans):
                out.append(re.sub(r"\s+", "", m.group(1)).split("::"))
        return out


def _expand_use(tree: str) -> list[tuple[list[str], str | None, bool]]:
    """``a::{b, c::{self, d as e}, f::*}`` -> (path, alias, glob) for
    [a, b], [a, c] (``self``), [a, c, d] as e, and [a, f] (glob)."""
    tree = re.sub(r"\s+", " ", tree).strip()
    out: list[tuple[list[str], str | None, bool]] = []

    def walk(s: str, prefix: list[str]) -> None:
        for raw in _split_top(s):
            item = raw.strip()
            if not item:
                continue
            brace = item.find("{")
            if brace >= 0:
                head = [p.strip() for p in item[:brace].split("::") if p.strip()]
                walk(item[brace + 1 : item.rindex("}")], prefix + head)
                continue
            alias = None
            if " as " in item:
                item, alias = (x.strip() for x in item.split(" as ", 1))
            segs = [p.strip() for p in item.split("::") if p.strip()]
            if segs and segs[-1] == "*":
                out.append((prefix + segs[:-1], None, True))
            elif segs and segs[-1] == "self":
                path = prefix + segs[:-1]
                out.append((path, alias or (path[-1] if path else None), False))
            else:
                out.append((prefix + segs, alias, False))

    walk(tree.removeprefix("::"), [])
    return out


def _split_top(s: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(s[start:i])
            start = i + 1
    items.append(s[start:])
    return items


def _split_inline(code: str, name: str) -> list[tuple[str, str]]:
    """(module name, own code) for the file's module and each inline
    module in it, inner modules blanked out of their parent's code."""
    out = []
    own = list(code)
    for m in _INLINE_MOD.finditer(code):
        if any(own[k] == "\0" for k in range(m.start(), m.end())):
            continue  # inside an inline module already taken
        depth, j = 0, m.end() - 1
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        inner = code[m.end() : j]
        child = m.group(1) if name == "crate" else f"{name}::{m.group(1)}"
        out += _split_inline(inner, child)
        for k in range(m.end(), j):
            own[k] = "\0"
    out.insert(0, (name, "".join(" " if c == "\0" else c for c in own)))
    return out


class RustCrate:
    """The modules of a crate and the resolution of paths to the module
    that defines what they name."""

    def __init__(self, src: Path) -> None:
        self.modules: dict[str, RustModule] = {}
        for f in sorted(src.rglob("*.rs")):
            code = _strip_rust(f.read_text(encoding="utf-8"))
            for name, own in _split_inline(code, rust_module_name(src, f)):
                self.modules[name] = RustModule(name, own)

    def absolute(self, path: list[str], mod: RustModule) -> list[str] | None:
        """A path as written in ``mod``, from the crate root; None when it
        leaves the crate (std, serde, ...)."""
        if not path:
            return None
        head = path[0]
        if head == "crate":
            return path[1:]
        if head in ("self", "super"):
            here = list(mod.path)
            rest = path
            while rest and rest[0] in ("self", "super"):
                if rest[0] == "super":
                    if not here:
                        return None
                    here.pop()
                rest = rest[1:]
            return here + rest
        if head in mod.children:
            return mod.path + path
        if head in mod.bindings and mod.bindings[head] != path:
            bound = self.absolute(mod.bindings[head], mod)
            return None if bound is None else bound + path[1:]
        return None

    def locate(self, absolute: list[str], depth: int = 0) -> str | None:
        """The module defining what ``absolute`` names: its longest prefix
        that is a module, then through that module's ``use`` bindings and
        globs when the next name is bound there, not defined."""
        for k in range(len(absolute), -1, -1):
            name = "::".join(absolute[:k]) if k else "crate"
            if name in self.modules:
                break
        else:
            return None
        module, rest = self.modules[name], absolute[k:]
        if not rest or depth > 16 or rest[0] in module.defines:
            return name
        if rest[0] in module.bindings:
            target = self.absolute(module.bindings[rest[0]], module)
            if target is not None:
                return self.locate(target + rest[1:], depth + 1)
        for glob in module.globs:
            target = self.absolute(glob, module)
            if target is not None:
                found = self.locate(target + rest, depth + 1)
                if found is not None and found != "::".join(target):
                    return found
        return name

    def graph(self) -> Graph:
        graph: Graph = {m: set() for m in self.modules}
        for name, mod in self.modules.items():
            for path in mod.uses + mod.paths():
                absolute = self.absolute(path, mod)
                target = None if absolute is None else self.locate(absolute)
                if target is not None and target != name:
                    graph[name].add(target)
        return graph


def rust_graph(src: Path = RUST_SRC) -> Graph:
    """The module graph of the crate whose sources are under ``src``."""
    return RustCrate(src).graph()


# ----- Python ------------------------------------------------------------------


def python_module_name(pkg: Path, file: Path) -> str:
    parts = [pkg.name, *file.relative_to(pkg).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_graph(pkg: Path = PY_PKG) -> Graph:
    """The module graph of the package at ``pkg`` (imports of its own modules only)."""
    files = {python_module_name(pkg, f): f for f in sorted(pkg.rglob("*.py"))}
    # extension modules (a stub or a built library beside the sources):
    # nodes without edges of their own
    native = {
        python_module_name(pkg, f.with_name(f.name.split(".")[0] + ".py"))
        for pattern in ("*.pyi", "*.so", "*.pyd")
        for f in pkg.rglob(pattern)
    }
    modules = set(files) | native
    graph: Graph = {m: set() for m in modules}
    for mod, file in files.items():
        is_pkg = file.name == "__init__.py"
        tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
        for node in ast.walk(tree):
            for target in _python_targets(node, mod, is_pkg, modules):
                if target != mod:
                    graph[mod].add(target)
    return graph


def _python_targets(node: ast.AST, mod: str, is_pkg: bool, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [t for a in node.names if (t := _longest(a.name, modules))]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        package = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base_parts = package[: len(package) - (node.level - 1)]
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        t = full if full in modules else _longest(base, modules)
        if t:
            out.append(t)
    return out


def _longest(name: str, modules: set[str]) -> str | None:
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        if ".".join(parts[:k]) in modules:
            return ".".join(parts[:k])
    return None


# ----- cycles ------------------------------------------------------------------


def components(graph: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan),
    each sorted, in sorted order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        # iterative Tarjan: (node, iterator over its successors)
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, succ = work[-1]
            advanced = False
            for nxt in succ:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def cycles(graph: Graph) -> list[list[str]]:
    """For each edge inside a strongly connected component, the shortest
    cycle through it (deduplicated), as [a, b, ..., a]."""
    out: set[tuple[str, ...]] = set()
    for comp in components(graph):
        inside = set(comp)
        for u in comp:
            for v in sorted(graph[u] & inside):
                back = _shortest_path(graph, v, u, inside)
                if back is not None:
                    out.add(_canonical([u, *back[:-1]]))
    return [[*c, c[0]] for c in sorted(out, key=lambda c: (len(c), c))]


def _shortest_path(graph: Graph, start: str, goal: str, inside: set[str]) -> list[str] | None:
    prev: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = []
            cur: str | None = node
            while cur is not None:
                path.append(cur)
                cur = prev[cur]
            return path[::-1]
        for nxt in sorted(graph[node] & inside):
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return None


def _canonical(cycle: list[str]) -> tuple[str, ...]:
    k = cycle.index(min(cycle))
    return tuple(cycle[k:] + cycle[:k])


# ----- output ------------------------------------------------------------------


def render(title: str, graph: Graph, arrow: str, only_cycles: bool) -> Iterable[str]:
    if not only_cycles:
        yield f"# {title}: {len(graph)} modules, {sum(map(len, graph.values()))} edges"
        for m in sorted(graph):
            deps = ", ".join(sorted(graph[m]))
            yield f"{m} {arrow} {deps}" if deps else m
    comps = components(graph)
    yield f"# {title}: {len(comps)} cycle component(s)"
    for comp in comps:
        yield "component: " + ", ".join(comp)
    for cyc in cycles(graph):
        yield "cycle: " + f" {arrow} ".join(cyc)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rust", action="store_true", help="the Rust crate only")
    ap.add_argument("--python", action="store_true", help="the Python package only")
    ap.add_argument("--cycles", action="store_true", help="print only the cycles")
    ap.add_argument("--check", action="store_true", help="exit 1 if a graph shown has a cycle")
    ap.add_argument("--rust-src", type=Path, default=RUST_SRC, help="the crate's src folder")
    ap.add_argument("--python-pkg", type=Path, default=PY_PKG, help="the package folder")
    args = ap.parse_args(argv)
    both = not (args.rust or args.python)
    lines: list[str] = []
    cyclic = False
    if args.rust or both:
        rust = rust_graph(args.rust_src)
        lines += render("rust", rust, "->", args.cycles)
        cyclic = cyclic or bool(components(rust))
    if args.python or both:
        python = python_graph(args.python_pkg)
        lines += render("python", python, "->", args.cycles)
        cyclic = cyclic or bool(components(python))
    sys.stdout.write("\n".join(lines) + "\n")
    return 1 if args.check and cyclic else 0


if __name__ == "__main__":
    sys.exit(main())
