"""The arithmetic precision of extraction: fp32, or bf16/fp16 autocast where it pays.

``precision: auto`` never assumes what a machine is good at (with AMX a bf16 matmul is
several times faster than fp32; with AVX2 only it is hundreds of times slower). At the
start of each extraction it measures, interleaved and best of several repetitions (robust
to a busy machine), the matmul rate of fp32 and of each reduced precision (at
``MATMUL_SIZE``, large enough on a GPU to reach its tensor cores); a reduced precision
whose rate is at least the device's ``MIN_SPEEDUP`` x fp32 (``speed_bar``) then runs the
model on a calibration batch, and is used only when the argmax of at least
``MIN_AGREEMENT`` of the batch's attention rows is the fp32 one (``pick``). The decision rests on the matmul rates and the
agreement, not on the timing of one small forward pass: that timing is recorded, but on a
shared machine it is too noisy to decide on (the same machine would choose differently
from run to run, and reruns must give identical maps).

Even measured best-of-several, a rate near the margin can land on either side of it under
load, so the rates are measured once per machine (rule ``measure_matmul``,
``resources/machine/matmul_rates.json``, with the machine's fingerprint) and every
extraction decides on that record: the same machine then always makes the same choice for
the same inputs (the argmax agreement is deterministic). A record from another machine (a
copied ``resources/``) is refused, never silently used.

The choice is one per run, not one per shard: the calibration batch is the fixed text
``CALIBRATION`` (never the shard's own inputs) and runs on the run's pre-trained model (for a
fine-tuned or random-init variant, the pre-trained model it derives from), so every shard, the
fine-tuned maps and the random-init control's maps of a model are computed in one precision and
compared like with like (``analysis.core.extraction.calibrate``). Before, each shard decided on
its own inputs and weights: an agreement near the margin could put two maps that are compared
(pre-trained vs fine-tuned, model vs control) in different precisions.
"""

from __future__ import annotations

import contextlib
import json
import platform
import time
from pathlib import Path

import torch

from analysis.core.device import sync

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
REDUCED = ("bf16", "fp16")  # what auto may choose instead of fp32
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# a reduced precision must agree with fp32 on the argmax of this share of attention rows
MIN_AGREEMENT = 0.995
# ... and its matmul be clearly faster, per device kind (other kinds: the CPU's). On a CPU a margin
# well above what a busy machine does to the measurement, so that the same machine always makes
# the same choice (measured: AMX bf16 8-20x fp32; AVX512-FP16 fp16 0.8-1.3x, up to ~2x with other
# jobs running; AVX512-BF16 bf16 ~2.2x; AVX2 bf16 ~1/600x). A GPU's matmul runs on the device,
# where the host's other jobs do not slow it: 2x is enough. A GPU without tensor cores for a
# precision runs it at ~1x fp32 (or, emulated, slower) and stays under either bar; an H200 measured
# 2.32x at 1024^3 (the size of a CPU record, too small to fill it: issue 39) and passes the GPU's.
MIN_SPEEDUP = {"cpu": 3.0, "cuda": 2.0}
# the matmul size of the rates: a 1024^3 product takes a CPU ~10 ms, but leaves a large GPU's tensor
# cores mostly idle (an H200: bf16 56 TFLOP/s at 1024^3, ~790 at 8192^3; issue 39)
MATMUL_SIZE = {"cpu": 1024, "cuda": 8192}


def check_precision(precision: str) -> str:
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; one of {PRECISIONS} (config key 'precision')")
    return precision


def autocast(precision: str, device) -> contextlib.AbstractContextManager:
    """The context a forward pass runs in: nothing for fp32, autocast to bf16/fp16 else."""
    check_precision(precision)
    if precision in ("fp32", "auto"):
        return contextlib.nullcontext()
    return torch.autocast(device_type=torch.device(device).type, dtype=DTYPES[precision])


def speed_bar(device) -> float:
    """How many times fp32's matmul rate a reduced precision must reach on ``device``."""
    return MIN_SPEEDUP.get(torch.device(device).type, MIN_SPEEDUP["cpu"])


