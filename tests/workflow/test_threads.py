"""No thread oversubscription: a job's torch threads are its Snakemake ``threads``."""

import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

SNAKEFILE = """
rule probe:
    output: "threads.txt"
    threads: {threads}
    script: "probe.py"
"""

PROBE = """
import os
import torch
from analysis.shared.rule_io import use_threads
before = torch.get_num_threads()
use_threads(snakemake.threads)
open(snakemake.output[0], "w").write(f"{os.environ.get('OMP_NUM_THREADS')} {before} {torch.get_num_threads()}")
"""


def test_a_job_uses_its_threads_and_no_more(tmp_path: Path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE.format(threads=1))
    (tmp_path / "probe.py").write_text(PROBE)
    env_path = f"PYTHONPATH={ROOT}"
    cmd = ["env", env_path, sys.executable, "-m", "snakemake", "--cores", "2", "-q"]
    subprocess.run(cmd, cwd=tmp_path, check=True, capture_output=True)
    omp, before, after = (tmp_path / "threads.txt").read_text().split()
    # Snakemake exports OMP_NUM_THREADS=threads (BLAS pools) and torch starts with it; use_threads sets it too
    assert (omp, before, after) == ("1", "1", "1")


def rules_with_threads() -> list[str]:
    """Every rule of rules/*.smk that declares ``threads:``."""
    found = []
    for smk in sorted((ROOT / "rules").glob("*.smk")):
        for m in re.finditer(r"^\s*rule (\w+):\n(.*?)(?=^\s*rule |\Z)", smk.read_text(), re.M | re.S):
            if re.search(r"^\s+threads:", m.group(2), re.M):
                found.append(m.group(1))
    return found


def test_every_script_sets_its_threads_one_way():
    """One idiom: ``start(globals(), __file__, threads=True)`` (analysis.shared.rule_io), never
    torch's own setter."""
    idiom = "start(globals(), __file__, threads=True)"
    assert len(rules_with_threads()) >= 20
    for rule in rules_with_threads():
        assert idiom in (ROOT / "workflow" / f"{rule}.py").read_text(), rule
    for script in sorted((ROOT / "workflow").glob("*.py")):
        text = script.read_text()
        assert "set_num_threads" not in text, f"{script.name}: use rule_io.start(..., threads=True)"
        if "import torch" in text:
            assert idiom in text, script.name


def job_threads_in_dry_run(*args) -> dict[str, set[int]]:
    """rule -> the threads of its jobs, as a dry run of the smoke config prints them (1: not printed)."""
    cmd = [sys.executable, "-m", "snakemake", "-n", "--forceall", "--configfile", "config/smoke.yaml", *args]
    env = {**os.environ, "ATTN_MIRROR": "/nonexistent-mirror"}
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True).stdout
    threads: dict[str, set[int]] = {}
    for block in out.split("\n\n"):
        rule = re.search(r"^(?:local)?rule (\w+):$", block, re.MULTILINE)
        if rule:
            n = re.search(r"^\s+threads: (\d+)$", block, re.MULTILINE)
            threads.setdefault(rule.group(1), set()).add(int(n.group(1)) if n else 1)
    return threads


def test_heavy_jobs_take_half_the_cores_and_light_ones_one():
    """job_threads: auto = half of --cores (two heavy jobs side by side), at least 1; or a number."""
    six = job_threads_in_dry_run("--cores", "6")
    assert six["finetune"] == six["extract_attention"] == six["probes_train"] == {3}
    assert six["dep_heads"] == six["surface_sums"] == {1}
    assert job_threads_in_dry_run("--cores", "2")["finetune"] == {1}
    assert job_threads_in_dry_run("--cores", "6", "--config", "job_threads=2")["finetune"] == {2}


LATE_TORCH = """
import sys
from analysis.shared.rule_io import use_threads
use_threads(1)
loaded = "torch" in sys.modules
import torch
print(loaded, torch.get_num_threads())
"""


def test_a_job_that_loads_torch_later_starts_it_with_its_threads():
    """use_threads does not import torch (a table reader never pays for it); torch imported after it
    runs on the job's threads all the same (more than 1 where the machine has several cores)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run([sys.executable, "-c", LATE_TORCH], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["False", "1"]
