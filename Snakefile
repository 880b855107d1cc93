# Attention analyses of Clark et al. 2019, Kovaleva et al. 2019 and the
# attention-as-explanation tests, for any Hugging Face encoder.
#
#   snakemake --cores all                                 # everything, default config
#   snakemake --cores all --configfile config/smoke.yaml  # tiny CI run
#   snakemake --cores all results/all-MiniLM-L6-v2/figures/entropy.png   # one figure

import os

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: "config/sources.yaml"
configfile: "config/config.yaml"


validate(config, "config/schema/config.schema.yaml")


report: "report/workflow.rst"


# Every job's script imports the `analysis` package from this directory, installed or not
# (e.g. in the --sdm conda environment of envs/attention.yaml, or on a cluster node): the
# workflow sets PYTHONPATH for its jobs (it requires none from the user).
os.environ.update(PYTHONPATH=os.pathsep.join(filter(None, [workflow.basedir, os.environ.get("PYTHONPATH")])))


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/surface.smk"
include: "rules/syntax.smk"
include: "rules/coref.smk"
include: "rules/clark_sec5.smk"
include: "rules/explanation.smk"
include: "rules/kovaleva.smk"
include: "rules/patterns.smk"


rule all:
    input:
        ALL_TARGETS,
    default_target: True
