# Attention analyses of Clark et al. 2019, Kovaleva et al. 2019 and the
# attention-as-explanation tests, for any Hugging Face encoder.
#
#   snakemake --cores all                                 # everything, default config
#   snakemake --cores all clark_syntax                    # one paper section (an aggregate rule)
#   snakemake --cores all --configfile config/smoke.yaml  # tiny CI run
#   snakemake --cores all results/all-MiniLM-L6-v2/figures/entropy.png   # one figure
#
# rules/<section>.smk holds a paper section's rules and ends with its aggregate rule;
# workflow/<rule>.py is the one script of each rule; analysis/ holds the science.

import os

import yaml
from snakemake.utils import min_version, validate

from analysis.core.config_defaults import apply_defaults, load_schema, refuse, renamed_keys

min_version("8.0")


# The default run (config/config.default.yaml, tracked), then the user's own settings where there
# are any (config/config.yaml, untracked: key by key over the defaults), then --configfile / --config.
configfile: "config/config.default.yaml"


if os.path.exists("config/config.yaml"):

    configfile: "config/config.yaml"


# The schema is the one place defaults are written (config/config.default.yaml repeats them for reading);
# every object in it is closed, so a misspelt key fails here with its name.
# A key of an earlier version is refused with its new name (config/schema/renamed.yaml).
with open(os.path.join(workflow.basedir, "config/schema/renamed.yaml")) as f:
    _renamed = renamed_keys(config, yaml.safe_load(f))
if _renamed:
    refuse("; ".join(_renamed) + " (config/config.yaml, a --configfile or --config): use the new names")
# config/schema/config.schema.yaml holds the top-level keys, each section's keys are in its own file
# config/schema/<section>.schema.yaml (a $ref there): load_schema puts them together.
apply_defaults(config, load_schema(os.path.join(workflow.basedir, "config/schema/config.schema.yaml")))
validate(config, "config/schema/config.schema.yaml")


report: "report/workflow.rst"


# Every job's script imports the `analysis` package from this directory, installed or not
# (e.g. in the --sdm conda environment of envs/attention.yaml, or on a cluster node): the
# workflow sets PYTHONPATH for its jobs (it requires none from the user).
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [workflow.basedir, os.environ.get("PYTHONPATH")])))


# The sections of the papers, in the order of rule all and the report: each is a rules file
# rules/<section>.smk ending with its aggregate rule <section>, a config section <section> and a page
# docs/<section with - for _>.md. The last, overview, reads the tables of every section before it.
SECTIONS = [
    "clark_surface",
    "clark_syntax",
    "clark_coref",
    "clark_probes",
    "clark_clusters",
    "kovaleva_finetune",
    "kovaleva_patterns",
    "explanation",
    "staying_true",
    "beyond_papers",
    "overview",
]


include: "rules/common.smk"  # models, controls and replicates; how outputs are named
include: "rules/scheduling.smk"  # threads, cluster sizing, priorities, temporary maps
include: "rules/spine.smk"  # sources -> prepared inputs -> attention shards
include: "rules/claims.smk"  # which tables the claims read, by run (the scorecard's inputs)


for _section in SECTIONS:

    include: f"rules/{_section}.smk"


include: "rules/benchmark.smk"  # not in rule all: snakemake benchmark


# Every figure and table of every paper section, for every configured model. (No docstring:
# snakefmt puts default_target first and then cannot read a docstring after it.)
rule all:
    default_target: True
    input:
        [getattr(rules, section).input for section in SECTIONS],
