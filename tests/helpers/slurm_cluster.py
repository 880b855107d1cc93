"""A one-node SLURM cluster for tests, from the Debian packages (`slurmctld slurmd slurmdbd
slurm-client munge mariadb-server`; .ci/run installs them), in one directory and without systemd:
munged, mariadbd, slurmdbd (accounting: the SLURM executor plugin polls `sacct`), slurmctld and
slurmd run as child processes on free local ports, with their own keys, sockets, logs and state,
so nothing of the machine's own setup is used or changed (but for a link to the config where a
configless node keeps its copy, /run/slurm/conf/slurm.conf, while the cluster runs: the SLURM
jobstep plugin runs each job's srun without SLURM_CONF).

The node has partitions ``cpu`` (the default) and ``gpu``, and one GPU declared with
``File=/dev/null``: jobs asking for ``--gpus=1`` are scheduled on a machine without one (they
then run on the CPU). Memory is a consumable resource (``CR_Core_Memory``): a job asking for more
than the node has is refused by sbatch, as on a real cluster. No cgroups (``proctrack/linuxproc``,
``task/none``): it runs in a container.

    python tests/helpers/slurm_cluster.py DIR     # start one by hand; prints the SLURM_CONF to export; Ctrl-C stops it
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

DAEMONS = ["munged", "mungekey", "mariadbd", "mariadb-install-db", "slurmdbd", "slurmctld", "slurmd"]
CLIENTS = ["sbatch", "sacct", "sacctmgr", "sinfo", "squeue", "scancel"]
SBIN = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
CLUSTER, ACCOUNT = "attn-ci", "ci"
RUN_CONF = Path("/run/slurm/conf/slurm.conf")  # a configless node's copy of the config (read by clients)


def left_by_a_killed_test_cluster(link: Path) -> bool:
    """A config link made by a test cluster whose slurmctld no longer runs (its directory may be gone)."""
    conf = link.resolve()
    if not conf.exists():
        return True
    if f"ClusterName={CLUSTER}\n" not in conf.read_text():
        return False  # a cluster that is not ours
    pidfile = conf.with_name("slurmctld.pid")
    try:
        os.kill(int(pidfile.read_text()), 0)
    except (OSError, ValueError):
        return True
    return False


class ClusterUnavailable(RuntimeError):
    """This machine cannot run the test cluster (the message says why)."""


def which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path=os.pathsep.join(SBIN))


def missing_programs() -> list[str]:
    return [p for p in DAEMONS + CLIENTS if not which(p)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_memory_mb() -> int:
    """The node's RealMemory: the machine's memory less 1 GB for the daemons and the test itself."""
    total_kb = int(next(line for line in open("/proc/meminfo") if line.startswith("MemTotal:")).split()[1])
    return total_kb // 1024 - 1024


def slurm_conf(d: Path, node: str, ports: dict, cpus: int, memory_mb: int) -> str:
    return f"""\
