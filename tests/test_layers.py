"""The house keeps one direction: every import under kafka_meta/ is one the layer table of
docs/architecture.md allows, nothing imports in a circle, and no dynamic import hides a dependency.

The table is read from the document (between the ``layers`` markers), so the picture people read and the
rule the code obeys are one. Imports are read from the source with ``ast``: inside functions and under
``TYPE_CHECKING`` too, since a deferred import is a dependency all the same.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kafka_meta"
DOC = ROOT / "docs" / "architecture.md"
EVERYTHING_BELOW = "*"


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]
    may_import: frozenset[str]


def read_table(text: str) -> list[Layer]:
    """The rows of the layer table, bottom-up, with ``*`` expanded to every layer listed before."""
    match = re.search(r"<!-- layers: start -->\n(.*?)<!-- layers: end -->", text, re.S)
    assert match, f"{DOC} has no layer table between the 'layers' markers"
    layers: list[Layer] = []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("layer", "") or set(cells[0]) <= {"-"}:
            continue
        name, modules, allowed = cells
        below = [layer.name for layer in layers]
        names = below if allowed == EVERYTHING_BELOW else [a.strip() for a in allowed.split(",") if a.strip()]
        unknown = [a for a in names if a not in below]
        assert not unknown, f"layer {name} may import {unknown}, which are not layers listed before it"
        layers.append(Layer(name, tuple(re.findall(r"`([\w.]+)`", modules)), frozenset(names)))
    return layers


LAYERS = read_table(DOC.read_text())


def layer_of(module: str) -> Layer | None:
    """The layer holding a module: the longest entry that is the module or one of its packages; the bare
    package name ``kafka_meta`` stands for its own ``__init__`` only."""
    best: tuple[int, Layer] | None = None
    for layer in LAYERS:
        for entry in layer.modules:
            hit = module == entry or (entry != "kafka_meta" and module.startswith(entry + "."))
            if hit and (best is None or len(entry) > best[0]):
                best = (len(entry), layer)
    return best[1] if best else None


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@dataclass(frozen=True)
class Import:
    target: str  # a kafka_meta module
    line: int


def dynamic_target(call: ast.Call, module: str, is_package: bool) -> str | None:
    """What ``importlib.import_module(...)`` / ``__import__(...)`` loads: a literal name, or a name built
    from ``__name__`` (the module's own package); ``None`` when it cannot be told from the source."""
    if not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        head = arg.values[0]
        if isinstance(head, ast.FormattedValue) and isinstance(head.value, ast.Name) and head.value.id in (
                "__name__", "__package__"):
            own = module if is_package or head.value.id == "__name__" else module.rsplit(".", 1)[0]
            return own
    return None


def is_dynamic_import(call: ast.Call) -> bool:
    fn = call.func
    if isinstance(fn, ast.Name):
        return fn.id in ("__import__", "import_module")
    return isinstance(fn, ast.Attribute) and fn.attr == "import_module"


def where(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def imports_of(module: str, path: Path) -> tuple[list[Import], list[str]]:
    """Every kafka_meta module ``module`` imports, and the dynamic imports whose target is unknowable."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rsplit(".", 1)[0]
    found: list[Import] = []
    hidden: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # ``from package import name``: the submodule when there is one, else the package itself
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in SOURCES else base for a in node.names]
        elif isinstance(node, ast.Call) and is_dynamic_import(node):
            target = dynamic_target(node, module, is_package)
            if target is None:
                hidden.append(f"{where(path)}:{node.lineno}")
            else:
                names = [target]
        found += [Import(n, node.lineno) for n in names if n == "kafka_meta" or n.startswith("kafka_meta.")]
    return found, hidden


GRAPH = {module: imports_of(module, path) for module, path in SOURCES.items()}


def test_the_table_names_real_packages_and_layers_once():
    entries = [entry for layer in LAYERS for entry in layer.modules]
    assert len(entries) == len(set(entries)), "a module is listed in two layers"
    assert len({layer.name for layer in LAYERS}) == len(LAYERS), "two layers share a name"
    for needed in ("protocol", "capture", "log", "analysis", "report"):
        assert needed in {layer.name for layer in LAYERS}, f"the plan has no {needed} layer"


def test_every_module_belongs_to_a_layer():
    homeless = [module for module in SOURCES if layer_of(module) is None]
    assert homeless == [], "modules in no layer of docs/architecture.md: add their package to the table"


def test_every_import_points_to_an_allowed_layer():
    wrong = []
    for module, (imports, _) in GRAPH.items():
        own = layer_of(module)
        assert own is not None
        for imp in imports:
            target = layer_of(imp.target)
            if target is None:
                wrong.append(f"{SOURCES[module].relative_to(ROOT)}:{imp.line} imports {imp.target}, in no layer")
            elif target.name != own.name and target.name not in own.may_import:
                wrong.append(f"{SOURCES[module].relative_to(ROOT)}:{imp.line} ({own.name}) imports {imp.target} "
                             f"({target.name})")
    assert wrong == []


def test_the_table_allows_only_what_each_layer_uses():
    """The table says what each layer uses, not more: an allowance nothing exercises would let the next wrong
    import through unnoticed (the analysis once "could" import the capture layer it never used)."""
    used: dict[str, set[str]] = {layer.name: set() for layer in LAYERS}
    for module, (imports, _) in GRAPH.items():
        own = layer_of(module)
        assert own is not None
        for imp in imports:
            target = layer_of(imp.target)
            if target is not None and target.name != own.name:
                used[own.name].add(target.name)
    idle = {layer.name: sorted(layer.may_import - used[layer.name]) for layer in LAYERS
            if layer.may_import - used[layer.name]}
    assert idle == {}, "docs/architecture.md allows imports no module makes: narrow these rows"


def test_no_dynamic_import_hides_what_it_loads():
    """Only the topmost layer may load modules it does not name: every other module is below it anyway."""
    top = LAYERS[-1].name
    hidden = [where for module, (_, unknown) in GRAPH.items() for where in unknown if layer_of(module).name != top]
    assert hidden == [], "dynamic imports may only load named modules or modules of their own package"


def test_no_module_imports_in_a_circle():
    edges = {m: {imp.target for imp in imports if imp.target != m and imp.target in SOURCES}
             for m, (imports, _) in GRAPH.items()}
    circles = strongly_connected(edges)
    assert [sorted(c) for c in circles if len(c) > 1] == []


def strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components, iteratively (the graph has a few hundred nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                out.append(component)
    return out


@pytest.mark.parametrize(("source", "expected"), [
    ("from kafka_meta.cli.main import main\n", ["kafka_meta.cli.main"]),
    ("def f():\n    from kafka_meta import spark\n", ["kafka_meta.spark"]),
    ("import importlib\nimportlib.import_module('kafka_meta.report')\n", ["kafka_meta.report"]),
])
def test_the_reader_sees_deferred_and_dynamic_imports(tmp_path, source, expected):
    """The checks above can fail: the reader finds imports inside functions and literal dynamic ones, and
    errors, the lowest layer, may import none of them."""
    fake = tmp_path / "errors.py"
    fake.write_text(source)
    imports, hidden = imports_of("kafka_meta.errors", fake)
    assert [i.target for i in imports] == expected and hidden == []
    assert all(layer_of(i.target).name not in layer_of("kafka_meta.errors").may_import for i in imports)


def test_an_import_built_from_a_variable_counts_as_hidden(tmp_path):
    fake = tmp_path / "mod.py"
    fake.write_text("import importlib\nname = 'kafka_meta.cli'\nimportlib.import_module(name)\n")
    assert imports_of("kafka_meta.errors", fake)[1] == [f"{fake}:3"]


def test_an_import_of_the_own_package_by_name_is_seen(tmp_path):
    fake = tmp_path / "__init__.py"
    fake.write_text("import importlib\nimportlib.import_module(f'{__name__}.main')\n")
    imports, hidden = imports_of("kafka_meta.cli", fake)
    assert [i.target for i in imports] == ["kafka_meta.cli"] and hidden == []


def test_the_catalogue_lists_every_format_plugin():
    """A format module that is not in the catalogue registers nothing, silently: refuse that. Every module
    of formats/ but the plugin type and the catalogue itself exports one PLUGIN, listed in PLUGINS."""
    import importlib

    from kafka_meta.formats import catalogue
    from kafka_meta.formats.family import FormatPlugin

    listed = {id(p) for p in catalogue.PLUGINS}
    missing = []
    for path in sorted((PACKAGE / "formats").glob("*.py")):
        if path.stem in ("__init__", "family", "catalogue"):
            continue
        plugin = getattr(importlib.import_module(module_name(path)), "PLUGIN", None)
        if not isinstance(plugin, FormatPlugin) or id(plugin) not in listed:
            missing.append(module_name(path))
    assert missing == [], "format modules without a PLUGIN in kafka_meta/formats/catalogue.py PLUGINS"
    assert len(catalogue.PLUGINS) >= 6


TOOLING = ("golden", "compat", "evolution", "testing")


def test_tooling_reaches_formats_only_through_the_catalogue():
    """Tooling asks the catalogue (or the public API) what the format plugins declare, never a format
    module itself: the modules are free to change how they declare it."""
    wrong = [f"{module} imports {imp.target}" for module, (imports, _) in GRAPH.items()
             if layer_of(module).name in TOOLING for imp in imports
             if imp.target.startswith("kafka_meta.formats") and imp.target not in (
                 "kafka_meta.formats.catalogue", "kafka_meta.formats.family")]
    assert wrong == []
