"""GPU smoke check: the smoke DAG's heavy paths on CUDA against the same run on the CPU.

    python -m tools.measure.gpu_smoke [--keep DIR] [--cores 2]

On a machine with a CUDA device: two copies of the workflow on the tiny smoke config and the
fixture mirror (``config/smoke.yaml tests/fixtures/smoke_mirror.yaml``, as the smoke test runs it),
``precision: fp32`` in both (the devices' arithmetic is compared, not the precisions'), maps kept
(``--notemp``). One runs with ``--resources gpu=1`` (the heavy rules on CUDA), the other with
``CUDA_VISIBLE_DEVICES=`` (every job on the CPU). Targets: extraction (a wiki shard, its
run-info sidecar and the sec. 3 tables read from the maps), one fine-tuning (RTE), the probes
and the attention classifiers. Then every target is compared: maps and numbers within float
noise (``--rtol``, ``--atol``; timings and the device fields left out), and the GPU run's
sidecars must say ``cuda`` for the rules that ask for a GPU (``analysis/scheduling/heavy_rules.py``).
Prints one line per file and exits 1 when a file differs beyond the noise or a GPU job ran on
the CPU. Without a CUDA device it prints ``no CUDA device: skipped`` and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODEL = "tiny-random-bert"
WORKFLOW = ["Snakefile", "rules", "workflow", "config", "report", "analysis", "envs", "profiles"]
FIXTURES = ["mirror", "sources.yaml", "smoke_mirror.yaml", "patterns"]
CONFIGFILES = ["config/smoke.yaml", "tests/fixtures/smoke_mirror.yaml"]
T = f"results/{MODEL}/tables"
# target -> the device its GPU run must record (None: a file with no device record)
TARGETS = {
    f"resources/attention/{MODEL}/wiki/shard-0.npy": None,
    f"{T}/extract_attention.wiki.0.json": "cuda",
    f"{T}/relative_position.csv": None,
    f"{T}/special_tokens.csv": None,
    f"resources/finetune/{MODEL}/RTE/dev_metrics.json": "cuda",
    f"resources/finetune/{MODEL}/RTE/history.csv": None,
    f"{T}/probes_train.csv": None,
    f"{T}/probes_train.json": "cpu",  # probes_train asks for no GPU: it trains on the CPU
    f"{T}/attn_classifiers.csv": None,
    f"{T}/attn_classifiers.device.json": "cuda",
}
# values no two runs share: wall-clock times, matmul rates, the device itself
UNCOMPARED = re.compile(r"seconds|_s$|forward_s|matmul_rate|reason|^device|threads")


def cuda_device() -> str | None:
    """The name of the first CUDA device, or None."""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def workdir(dest: Path) -> Path:
    """A copy of the workflow with the fixture mirror, as tests/conftest.py's smoke_workdir makes it;
    ``dest`` and its parents are created when they do not exist (``--keep`` names a new folder)."""
    dest.mkdir(parents=True, exist_ok=True)
    for item in WORKFLOW:
        (shutil.copytree if (ROOT / item).is_dir() else shutil.copy)(ROOT / item, dest / item)
    for item in FIXTURES:
        src, dst = ROOT / "tests" / "fixtures" / item, dest / "tests" / "fixtures" / item
        dst.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst)
    return dest


def run(work: Path, gpu: bool, cores: int) -> tuple[int, float]:
    """Snakemake on the targets in ``work``: (return code, seconds); its output in work/smoke.log."""
    import time

    env = {**os.environ, "ATTN_MIRROR": str(work / "tests/fixtures/mirror"), "PYTHONPATH": str(work)}
    if not gpu:
        env["CUDA_VISIBLE_DEVICES"] = ""  # torch sees no GPU: every job runs on the CPU
    cmd = [str(Path(sys.executable).with_name("snakemake")), "--cores", str(cores), "--notemp", *TARGETS]
    cmd += ["--configfile", *CONFIGFILES, "--config", "precision=fp32"]
    cmd += ["--resources", "gpu=1"] if gpu else []
    start = time.monotonic()
    with open(work / "smoke.log", "w") as log:
        rc = subprocess.run(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    return rc, time.monotonic() - start


def numbers(obj, prefix=""):
    """(key path, value) of every compared leaf of a JSON value."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not UNCOMPARED.search(k):
                yield from numbers(v, f"{prefix}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from numbers(v, f"{prefix}[{i}]")
    else:
        yield prefix, obj


def compare(cpu: Path, gpu: Path, rtol: float, atol: float) -> tuple[bool, str]:
    """(equal within the noise, what differs or the largest difference) of one target."""
    if cpu.suffix == ".npy":
        a, b = np.load(cpu).astype(np.float32), np.load(gpu).astype(np.float32)
        if a.shape != b.shape:
            return False, f"shapes {a.shape} vs {b.shape}"
        return bool(np.allclose(a, b, rtol=rtol, atol=atol)), f"max |diff| {np.abs(a - b).max():.3g}"
    if cpu.suffix == ".csv":
        import pandas as pd

        a, b = pd.read_csv(cpu), pd.read_csv(gpu)
        a, b = (t[[c for c in t.columns if not UNCOMPARED.search(c)]] for t in (a, b))
        if list(a.columns) != list(b.columns) or a.shape != b.shape:
            return False, f"columns/shape {list(a.columns)} {a.shape} vs {list(b.columns)} {b.shape}"
        pairs = [(f"{c}[{i}]", x, y) for c in a.columns for i, (x, y) in enumerate(zip(a[c], b[c]))]
    else:
        a, b = dict(numbers(json.loads(cpu.read_text()))), dict(numbers(json.loads(gpu.read_text())))
        if set(a) != set(b):
            return False, f"keys differ: {sorted(set(a) ^ set(b))[:5]}"
        pairs = [(k, a[k], b[k]) for k in a]
    return close(pairs, rtol, atol)


def close(pairs, rtol: float, atol: float) -> tuple[bool, str]:
    """Whether every (name, cpu value, gpu value) agrees: numbers within the noise, others equal."""
    worst, bad = 0.0, []
    for name, x, y in pairs:
        if isinstance(x, int | float) and isinstance(y, int | float) and not isinstance(x, bool):
            if np.isnan(x) and np.isnan(y):
                continue
            worst = max(worst, abs(x - y))
            if not np.isclose(x, y, rtol=rtol, atol=atol):
                bad.append(f"{name}: {x} vs {y}")
        elif x != y:
            bad.append(f"{name}: {x!r} vs {y!r}")
    return not bad, (f"{len(bad)} differ: {'; '.join(bad[:3])}" if bad else f"max |diff| {worst:.3g}")


def report(cpu: Path, gpu: Path, rtol: float, atol: float) -> bool:
    """Print one line per target; True when every target agrees and records its device."""
    ok = True
    for target, device in TARGETS.items():
        same, what = compare(cpu / target, gpu / target, rtol, atol)
        if device is not None:
            got = json.loads((gpu / target).read_text()).get("device")
            what += f"; GPU run's device: {got}" + ("" if got == device else f" (expected {device})")
            same = same and got == device
        ok = ok and same
        print(f"{'ok  ' if same else 'DIFF'} {target}: {what}")
    return ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", help="run in this directory and keep it (default: a temporary one, removed)")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance of a number (float noise)")
    ap.add_argument("--atol", type=float, default=1e-4, help="absolute tolerance of a number or map value")
    args = ap.parse_args(argv)
    name = cuda_device()
    if name is None:
        print(
            "no CUDA device: skipped (tools/measure/gpu_smoke.py compares a GPU run with a CPU run; run it where CUDA is)"
        )
        return 0
    base = Path(args.keep or tempfile.mkdtemp(prefix="gpu-smoke-"))
    print(f"CUDA device: {name}; runs under {base}")
    runs = {}
    for kind in ("cpu", "gpu"):
        work = workdir(base / kind)
        rc, seconds = run(work, kind == "gpu", args.cores)
        print(f"{kind} run: rc {rc}, {seconds:.0f} s (log: {work / 'smoke.log'})")
        if rc != 0:
            return 1
        runs[kind] = work
    ok = report(runs["cpu"], runs["gpu"], args.rtol, args.atol)
    print("GPU and CPU agree within float noise" if ok else "GPU and CPU runs DIFFER (lines marked DIFF)")
    if not args.keep and ok:
        shutil.rmtree(base)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
