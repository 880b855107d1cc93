# The claim scorecard's inputs (rules/overview.smk): which tables the claims of
# config/claims/<section>.yaml read (each declared by its rule: claim_table below), and
# which of them each run of a model makes (the model's own, its random-init control, its training
# replicates). Functions only; computed on first use, once every rule is defined.

from analysis.scorecard.claims import read_claims
from analysis.scorecard.evaluate import tables_read
from analysis.scorecard.registry import lookup

# The claim tables: every table a claim of config/claims/ can read, declared where its
# rule names it (claim_table in the rule's output), with what the scorecard and the DAG need to
# know of it: stem pattern -> the rule, the unit one bootstrap resample draws (and the cluster key
# of units drawn together, where there is one), whether it is read off the pre-trained model's
# attention maps (then the random-init control makes it too), the training family it comes from
# (config trainings; its training runs make it again) and whether the rule writes its
# replicate table <stem>.boot.csv.
CLAIM_TABLES = {}


def claim_table(rule, *parts, unit, reads_maps=False, finetuned_maps=False, family=None, replicates=True, cluster=None):
    """table(rule, *parts), registered in CLAIM_TABLES (reads_maps: the pre-trained model's maps, which
    the random-init control is run on; finetuned_maps: fine-tuned models' maps, which have no control)."""
    CLAIM_TABLES[_stem(rule, parts)] = {
        "rule": rule,
        "unit": unit,
        "cluster": cluster,
        "reads_maps": reads_maps,
        "finetuned_maps": finetuned_maps,
        "family": family,
        "replicates": replicates,
    }
    return table(rule, *parts)


CLAIMS_FILES = config["overview"]["claims"]  # one file or a list, read in order
_CLAIMED = []
_SECTION_TARGETS = []


def claimed():
    """Every table stem a claim reads, read on first use (when every rule has declared its claim
    tables: the claims derive what they read off maps and their training family from them)."""
    if not _CLAIMED:
        claims = read_claims(CLAIMS_FILES, CLAIM_TABLES, trainings=config["trainings"])
        _CLAIMED.extend(sorted({stem for claim in claims for stem in tables_read(claim)}))
    return _CLAIMED


def section_targets():
    """Every file the paper sections' aggregate rules ask for (every model): the tables a claim
    can read. Computed on first use, when every rule is defined."""
    if not _SECTION_TARGETS:
        for name in SECTIONS:
            if name != "overview":
                _SECTION_TARGETS.extend(str(f) for f in getattr(rules, name).input)
    return set(_SECTION_TARGETS)


def scorecard_rules_left_out():
    chosen = config["overview"]["scorecard_rules"]
    return [] if chosen is None else sorted({lookup(CLAIM_TABLES, t)["rule"] for t in claimed()} - set(chosen))


def _run(slug, stems, wildcards):
    """stem -> {table, boot} of one run (results/<slug>/) of the model: the claimed tables among
    ``stems`` that this workflow makes for the model, of the rules chosen in overview.scorecard_rules
    (null: all; claims on any other table are 'not run'), with their replicate tables where the
    registry says their rule writes one."""
    left_out, made = set(scorecard_rules_left_out()), section_targets()
    path = lambda run, name: f"results/{run}/tables/{name}.csv"  # noqa: E731
    return {
        stem: {"table": path(slug, stem), "boot": path(slug, f"{stem}.boot") if entry["replicates"] else None}
        for stem in stems
        if (entry := lookup(CLAIM_TABLES, stem))["rule"] not in left_out and path(wildcards.model, stem) in made
    }


def scorecard_runs(wildcards):
    """The runs the scorecard reads, by name: ``model`` (the model's own), ``control`` (its
    random-init control: the tables read off maps; none without a control; ``control-<d>``: its
    further draws, config random_init.draws) and ``training-<r>``
    (training run r: the tables of the families trained more than r times, config trainings)."""
    runs = {"model": _run(wildcards.model, claimed(), wildcards)}
    maps = [s for s in claimed() if lookup(CLAIM_TABLES, s)["reads_maps"]]
    for d, control in enumerate(CONTROLS.get(wildcards.model, []), start=1):  # control, control-2, ...
        runs["control" + (f"-{d}" if d > 1 else "")] = _run(control, maps, wildcards)
    for rep in TRAINING_RUNS.get(wildcards.model, []):
        families = {f for f, n in config["trainings"].items() if n > TRAINING_INDEX[rep]}
        trained = [s for s in claimed() if lookup(CLAIM_TABLES, s)["family"] in families]
        runs[rep.removeprefix(f"{wildcards.model}--")] = _run(rep, trained, wildcards)
    return runs


def seed_reference_input(wildcards):
    """The seed reference file (config overview.seed_reference) where it exists, else nothing: the
    scorecard then widens no verdict for the seed, and says so."""
    path = config["overview"]["seed_reference"]
    return [path] if os.path.isfile(path) else []


def control_reference_input(wildcards):
    """The control reference file (config overview.control_reference) where it exists, else nothing."""
    path = config["overview"]["control_reference"]
    return [path] if os.path.isfile(path) else []


def calibrated_tails_input(wildcards):
    """The calibrated tails file (config overview.calibrated_tails) where it exists, else nothing."""
    path = config["overview"]["calibrated_tails"]
    return [path] if os.path.isfile(path) else []


def scorecard_inputs(wildcards):
    """Every file of every run, one named list per run (the scorecard reads them through params runs)."""
    return {
        name.replace("-", "_"): [p for tables in run.values() for p in tables.values() if p]
        for name, run in scorecard_runs(wildcards).items()
    }


def compare_figure(panel):
    return report(
        f"results/compare/figures/compare.{panel}.png",
        caption=f"../report/compare.{panel}.rst",
        category="Models side by side",
    )
