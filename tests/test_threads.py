"""No thread oversubscription: a job's torch threads are its Snakemake ``threads``."""

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
use_threads(snakemake)
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


def test_every_torch_script_sets_its_threads():
    for script in sorted((ROOT / "scripts").glob("*.py")):
        text = script.read_text()
        if "import torch" in text:
            assert "use_threads(snakemake)" in text or "torch.set_num_threads(snakemake.threads)" in text, script.name
