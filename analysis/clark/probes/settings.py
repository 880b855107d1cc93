"""The settings of rule probes_train, named once (built in ``workflow/probes_train.py`` from the
rule's params): how the probes are trained (``ProbeSettings``, config ``clark_probes``) and how a
model's maps are turned into the probes' sentences (``MapSettings``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeSettings:
    """How every probe is trained and its learning rate and epochs chosen (config ``clark_probes``):
    ``lrs`` maps a probe's name to the learning rates tried; ``heldout_fraction`` of the train
    sentences choose them; the MLP baseline's ``mlp_hidden`` units and ``mlp_distance`` feature;
    ``word_alignment``: how word vectors meet the candidates (``models.candidate_vectors``);
    ``control_task``: the probes also trained and scored on the control task."""

    lrs: dict
    epochs: int
    batch_size: int
    heldout_fraction: float
    seed: int
    mlp_hidden: int
    mlp_distance: str = "authors"
    word_alignment: str = "paper"
    control_task: tuple = ()  # probes also trained on Hewitt & Liang's control task (control_task.py)


@dataclass(frozen=True)
class MapSettings:
    """How the maps of a model run here (the random-init control's, never stored as shards) are
    computed and made word-level: inputs of at most ``max_len`` pieces, ``batch_size`` at a time, on
    ``device`` (None: CUDA when present) in ``precision``; word-level maps as ``how`` says, words
    whose gold POS is in ``punct_pos`` not scored."""

    max_len: int
    batch_size: int
    punct_pos: tuple = ()
    how: str = "mean"
    device: str | None = None
    precision: str = "fp32"
