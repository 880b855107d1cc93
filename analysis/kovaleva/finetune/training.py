"""Fine-tuning an encoder on a GLUE task (Kovaleva et al. 2019 follow BERT's recipe).

The standard recipe: a classification (or, for STS-B, one-output regression) head on the
model's pooled [CLS] output (``AutoModelForSequenceClassification``), AdamW, linear warm-up
then linear decay, dropout as configured by the model, everything seeded. The loss is the
model's own (cross-entropy, or mean squared error when ``num_labels == 1``).

Inputs are prepared-input records from ``analysis.core.glue.reader.read_split``, encoded and batched
by ``analysis.core.glue.batches`` (pairs longer than ``max_len`` word pieces truncated, counted).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from analysis.core.glue import metrics
from analysis.core.glue.batches import collate, encode, eval_batches
from analysis.core.glue.reader import read_split, select_rows
from analysis.core.glue.tasks import get_task
from analysis.core.precision import autocast

log = logging.getLogger(__name__)


def train_batches(items: list[dict], batch_size: int, rng: np.random.Generator, bucket: int = 16) -> list[list[int]]:
    """Random batches, each item once (a fresh draw each epoch). To cut padding, a random
    permutation is taken ``bucket`` batches at a time, sorted by length within that chunk,
    cut into batches, and the batches are shuffled ("bucketing")."""
    order = rng.permutation(len(items))
    batches = []
    for start in range(0, len(order), bucket * batch_size):
        chunk = sorted(order[start : start + bucket * batch_size].tolist(), key=lambda i: len(items[i]["input_ids"]))
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


@torch.inference_mode()
def predict(model, items: list[dict], pad_id: int, batch_size: int = 16, precision: str = "fp32") -> np.ndarray:
    """Logits (n, num_labels) of every item, in the items' order, the forward passes in
    ``precision`` (fp32, or bf16 autocast). Batches of 16 (64 before): on a CPU a smaller
    batch keeps each layer's attention scores in cache (RTE's dev set 5.9 -> 4.3 s measured alone,
    the same predictions; docs/performance.md)."""
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    out = np.zeros((len(items), model.config.num_labels), dtype=np.float64)
    for idx in eval_batches(items, batch_size):
        batch = collate([items[i] for i in idx], pad_id, device)
        batch.pop("labels")
        with autocast(precision, device):
            logits = model(**batch).logits
        out[idx] = logits.double().cpu().numpy()
    model.train(was_training)
    return out


def score(model, task: str, items: list[dict], pad_id: int, batch_size: int = 16, precision: str = "fp32") -> dict:
    logits = predict(model, items, pad_id, batch_size, precision)
    return metrics.evaluate(task, metrics.predictions(task, logits), [it["label"] for it in items])


def linear_schedule(optimizer, warmup_steps: int, total_steps: int):
    """Linear warm-up from 0 to the peak rate over ``warmup_steps``, then linear decay to 0."""

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def adamw(model, lr: float, weight_decay: float):
    """AdamW with weight decay on every parameter but biases and LayerNorm weights (as in BERT)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or "LayerNorm" in name or "layer_norm" in name else decay).append(p)
    return torch.optim.AdamW(
        [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}], lr=lr
    )


@dataclass(frozen=True)
class Recipe:
    """How a model is fine-tuned (config ``kovaleva_finetune.finetune``, BERT's recipe): ``epochs``
    (may be fractional; ``max_steps`` caps the steps: smoke runs) of AdamW at peak rate ``lr`` with
    ``weight_decay`` (biases and LayerNorm weights spared, as in BERT), a linear warm-up over the
    ``warmup`` fraction of the steps then a linear decay, batches of ``batch_size``, seeded by
    ``seed``; the forward passes in ``precision``: fp32, or bf16 autocast (the weights and the
    optimiser stay fp32)."""

    epochs: float
    lr: float
    batch_size: int
    warmup: float
    weight_decay: float
    seed: int
    max_steps: int | None
    precision: str = "fp32"