ClusterName={CLUSTER}
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ports["ctld"]}
SlurmdPort={ports["slurmd"]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={d}/munge.sock
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=2
JobAcctGatherParams=OverMemoryKill
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort={ports["dbd"]}
AccountingStoragePass={d}/munge.sock
AccountingStorageEnforce=associations
AccountingStorageTRES=gres/gpu
JobCompType=jobcomp/none
AccountingStoreFlags=job_comment
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
MpiDefault=none
ReturnToService=2
MinJobAge=300
SlurmdTimeout=300
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory_mb} Gres=gpu:1 State=UNKNOWN
PartitionName=cpu Nodes={node} Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes={node} Default=NO MaxTime=INFINITE State=UP
"""


def slurmdbd_conf(d: Path, ports: dict) -> str:
    return f"""\
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort={ports["dbd"]}
SlurmUser=root
LogFile={d}/slurmdbd.log
PidFile={d}/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={ports["db"]}
StorageUser=root
StorageLoc=slurm_acct_db
"""


class SlurmCluster:
    """Start with ``start()`` (raises ClusterUnavailable saying why), stop with ``stop()``;
    ``env`` is the environment for the client commands and Snakemake (SLURM_CONF)."""

    def __init__(self, directory: Path):
        self.dir = Path(directory).resolve()
        self.node = socket.gethostname().split(".")[0]
        self.procs: list[tuple[str, subprocess.Popen]] = []
        self.linked = False
        self.env = {**os.environ, "SLURM_CONF": str(self.dir / "slurm.conf")}

    # -- helpers --------------------------------------------------------------------------------
    def run(self, *cmd, check=True, timeout=60) -> subprocess.CompletedProcess:
        prog = which(cmd[0]) or cmd[0]
        out = subprocess.run([prog, *map(str, cmd[1:])], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and out.returncode != 0:
            raise ClusterUnavailable(f"{' '.join(map(str, cmd))} failed ({out.returncode}): {out.stderr.strip()}")
        return out

    def daemon(self, name: str, *cmd) -> subprocess.Popen:
        log = open(self.dir / f"{name}.out", "w")
        proc = subprocess.Popen(
            [which(cmd[0]), *map(str, cmd[1:])], env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir
        )
        self.procs.append((name, proc))
        return proc

    def wait_for(self, what: str, ready, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise ClusterUnavailable(
                        f"{name} exited ({proc.returncode}) while waiting for {what}: {self.tail(name)}"
                    )
            if ready():
                return
            time.sleep(0.3)
        raise ClusterUnavailable(f"timed out waiting for {what}: {self.tail()}")

    def tail(self, name: str | None = None, n: int = 1500) -> str:
        logs = (
            [self.dir / f"{name}.log", self.dir / f"{name}.out"]
            if name
            else sorted(self.dir.glob("*.log")) + sorted(self.dir.glob("*.out"))
        )
        return "\n".join(f"== {p.name}\n{p.read_text(errors='replace')[-n:]}" for p in logs if p.is_file())

    # -- start / stop -----------------------------------------------------------------------------
    def start(self) -> SlurmCluster:
        if missing_programs():
            raise ClusterUnavailable(
                f"not installed: {', '.join(missing_programs())} "
                "(apt-get install slurmctld slurmd slurmdbd slurm-client munge mariadb-server, as .ci/run does)"
            )
        if RUN_CONF.is_symlink() and left_by_a_killed_test_cluster(RUN_CONF):
            RUN_CONF.unlink()
        if Path("/etc/slurm/slurm.conf").exists() or RUN_CONF.is_symlink() or RUN_CONF.exists():
            raise ClusterUnavailable(f"this machine has a SLURM configuration of its own (/etc/slurm, {RUN_CONF})")
        if os.geteuid() != 0:
            raise ClusterUnavailable("the test cluster's daemons run as root (SlurmUser=root); this is not root")
        for sub in ("state", "spool", "db"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        ports = {k: free_port() for k in ("ctld", "slurmd", "dbd", "db")}
        try:
            self._start(ports)
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self, ports: dict) -> None:
        d = self.dir
        self.run("mungekey", "--create", "--keyfile", d / "munge.key", "--force")
        self.daemon(
            "munged", "munged", "--foreground", "--force", f"--socket={d}/munge.sock", f"--key-file={d}/munge.key",
            f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed",
        )  # fmt: skip
        self.wait_for("munged", lambda: (d / "munge.sock").exists())
        self.run(
            "mariadb-install-db", "--no-defaults", f"--datadir={d}/db", "--user=root",
            "--auth-root-authentication-method=normal", "--skip-test-db", timeout=120,
        )  # fmt: skip
        self.daemon(
            "mariadbd", "mariadbd", "--no-defaults", f"--datadir={d}/db", "--user=root", f"--port={ports['db']}",
            "--bind-address=127.0.0.1", f"--socket={d}/mysql.sock", f"--pid-file={d}/mariadbd.pid",
            f"--log-error={d}/mariadbd.log", "--skip-name-resolve=0", "--innodb-buffer-pool-size=64M",
        )  # fmt: skip
        self.wait_for("mariadbd", lambda: listening(ports["db"]))
        cpus = os.cpu_count() or 1
        (d / "slurm.conf").write_text(slurm_conf(d, self.node, ports, cpus, node_memory_mb()))
        (d / "gres.conf").write_text(f"NodeName={self.node} Name=gpu File=/dev/null\n")
        # the jobs' own srun finds it where a configless node keeps its copy (the SLURM jobstep plugin
        # runs srun without SLURM_CONF)
        RUN_CONF.parent.mkdir(parents=True, exist_ok=True)
        RUN_CONF.symlink_to(d / "slurm.conf")
        self.linked = True
        (d / "slurmdbd.conf").write_text(slurmdbd_conf(d, ports))
        (d / "slurmdbd.conf").chmod(0o600)
        self.daemon("slurmdbd", "slurmdbd", "-D")
        self.wait_for("slurmdbd", lambda: listening(ports["dbd"]))
        self.run("sacctmgr", "-i", "add", "cluster", CLUSTER)
        self.daemon("slurmctld", "slurmctld", "-D", "-i")
        self.wait_for("slurmctld", lambda: self.run("sinfo", check=False).returncode == 0)
        self.run("sacctmgr", "-i", "add", "account", ACCOUNT, f"Cluster={CLUSTER}")
        self.run("sacctmgr", "-i", "add", "user", "root", f"Account={ACCOUNT}", f"Cluster={CLUSTER}")
        self.daemon("slurmd", "slurmd", "-D", "-N", self.node)
        self.wait_for("the node to be idle", self.node_idle, timeout=90)

    def node_idle(self) -> bool:
        out = self.run("sinfo", "-h", "-N", "-o", "%T", check=False).stdout.split()
        return bool(out) and all(s.rstrip("*") in ("idle", "mixed", "allocated") for s in out)

    def stop(self) -> None:
        for _name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs.clear()
        if self.linked:
            RUN_CONF.unlink(missing_ok=True)
            self.linked = False

    def jobs(self) -> list[dict]:
        """Every job the accounting knows, one dict per job allocation (sacct -X)."""
        fields = [
            "JobID",
            "JobName",
            "Partition",
            "Account",
            "State",
            "ExitCode",
            "ReqMem",
            "Timelimit",
            "AllocTRES",
            "Comment",
        ]
        out = self.run("sacct", "-X", "-a", "-n", "-P", "-S", "2000-01-01", "-o", ",".join(fields)).stdout
        return [dict(zip(fields, line.split("|"))) for line in out.splitlines() if line.strip()]


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    cluster = SlurmCluster(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd() / "slurm-cluster")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # kill <pid> stops the daemons too
    cluster.start()
    print(f"export SLURM_CONF={cluster.dir / 'slurm.conf'}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()
