"""GLUE (source ``glue``), every paper's GLUE code: the task table, the file reader, word-piece batches, metrics."""
