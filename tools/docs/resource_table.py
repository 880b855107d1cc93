"""What the heavy jobs ask a cluster for (mem_mb, runtime), as a markdown table.

One column each for the embedded model, bert-base and bert-large, from analysis/core/resources.py
and a config (default: config/config.default.yaml, the default run). No model is downloaded: the shapes
are written below. With ``--page`` the table goes between ``<!-- resource-table:begin -->`` and
``<!-- resource-table:end -->`` (each alone on its line) of a docs page; ``--check`` only says
whether that page's table is current (exit 1 naming the page if not).

    python -m tools.docs.resource_table [--configfile config/config.default.yaml ...] [--threads 2]
        [--inputs resources/inputs/all-MiniLM-L6-v2]   # corpus sizes of a run's prepared inputs
    python -m tools.docs.resource_table --page docs/cluster.md [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from analysis.core import resources as sizing
from analysis.core.config_defaults import apply_defaults, load_schema
from analysis.scheduling.heavy_rules import GPU_RULES, HEAVY
from tools.docs.page_block import refresh

ROOT = Path(__file__).resolve().parents[2]

PAGE = "docs/cluster.md"  # the page python -m tools.docs fills (the default config, 2 threads)

MODELS = {
    "all-MiniLM-L6-v2 (embedded)": sizing.Shape(layers=6, heads=12, hidden=384, ffn=1536),
    "bert-base-uncased": sizing.Shape(layers=12, heads=12, hidden=768, ffn=3072),
    "bert-large-uncased": sizing.Shape(layers=24, heads=16, hidden=1024, ffn=4096),
}
# one job of each heavy rule: the wildcards it is sized for
JOBS = [
    ("extract_attention", {"corpus": "wiki", "shard": "0"}),
    ("extract_attention", {"corpus": "gum_sd_train", "shard": "0"}),
    ("glue_attention", {"task": "SST-2", "variant": "finetuned"}),
    ("finetune", {"task": "SST-2"}),
    ("finetune", {"task": "STS-B"}),
    ("disable_heads_scores", {"task": "SST-2"}),
    ("mlm_head", {}),
    ("gradient_importance", {}),
    ("probes_train", {}),  # heavy, but on the CPU (analysis/scheduling/heavy_rules.py CPU_BOUND)
    ("attn_classifiers", {}),
    ("erasure_cls", {}),
    ("rank_agreement", {}),
    ("rollout", {}),
    ("head_importance_scores", {"task": "SST-2"}),
    ("head_pruning_scores", {"task": "SST-2"}),
    ("benchmark", {}),
    ("surface_sums", {"shard": "0"}),  # a light rule (every rule outside HEAVY is sized alike)
]


def load_config(paths: list[str]) -> dict:
    """config/config.default.yaml overlaid with ``paths`` in order, as the Snakefile reads its configfiles."""
    config: dict = {}
    for path in ["config/config.default.yaml", *(p for p in paths if p != "config/config.default.yaml")]:
        _merge(config, yaml.safe_load((ROOT / path).read_text()))
    apply_defaults(config, load_schema())
    return config


def _merge(a: dict, b: dict) -> None:
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            _merge(a[k], v)
        else:
            a[k] = v


def counted_inputs(directory: str | None) -> dict:
    """corpus -> records of <directory>/<corpus>.jsonl (a run's prepared inputs), as a job is sized."""
    if not directory:
        return {}
    return {p.stem: sum(1 for _ in p.open("rb")) for p in Path(directory).glob("*.jsonl")}


def table(config: dict, threads: int, counted: dict | None = None) -> str:
    names = list(MODELS)
    lines = [
        "| job | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for rule, wildcards in JOBS:
        label = ".".join([rule, *(v for k, v in wildcards.items() if k != "variant")])
        gpu = rule in GPU_RULES
        cells = []
        for shape in MODELS.values():
            mem, minutes = sizing.job_request(
                HEAVY.get(rule), shape, config, wildcards, threads, counted=counted, gpu=gpu
            )
            cells.append(f"{mem / 1000:g} GB, {minutes} min")
        lines.append(f"| `{label}`{'' if gpu else ' (CPU)'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def page_text(configfiles: list[str], threads: int = 2, inputs: str | None = None) -> str:
    """The table and the line saying what it was sized with."""
    config = load_config(configfiles)
    counted = counted_inputs(inputs)
    r = config["resources"]
    return (
        table(config, threads, counted)
        + f"\n\nmem_mb, runtime of one job (first attempt) with `{' '.join(['config/config.default.yaml', *configfiles])}`; gpu=1 rules at "
        f"{r['gpu_gflops']:g} GFLOP/s (config resources.gpu_gflops), the others (CPU) at {r['cpu_gflops']:g} per thread; "
        + (f"corpus sizes: {counted}" if counted else f"corpora without a cap counted as {sizing.FULL_CORPUS} inputs")
    )


def generate(root: Path, check: bool) -> list[str]:
    """The table of ``root``'s docs/cluster.md (python -m tools.docs): its stale part, written unless ``check``."""
    return refresh(root / PAGE, "resource-table", page_text([]), check, PAGE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configfile", nargs="+", default=[], help="overlays on config/config.default.yaml")
    ap.add_argument("--threads", type=int, default=2, help="threads of a heavy job (job_threads; 2 on a cluster)")
    ap.add_argument("--inputs", help="a run's resources/inputs/<model>: corpus sizes (else from the config's caps)")
    ap.add_argument("--page", help="a docs page whose resource-table block to fill (else print the table)")
    ap.add_argument("--check", action="store_true", help="with --page: exit 1 if the page's table is stale")
    args = ap.parse_args(argv)
    text = page_text(args.configfile, args.threads, args.inputs)
    if not args.page:
        print(text)
        return 0
    stale = refresh(Path(args.page), "resource-table", text, args.check)
    if stale and args.check:
        print(f"{stale[0]} is stale: python -m tools.docs.resource_table --page {args.page}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
