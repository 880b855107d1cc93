"""End-to-end: the whole DAG on config/smoke.yaml (tiny random BERT, a handful of inputs) in a
temporary copy of the workflow, on the fixture mirror of tests/fixtures (the full offline mirror's
sources: tests/e2e/test_real_mirror.py), then checks on every declared output."""

import json
import re
import subprocess

import numpy as np
import pandas as pd
import pytest
import yaml

from analysis.scorecard.claims import claim_files, read_claims
from analysis.scorecard.evaluate import ALSO_RANDOM, INCONCLUSIVE, MULTIPLICITY, NO_CONTROL, SEED, VERDICTS
from conftest import ROOT, SNAKEMAKE

pytestmark = pytest.mark.slow
RULES = {
    m.group(1) for p in (ROOT / "rules").glob("*.smk") for m in re.finditer(r"^\s*rule (\w+):", p.read_text(), re.M)
}
AGGREGATES = {"all", *(p.stem for p in (ROOT / "rules").glob("*.smk"))}
MODEL = "tiny-random-bert"


def snakemake(smoke_run, *args, overlays=()):
    work, env, configfiles = smoke_run
    return subprocess.run(
        [SNAKEMAKE, *args, "--configfile", *configfiles, *overlays],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )


def jobs_to_run(smoke_run, *args, overlays=()) -> set[str]:
    """Rules a dry run would run (from Snakemake's job stats), aggregate rules left out."""
    run = snakemake(smoke_run, "-n", *args, overlays=overlays)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout + run.stderr
    if "Nothing to be done" in out:
        return set()
    stats = out.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    jobs = {m.group(1) for m in re.finditer(r"^(\w+)\s+\d+\s*$", stats, re.M)} - {"total"}
    return jobs - AGGREGATES


def test_every_declared_output_exists(smoke_run):
    work = smoke_run[0]
    # nothing left to do: every target of `rule all` is there and up to date
    assert jobs_to_run(smoke_run) == set()
    figures = list((work / "results" / MODEL / "figures").glob("*.png"))
    assert len(figures) >= 5
    for fig in figures:
        assert fig.stat().st_size > 5000, fig
        assert (work / "results" / MODEL / "tables" / f"{fig.stem}.csv").exists(), f"no table beside {fig.name}"


def test_maps_are_deleted_once_read(smoke_run):
    """keep_maps: false (default): every map array is gone once its readers ran (peak disk stays
    low); the shard headers stay. (The maps' values are checked in test_storage_extraction.)"""
    from analysis.core.storage import Shards

    work = smoke_run[0]
    assert not list((work / "resources").rglob("shard-*.npy"))
    shards = Shards(sorted((work / "resources" / "attention" / MODEL / "wiki").glob("shard-*.json")))
    assert len(shards) == 12  # n_segments of the smoke config
    for s in shards.shards:
        for ex in s.metadata():
            assert ex["n"] <= 64
            assert ex["kinds"][0] == "C" and ex["kinds"].count("S") == 2


def test_surface_tables_are_sane(smoke_run):
    work = smoke_run[0]
    tables = work / "results" / MODEL / "tables"
    rp = pd.read_csv(tables / "relative_position.csv")
    assert len(rp) == 2 * 4 and rp.layer.min() == 1 and rp["head"].max() == 4
    assert ((rp[["prev", "current", "next"]] >= 0) & (rp[["prev", "current", "next"]] <= 1)).all().all()
    st = pd.read_csv(tables / "special_tokens.csv")
    assert (st[["cls", "sep", "punct"]].sum(axis=1) <= 1 + 1e-6).all()
    en = pd.read_csv(tables / "entropy.csv")
    assert (en.entropy <= en.uniform_entropy + 1e-6).all() and (en.entropy >= 0).all()
    counts = json.loads((work / "resources" / "inputs" / MODEL / "wiki.counts.json").read_text())
    assert counts["segments_sampled"] == 12


