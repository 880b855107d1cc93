"""How the workflow's time and memory grow with the model: the map-reading rules and one
fine-tuning, run by snakemake on BERT encoders of growing size with seeded random weights (built
here from a config and the embedded model's tokenizer, saved as a user's local model directory
is: no download), on a tenth of the default corpora. Writes one row per rule and size (wall
seconds and peak resident memory from the rules' own ``benchmark:`` files, and the exponent of
time against L x H^2 fitted over the sizes), and beside it ``.prediction.csv``: every rule of the
default run (``--default-benchmarks``, its per-rule job seconds) scaled to each size by the
measured growth of the rule it resembles (:data:`PROXY`; :func:`predict`).

    python -m tools.measure.size_benchmark --sizes 6x384x12 12x768 24x1024 --cores 2 --out docs/size_benchmark.csv
    python -m tools.measure.size_benchmark --collect --out docs/size_benchmark.csv   # re-read, run nothing

A size ``LxH`` is L layers of width H, H/64 heads of 64 dimensions, feed-forward 4H (BERT's
shapes: 12x768 is bert-base's, 24x1024 bert-large's); ``LxHxA`` gives A heads (6x384x12: the
embedded MiniLM's 12 heads of 32, the smallest size, against which the default run is scaled). Each size's
results go to ``results/bert-LxH/`` and ``benchmarks/bert-LxH/`` (a run first removes what an
earlier one left there, so that every rule runs); its model to ``--work`` (4 bytes per parameter:
1.3 GB at 24x1024).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from analysis.core.model_names import model_slug

ROOT = Path(__file__).resolve().parents[2]

# the tables the map claims read (config overview.scorecard_rules; the scorecard itself is left out:
# on a tenth of the corpora a claim's rows, e.g. a rare relation, can be absent), and one fine-tuning
MAP_TABLES = [
    "relative_position",
    "special_tokens.by_layer",
    "sep_attention.by_layer",
    "entropy.by_layer",
    "dep_heads.gum_sd_dev",
    "coref_heads",
    "head_clusters.layers",
]
FINETUNE_TASK = "SST-2"
# a tenth of the default corpora (config/config.default.yaml); what a rule spends whatever its inputs (loading
# the model, starting the job) then weighs more than in the default run: growth() fits it apart
SMALL_CORPORA = {
    "corpora": {
        "wiki": {"n_segments": 100, "n_shards": 1},
        "gum_sd_dev": {"max_sentences": 53},
        "wsj_dp": {"max_sentences": 200},
        "ewt_dev": {"max_sentences": 200},
        "ontogum_dev": {"max_docs": 3, "n_shards": 1},
    },
    "clark_clusters": {"n_segments": 40},
    "kovaleva_finetune": {"tasks": [FINETUNE_TASK], "finetune": {"train_examples": 100}},
}


def parse_size(text: str) -> tuple[int, int, int]:
    """'12x768' -> (12, 768, 12): layers, width and heads, H/64 heads of 64 dimensions unless a
    third number says how many ('6x384x12': the embedded MiniLM's 12 heads of 32)."""
    try:
        numbers = [int(x) for x in text.lower().split("x")]
        layers, hidden = numbers[:2]
        heads = numbers[2] if len(numbers) == 3 else hidden // 64
        if len(numbers) not in (2, 3):
            raise ValueError
    except ValueError:
        raise SystemExit(f"--sizes: {text!r} is not LAYERSxWIDTH[xHEADS] (e.g. 12x768, 6x384x12)") from None
    if layers < 1 or heads < 1 or hidden % heads or hidden < 64:
        raise SystemExit(f"--sizes: {text!r}: at least 1 layer, a width of 64 or more that its heads divide")
    return layers, hidden, heads


def build_model_dir(dest: Path, layers: int, hidden: int, heads: int, seed: int = 0) -> Path:
    """A local model directory: a BERT masked-LM of the size with seeded random weights and the
    embedded model's tokenizer (a real model's time per token depends on its shape, not on its
    weights). Built once: an existing directory with weights is kept."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    from analysis.core.models import EMBEDDED, load_tokenizer

    if (dest / "model.safetensors").exists():
        return dest
    tok = load_tokenizer(EMBEDDED)
    dest.mkdir(parents=True, exist_ok=True)
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * hidden,
        max_position_embeddings=512,
    )
    torch.manual_seed(seed)
    BertForMaskedLM(config).save_pretrained(dest)
    tok.save_pretrained(dest)
    return dest


def overlay(spec: str) -> dict:
    """The config overlay of one size: the model, no random-init control (its weights are random
    already), a tenth of the corpora."""
    return {
        "model": spec,
        "overview": {"random_init_control": False},
        **SMALL_CORPORA,
    }


def targets(slug: str) -> list[str]:
    maps = [f"results/{slug}/tables/{stem}.csv" for stem in MAP_TABLES]
    return [*maps, f"resources/finetune/{slug}/{FINETUNE_TASK}/dev_metrics.json"]


def rule_times(folder: Path) -> pd.DataFrame:
    """Per rule (a benchmark file's stem up to its first dot, summed over its jobs): wall seconds,
    the largest peak resident memory (MB) and the number of jobs."""
    rows = []
    for path in sorted(folder.glob("*.tsv")):
        t = pd.read_csv(path, sep="\t")
        rows.append(
            {"rule": path.name.split(".")[0], "s": float(t["s"].iloc[-1]), "max_rss_mb": float(t["max_rss"].iloc[-1])}
        )
    if not rows:
        return pd.DataFrame(columns=["rule", "s", "max_rss_mb", "jobs"])
    df = pd.DataFrame(rows)
    return df.groupby("rule").agg(s=("s", "sum"), max_rss_mb=("max_rss_mb", "max"), jobs=("s", "size")).reset_index()


def growth(table: pd.DataFrame) -> pd.DataFrame:
    """Per rule, over the sizes measured: the exponent b of time ~ (L H^2)^b (least squares on
    log-log; L H^2, the encoder's multiply-adds per token up to a constant), and the straight line
    time = fixed_s + per_unit_s x L H^2 / 1e6 (fixed_s: what does not grow with the model, such as
    loading it and starting the job, clipped at 0). A tenth of the corpora makes the fixed part
    weigh more than in the default run, so b understates the growth where fixed_s is large."""
    rows = []
    for rule, g in table.groupby("rule"):
        units = g["layers"] * g["hidden"] ** 2.0 / 1e6
        sizes = units.nunique() > 1
        b = float(np.polyfit(np.log(units), np.log(g["s"].clip(lower=1e-3)), 1)[0]) if sizes else np.nan
        slope, fixed = np.polyfit(units, g["s"], 1) if sizes else (np.nan, np.nan)
        rows.append({"rule": rule, "exponent": b, "fixed_s": max(float(fixed), 0.0), "per_unit_s": float(slope)})
    return pd.DataFrame(rows)


# How each rule of the default run scales with the model, by the measured rule it resembles most:
# the model's forward (and backward) passes on its inputs scale like extraction; a fine-tuning like
# the fine-tuning measured; a rule that reads the maps like the surface sums (per head and token
# pair); a rule the size benchmark runs itself by its own measurement. The explanation classifiers
# (attn_classifiers and the tests that read them) carry a frozen copy of the model beside GloVe
# encoders: scaled as forward passes, an upper bound. The scorecard and the pages do not scale.
PROXY = {
    **dict.fromkeys(
        [
            "extract_attention", "glue_attention", "disable_heads_scores", "gradient_importance",
            "head_importance_scores", "rollout", "explorer_maps", "mlm_head", "attn_classifiers",
            "erasure", "erasure_cls", "permutation", "adversarial", "rank_agreement",
        ],
        "extract_attention",
    ),
    **dict.fromkeys(["finetune"], "finetune"),
    **dict.fromkeys(["surface_sums", "probes_train", "patterns", "pattern_features"], "surface_sums"),
    **dict.fromkeys(["head_clusters", "dep_heads", "coref_heads"], None),  # measured themselves
}  # fmt: skip


def predict(table: pd.DataFrame, default: pd.DataFrame, fits: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every rule of the default run (``default``: its per-rule job seconds) at every measured size:
    its time times the growth, measured at that size against the smallest, of the rule it scales
    like (:data:`PROXY`; itself where it was measured; a rule in neither: 1, it does not run the
    model, e.g. the GloVe-only Tutek & Snajder models). The growth is that of the part that grows
    (time less :func:`growth`'s fixed part, which the default run's larger inputs make small);
    ``ratio`` beside it is the plain ratio of the measured times. Columns size, rule, scales_like,
    ratio, growth, default_s, predicted_s. ``fits``: :func:`growth` of ``table``, if already made."""
    key = table["layers"] * table["hidden"] ** 2
    fixed = (growth(table) if fits is None else fits).set_index("rule")["fixed_s"]
    base = table[key == key.min()].set_index("rule")["s"]
    rows = []
    for size, g in table.groupby("size", sort=False):
        at = g.set_index("rule")["s"]
        for r in default.itertuples():
            like = PROXY.get(r.rule) or (r.rule if r.rule in at.index else None)
            plain = float(at.get(like, np.nan) / base.get(like, np.nan)) if like else 1.0
            c = float(fixed.get(like, 0.0)) if like else 0.0
            grows = (
                (at.get(like, np.nan) - c) / (base.get(like, np.nan) - c) if like and base.get(like, 0) > c else plain
            )
            rows.append(
                {"size": size, "rule": r.rule, "scales_like": like or "(no model)", "ratio": plain,
                 "growth": float(grows), "default_s": r.s, "predicted_s": r.s * float(grows)}
            )  # fmt: skip
    return pd.DataFrame(rows)


def clear_outputs(slug: str, root: Path = ROOT) -> list[Path]:
    """Remove every output of model ``slug`` (results/, benchmarks/, logs/ and resources/*/ of its
    slug), so that each of its rules runs and is timed (a kept table would skip its rule, and a rule
    whose temporary maps are gone would not rerun either). The folders removed."""
    import shutil

    folders = [root / top / slug for top in ("results", "benchmarks", "logs")]
    folders += sorted((root / "resources").glob(f"*/{slug}"))
    gone = [f for f in folders if f.is_dir()]
    for f in gone:
        shutil.rmtree(f)
    return gone


def slug_of(size: str) -> str:
    """The model folder's name, and so its ``{model}`` slug: bert-12x768, bert-6x384x12."""
    parse_size(size)  # a bad size stops here, with its name
    return "bert-" + size.lower()


def run_size(size: str, cores: int, work: Path, dry: bool) -> str:
    # the model folder two levels down, out of the reach of clear_outputs (resources/*/<slug>)
    model_dir = build_model_dir(work / "models" / slug_of(size), *parse_size(size))
    spec = str(model_dir.resolve())
    slug = model_slug(spec)
    config = work / f"{slug_of(size)}.yaml"
    config.write_text(yaml.safe_dump(overlay(spec), sort_keys=False))
    cmd = ["snakemake", "--cores", str(cores), *targets(slug), "--configfile", str(config)]
    if dry:
        cmd.append("-n")
    else:
        clear_outputs(slug)
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)
    return slug


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["6x384x12", "12x768", "24x1024"])
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument(
        "--work", type=Path, default=ROOT / "resources" / "size_benchmark", help="model folders and overlays"
    )
    ap.add_argument("--out", type=Path, help="the per rule and size csv (beside it: .prediction.csv)")
    ap.add_argument(
        "--default-benchmarks",
        type=Path,
        default=ROOT / "benchmarks" / "all-MiniLM-L6-v2",
        help="the default run's benchmarks, whose per-rule times the prediction scales",
    )
    ap.add_argument("-n", "--dry-run", action="store_true", help="build the models and dry-run the workflow only")
    ap.add_argument("--collect", action="store_true", help="run nothing: read the benchmarks an earlier run left")
    args = ap.parse_args(argv)
    parts = []
    for size in args.sizes:
        layers, hidden, heads = parse_size(size)
        slug = slug_of(size) if args.collect else run_size(size, args.cores, args.work, args.dry_run)
        if args.dry_run:
            continue
        times = rule_times(ROOT / "benchmarks" / slug)
        parts.append(times.assign(size=size, layers=layers, hidden=hidden, heads=heads))
    if args.dry_run:
        return 0
    table = pd.concat(parts, ignore_index=True)[
        ["size", "layers", "hidden", "heads", "rule", "jobs", "s", "max_rss_mb"]
    ]
    fits = growth(table)
    table = table.merge(fits, on="rule", how="left")
    print(table.to_string(index=False))
    prediction = None
    if args.default_benchmarks.is_dir():
        prediction = predict(table, rule_times(args.default_benchmarks), fits)
        totals = prediction.groupby("size", sort=False)[["default_s", "predicted_s"]].sum()
        print("\nthe default run's job seconds, predicted per size:\n" + totals.round(0).to_string())
    if args.out:
        table.to_csv(args.out, index=False, float_format="%.4g")
        if prediction is not None:
            prediction.to_csv(args.out.with_suffix(".prediction.csv"), index=False, float_format="%.4g")
    return 0


if __name__ == "__main__":
    sys.exit(main())
