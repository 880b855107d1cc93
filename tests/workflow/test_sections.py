"""One word for one thing: each section of the workflow (Snakefile's SECTIONS) is a rules file, a
config section and a docs page of the same name; the spine (analysis/core) names no paper's rule."""

import ast
import re

import yaml

from conftest import ROOT

SCHEMA = yaml.safe_load((ROOT / "config" / "schema" / "config.schema.yaml").read_text())
# rules files that are no paper section: shared definitions, scheduling, the spine, the claims' inputs, the benchmark
INFRASTRUCTURE = {"common", "scheduling", "spine", "claims", "benchmark"}


def sections() -> list[str]:
    block = re.search(r"^SECTIONS = \[(.*?)^\]", (ROOT / "Snakefile").read_text(), re.M | re.S).group(1)
    return re.findall(r"\"(\w+)\"", block)


def rule_names(smk) -> set[str]:
    return set(re.findall(r"^rule (\w+):", smk.read_text(), re.M))


def test_every_section_has_its_rules_file_config_section_and_docs_page():
    names = sections()
    assert len(names) >= 10 and names[-1] == "overview"  # overview reads every section's tables: last
    missing = []
    for name in names:
        if not (ROOT / "rules" / f"{name}.smk").exists():
            missing.append(f"rules/{name}.smk")
        elif name not in rule_names(ROOT / "rules" / f"{name}.smk"):
            missing.append(f"rule {name} (the section's aggregate) in rules/{name}.smk")
        if name not in SCHEMA["properties"]:
            missing.append(f"config section {name}")
        if not (ROOT / "docs" / f"{name.replace('_', '-')}.md").exists():
            missing.append(f"docs/{name.replace('_', '-')}.md")
    assert not missing, "sections without their namesakes: " + ", ".join(missing)


def test_every_rules_file_is_a_section_or_named_infrastructure():
    files = {p.stem for p in (ROOT / "rules").glob("*.smk")}
    assert files == set(sections()) | INFRASTRUCTURE
    snakefile = (ROOT / "Snakefile").read_text()
    for name in INFRASTRUCTURE:
        assert f'include: "rules/{name}.smk"' in snakefile, name


def test_the_spine_names_no_rule_or_config_section_of_a_paper():
    """analysis/core knows shapes, corpora and maps; a paper's rule or config section named there
    (as a string) would tie the spine to that paper."""
    papers = set(sections())
    for smk in (ROOT / "rules").glob("*.smk"):
        if smk.stem not in INFRASTRUCTURE:
            papers |= rule_names(smk)
    found = []
    for path in sorted((ROOT / "analysis" / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in papers:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, "; ".join(found)
