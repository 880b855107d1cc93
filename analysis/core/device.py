"""Which device a job runs on, and what that takes: the one place that decides it and says so.

- ``job_device(snakemake)``: ``cuda`` for a job that asked for a GPU (``resources: gpu=1``) on a
  machine with CUDA, ``cpu`` otherwise. A job that asked for a GPU and finds none falls back to the
  CPU with one warning in its log (before, the fallback was silent: a GPU node without a working
  driver ran a whole cluster run on its CPUs unnoticed). A job that asked for none stays on the CPU
  even where CUDA is visible: on a one-GPU workstation (``--resources gpu=1``) only the job that
  holds the GPU uses it.
- ``device_record(device)``: what a job's JSON sidecar records of it (``device``, and the GPU's
  name on CUDA).
- ``sync(device)``: wait for the device's queued work before reading a clock (CUDA kernels run
  asynchronously: a timer stopped without it measures the launch, not the work); a no-op on CPU.
- ``load_bundle(path, device)``: a ``torch.save``d bundle loaded onto the CPU whatever device its
  tensors were saved from (a bundle written on a GPU node cannot be loaded on a CPU node without
  ``map_location``), then moved to ``device``.
"""

from __future__ import annotations

import logging

import torch

log = logging.getLogger(__name__)

_WARNED: set[str] = set()  # rules whose CUDA fallback was logged in this process (said once)


def asked_for_gpu(smk) -> bool:
    """Whether the job's rule declares ``resources: gpu=1`` (or more)."""
    return int(getattr(smk.resources, "gpu", 0) or 0) >= 1


def job_device(smk, cuda: bool | None = None) -> str:
    """The device of the job ``smk`` (a Snakemake job's ``snakemake`` object): ``cuda`` when it
    asked for a GPU and ``cuda`` (default: ``torch.cuda.is_available()``) is true, else ``cpu``;
    logs a warning naming the rule, once, when a GPU was asked for and CUDA is unavailable."""
    if not asked_for_gpu(smk):
        return "cpu"
    if torch.cuda.is_available() if cuda is None else cuda:
        return "cuda"
    if smk.rule not in _WARNED:
        _WARNED.add(smk.rule)
        logging.getLogger(f"rule.{smk.rule}").warning(
            "rule %s asked for a GPU (resources gpu=1) but CUDA is unavailable here "
            "(torch %s, CUDA build %s): running on the CPU",
            smk.rule,
            torch.__version__,
            torch.version.cuda,
        )
    return "cpu"


def device_record(device) -> dict:
    """``{"device": "cpu"}``, or ``{"device": "cuda", "device_name": <the GPU's name>}``."""
    dev = torch.device(device)
    if dev.type == "cuda":
        return {"device": "cuda", "device_name": torch.cuda.get_device_name(dev)}
    return {"device": dev.type}


def sync(device) -> None:
    """Wait until ``device`` has finished its queued work (CUDA); nothing to wait for on a CPU."""
    dev = torch.device(device)
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def load_bundle(path, device="cpu"):
    """The object ``torch.save`` wrote to ``path`` (a checkpoint bundle: dicts of state dicts and
    settings), its tensors loaded onto the CPU (``map_location``: wherever they were saved from),
    then moved to ``device``."""
    bundle = torch.load(path, map_location="cpu", weights_only=False)
    return bundle if torch.device(device).type == "cpu" else to_device(bundle, device)


def to_device(obj, device):
    """``obj`` with every tensor in it (nested dicts, lists, tuples) moved to ``device``."""
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        out = type(obj)((k, to_device(v, device)) for k, v in obj.items())
        if hasattr(obj, "_metadata"):  # a state dict's per-module versions, read by load_state_dict
            out._metadata = obj._metadata
        return out
    if isinstance(obj, list | tuple):
        return type(obj)(to_device(v, device) for v in obj)
    return obj
