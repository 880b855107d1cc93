"""Config ``batch_size`` (inputs per forward pass when extracting maps): a number, or ``auto``, chosen
by the job's device. On a CPU small batches keep a batch's attention maps in cache (8 was the
fastest of 1-64 at 1 and 2 threads); a GPU is kept busy only by larger ones. No torch here: the
rules size their jobs with it while the DAG is built."""

from __future__ import annotations

AUTO = {"cpu": 8, "cuda": 64}  # batch_size: auto, by device type


def batch_for(setting, device) -> int:
    """The batch size of config ``batch_size`` ``setting`` on ``device`` (``cpu``, ``cuda``, ``cuda:0``
    or a torch.device): the number given, or AUTO's for ``auto``."""
    if setting == "auto":
        kind = str(device).split(":")[0]
        if kind not in AUTO:
            raise ValueError(f"config batch_size: auto has no size for device {device!r} (known: {', '.join(AUTO)})")
        return AUTO[kind]
    return _number(setting)


def sizing_batch(setting) -> int:
    """The batch a job is sized for (memory, in a request made before its device is known): for
    ``auto`` the largest AUTO would choose."""
    return max(AUTO.values()) if setting == "auto" else _number(setting)


def _number(setting) -> int:
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 1:
        raise ValueError(f"config batch_size: {setting!r} is neither a positive integer nor auto")
    return setting
