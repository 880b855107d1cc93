"""The paper's pattern classifier as a comparator (Kovaleva et al. 2019): a tiny CNN on down-sampled
maps (``downsample_map``), cross-validated only (``cnn_cross_validate``, in the folds of
``analysis.kovaleva.patterns.classifier.cv_splits``), beside the feature classifier that is applied."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from analysis.core.models import SPECIAL_KINDS
from analysis.kovaleva.patterns.classifier import cv_splits, per_class_table
from analysis.kovaleva.patterns.features import CLASSES


def downsample_map(m: np.ndarray, kinds: str, size: int = 32, over: int = 4) -> np.ndarray:
    """(2, size, size) image of a map of any length: channel 0 = the map resampled
    (nearest-neighbour on a size*over grid, then block means), scaled to max 1; channel 1 =
    where the special-token columns fall."""
    n = len(m)
    idx = np.minimum(((np.arange(size * over) + 0.5) * n / (size * over)).astype(int), n - 1)
    small = np.asarray(m, dtype=np.float64)[np.ix_(idx, idx)].reshape(size, over, size, over).mean((1, 3))
    small /= max(float(small.max()), 1e-12)
    spec = np.array([c in SPECIAL_KINDS for c in kinds], dtype=np.float64)[idx].reshape(size, over).mean(1)
    return np.stack([small, np.broadcast_to(spec, (size, size))]).astype(np.float32)


def map_images(maps: dict, map_ids: Iterable) -> np.ndarray:
    """(N, 2, 32, 32) ``downsample_map`` images of the labelled maps ``map_ids``
    (``maps`` as from ``analysis.kovaleva.patterns.labels.load_maps``)."""
    return np.stack([downsample_map(maps[int(m)][0], maps[int(m)][1]) for m in map_ids])


def _tiny_cnn(n_classes: int):
    import torch

    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(2, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 16, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(2),
        nn.Flatten(),
        nn.Linear(64, n_classes),
    )


def _fit_cnn(images, yi, n_classes: int, seed: int, epochs: int, batch_size: int, lr: float):
    """A ``_tiny_cnn`` trained on ``images`` / class indices ``yi`` (class-weighted
    cross-entropy, Adam, seeded)."""
    import torch

    torch.manual_seed(seed)
    net = _tiny_cnn(n_classes)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-4)
    counts = np.bincount(yi, minlength=n_classes)
    w = torch.tensor(len(yi) / (n_classes * np.maximum(counts, 1)), dtype=torch.float32)
    xt, yt = torch.from_numpy(images), torch.from_numpy(yi)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(yi), generator=gen)
        for b in range(0, len(yi), batch_size):
            i = perm[b : b + batch_size]
            loss = torch.nn.functional.cross_entropy(net(xt[i]), yt[i], weight=w)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return net


def cnn_cross_validate(
    images: np.ndarray,
    y: np.ndarray,
    folds: int,
    seed: int,
    epochs: int,
    batch_size: int = 32,
    lr: float = 3e-3,
    groups=None,
) -> pd.DataFrame:
    """Stratified k-fold F1 per class of a tiny CNN (3 conv layers, class-weighted
    cross-entropy, Adam, seeded) on ``images`` (N, 2, S, S) from ``downsample_map``."""
    import torch

    y = np.asarray(y)
    present = [c for c in CLASSES if (y == c).any()]
    yi = np.array([present.index(c) for c in y])
    k = int(min(folds, np.bincount(yi).min()))
    pred = np.empty(len(y), dtype=int)
    for tr, te in cv_splits(images, yi, k, seed, groups):
        net = _fit_cnn(images[tr], yi[tr], len(present), seed, epochs, batch_size, lr)
        with torch.no_grad():
            pred[te] = net(torch.from_numpy(images[te])).argmax(1).numpy()
    out = per_class_table("cnn", yi, pred, list(range(len(present))), present)
    out["folds"] = k
    return out
