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


def test_the_spine_imports_no_paper():
    for path in (ANALYSIS / "core").rglob("*.py"):
        for mod in imports_of(path):
            if mod.startswith("analysis."):
                assert mod.startswith("analysis.core"), f"{path.relative_to(ROOT)} imports {mod}"


@pytest.mark.parametrize("path", sorted(ANALYSIS.rglob("*.py")), ids=lambda p: str(p.relative_to(ANALYSIS)))
def test_modules_are_small(path):
    assert len(path.read_text().splitlines()) <= 350, "split this module by job"


def test_functions_are_short():
    long = []
    for path in ANALYSIS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.end_lineno - node.lineno + 1 > 65:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not long, f"split these functions: {long}"