def train(model, items: list[dict], pad_id: int, recipe: Recipe, progress: bool = True) -> list[dict]:
    """Fine-tune ``model`` in place as ``recipe`` says; returns one history row per optimiser step."""
    from tqdm.auto import tqdm

    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    device = next(model.parameters()).device
    steps_per_epoch = math.ceil(len(items) / recipe.batch_size)
    total = math.ceil(recipe.epochs * steps_per_epoch)
    if recipe.max_steps is not None:
        total = min(total, recipe.max_steps)
    if total < 1:
        raise ValueError("no training steps: check epochs, batch_size and the number of examples")
    opt = adamw(model, recipe.lr, recipe.weight_decay)
    sched = linear_schedule(opt, int(round(recipe.warmup * total)), total)
    model.train()
    history, step, t0 = [], 0, time.perf_counter()
    bar = tqdm(total=total, desc="fine-tuning", mininterval=10, disable=not progress)
    while step < total:
        for idx in train_batches(items, recipe.batch_size, rng):
            batch = collate([items[i] for i in idx], pad_id, device)
            with autocast(recipe.precision, device):  # the forward pass; the backward follows its dtypes
                loss = model(**batch).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            history.append(
                {
                    "step": step + 1,
                    "epoch": step / steps_per_epoch,
                    "loss": loss.item(),
                    "lr": opt.param_groups[0]["lr"],
                    "seconds": time.perf_counter() - t0,
                }
            )
            step += 1
            bar.update(1)
            bar.set_postfix(loss=f"{history[-1]['loss']:.3f}", refresh=False)
            if step >= total:
                break
    bar.close()
    model.eval()
    return history


def majority_predictions(task: str, train_items: list[dict], n_dev: int) -> np.ndarray:
    """The training set's majority class for every dev row (its mean score for regression)."""
    labels = [it["label"] for it in train_items]
    if get_task(task).is_regression:
        return np.full(n_dev, float(np.mean(labels)))
    return np.full(n_dev, int(np.bincount(labels).argmax()))


def majority_score(task: str, train_items: list[dict], dev_items: list[dict]) -> dict[str, float]:
    """Dev metrics of always predicting the training set's majority class (mean score for
    regression, whose correlations are then undefined and reported as 0)."""
    gold = [it["label"] for it in dev_items]
    return metrics.evaluate(task, majority_predictions(task, train_items, len(gold)), gold)


@dataclass
class DevSet:
    """A fine-tuned checkpoint with the seeded draw of its task's dev rows, encoded: what the
    rules that score a fine-tuned model head by head (disabling, importance, pruning) start from."""

    model: torch.nn.Module
    tokenizer: object
    items: list[dict]
    counts: dict  # examples, truncated
    rows_total: int  # dev rows before the draw

    def batches(self, batch_size: int, labels: bool = True) -> tuple[list[dict], list[int]]:
        """Padded batches in ``eval_batches`` order, and the item index of every row in that order."""
        device = next(self.model.parameters()).device
        batches, order = [], []
        for idx in eval_batches(self.items, batch_size):
            batch = collate([self.items[i] for i in idx], self.tokenizer.pad_token_id, device)
            if not labels:
                batch.pop("labels")
            batches.append(batch)
            order.extend(idx)
        return batches, order


def load_dev_set(
    raw_dir,
    task: str,
    checkpoint,
    n_examples: int | None,
    seed: int,
    max_len: int,
    split: str = "dev",
    device: str | None = None,
) -> DevSet:
    """The classifier saved at ``checkpoint`` (on ``device``; None: CUDA when present) and
    ``n_examples`` rows of ``task``'s ``split`` (dev, or train where a procedure reads training
    data; seeded draw from the GLUE folder ``raw_dir``; None = all), encoded with the
    checkpoint's tokenizer."""
    from analysis.core.models import load_model, load_tokenizer

    all_dev = read_split(raw_dir, task, split)
    checkpoint = str(checkpoint)
    tokenizer = load_tokenizer(checkpoint)
    items, counts = encode(tokenizer, select_rows(all_dev, n_examples, seed), max_len)
    model = load_model(checkpoint, head="classification", device=device)
    return DevSet(model, tokenizer, items, counts, len(all_dev))


def unused_rows(rows: list, n_examples: int | None, seed: int) -> list:
    """The rows of ``rows`` that :func:`load_dev_set`'s draw of ``n_examples`` (same ``seed``) leaves
    out, in file order: none when it draws them all."""
    drawn = set(select_rows(list(range(len(rows))), n_examples, seed))
    return [r for i, r in enumerate(rows) if i not in drawn]


def unused_dev_set(dev: DevSet, raw_dir, task: str, n_examples: int | None, seed: int, max_len: int) -> DevSet:
    """``dev``'s model with the dev rows its draw left out (:func:`unused_rows`), encoded alike: the
    rows a ranking on ``dev`` never saw."""
    items, counts = encode(dev.tokenizer, unused_rows(read_split(raw_dir, task, "dev"), n_examples, seed), max_len)
    return DevSet(dev.model, dev.tokenizer, items, counts, dev.rows_total)
