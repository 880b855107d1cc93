"""Every supported encoder family (analysis.core.model_families.FAMILIES), built tiny here with random
weights and no download (tests/helpers/families.py), saved both ways a user's checkpoint comes: with
its masked-LM head (as published) and without it (the bare encoder, as a fine-tuned encoder is often
saved: rule mlm_head fits a head), and ELECTRA's discriminator; all in one Snakemake run on the
fixture mirror.

Where a family's code paths live, every checkpoint runs: the rules that load or run its model
(the heavy rules, ``analysis.scheduling.heavy_rules.HEAVY``) for each published form (with its head,
and ELECTRA's discriminator), and the rules whose path depends on the form (loading, the masked-LM
head, fine-tuning, disabling heads: ``FORM_RULES``) for each bare one. Two checkpoints, one per
tokenizer kind (WordPiece, byte-level BPE: the readers of tokens differ by it, not by family), run
the whole DAG to their scorecard. Every rule after the heavy ones reads tables and maps of the
shapes the config gives, whatever the family; ``FAMILY_WHOLE_DAG=1`` runs every checkpoint through
the whole DAG (about 2 minutes a checkpoint on 2 cores). The targets are read from Snakemake's own
``--summary`` of the whole DAG (a cut DAG with ``--until`` stops in Snakemake itself, "Out of jobs
ready to be started", snakemake/snakemake#823).

    FAMILY_CHECKPOINTS=modernbert.bare,bert.mlm pytest -m slow tests/e2e/test_families.py   # a part of it
"""

import json
import os
import subprocess

import pandas as pd
import pytest
import yaml

from analysis.scheduling.heavy_rules import HEAVY
from conftest import SNAKEMAKE, dag_summary, failed_run, smoke_workdir, summary_rows
from helpers.families import CHECKPOINTS, build_family

pytestmark = pytest.mark.slow
# smaller than the smoke run where the rules do not change: one shard per corpus, one GLUE task
OVERLAY = {
    "overview": {"random_init_control": False},
    "kovaleva_finetune": {"tasks": ["RTE"]},
}
# (directory name = results slug, family, form) of the checkpoints run: all, or those named (to debug one)
ONLY = [c for c in os.environ.get("FAMILY_CHECKPOINTS", "").split(",") if c]
RUN = [c for c in CHECKPOINTS if not ONLY or c[0] in ONLY]
# through the whole DAG: one checkpoint per tokenizer kind (a bare one: the fitted head feeds every reader)
WHOLE_DAG = {slug for slug, _, _ in RUN} if os.environ.get("FAMILY_WHOLE_DAG") else {"bert.bare", "roberta.mlm"}
# a bare checkpoint's form-dependent rules: its loading (extraction, on one corpus), the fitted
# masked-LM head and its gradients, fine-tuning from the bare encoder, disabling its heads
# heavy rules whose work is the same whatever the family: the machine's matmul rates; the tests of
# the attention classifiers (small CPU models re-run; the encoder's part is rule attn_classifiers')
NO_FAMILY_PATH = {"measure_matmul", "erasure", "permutation", "adversarial"}
FORM_RULES = {"extract_attention", "mlm_head", "gradient_importance", "finetune", "disable_heads_scores"}


def rules_run(slug: str, form: str, whole=WHOLE_DAG) -> set[str] | None:
    """The rules a checkpoint's targets come from (None: the whole DAG)."""
    if slug in whole:
        return None
    return set(HEAVY) - NO_FAMILY_PATH if form != "bare" else FORM_RULES


def targets(summary: str, run=RUN, whole=WHOLE_DAG) -> list[str]:
    """Every output of ``snakemake --summary`` (a tab-separated table: output_file, date, rule, ...) that
    a checkpoint's rules write (under a folder named by its slug; extraction's sidecars, not its maps,
    which are deleted once read), and where every checkpoint runs the whole DAG, every output of no
    model or of them all (compare); a whole-DAG checkpoint's own targets bring what it needs of them."""
    out = []
    for path, rule in summary_rows(summary):
        parts = path.split("/")
        owner = [(slug, form) for slug, _, form in run if slug in parts]
        if not owner:  # of no model (or of every one: compare): needed where every checkpoint runs it all
            out += [path] if {slug for slug, _, _ in run} <= set(whole) else []
            continue
        slug, form = owner[0]
        rules = rules_run(slug, form, whole)
        if path.startswith("resources/attention/") or (rules is not None and rule not in rules):
            continue
        if form == "bare" and rules is not None and rule == "extract_attention" and ".wiki." not in path:
            continue
        out.append(path)
    return out


@pytest.fixture(scope="module")
def families_run(tmp_path_factory):
    assert RUN, f"FAMILY_CHECKPOINTS={','.join(ONLY)}: none of {[c[0] for c in CHECKPOINTS]}"
    root = tmp_path_factory.mktemp("families")
    dirs = [build_family(name, root / "models" / slug, form) for slug, name, form in RUN]
    work, env, configfiles = smoke_workdir(root / "work", "fixture mirror")
    smoke = yaml.safe_load((work / "config" / "smoke.yaml").read_text())
    corpora = {name: {**c, "n_shards": 1} for name, c in smoke["corpora"].items() if "n_shards" in c}
    overlay = {**OVERLAY, "model": [str(d) for d in dirs], "corpora": corpora}
    (work / "families.yaml").write_text(yaml.safe_dump(overlay))
    configfiles = [*configfiles, "families.yaml"]
    summary = dag_summary(work, env, configfiles)
    (work / "summary.tsv").write_text(summary)
    wanted = targets(summary)
    (work / "targets.txt").write_text("\n".join(wanted))
    # --notemp: a target's job whose maps (temporary) were deleted would read as incomplete to the
    # dry run after it (an extraction sidecar among the targets re-runs its extraction)
    cmd = [SNAKEMAKE, "--cores", "2", "--notemp", "--configfile", *configfiles, "--", *wanted]
    run = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=2 * 3600)
    if run.returncode != 0:
        pytest.fail(failed_run(run, work))
    return work, env, configfiles, wanted