def matmul_rates(precisions, device="cpu", size: int | None = None, reps: int = 5) -> dict[str, float]:
    """Measured FLOP/s of a (size x size) @ (size x size) matmul in each of ``precisions``:
    the best of ``reps`` runs, the precisions interleaved so that a busy spell of the
    machine hits them all. A precision already more than 50x slower than fp32 on a small
    probe matmul is not run at full size (its probe rate is reported). ``size``: the
    device kind's ``MATMUL_SIZE`` when None."""
    size = size or MATMUL_SIZE.get(torch.device(device).type, MATMUL_SIZE["cpu"])
    precisions = list(dict.fromkeys(["fp32", *precisions]))
    probe = {p: _best_time(p, device, 128, reps=3) for p in precisions}
    full = [p for p in precisions if probe[p] <= 50 * probe["fp32"]]
    mats = {p: torch.randn(size, size, device=device).to(DTYPES[p]) for p in full}
    best = dict.fromkeys(full, float("inf"))
    for p in full:
        _prod = mats[p] @ mats[p]  # warm-up (kernel choice, JIT)
    sync(device)
    for _ in range(reps):
        for p in full:
            t0 = time.perf_counter()
            _prod = mats[p] @ mats[p]
            sync(device)
            best[p] = min(best[p], time.perf_counter() - t0)
    rates = {p: 2 * 128**3 / probe[p] for p in precisions}
    rates.update({p: 2 * size**3 / best[p] for p in full})
    return rates


def _best_time(precision: str, device, size: int, reps: int) -> float:
    a = torch.randn(size, size, device=device).to(DTYPES[precision])
    _prod = a @ a
    sync(device)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        _prod = a @ a
        sync(device)
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)


def supported(precision: str, device) -> bool:
    """Whether ``precision`` can run on ``device`` at all (bf16 on old GPUs cannot)."""
    if torch.device(device).type == "cuda" and precision == "bf16":
        return torch.cuda.is_bf16_supported()
    return True


def argmax_agreement(reference: list, other: list, lengths: list[int]) -> float:
    """Share of the attention rows (every layer, head and real token of every input) whose
    argmax in ``other`` is that of ``reference``; both are per-layer (B, H, N, N) tensors of
    one padded batch and ``lengths`` the inputs' real lengths."""
    agree = total = 0
    for ref, oth in zip(reference, other, strict=True):
        same = ref.float().argmax(-1) == oth.float().argmax(-1)  # (B, H, N)
        for b, n in enumerate(lengths):
            agree += int(same[b, :, :n].sum())
            total += same.shape[1] * n
    return agree / total if total else 1.0


def choose_precision(requested: str, run_batch, lengths: list[int], device, rates: dict | None = None) -> dict:
    """The precision to extract with, and why: ``{"requested", "used", "matmul_rate",
    "forward_s", "agreement", "reason"}``. ``run_batch(precision)`` runs the model on the
    calibration batch and returns its per-layer attentions; ``lengths``: that batch's;
    ``rates``: the machine's matmul rates (``machine_rates``), measured here when None.
    An explicit bf16/fp16 is used as asked, its agreement recorded all the same."""
    check_precision(requested)
    candidates = list(REDUCED) if requested == "auto" else [requested]
    candidates = [p for p in candidates if p != "fp32" and supported(p, device)]
    info: dict = {"requested": requested, "forward_s": {}, "agreement": {}}
    if not candidates:
        return {**info, "used": "fp32", "reason": "fp32 requested" if requested == "fp32" else "no reduced precision"}
    rates = info["matmul_rate"] = rates or matmul_rates(candidates, device, reps=10)
    best, reasons, ref = "fp32", [], None
    for p in candidates:
        speedup = rates[p] / rates["fp32"]
        if requested == "auto" and speedup < 1 / 50:  # e.g. bf16 without hardware support: not worth a pass
            reasons.append(f"{p}: matmul {speedup:.3g}x fp32 (not tried)")
            continue
        if ref is None:  # the fp32 pass only once a precision is worth comparing with it
            ref, info["forward_s"]["fp32"] = _timed(run_batch, "fp32")
        # the agreement is measured for every precision worth trying, whatever its speed here, so
        # that the header (which records it) is the same from run to run on one machine
        att, info["forward_s"][p] = _timed(run_batch, p)
        info["agreement"][p] = agree = argmax_agreement(ref, att, lengths)
        reasons.append(f"{p}: matmul {speedup:.3g}x fp32, argmax agreement {agree:.4%}")
    best = pick(rates, info["agreement"], device) if requested == "auto" else candidates[0]
    return {**info, "used": best, "reason": "; ".join(reasons)}


def pick(rates: dict, agreement: dict, device) -> str:
    """What ``auto`` uses, from the measured matmul ``rates`` (FLOP/s by precision, fp32's
    included) and the calibration's argmax ``agreement`` of each reduced precision tried: of
    those that agree on >= ``MIN_AGREEMENT`` of the rows and whose matmul is >= ``speed_bar(device)``
    x fp32, the fastest (the first tried on a tie); fp32 when there is none."""
    bar, ok = speed_bar(device), []
    for p, agree in agreement.items():
        if agree >= MIN_AGREEMENT and rates[p] / rates["fp32"] >= bar:
            ok.append(p)
    return max(ok, key=lambda p: rates[p], default="fp32")


