"""The control probe of Clark et al. 2019 sec. 5 (config ``clark_probes.random_init``): the
attention-and-words probe on the maps of a randomly initialised model of the trained one's shape,
computed in rule probes_train (never stored as shards), with the same dev sentences, word vectors,
learning-rate and epoch choice on held-out train sentences, and seed as the probes of the trained
model (:func:`analysis.clark.probes.training.train_probes`)."""

from __future__ import annotations

import logging
from typing import NamedTuple

from analysis.clark.probes.data import Sentence, attach_vectors, random_init_sentences
from analysis.clark.probes.models import AttnProbe
from analysis.clark.probes.settings import MapSettings, ProbeSettings
from analysis.clark.probes.training import RANDOM_INIT, run_probe, split_batches

log = logging.getLogger(__name__)


class ControlProbe(NamedTuple):
    """What the control gives rule probes_train."""

    row: dict  # its row of the probes table
    curve: list[dict]  # its held-out curve rows
    per_sentence: object  # per dev sentence: correct and scored words
    dev_ids: list[str]  # the dev sentences' ids, in that order
    counts: dict  # '<split>_random_init': its sentences per split ({} from random_init_probe alone)


def random_init_probe(sents: dict[str, list[Sentence]], n_heads: int, dim: int, probes: ProbeSettings, log=log):
    """Train and score the control on ``sents`` (train / dev sentences with the random model's
    maps of ``n_heads`` heads and word vectors of size ``dim``), as ``probes`` says (its learning
    rates: ``probes.lrs[RANDOM_INIT]``; words aligned as the trained model's probe)."""
    data = split_batches(sents, probes.heldout_fraction, probes.seed, probes.batch_size)
    probe = lambda: AttnProbe(n_heads, dim=dim, word_alignment=probes.word_alignment)  # noqa: E731
    lrs = probes.lrs[RANDOM_INIT]
    row, curve, per_sentence = run_probe(RANDOM_INIT, probe, data, lrs, probes.epochs, probes.seed, log)
    return ControlProbe(row, curve, per_sentence, [s.id for s in sents["dev"]], {})


def random_init_control(
    spec: str,
    shape: tuple[int, int],
    records: dict[str, list[dict]],
    dev_ids: set,
    vectors,
    maps: MapSettings,
    probes: ProbeSettings,
    log=log,
) -> ControlProbe:
    """The whole control: the sentences of ``records`` with the maps of a randomly initialised model
    of ``spec``'s ``shape`` (computed as ``maps`` says: the trained model's precision; its dev
    sentences must be ``dev_ids``), their word vectors, and the probe trained and scored on them
    (``random_init_probe``), with the counts of its sentences."""
    counts = {"train_random_init": {}, "dev_random_init": {}}
    sents = random_init_sentences(spec, records, shape, dev_ids, maps, counts)
    for split in sents:
        attach_vectors(sents[split], vectors)
        log.info("%s (random init): %s", split, counts[f"{split}_random_init"])
    # as many heads as the trained model's maps: random_init_sentences checked the shape
    n_heads = sents["train"][0].attn.shape[0]
    return random_init_probe(sents, n_heads, vectors.dim, probes, log)._replace(counts=counts)