def test_analysis_tables_are_sane(smoke_run):
    work = smoke_run[0]
    tables = work / "results" / MODEL / "tables"
    L, H = 2, 4  # the tiny random BERT
    for corpus in ("gum_sd_dev", "wsj_dp", "ewt_dev"):
        t1 = pd.read_csv(tables / f"dep_heads.{corpus}.csv")
        assert (t1.n > 0).all() and t1.accuracy.between(0, 1).all() and t1.baseline_accuracy.between(0, 1).all()
        full = pd.read_csv(tables / f"dep_heads.full.{corpus}.csv")
        assert full.groupby(["relation", "direction"]).size().eq(L * H).all()
        grid = pd.read_csv(tables / f"dep_heads.grid.{corpus}.csv")
        assert grid.groupby("relation").best.sum().eq(1).all()
    coref = pd.read_csv(tables / "coref_heads.csv")
    assert (coref.n_correct <= coref.n).all() and coref.accuracy.dropna().between(0, 1).all()
    probes = pd.read_csv(tables / "probes.csv")
    assert len(probes) >= 4 and probes.uas.between(0, 1).all()
    dist = pd.read_csv(tables / "head_clusters.distances.csv").pivot(
        index=["layer_a", "head_a"], columns=["layer_b", "head_b"], values="js_sum"
    )
    d = dist.to_numpy()
    assert d.shape == (L * H, L * H) and np.allclose(d, d.T) and np.allclose(np.diag(d), 0) and (d >= 0).all()
    mlm = pd.read_csv(tables / "mlm_head.csv")
    assert np.isfinite(mlm.loss).all() and mlm.accuracy.between(0, 1).all()
    grads = pd.read_csv(tables / "gradient_importance.csv")
    assert len(grads) and np.isfinite(grads.select_dtypes("number")).all().all()
    change = pd.read_csv(tables / "finetune_change.csv")
    assert change.cosine.between(0, 1 + 1e-6).all()  # maps are non-negative
    disable = pd.read_csv(tables / "disable_heads.csv")
    per_task_metric = disable.groupby(["task", "metric"]).size()
    assert per_task_metric.eq(L * (H + 1)).all()  # every head alone and every whole layer
    assert (disable.groupby(["task", "metric"]).scope.apply(lambda s: (s == "layer").sum()) == L).all()
    adv = pd.read_csv(tables / "adversarial.csv")
    assert adv.jsd.between(0, np.log(2) + 1e-6).all()
    shares = pd.read_csv(tables / "patterns.csv")
    assert len(shares)
    # the smoke model is not the model whose maps were hand-labelled: every row says so
    assert shares["extrapolated"].all() and (shares["labels_from"] == "all-MiniLM-L6-v2").all()


