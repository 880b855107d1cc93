"""Wiegreffe & Pinter's stopping rule, measured as theirs, on the default run's Tutek & Snajder models.

The rule ``staying_true_adversary``'s job as the workflow builds it (its inputs, its config, with
overlays), with the adversary config changed to Wiegreffe & Pinter's rule (``stopping: patience``,
``loss_patience`` 10, ``max_epochs`` 80), the weights to those at most ``--max-weight`` (their
range, 0.01), the search kept, on ``--models`` (base, tying, mlm), once with the attacked model's
regulariser in the adversary's loss and once without (``regulariser``; a model without one trains
alike both ways, so it is trained once and its rows stand in both). Writes the adversaries' table
and the equal-JSD summary, both with a column ``regulariser``:

    python -m tools.measure.adversary_rule [overlay.yaml ...] [--out-dir docs]

(docs/staying_true_adversary_patience.csv and .summary.csv, which docs/deviations.md cites). The
models' bundle and the SST-2 files must exist (a finished ``staying_true_models``).
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
from pathlib import Path

import pandas as pd

from analysis.explanation.staying_true.adversary import AdversaryConfig
from analysis.explanation.staying_true.models import VARIANTS

STEM = "staying_true_adversary_patience"
WITH_REGULARISER = ("tying", "mlm")  # the variants whose loss has a term of its own


def patience_config(adversary: dict, max_weight: float, batch_size: int, seed: int) -> AdversaryConfig:
    """The rule's adversary config (``staying_true.adversary``) under Wiegreffe & Pinter's rule, on its
    weights at most ``max_weight``."""
    weights = tuple(w for w in adversary["weights"] if w <= max_weight)
    if not weights:
        raise SystemExit(f"staying_true.adversary.weights: none at most --max-weight {max_weight}")
    rule = {"stopping": "patience", "loss_patience": 10, "max_epochs": 80, "weights": weights}
    return AdversaryConfig.from_params({**adversary, **rule}, batch_size=batch_size, seed=seed)


def runs(models: list[str]) -> list[tuple[bool, list[str]]]:
    """(regulariser, models trained with it): every model with it, those with a term of their own
    (if any) without it too."""
    own = [m for m in models if m in WITH_REGULARISER]
    return [(True, models), *([(False, own)] if own else [])]


def measure(sm, models: list[str], max_weight: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The adversaries and the summary of the rule's job ``sm`` (a mock_snakemake object) under
    :func:`patience_config`, both ways of :func:`runs`."""
    from analysis.core.device import load_bundle
    from analysis.explanation.sst2 import read_sst2
    from analysis.explanation.staying_true.adversary_runs import run_adversary
    from analysis.explanation.staying_true.curves import equal_jsd_summary
    from analysis.explanation.staying_true.models import StayingTrueConfig, load_variants

    p, seed = sm.params, sm.params.seed
    bundle = load_bundle(sm.input.model)
    vocab, trained = load_variants(bundle)
    raw_dir = Path(sm.input.glue).parent
    train, _ = read_sst2(raw_dir, "train", p.n_train, seed, task=p.task)
    dev, _ = read_sst2(raw_dir, "dev", task=p.task)
    xs_train, xs_dev = [vocab.ids(w) for w, _ in train], [vocab.ids(w) for w, _ in dev[: p.n_explain]]
    base_cfg = patience_config(p.adversary, max_weight, p.batch_size, seed)
    tables = {}
    for regulariser, names in runs(models):
        cfg = dataclasses.replace(base_cfg, regulariser=regulariser)
        chosen = {m: trained[m] for m in names}
        st_cfg = StayingTrueConfig(**bundle["cfg"])
        tables[regulariser] = run_adversary(chosen, xs_train, xs_dev, cfg, st_cfg, bundle.get("init_embeddings"))
    # a model without a term of its own trains alike both ways: its rows stand in both
    without = tables[True][~tables[True].model.isin(WITH_REGULARISER)].assign(regulariser=False)
    tables[False] = pd.concat([without, tables.get(False)], ignore_index=True)
    adversaries = pd.concat([tables[True], tables[False]], ignore_index=True)
    summary = pd.concat(
        [
            equal_jsd_summary(t, base_cfg.jsd_levels, base_cfg.bracket_jsd).assign(regulariser=r)
            for r, t in tables.items()
        ],
        ignore_index=True,
    )
    return adversaries, summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("overlays", nargs="*", help="config overlays on config/config.default.yaml")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="the run's model slug (the wildcard)")
    ap.add_argument("--models", nargs="+", default=["base", "tying", "mlm"], choices=VARIANTS)
    ap.add_argument("--max-weight", type=float, default=0.01)
    ap.add_argument("--out-dir", type=Path, default=Path("docs"))
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the rule's job: 1)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    out = args.out_dir.resolve()
    from analysis.shared.rule_io import mock_snakemake, use_threads

    use_threads(args.threads)  # as the rule's job: torch's default pool oversubscribes a shared machine
    script = Path(__file__).resolve().parents[2] / "workflow" / "staying_true_adversary.py"
    sm = mock_snakemake(str(script), [f"model={args.model}", *[str(Path(o).resolve()) for o in args.overlays]])
    adversaries, summary = measure(sm, args.models, args.max_weight)
    out.mkdir(parents=True, exist_ok=True)
    adversaries.to_csv(out / f"{STEM}.csv", index=False, float_format="%.6g")
    summary.to_csv(out / f"{STEM}.summary.csv", index=False, float_format="%.6g")
    print(f"wrote {out / STEM}.csv and .summary.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
