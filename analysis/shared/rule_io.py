"""Small helpers shared by the workflow scripts (logging, writing tables and figures)."""

from __future__ import annotations

import atexit
import json
import logging
import os
import sys
import time
from pathlib import Path


def setup_logging(snakemake) -> logging.Logger:
    """Send logging, warnings and stderr (progress bars) to the rule's log file. Its first line says
    how long the job took to get here from its process's start (the interpreter, Snakemake's
    preamble and the script's imports), its last how long the process ran (tools/measure/startup_table.py
    reads both; issue 39)."""
    log_path = Path(snakemake.log[0])
    log_path.parent.mkdir(parents=True, exist_ok=True)
    stream = open(log_path, "w", buffering=1)
    sys.stderr = stream
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=stream, force=True
    )
    logging.captureWarnings(True)
    sys.excepthook = _log_error
    log = logging.getLogger(f"rule.{snakemake.rule}")
    started = since_process_start()
    if started is not None:
        log.info("start-up %.3f s (process start to this log: interpreter, imports)", started)
        # at exit, before logging's own handler closes the log (atexit runs the last registered first)
        atexit.register(lambda: log.info("done %.3f s after process start", since_process_start()))
    return log


def since_process_start() -> float | None:
    """Seconds since this process started (Linux: its start time in /proc/self/stat, in clock ticks
    since boot, against CLOCK_BOOTTIME); None where that cannot be read."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of proc(5), starttime
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _log_error(kind, error, tb) -> None:
    """A job's uncaught error into its log: a refused model (``ModelRefusal``) by its sentence alone,
    which says all there is to say; anything else with its traceback, as Python prints it."""
    from analysis.core.model_families import ModelRefusal

    if isinstance(error, ModelRefusal):
        print(f"{kind.__name__}: {error}", file=sys.stderr)
    else:
        sys.__excepthook__(kind, error, tb)


def use_threads(threads: int) -> None:
    """Torch's intra-op threads = ``threads``, the job's (``use_threads(snakemake.threads)``, the one
    idiom of the rule scripts; Snakemake sets OMP_NUM_THREADS for the BLAS libraries, torch's own
    pool is set here), so ``--cores N`` is never oversubscribed. Torch is not imported for it (a
    reader that never needs torch would pay its import, issue 39): where it is not loaded yet,
    OMP_NUM_THREADS is set, and torch's pool starts with it when a later import loads torch."""
    n = max(1, int(threads))
    os.environ["OMP_NUM_THREADS"] = str(n)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(n)


def _part(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place: never a half-written output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.with_name(path.name + ".part")


def write_table(df, path, float_format: str | None = "%.6g", **kwargs) -> None:
    """``df`` into ``path`` (csv, or tsv by suffix) through a .part file; floats to 6 significant
    digits unless ``float_format`` says otherwise (None: every digit)."""
    path = Path(path)
    sep = "\t" if path.suffix == ".tsv" else ","
    tmp = _part(path)
    df.to_csv(tmp, sep=sep, index=False, float_format=float_format, **kwargs)
    tmp.replace(path)


def write_text(text: str, path) -> None:
    """``text`` into ``path`` through a .part file renamed into place (pages, Markdown, JSON payloads)."""
    path = Path(path)
    tmp = _part(path)
    tmp.write_text(text)
    tmp.replace(path)


def write_json(obj, path) -> None:
    path = Path(path)
    write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", path)


def save_figure(fig, path, dpi: int = 200) -> None:
    """Write ``fig`` to ``path`` and close it: a rule's figure is done once it is saved."""
    import matplotlib.pyplot as plt

    path = Path(path)
    tmp = _part(path)
    # fixed metadata so reruns give identical bytes
    fig.savefig(tmp, format=path.suffix[1:], dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    tmp.replace(path)
    plt.close(fig)


def parsed_workflow(root, configfiles=()):
    """The workflow of the checkout ``root`` as Snakemake parses it (config/config.default.yaml, the
    user's config/config.yaml where there is one, then ``configfiles``): its rules and globals (e.g. CLAIM_TABLES, the claim tables' registry)."""
    import contextlib

    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, StorageSettings

    root = Path(root).resolve()
    with contextlib.chdir(root), SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        # the Snakefile reads config/config.default.yaml (and config/config.yaml, where there is one) itself
        config = ConfigSettings(configfiles=[Path(c).resolve() for c in configfiles])
        workflow = api.workflow(ResourceSettings(cores=2), config, StorageSettings(), snakefile=root / "Snakefile")
        wf = workflow._workflow  # the parsed workflow: Snakemake's API gives jobs only to its executors
        wf.dag_settings = DAGSettings()
        return wf


def start(namespace: dict, script: str, threads: bool = False):
    """Every rule script's first call: ``snakemake, log = start(globals(), __file__)``. The job's
    ``snakemake`` object (the one Snakemake put in the script's globals; run by hand, to debug,
    ``python workflow/<rule>.py key=value ... [overlay.yaml]``: the one :func:`mock_snakemake`
    builds), its log set up, and with ``threads`` torch's threads set to the job's."""
    snakemake = namespace.get("snakemake") or mock_snakemake(script)
    log = setup_logging(snakemake)
    if threads:
        use_threads(snakemake.threads)
    return snakemake, log


def mock_snakemake(script: str, argv: list[str] | None = None):
    """The ``snakemake`` object of the job that ``script`` (workflow/<rule>.py) would run, for running
    a rule script by hand when debugging: ``python workflow/<rule>.py model=<slug> task=RTE
    [overlay.yaml ...]`` (wildcards as key=value; config files overlay config/config.default.yaml). Paths
    are the workflow's (the working directory becomes the repository root); the inputs must exist."""
    import os

    root = Path(script).resolve().parents[1]
    rule_name = Path(script).stem
    argv = sys.argv[1:] if argv is None else argv
    wildcards = dict(a.split("=", 1) for a in argv if "=" in a)
    configfiles = [Path(a).resolve() for a in argv if "=" not in a]
    os.chdir(root)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    wf = parsed_workflow(root, configfiles)
    from snakemake.dag import DAG  # after snakemake.api (parsed_workflow): importing it first is circular
    from snakemake.jobs import Job
    from snakemake.script import Snakemake

    rule = wf.get_rule(rule_name)
    missing = set(rule.wildcard_names) - set(wildcards)
    if missing:
        raise SystemExit(f"{script}: give the wildcards {', '.join(sorted(missing))} as key=value")
    job = Job(rule, DAG(wf, rules=[rule]), wildcards_dict=wildcards)
    return Snakemake(
        job.input, job.output, job.params, job.wildcards, job.threads, job.resources, job.log,
        wf.config, rule_name, None, root / "workflow",
    )  # fmt: skip
