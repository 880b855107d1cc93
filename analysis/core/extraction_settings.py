"""The settings of ``analysis.core.extraction.extract_shard``, named once (built in
``workflow/extract_attention.py`` and ``workflow/glue_attention.py`` from the rules' params): how a
shard is extracted (``ShardSettings``) and what a reduced precision is decided on (``Calibration``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ShardSettings:
    """How a shard is extracted: inputs of at most ``max_len`` word pieces (longer ones split,
    truncated or refused by ``policy``, ``POLICIES``), ``batch_size`` at a time, sentence pairs fed
    the token type ids ``segments`` (``SEGMENT_IDS``), in ``precision`` (fp32, bf16, fp16 or auto:
    ``analysis.core.precision``), with a progress bar unless ``progress`` is False."""

    max_len: int
    policy: str = "split"
    batch_size: int = 32
    segments: str = "zeros"
    precision: str = "fp32"
    progress: bool = True


@dataclass(frozen=True)
class Calibration:
    """What a reduced precision is decided on (:func:`calibrate`): ``rates``, the machine's matmul
    rates (rule ``measure_matmul``; None: measured here); ``reference``, a function returning the
    pre-trained model the run's precision is calibrated on (None: the model itself), recorded in
    the header as ``reference_name``."""

    rates: dict | None = None
    reference: Callable | None = None
    reference_name: str | None = None
