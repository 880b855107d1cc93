"""The heavy rules (they ask for a GPU: resources gpu=1) with their work estimates, gathered from
the packages that own them: the spine's (analysis/core/resources.py) and each paper's work.py. Read
by rules/scheduling.smk (what a job asks a cluster for), tools/resource_table.py and the tests."""

from analysis.beyond.work import WORK as BEYOND
from analysis.clark.work import WORK as CLARK
from analysis.core.resources import SPINE_WORK
from analysis.explanation.work import WORK as EXPLANATION
from analysis.kovaleva.work import WORK as KOVALEVA

HEAVY = {**SPINE_WORK, **CLARK, **KOVALEVA, **EXPLANATION, **BEYOND}
