"""What every attention test rule starts from: the checkpoint bundle of rule
``attn_classifiers``, the dev sentences tested and the frozen transformer, then one
:class:`~analysis.explanation.explainer.Explainer` and its instances per classifier; and what the
median tests write (:func:`write_median_test`)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

from torch import nn

from analysis.core.device import device_record, load_bundle
from analysis.explanation.classifiers import WORD_ENCODERS, AttnClassifier, TrainConfig, Vocab
from analysis.explanation.explainer import Explainer, Instance
from analysis.explanation.frozen_transformer import FrozenTransformer
from analysis.explanation.replicates import median_boot
from analysis.explanation.sst2 import read_sst2
from analysis.shared.rule_io import write_json, write_table

log = logging.getLogger(__name__)


def load_explainers(bundle: dict, transformer: FrozenTransformer | None = None) -> dict[str, Explainer]:
    """encoder name -> :class:`Explainer` from a bundle written by
    :func:`analysis.explanation.attn_classifiers.train_all`."""
    cfg = TrainConfig(**bundle["train_cfg"])
    vocab = Vocab(bundle["vocab"][2:]) if "vocab" in bundle else None
    out = {}
    for enc, item in bundle["encoders"].items():
        clf = AttnClassifier(
            enc, item["d_in"], cfg.hidden, cfg.d_att, vocab_size=len(vocab) if enc in WORD_ENCODERS else None
        )
        clf.load_state_dict(item["state"])
        if enc in ("transformer", "transformer_finetuned") and transformer is None:
            raise ValueError(f"the {enc} classifier needs the frozen transformer")
        tf = transformer
        if enc == "transformer_finetuned":
            from analysis.explanation.finetuned_transformer import tuned_transformer

            tf = tuned_transformer(transformer, item)
        out[enc] = Explainer(clf, vocab, tf)
    return out


def load_probe(bundle: dict) -> nn.Linear:
    sd = bundle["cls_probe"]
    probe = nn.Linear(sd["weight"].shape[1], sd["weight"].shape[0])
    probe.load_state_dict(sd)
    return probe.eval()


def load_for_tests(bundle_path, glue_sums, spec: str, task: str, n_explain: int, device: str = "cpu"):
    """(bundle, first ``n_explain`` dev sentences, frozen transformer on ``device`` or None) for the
    test rules. The bundle is loaded onto the CPU, where the attention classifiers run (the
    fine-tuned encoder's state is copied onto the transformer's device when it is loaded)."""
    from analysis.core.models import load_model, load_tokenizer

    bundle = load_bundle(bundle_path)
    dev, counts = read_sst2(Path(glue_sums).parent, "dev", task=task)
    log.info("dev: %s; testing the first %d", counts, min(n_explain, len(dev)))
    tf = None
    if {"transformer", "transformer_finetuned"} & set(bundle["encoders"]) or "cls_probe" in bundle:
        tf = FrozenTransformer(load_model(spec, device=device), load_tokenizer(spec), bundle["max_len"])
    return bundle, dev[:n_explain], tf


def pooled_instances(explainer, dev, n_max: int) -> list[Instance]:
    """Instances of the first ``n_max`` dev sentences."""
    return [explainer.instance(i, w, y) for i, (w, y) in enumerate(dev[:n_max])]


def classifiers_under_test(
    bundle_path, glue_sums, spec: str, task: str, n_explain: int, device: str = "cpu"
) -> Iterator[tuple[str, Explainer, list[Instance]]]:
    """(encoder, explainer, instances of the first ``n_explain`` dev sentences) per trained
    attention classifier, in the bundle's order (the transformer on ``device``). The bundle, the
    dev sentences and the explainers are loaded now; each classifier's instances are built when
    its turn comes."""
    bundle, dev, tf = load_for_tests(bundle_path, glue_sums, spec, task, n_explain, device)
    explainers = load_explainers(bundle, tf)
    return ((enc, ex, pooled_instances(ex, dev, n_explain)) for enc, ex in explainers.items())


def rule_classifiers(smk, device: str = "cpu") -> Iterator[tuple[str, Explainer, list[Instance]]]:
    """``classifiers_under_test`` for a test rule's own inputs (model bundle, GLUE sums) and
    params (spec, task, n_explain), the transformer on ``device`` (the job's,
    ``analysis.core.device.job_device``): the shared preamble of the explanation scripts."""
    return classifiers_under_test(
        smk.input.model, smk.input.glue, smk.params.spec, smk.params.task, smk.params.n_explain, device
    )


def write_median_test(smk, df, spec: tuple[list[str], list[str]], device: str) -> None:
    """The outputs of a test rule whose claims read medians over instances (permutation,
    adversarial, rank_agreement; ``spec``: its keys and columns, ``analysis.explanation.replicates``):
    the per-instance table ``df``, its boot table (:func:`median_boot` on the rule's ``bootstrap``
    params) and the record of the job's ``device``."""
    write_table(df, smk.output.table)
    boot = smk.params.bootstrap
    write_table(median_boot(df, spec, boot["resamples"], boot["seed"]), smk.output.boot)
    write_json(device_record(device), smk.output.device)
