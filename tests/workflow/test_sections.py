"""One word for one thing: each section of the workflow (Snakefile's SECTIONS) is a rules file, a
config section with its schema file and a docs page of the same name, and its claims file where
claims read its tables; the spine (analysis/core) names no paper's rule."""

import ast
import re

import yaml

from analysis.core.config_defaults import schema_defaults
from analysis.scorecard.claims import read_claims
from analysis.scorecard.registry import check_stems, lookup
from conftest import ROOT

SCHEMA_DIR = ROOT / "config" / "schema"
SCHEMA = yaml.safe_load((SCHEMA_DIR / "config.schema.yaml").read_text())  # the top-level file
# schema files that are no config section's: the top level, the claims' and the sources'
OTHER_SCHEMAS = {"config", "claims", "sources"}
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
        if SCHEMA["properties"].get(name) != {"$ref": f"{name}.schema.yaml"}:
            missing.append(f"config section {name} ($ref: {name}.schema.yaml in config/schema/config.schema.yaml)")
        if not (SCHEMA_DIR / f"{name}.schema.yaml").exists():
            missing.append(f"config/schema/{name}.schema.yaml")
        if not (ROOT / "docs" / f"{name.replace('_', '-')}.md").exists():
            missing.append(f"docs/{name.replace('_', '-')}.md")
    assert not missing, "sections without their namesakes: " + ", ".join(missing)


def test_every_schema_file_is_a_section_or_named():
    files = {p.name.removesuffix(".schema.yaml") for p in SCHEMA_DIR.glob("*.schema.yaml")}
    assert files == set(sections()) | OTHER_SCHEMAS


def test_every_claims_file_is_a_section_and_holds_the_claims_on_its_tables(registry):
    """config/claims/<section>.yaml holds exactly the claims whose check reads tables of that
    section's rules, and overview.claims lists the files in the order of the sections (the
    scorecard's rows)."""
    claims_dir = ROOT / "config" / "claims"
    files = {p.stem for p in claims_dir.glob("*")}
    assert files <= set(sections()), f"claims files named after no section: {sorted(files - set(sections()))}"
    order = [name for name in sections() if name in files]
    assert schema_defaults("overview")["claims"] == [f"config/claims/{name}.yaml" for name in order]
    section_of = {rule: smk.stem for smk in (ROOT / "rules").glob("*.smk") for rule in rule_names(smk)}
    misplaced = []
    for name in order:
        for claim in read_claims(claims_dir / f"{name}.yaml", registry):
            owners = {section_of[lookup(registry, stem)["rule"]] for stem in check_stems(claim["check"])}
            if owners != {name}:
                misplaced.append(f"{claim['id']} (config/claims/{name}.yaml) reads tables of {sorted(owners)}")
    assert not misplaced, "; ".join(misplaced)


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


ANALYSIS = ROOT / "analysis"
UNIT = ROOT / "tests" / "unit"
# analysis packages that are no paper section, with the infrastructure rules file each serves
INFRASTRUCTURE_PACKAGES = {
    "core": "spine",
    "shared": "common",
    "scorecard": "claims",
    "benchmark": "benchmark",
    "scheduling": "scheduling",
}


def section_folder(name: str):
    """The section's folder under analysis/: <paper>/<section> (clark_surface -> clark/surface),
    else the one package named after the whole word (staying_true -> explanation/staying_true)."""
    paper, _, rest = name.partition("_")
    nested = ANALYSIS / paper / rest
    if rest and (nested / "__init__.py").exists():
        return nested.relative_to(ANALYSIS)
    found = [p.parent.relative_to(ANALYSIS) for p in ANALYSIS.rglob("__init__.py") if p.parent.name == name]
    assert len(found) == 1, f"section {name}: {len(found)} packages named {name} under analysis/"
    return found[0]


def test_every_section_has_its_analysis_folder_and_unit_test_folder():
    missing = []
    for name in sections():
        folder = section_folder(name)
        if not list((UNIT / folder).glob("test_*.py")):
            missing.append(f"tests/unit/{folder}/test_*.py")
    assert not missing, "sections without unit tests in their folder: " + ", ".join(missing)


def test_every_analysis_package_is_a_section_a_paper_or_named_infrastructure():
    """The other way round: a package under analysis/ is a section's folder, a paper's folder
    holding sections (clark/, kovaleva/), or infrastructure named after its rules file."""
    folders = {section_folder(name) for name in sections()}
    papers = {f.parts[0] for f in folders if len(f.parts) > 1}
    rules_files = {p.stem for p in (ROOT / "rules").glob("*.smk")}
    assert set(INFRASTRUCTURE_PACKAGES.values()) <= rules_files
    stray = []
    for init in ANALYSIS.rglob("*/__init__.py"):
        package = init.parent.relative_to(ANALYSIS)
        if package.parts[0] in INFRASTRUCTURE_PACKAGES or {package, *package.parents} & folders:
            continue  # infrastructure, a section's folder or a folder inside one
        if package.parts[0] not in papers or len(package.parts) > 1:
            stray.append(str(package))
    assert not stray, f"analysis packages that name no section: {sorted(stray)}"