def test_the_matrix_has_every_family_with_and_without_its_head():
    from analysis.core.model_families import FAMILIES

    for family in FAMILIES:
        assert {form for _, name, form in CHECKPOINTS if name == family} >= {"mlm", "bare"}, family


def test_the_targets_cover_every_checkpoints_rules():
    summary = "output_file\tdate\trule\n" + "\n".join(
        [
            "resources/raw/glue/SHA256SUMS\t-\tfetch_source",
            "results/bert.bare/tables/entropy.csv\t-\tentropy",
            "results/albert.mlm/tables/entropy.csv\t-\tentropy",
            "results/albert.mlm/tables/probes_train.csv\t-\tprobes_train",
            "resources/attention/albert.mlm/wiki/shard-0.npy\t-\textract_attention",
            "results/albert.bare/tables/extract_attention.wiki.0.json\t-\textract_attention",
            "results/albert.bare/tables/extract_attention.gap_dev.0.json\t-\textract_attention",
            "results/albert.bare/tables/probes_train.csv\t-\tprobes_train",
            "resources/disable_heads/albert.bare/RTE.csv\t-\tdisable_heads_scores",
        ]
    )
    run = [("bert.bare", "bert", "bare"), ("albert.mlm", "albert", "mlm"), ("albert.bare", "albert", "bare")]
    assert targets(summary, run, {"bert.bare"}) == [
        "results/bert.bare/tables/entropy.csv",  # a whole-DAG checkpoint: every rule
        "results/albert.mlm/tables/probes_train.csv",  # a published form: its heavy rules only
        "results/albert.bare/tables/extract_attention.wiki.0.json",  # a bare form: its form's rules, one corpus
        "resources/disable_heads/albert.bare/RTE.csv",
    ]
    # every checkpoint through the whole DAG: every output but the maps
    assert targets(summary, run, {"bert.bare", "albert.mlm", "albert.bare"}) == [
        line.split("\t")[0] for line in summary.splitlines()[1:] if "attention/" not in line
    ]


def test_every_checkpoint_ran_its_rules(families_run):
    work, env, configfiles, wanted = families_run
    dry = subprocess.run(
        [SNAKEMAKE, "-n", "--configfile", *configfiles, "--", *wanted],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]
    made, in_dag = {}, {}  # slug -> the rules of its targets, the rules of its outputs in the whole DAG
    for path, rule in summary_rows((work / "summary.tsv").read_text()):
        slugs = [slug for slug, _, _ in RUN if slug in path.split("/")]
        if slugs:
            in_dag.setdefault(slugs[0], set()).add(rule)
            if path in wanted:
                made.setdefault(slugs[0], set()).add(rule)
    for slug, _, form in RUN:
        expected = (rules_run(slug, form) or in_dag[slug]) & in_dag[slug]
        assert made[slug] == expected, (slug, expected ^ made[slug])
        assert (work / "results" / slug / "tables" / "mlm_head.csv").exists(), slug
        assert (work / "results" / slug / "tables" / "gradient_importance.csv").exists(), slug
        assert (work / "resources" / "disable_heads" / slug / "RTE.csv").exists(), slug


def test_each_checkpoint_reaches_its_heads_and_its_masked_lm_head(families_run):
    work = families_run[0]
    for slug, name, form in RUN:
        cost = json.loads((work / "resources" / "disable_heads" / slug / "RTE.cost.json").read_text())
        assert cost["cached"] == (name != "albert"), slug  # ALBERT's one shared layer: every layer re-run
        head = json.loads((work / "results" / slug / "tables" / "mlm_head.json").read_text())
        assert ("fitted" in head["head_source"]) == (form != "mlm"), (slug, head["head_source"])
        table = pd.read_csv(work / "results" / slug / "tables" / "mlm_head.csv")
        held = table[table.split == "held-out"].iloc[-1]
        assert held["head"] == ("pre-trained" if form == "mlm" else "fitted on frozen encoder"), slug
        assert 0.0 <= held.accuracy <= 1.0 and held.n_tokens > 0, slug  # the held-out accuracy, reported
        grads = json.loads((work / "results" / slug / "tables" / "gradient_importance.json").read_text())
        assert grads["head"].startswith(head["head_source"]) and "held-out MLM loss" in grads["head"], slug
        scores = pd.read_csv(work / "resources" / "disable_heads" / slug / "RTE.csv")
        assert scores.layer.max() == 3 and scores["head"].max() == 4, slug


def test_the_whole_dag_checkpoints_reach_their_scorecard(families_run):
    work = families_run[0]
    for slug, _, _ in RUN:
        if slug in WHOLE_DAG:
            card = pd.read_csv(work / "results" / slug / "tables" / "scorecard.csv")
            assert len(card) > 40 and card.verdict.notna().all(), slug
