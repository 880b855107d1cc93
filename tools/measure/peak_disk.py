"""Run a command and record the peak size on disk of some folders while it runs.

    python -m tools.measure.peak_disk --out benchmarks/maps_disk.json -- snakemake --cores all

measures the attention maps (resources/attention, resources/attention_glue) over a whole run:
with the default ``keep_maps: false`` each shard is deleted once its readers are done, so the
peak is far below the total written. Polls every ``--every`` seconds (a shard written and
deleted between two polls is missed: the peak is a lower bound at that resolution).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path


def folder_bytes(path: Path) -> int:
    """Bytes of the regular files under ``path`` (0 if it does not exist); files that vanish
    while being counted are skipped."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass
    return total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paths", nargs="+", default=["resources/attention", "resources/attention_glue"])
    ap.add_argument("--every", type=float, default=1.0, help="seconds between polls")
    ap.add_argument("--out", required=True, help="JSON with the peak, when it was reached, and the total written")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- the command to run")
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command given (put it after --)")
    paths = [Path(p) for p in args.paths]
    start = time.monotonic()
    proc = subprocess.Popen(command)
    peak, peak_at, polls = 0, 0.0, 0
    while proc.poll() is None:
        now = sum(folder_bytes(p) for p in paths)
        polls += 1
        if now > peak:
            peak, peak_at = now, time.monotonic() - start
        time.sleep(args.every)
    result = {
        "command": command,
        "returncode": proc.returncode,
        "paths": [str(p) for p in paths],
        "peak_bytes": peak,
        "peak_gb": round(peak / 1e9, 3),
        "peak_at_s": round(peak_at, 1),
        "wall_s": round(time.monotonic() - start, 1),
        "end_bytes": sum(folder_bytes(p) for p in paths),
        "polls": polls,
        "every_s": args.every,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2), file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