def test_scorecard_and_explorer(smoke_run):
    """Every claim gets a verdict from the smoke tables; the explorer page embeds the maps."""
    work = smoke_run[0]
    card = pd.read_csv(work / "results" / MODEL / "tables" / "scorecard.csv")
    claims = read_claims(claim_files(work))
    assert card["id"].tolist() == [c["id"] for c in claims]
    assert set(card["verdict"]) <= set(VERDICTS)
    # the random-init control (on by default) is judged on every claim that reads the pre-trained maps,
    # and only those (the registry marks their tables); claims on fine-tuned maps state the role
    # descriptive and have no control draw
    map_claims = card["control_draws"].notna()
    assert card.loc[map_claims, "id"].str.startswith(("clark3.", "clark4.", "clark6.")).all() and map_claims.sum() >= 20
    finetuned = card["control_role"].notna() & ~map_claims
    assert card.loc[finetuned, "id"].str.startswith("kovaleva.").all() and finetuned.sum() >= 4
    assert (card.loc[finetuned, "control_role"] == "descriptive").all()
    assert card.loc[map_claims, "control_verdict"].isin(VERDICTS).all()
    assert card.loc[~map_claims, "control_verdict"].isna().all()
    # each map claim shows the model's lead over its control (model minus control) where both have a value
    both = map_claims & card["control_value"].notna() & card["our_value"].notna()
    assert card.loc[both, "control_difference"].notna().all()
    assert (work / "results" / f"{MODEL}--random-init" / "tables" / "relative_position.csv").exists()
    ran = card[
        card["verdict"].isin(["holds", ALSO_RANDOM, NO_CONTROL, INCONCLUSIVE, MULTIPLICITY, SEED, "does not hold"])
    ]
    assert len(ran) >= 25 and ran["our_value"].notna().all()
    # "not run" only for tables no rule of this workflow makes, or for a claim that says why its rows
    # may be absent (optional: the smoke config leaves SST-2 out of the fine-tuned tasks)
    optional = {c["id"]: c["optional"] for c in claims if c.get("optional")}
    for _, row in card[card["verdict"] == "not run"].iterrows():
        if row["id"] in optional:
            assert row["reason"].endswith(optional[row["id"]]), row.to_dict()
        else:
            assert "not produced" in row["reason"], row.to_dict()
    page = (work / "results" / MODEL / "explorer.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and '"n_layers":2,"n_heads":4' in page
    assert "<script src" not in page and "<link" not in page  # self-contained


def test_rerun_gives_identical_tables(smoke_run):
    work = smoke_run[0]
    table = work / "results" / MODEL / "tables" / "special_tokens.csv"
    before = table.read_bytes()
    # the target before --forcerun, whose list would take it as a rule name (and rerun `all`)
    run = snakemake(smoke_run, "--cores", "1", str(table.relative_to(work)), "--forcerun", "prepare_inputs")
    assert run.returncode == 0, run.stderr[-3000:]
    ran = {m.group(1) for m in re.finditer(r"^(?:local)?rule (\w+):", run.stdout + run.stderr, re.M)}
    assert ran == {"prepare_inputs", "extract_attention", "surface_sums", "special_tokens"}, ran
    assert table.read_bytes() == before


def test_report_builds(smoke_run):
    work = smoke_run[0]
    run = snakemake(smoke_run, "--report", "report.html")
    assert run.returncode == 0, run.stderr[-3000:]
    assert (work / "report.html").stat().st_size > 10000


def test_every_output_name_starts_with_its_rule(smoke_run):
    """<rule>.<parts>: the rule (and workflow/<rule>.py) behind any result is found from its name."""
    work = smoke_run[0]
    files = [p for p in (work / "results").rglob("*") if p.is_file()]
    assert len(files) > 50
    for path in files:
        rule = path.name.split(".", 1)[0]
        assert rule in RULES, f"{path.relative_to(work)}: no rule named {rule!r}"
        assert (work / "workflow" / f"{rule}.py").exists(), path


# the map shards of the smoke run are deleted (keep_maps: false): a rule that reads maps and must
# rerun re-extracts them, and then every other reader of those maps reruns too (same tables)
WIKI_READERS = {"extract_attention", "surface_sums", "relative_position", "special_tokens", "sep_attention", "entropy"}
WIKI_READERS |= {"head_clusters"}
# gradient_importance marks the rows of the attention sink that rule sep_attention chooses on the maps
WIKI_READERS |= {"gradient_importance"}
DEP_READERS = {"extract_attention", "probes_train", "probes"}
OVERVIEW = {"explorer_maps", "explorer", "scorecard"}


@pytest.mark.parametrize(
    "change, reruns",
    [
        # scorecard re-reads the tables its claims name, explorer the sec. 3 tables and dep_heads.full;
        # explorer_maps reads the wiki maps (so a change that re-extracts them reruns it too)
        ({"explanation": {"n_permutations": 7}}, {"permutation", "scorecard"}),
        ({"clark_probes": {"paper_uas": {"attention-only": 60}}}, {"probes", "scorecard"}),
        ({"clark_surface": {"example_window": 30}}, {"example_heads"} | WIKI_READERS | OVERVIEW),
        (
            {"clark_syntax": {"relations": ["nsubj", "det"]}},
            {"dep_heads", "dobj_head_example"} | DEP_READERS | {"scorecard", "explorer"},
        ),
        ({"overview": {"explorer": {"n_examples": 2}}}, {"example_heads"} | WIKI_READERS | OVERVIEW),
    ],
)
def test_a_value_reruns_only_the_rules_that_use_it(smoke_run, change, reruns, tmp_path):
    """Rules get only the values they use: a display value or a paper number never retrains (with
    keep_maps: false, a map reader that reruns re-extracts its maps and their other readers rerun)."""
    overlay = tmp_path / "change.yaml"
    overlay.write_text(yaml.safe_dump(change))
    assert jobs_to_run(smoke_run, overlays=[str(overlay)]) == reruns


def test_staying_true_tables_are_sane(smoke_run):
    tables = smoke_run[0] / "results" / MODEL / "tables"
    models = pd.read_csv(tables / "staying_true_models.csv")
    assert list(models.model) == ["base", "concat", "residual", "tying", "mlm"]
    assert models.dev_accuracy.between(0, 1).all() and (models.train_seconds > 0).all()
    adv = pd.read_csv(tables / "staying_true_adversary.csv")
    assert adv.mean_jsd.between(0, np.log(2) + 1e-6).all() and adv.mean_tvd.between(0, 1).all()
    perm = pd.read_csv(tables / "staying_true_permutation.csv")
    assert perm.accuracy_under_permutation.between(0, 1).all() and perm.median_output_change.between(0, 1).all()
    single = pd.read_csv(tables / "staying_true_single_token.csv")
    assert single.single_std.between(0, 0.5).all() and single.tau_polarity.dropna().between(-1, 1).all()
    assert len(pd.read_csv(tables / "staying_true_erasure.csv")) == 5
