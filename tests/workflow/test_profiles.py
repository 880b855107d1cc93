"""Profiles only route: the cluster profile sends every rule that asks for a GPU to the GPU
partition and sets no resource a rule owns (threads, memory, run time, GPUs live in rules/)."""

import re

import yaml

from conftest import ROOT

ROUTING_KEYS = {"slurm_partition", "slurm_account", "slurm_extra", "constraint", "qos"}


def gpu_rules() -> set[str]:
    rules, current = set(), None
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for line in smk.read_text().splitlines():
            m = re.match(r"\s*rule (\w+):", line)
            if m:
                current = m.group(1)
            elif re.match(r"\s*gpu=1,?\s*$", line):
                rules.add(current)
    return rules


def test_slurm_profile_routes_every_gpu_rule():
    profile = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    wanted = gpu_rules()
    assert {"extract_attention", "finetune", "disable_heads_scores"} <= wanted
    assert set(profile["set-resources"]) == wanted
    for rule, res in profile["set-resources"].items():
        assert res["slurm_partition"] == "gpu", rule


def test_profiles_only_route():
    for path in (ROOT / "profiles").glob("*/config.yaml"):
        profile = yaml.safe_load(path.read_text())
        for res in [profile.get("default-resources", {}), *profile.get("set-resources", {}).values()]:
            assert set(res) <= ROUTING_KEYS, (path, set(res) - ROUTING_KEYS)
        assert "set-threads" not in profile, path
        # global caps only (how many GPU jobs share one card, and its memory), never a rule's own request
        caps = {item.split("=")[0] for item in profile.get("resources", [])}
        assert caps <= {"gpu", "gpu_mem_mb"}, (path, caps)


def test_every_gpu_rule_declares_its_card_memory(workflow):
    """The GPU workstation profile shares one card by memory: every rule that asks for a GPU says how
    much it holds there, sized from its model (more for training than for a forward pass)."""
    wanted = gpu_rules()
    declared = {r.name for r in workflow.rules if "gpu_mem_mb" in r.resources}
    assert declared == wanted
    profile = yaml.safe_load((ROOT / "profiles" / "gpu-workstation" / "config.yaml").read_text())
    assert {"gpu", "gpu_mem_mb"} == {item.split("=")[0] for item in profile["resources"]}


def test_the_slurm_profile_needs_no_conda_and_nothing_a_command_line_replaces():
    """Conda is the user's opt-in (--sdm conda); `--default-resources slurm_account=...` on the
    command line replaces the profile's whole default-resources mapping, so the profile keeps its
    routing in set-resources (per rule) and the rules their own mem_mb and runtime."""
    profile = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    assert "software-deployment-method" not in profile and "sdm" not in profile
    assert "default-resources" not in profile
