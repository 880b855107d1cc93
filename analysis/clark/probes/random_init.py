"""The control probe of Clark et al. 2019 sec. 5 (config ``clark_probes.random_init``): the
attention-and-words probe on the maps of a randomly initialised model of the trained one's shape,
computed in rule probes_train (never stored as shards), with the same dev sentences, word vectors,
learning-rate and epoch choice on held-out train sentences, and seed as the probes of the trained
model (:func:`analysis.clark.probes.training.train_probes`)."""

from __future__ import annotations

import logging

from analysis.clark.probes.data import Sentence, attach_vectors, random_init_sentences
from analysis.clark.probes.models import AttnProbe
from analysis.clark.probes.training import RANDOM_INIT, run_probe, split_batches

log = logging.getLogger(__name__)


def random_init_probe(
    sents: dict[str, list[Sentence]],
    n_heads: int,
    dim: int,
    lrs,
    epochs: int,
    batch_size: int,
    heldout_fraction: float,
    seed: int,
    log=log,
    word_alignment: str = "paper",
) -> tuple[dict, list[dict], object, list[str]]:
    """Train and score the control on ``sents`` (train / dev sentences with the random model's
    maps of ``n_heads`` heads and word vectors of size ``dim``, aligned as the trained model's
    probe: ``word_alignment``). Returns (row of the probes table,
    curve rows, per dev sentence: correct and scored words, the dev sentences' ids)."""
    data = split_batches(sents, heldout_fraction, seed, batch_size)
    probe = lambda: AttnProbe(n_heads, dim=dim, word_alignment=word_alignment)  # noqa: E731
    row, curve, per_sentence = run_probe(RANDOM_INIT, probe, data, lrs, epochs, seed, log)
    return row, curve, per_sentence, [s.id for s in sents["dev"]]


def random_init_control(
    spec: str,
    records: dict[str, list[dict]],
    shape: tuple[int, int],
    dev_ids: set,
    vectors,
    counts: dict,
    *,
    max_len: int,
    batch_size: int,
    punct_pos,
    how: str,
    n_heads: int,
    lrs,
    epochs: int,
    probe_batch_size: int,
    heldout_fraction: float,
    seed: int,
    log=log,
    device: str | None = None,
    precision: str = "fp32",
    word_alignment: str = "paper",
) -> tuple[dict, list[dict], object, list[str]]:
    """The whole control: the sentences of ``records`` with the maps of a randomly initialised model
    of ``spec``'s ``shape`` (``batch_size`` inputs at a time, on ``device`` in ``precision``: that of
    the trained model's maps; its dev sentences must be ``dev_ids``), their word vectors, and the
    probe trained and scored on them (``random_init_probe``). Fills ``counts['<split>_random_init']``."""
    sents = random_init_sentences(
        spec, records, shape, dev_ids, max_len, batch_size, punct_pos, how, counts, device=device, precision=precision
    )
    for split in sents:
        attach_vectors(sents[split], vectors)
        log.info("%s (random init): %s", split, counts[f"{split}_random_init"])
    return random_init_probe(
        sents, n_heads, vectors.dim, lrs, epochs, probe_batch_size, heldout_fraction, seed, log, word_alignment
    )
