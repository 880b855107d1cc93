"""The heavy rules with their work estimates, gathered from the packages that own them: the
spine's (analysis/core/resources.py) and each paper's work.py. Read by rules/scheduling.smk (what a
job asks a cluster for), tools/docs/resource_table.py and the tests.

Most heavy rules run a model's forward (and backward) passes and ask for a GPU (``resources:
gpu=1``, ``GPU_RULES``), sized at the GPU's rate. ``CPU_BOUND`` are heavy rules whose main work runs
on the CPU whatever the machine: asking for a GPU would hold one idle for the whole job (on a
cluster, a GPU node; on a one-GPU workstation, the token another job waits for). They ask for none,
run on the CPU (``analysis.core.device.job_device``) and are sized at the CPU rate:

- ``probes_train``: the dependency probes train on the CPU, on every sentence's word-level
  features held in host memory (3.3 GB measured for MiniLM, a 48.5 GB request for bert-large); the
  random-init control's forward passes run there too, on the CPU;
- ``erasure``, ``permutation``, ``adversarial``: the tests re-run the attention classifiers (small
  CPU models) thousands of times per input; the encoder runs once per explained input.

Kept on the GPU: ``attn_classifiers`` (the encoder's states of every training and dev sentence, and
its fine-tuning when ``transformer_finetuned`` is listed), ``erasure_cls`` and ``rank_agreement``
(leave-one-out and gradients re-run the encoder once per word piece).
"""

from analysis.beyond_papers.work import WORK as BEYOND
from analysis.clark.work import WORK as CLARK
from analysis.core.resources import SPINE_WORK
from analysis.explanation.work import WORK as EXPLANATION
from analysis.kovaleva.work import WORK as KOVALEVA

HEAVY = {**SPINE_WORK, **CLARK, **KOVALEVA, **EXPLANATION, **BEYOND}
CPU_BOUND = frozenset({"probes_train", "erasure", "permutation", "adversarial"})
GPU_RULES = frozenset(HEAVY) - CPU_BOUND
