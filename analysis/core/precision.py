"""The arithmetic precision of extraction: fp32, or bf16/fp16 autocast where it pays.

``precision: auto`` never assumes what a machine is good at (with AMX a bf16 matmul is
several times faster than fp32; with AVX2 only it is hundreds of times slower): it times a
small matmul in each reduced precision, and only for one faster than fp32 there times the
model on a calibration batch and compares its maps with fp32 ones. A reduced precision is
used only when it is faster by ``MIN_SPEEDUP`` on this machine AND the argmax of at least
``MIN_AGREEMENT`` of the attention rows of the calibration batch is the fp32 one.
"""

from __future__ import annotations

import contextlib
import time

import torch

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# a reduced precision must agree with fp32 on the argmax of this share of attention rows
MIN_AGREEMENT = 0.995
# ... and be clearly faster: a margin well above timing noise, so that the same machine
# always makes the same choice (AMX: ~2-4x; AVX2: ~1/600x)
MIN_SPEEDUP = 1.25


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


def matmul_rate(precision: str = "fp32", device="cpu", size: int = 1024, budget_s: float = 0.3) -> float:
    """Measured FLOP/s of a (size x size) @ (size x size) matmul in ``precision``.

    A slow precision gives up early: a first small matmul that is already far slower
    than ``budget_s`` allows is extrapolated instead of running the full size."""
    dtype = DTYPES[precision]
    probe = 128
    a = torch.randn(probe, probe, device=device).to(dtype)
    _sync(device, a @ a)
    t0 = time.perf_counter()
    _sync(device, a @ a)
    small = max(time.perf_counter() - t0, 1e-9)
    if small * (size / probe) ** 3 > 10 * budget_s:
        return 2 * probe**3 / small
    a = torch.randn(size, size, device=device).to(dtype)
    _sync(device, a @ a)
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < budget_s or reps < 2:
        _sync(device, a @ a)
        reps += 1
    return 2 * size**3 * reps / (time.perf_counter() - t0)


def _sync(device, _result) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


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


def choose_precision(requested: str, run_batch, lengths: list[int], device) -> dict:
    """The precision to extract with, and why: ``{"requested", "used", "matmul_rate",
    "forward_s", "agreement", "reason"}``. ``run_batch(precision)`` runs the model on the
    calibration batch and returns its per-layer attentions; ``lengths``: that batch's."""
    check_precision(requested)
    rates = {"fp32": matmul_rate("fp32", device)}
    info: dict = {"requested": requested, "matmul_rate": rates, "forward_s": {}, "agreement": {}}
    candidates = ["bf16", "fp16"] if requested == "auto" else [requested]
    candidates = [p for p in candidates if p != "fp32" and supported(p, device)]
    if not candidates:
        return {**info, "used": "fp32", "reason": "fp32 requested" if requested == "fp32" else "no reduced precision"}
    ref, info["forward_s"]["fp32"] = _timed(run_batch, "fp32")
    best, reasons = "fp32", []
    for p in candidates:
        rates[p] = matmul_rate(p, device)
        if requested == "auto" and rates[p] < MIN_SPEEDUP * rates["fp32"]:
            reasons.append(f"{p}: matmul {rates[p] / rates['fp32']:.3g}x fp32")
            continue
        att, info["forward_s"][p] = _timed(run_batch, p)
        info["agreement"][p] = agree = argmax_agreement(ref, att, lengths)
        speedup = info["forward_s"]["fp32"] / info["forward_s"][p]
        reasons.append(f"{p}: forward {speedup:.3g}x fp32, argmax agreement {agree:.4%}")
        good = speedup >= MIN_SPEEDUP and agree >= MIN_AGREEMENT
        if requested != "auto" or (good and (best == "fp32" or info["forward_s"][p] < info["forward_s"][best])):
            best = p  # an explicit request is honoured; its agreement is recorded all the same
    return {**info, "used": best, "reason": "; ".join(reasons)}


def _timed(run_batch, precision: str) -> tuple[list, float]:
    """The attentions of ``run_batch(precision)`` and the faster of two timed runs (the
    first also pays one-off kernel set-up)."""
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        att = run_batch(precision)
        times.append(time.perf_counter() - t0)
    return att, min(times)
