"""The layout the README promises: one hop from a figure to its code, a spine that imports no
paper's module, small modules."""

import ast
import re

import pytest

from conftest import ROOT

ANALYSIS = ROOT / "analysis"


def figure_names():
    """(rule, parts) of every figure(...) a rules file declares; wildcard parts left out."""
    out = []
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for m in re.finditer(r"\bfigure\(\s*((?:\"[^\"]*\"\s*,\s*)+)category", smk.read_text()):
            parts = [p for p in re.findall(r"\"([^\"]*)\"", m.group(1)) if "{" not in p]
            out.append(parts)
    return out


def plot_functions() -> dict[str, str]:
    found = {}
    for path in ANALYSIS.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("plot_"):
                found[node.name] = str(path.relative_to(ROOT))
    return found


def test_every_figure_has_one_plot_function_named_after_it():
    names = figure_names()
    assert len(names) >= 25
    plots = plot_functions()
    for parts in names:
        fn = "plot_" + "_".join(parts)
        assert fn in plots, f"figure {'.'.join(parts)}: no {fn} in analysis/"
        script = ROOT / "workflow" / f"{parts[0]}.py"
        assert fn in script.read_text(), f"{script.name} does not call {fn}"


def test_every_rule_has_its_script():
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        text = smk.read_text()
        for m in re.finditer(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", text, re.M | re.S):
            name, body = m.groups()
            if "script:" in body:
                assert f'"../workflow/{name}.py"' in body, f"rule {name} runs another script"


def imports_of(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def module_name(path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def analysis_imports(path) -> set[str]:
    """The analysis modules ``path`` imports, anywhere in it (lazy imports inside functions too);
    ``from analysis.core.glue import metrics`` counts as ``analysis.core.glue.metrics``."""
    modules = {module_name(p) for p in ANALYSIS.rglob("*.py")}
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("analysis"):
            subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
            found.update(subs or [node.module])
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("analysis"))
    return found


# what each package of analysis/ may import besides itself: the spine nothing, the shared helpers
# the spine, every paper (and the claims engine over their tables) the spine and the shared helpers
# only, the overview (explorer, comparison) the claims engine too, the benchmark tool the spine only
MAY_IMPORT = {
    "core": set(),
    "shared": {"core"},
    "clark": {"core", "shared"},
    "kovaleva": {"core", "shared"},
    "explanation": {"core", "shared"},
    "beyond_papers": {"core", "shared"},
    "scorecard": {"core", "shared"},
    "overview": {"core", "shared", "scorecard"},
    "benchmark": {"core"},
    # the heavy rules' work estimates: the spine and each paper's work.py, nothing else of a paper
    "scheduling": {"core", "clark.work", "kovaleva.work", "explanation.work", "beyond_papers.work"},
}


def test_every_package_of_analysis_has_its_import_rule():
    packages = {p.name for p in ANALYSIS.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(MAY_IMPORT), "add the new package to MAY_IMPORT"


def test_every_section_of_clark_is_a_package_named_after_its_rules_file():
    """analysis/clark/<name>/ holds the science of rules/clark_<name>.smk, and the other way round."""
    packages = {p.name for p in (ANALYSIS / "clark").iterdir() if (p / "__init__.py").exists()}
    sections = {p.stem.removeprefix("clark_") for p in (ROOT / "rules").glob("clark_*.smk")}
    assert packages, "no sub-package in analysis/clark"
    assert not packages - sections, f"no rules/clark_<name>.smk for {sorted(packages - sections)}"
    assert not sections - packages, f"no analysis/clark/<name>/ for {sorted(sections - packages)}"


def test_every_package_says_what_it_is():
    for init in sorted(ANALYSIS.rglob("__init__.py")):
        assert ast.get_docstring(ast.parse(init.read_text())), f"{init.relative_to(ROOT)}: no docstring"


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_papers_never_import_each_other(package):
    allowed = {f"analysis.{p}" for p in MAY_IMPORT[package] | {package}}
    bad = [
        f"{path.relative_to(ROOT)} imports {mod}"
        for path in sorted((ANALYSIS / package).rglob("*.py"))
        for mod in sorted(analysis_imports(path))
        if mod != "analysis" and not any(mod == a or mod.startswith(a + ".") for a in allowed)
    ]
    assert not bad, "what two packages share belongs in analysis/shared (or core): " + "; ".join(bad)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (or a module importing itself)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in graph.get(v, ()):
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_import_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(import_cycles(graph)) == [["a", "b", "c"], ["e"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_circles():
    graph = {module_name(p): analysis_imports(p) for p in ANALYSIS.rglob("*.py")}
    assert import_cycles(graph) == []


def test_the_spine_imports_no_paper():
    for path in (ANALYSIS / "core").rglob("*.py"):
        for mod in imports_of(path):
            if mod.startswith("analysis."):
                assert mod.startswith("analysis.core"), f"{path.relative_to(ROOT)} imports {mod}"


SMALL = [*ANALYSIS.rglob("*.py"), *(ROOT / "rules").glob("*.smk"), *(ROOT / "tools").rglob("*.py"), ROOT / "Snakefile"]


@pytest.mark.parametrize("path", sorted(SMALL), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_are_small(path):
    assert len(path.read_text().splitlines()) <= 300, "split this module by job"


def test_functions_are_short():
    long = []
    for path in ANALYSIS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.end_lineno - node.lineno + 1 > 65:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long, f"split these functions: {long}"


def n_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Every parameter a function takes: positional, keyword-only, *args and **kwargs."""
    a = fn.args
    return len(a.posonlyargs + a.args + a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)


# functions over 8 parameters that other work is still changing, each with its count today as a
# ceiling (it may only go down); delete an entry once its function takes 8 or fewer. Empty: keep it so
MANY_PARAMETERS: dict[str, int] = {}


def test_no_function_takes_more_than_8_parameters():
    """More belong in a named settings object (e.g. ``analysis.clark.probes.settings``)."""
    counts = {}
    for folder in ("analysis", "workflow", "tools", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and n_parameters(node) > 8:
                    counts[f"{path.relative_to(ROOT)} {node.name}"] = n_parameters(node)
    over = [f"{k} ({n})" for k, n in sorted(counts.items()) if n > MANY_PARAMETERS.get(k, 8)]
    assert not over, f"functions over 8 parameters: {over}"
    fixed = sorted(set(MANY_PARAMETERS) - set(counts))
    assert not fixed, f"these take 8 parameters or fewer now: delete them from MANY_PARAMETERS: {fixed}"


def test_parameters_are_counted_whatever_their_kind():
    fn = ast.parse("def f(a, /, b, *c, d, e=1, **f): pass").body[0]
    assert n_parameters(fn) == 6


def test_tests_sit_in_their_tier():
    """tests/unit/<package>[/<section>]/ for the analysis packages' unit tests (the same path as the package), tests/workflow/ for the config,
    DAG, profiles, docs and tools, tests/e2e/ for runs of the workflow; helpers in tests/helpers/."""
    tests = ROOT / "tests"
    assert not list(tests.glob("test_*.py")), "a test file belongs in unit/<package>, workflow or e2e"
    assert {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))} == {
        "unit",
        "workflow",
        "e2e",
        "helpers",
        "fixtures",
    }
    packages = {p.relative_to(ANALYSIS) for p in ANALYSIS.rglob("__init__.py")}
    unit = {p.relative_to(tests / "unit") for p in (tests / "unit").rglob("test_*.py")}
    strays = sorted(str(u) for u in unit if u.parent / "__init__.py" not in packages)
    assert not strays, f"tests/unit/ files outside a folder named after an analysis package: {strays}"
    assert not [p for p in (tests / "helpers").glob("test_*.py")]