# CPU features that decide how fast bf16 / fp16 run (AMX and AVX512 variants), part of the fingerprint
CPU_FEATURES = ("amx_bf16", "amx_fp16", "amx_tile", "avx512_bf16", "avx512_fp16", "avx512f", "avx2")


def machine_fingerprint(device) -> dict:
    """What a matmul-rate record is valid for: the device kind and name, and for a CPU its
    model name and the features behind bf16/fp16 speed (from /proc/cpuinfo where there is one)."""
    kind = torch.device(device).type
    if kind == "cuda":
        return {"device": kind, "name": torch.cuda.get_device_name(torch.device(device))}
    name, flags = platform.processor() or platform.machine(), set()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                name = value.strip()
            elif key.strip() == "flags":
                flags = set(value.split())
                break
    return {"device": kind, "name": name, "features": [f for f in CPU_FEATURES if f in flags]}


def measure_machine(device) -> dict:
    """The record ``machine_rates`` reads: the fingerprint, the torch threads, and the matmul
    rates of fp32 and of every reduced precision the device supports."""
    reduced = [p for p in REDUCED if supported(p, device)]
    return {
        "fingerprint": machine_fingerprint(device),
        "threads": torch.get_num_threads(),
        "matmul_rate": matmul_rates(reduced, device, reps=10),
    }


def machine_rates(record_path, device) -> dict | None:
    """The matmul rates in the record at ``record_path`` (written by ``measure_machine``),
    after checking that it was measured on this kind of machine; None when no record is given
    (a pinned precision needs none: the rule's input is then empty)."""
    if not record_path:
        return None
    record = json.loads(Path(record_path).read_text())
    here = machine_fingerprint(device)
    if record.get("fingerprint") != here:
        raise RuntimeError(
            f"{record_path}: matmul rates measured on {record.get('fingerprint')}, but this job runs on {here}; "
            f"delete {record_path} to measure this machine (precision: auto decides on these rates), "
            "or set config key 'precision' to fp32, bf16 or fp16"
        )
    return record["matmul_rate"]


# The calibration inputs of every extraction of a run (one word list each): fixed, so that the choice
# depends on the machine and the model, never on a shard's inputs; lengths spread from a few words to
# past max_len 128 (truncated), as the corpora's inputs are.
CALIBRATION = (
    "The cat sat on the mat .",
    "She said that the results , though preliminary , were worth a second look .",
    "In 1905 the city council voted to build a new bridge across the river , and work began two years later .",
    "Attention weights are often read as explanations of a model 's decisions , but whether they explain "
    "anything is an empirical question that depends on the model and the task .",
    "The committee , which had met every month since its founding , could not agree on the budget ; some "
    "members wanted to spend more on schools , others on roads , and a few wanted to spend nothing at all "
    "until the audit was finished .",
    "When the storm reached the coast late on Tuesday night , the harbour was already empty : the fishermen "
    "had pulled their boats onto the beach , the ferry had stayed in port , and the lighthouse keeper , who had "
    "seen worse , sat by the window with a pot of tea and watched the waves break over the wall .",
    "Researchers who study language models have proposed many ways of probing what the models learn , from "
    "training small classifiers on their hidden states to reading the attention maps directly ; each method "
    "has its critics , who point out that a probe may learn the task itself , that attention may be spread "
    "over tokens that carry little meaning , and that the results can change with the random seed , the "
    "corpus and the exact definition of the property being measured .",
    "It was the third time that week that the train had been late , and the passengers on the platform , "
    "most of whom made the same journey every morning , had stopped complaining and started making plans : "
    "one read a book , two played cards on an upturned suitcase , a student finished an essay that was due "
    "at nine , and an old man fed the pigeons from a paper bag of crumbs while explaining to anyone who would "
    "listen that in his day the trains had run on time , the tickets had cost a fraction of what they cost "
    "now , and the station had had a waiting room with a fire in the winter and flowers on the sills in June .",
)


def calibration_records() -> list[dict]:
    """``CALIBRATION`` as input records (``analysis.core.extraction.encode_records``)."""
    return [{"id": f"calibration-{k}", "words": [text.split()]} for k, text in enumerate(CALIBRATION)]


# what a shard's header keeps of the choice: the same on every run on one machine (the matmul rates
# and timings behind it vary from run to run: they go to the run-info sidecar and the log)
HEADER_KEYS = ("requested", "used", "agreement", "calibration_inputs", "calibrated_on")


def header_record(info: dict) -> dict:
    return {k: info[k] for k in HEADER_KEYS if k in info}


def _timed(run_batch, precision: str) -> tuple[list, float]:
    """The attentions of ``run_batch(precision)`` and its time (recorded, not decided on; the
    device's queued work waited for, on CUDA)."""
    t0 = time.perf_counter()
    att = run_batch(precision)
    sync(att[0].device if att else "cpu")
    return att, time.perf_counter() - t0
