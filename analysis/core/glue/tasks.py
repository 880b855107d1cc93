"""The GLUE tasks (source ``glue``): each task's columns, labels and metrics (the first one its main
metric; computed by ``analysis.core.glue.metrics``); the files are read by ``analysis.core.glue.reader``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Task:
    name: str
    sentence_cols: tuple[int, ...]  # 0-based columns of sentence A (and B)
    label_col: int
    labels: tuple[str, ...] | None  # class names in index order; None = regression
    metrics: tuple[str, ...]  # first = the task's main metric
    header: bool = True
    splits: tuple[str, ...] = ("train", "dev")

    @property
    def num_labels(self) -> int:
        return 1 if self.labels is None else len(self.labels)

    @property
    def is_regression(self) -> bool:
        return self.labels is None

    @property
    def main_metric(self) -> str:
        return self.metrics[0]


TASKS: dict[str, Task] = {
    t.name: t
    for t in [
        Task("SST-2", (0,), 1, ("0", "1"), ("accuracy",)),
        Task("MRPC", (3, 4), 0, ("0", "1"), ("f1", "accuracy")),
        Task("RTE", (1, 2), 3, ("not_entailment", "entailment"), ("accuracy",)),
        Task("STS-B", (7, 8), 9, None, ("pearson", "spearman")),
        Task("CoLA", (3,), 1, ("0", "1"), ("mcc", "accuracy"), header=False),
        Task("QNLI", (1, 2), 3, ("not_entailment", "entailment"), ("accuracy",), splits=("dev",)),
    ]
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown GLUE task {name!r}; one of {sorted(TASKS)}")
    return TASKS[name]
