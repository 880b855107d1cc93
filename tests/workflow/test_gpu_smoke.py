"""tools/measure/gpu_smoke.py: without CUDA it says so and succeeds; its comparison tells float noise from a
difference and leaves timings and the device out."""

import json
import os
import subprocess
import sys

import pandas as pd

from conftest import ROOT
from tools.measure import gpu_smoke


def test_without_cuda_it_skips_with_exit_0():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # no GPU, whatever the machine
    run = subprocess.run(
        [sys.executable, "-m", "tools.measure.gpu_smoke"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("no CUDA device: skipped")


def test_tables_within_float_noise_agree_and_timings_are_left_out(tmp_path):
    cpu, gpu = tmp_path / "cpu.csv", tmp_path / "gpu.csv"
    pd.DataFrame({"head": [1, 2], "uas": [0.5, 0.25], "train_seconds": [3.0, 4.0]}).to_csv(cpu, index=False)
    pd.DataFrame({"head": [1, 2], "uas": [0.50001, 0.25], "train_seconds": [0.1, 0.2]}).to_csv(gpu, index=False)
    same, what = gpu_smoke.compare(cpu, gpu, rtol=1e-3, atol=1e-4)
    assert same and what == "max |diff| 1e-05"
    pd.DataFrame({"head": [1, 2], "uas": [0.6, 0.25], "train_seconds": [0.1, 0.2]}).to_csv(gpu, index=False)
    same, what = gpu_smoke.compare(cpu, gpu, rtol=1e-3, atol=1e-4)
    assert not same and what == "1 differ: uas[0]: 0.5 vs 0.6"


def test_sidecars_compare_their_numbers_not_their_device_or_rates(tmp_path):
    cpu, gpu = tmp_path / "cpu.json", tmp_path / "gpu.json"
    cpu.write_text(json.dumps({"device": "cpu", "precision": {"used": "fp32", "matmul_rate": {"fp32": 1}}, "n": 3}))
    gpu.write_text(json.dumps({"device": "cuda", "device_name": "H100", "precision": {"used": "fp32"}, "n": 3}))
    assert gpu_smoke.compare(cpu, gpu, rtol=1e-3, atol=1e-4) == (True, "max |diff| 0")
    gpu.write_text(json.dumps({"device": "cuda", "precision": {"used": "bf16"}, "n": 3}))
    assert gpu_smoke.compare(cpu, gpu, rtol=1e-3, atol=1e-4) == (False, "1 differ: .precision.used: 'fp32' vs 'bf16'")
