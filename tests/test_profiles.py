"""The cluster profile sends every rule that asks for a GPU to the GPU partition."""

import re

import yaml

from conftest import ROOT


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


def test_slurm_profile_covers_every_gpu_rule():
    profile = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    wanted = gpu_rules()
    assert {"extract_attention", "finetune", "disable_heads_scores"} <= wanted
    assert set(profile["set-resources"]) == wanted
    for rule, res in profile["set-resources"].items():
        assert res["slurm_partition"] == "gpu" and res["gpu"] == 1, rule
