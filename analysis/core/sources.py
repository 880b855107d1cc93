"""Raw inputs: download from upstream by URL, copy from a local mirror, or copy a user's local
files (a ``path:`` source), always checking every file's sha256. Nothing half-written is left behind.

Two kinds of source (the sources file, or ``local_sources:`` in the config):

- ``files: {name: {url, sha256}}`` (+ ``mirror_folder``): the sha256 is written down in advance;
- ``path: <directory, file or glob>``: a corpus no URL serves (OntoNotes, the Penn Treebank). The
  first use copies the files and records each sha256 in ``resources/raw/<source>/SHA256SUMS``;
  later runs compare the files with that record (:func:`verify_local_source`) and refuse any
  change, naming the file and both hashes, until the record is deleted on purpose.
"""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

log = logging.getLogger(__name__)


class ChecksumError(ValueError):
    pass


class SourceUnavailable(FileNotFoundError):
    """A source file that no mirror holds and that cannot be downloaded (the message says where
    it looked and how to point the workflow at a mirror)."""


def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(url: str, dest: Path, timeout: float = 60) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as r, open(dest, "wb") as f:
        shutil.copyfileobj(r, f)


def _unavailable(source: str, name: str, mirror_note: str, why: str) -> SourceUnavailable:
    return SourceUnavailable(
        f"source {source!r}, file {name}: {mirror_note}, and {why}. Point the workflow at a mirror "
        "holding it: the environment variable ATTN_MIRROR or `mirror:` in the config (a directory "
        "with one folder per source, as named by mirror_folder in the sources file)"
    )


def fetch_file(
    name: str, spec: dict, dest: Path, mirror_dir: Path | None, source: str = "", mirror_note: str = ""
) -> str:
    """Copy ``name`` from ``mirror_dir`` (when it has it) or download ``spec['url']``
    into ``dest``, verify ``spec['sha256']``; returns where it came from."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    note = mirror_note or (f"the mirror folder {mirror_dir} has no {name}" if mirror_dir else "no mirror is set")
    try:
        if mirror_dir is not None and (mirror_dir / name).is_file():
            origin = str(mirror_dir / name)
            shutil.copyfile(mirror_dir / name, tmp)
        elif spec.get("url"):
            origin = spec["url"]
            try:
                _download(spec["url"], tmp)
            except (urllib.error.URLError, OSError) as err:
                reason = getattr(err, "reason", err)
                raise _unavailable(source, name, note, f"downloading {spec['url']} failed ({reason})") from None
        else:
            raise _unavailable(source, name, note, "it has no upstream URL (the file is rebuilt in the mirror)")
        got = sha256(tmp)
        if got != spec["sha256"]:
            raise ChecksumError(f"{name} from {origin}: sha256 mismatch: expected {spec['sha256']}, got {got}")
        tmp.replace(dest)
        return origin
    finally:
        tmp.unlink(missing_ok=True)


def _write_atomic(path: Path, text: str) -> Path:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text)
    tmp.replace(path)
    return path


def fetch_source(source: dict, dest_dir, mirror: str | None, name: str = "") -> Path:
    """Fetch every file of a source into ``dest_dir`` and write ``dest_dir/SHA256SUMS`` last
    (returns its path): ``files: {name: {url, sha256}}`` (+ ``mirror_folder``) from the mirror
    or upstream, or ``path:`` (a local directory / file / glob) copied and recorded."""
    dest_dir = Path(dest_dir)
    name = name or dest_dir.name  # resources/raw/<source>
    if "path" in source:
        return record_local_source(source["path"], dest_dir, name)
    mirror_dir, note = None, "no mirror is set"
    if mirror:
        mirror_dir = Path(mirror) / source.get("mirror_folder", "")
        if not mirror_dir.is_dir():
            note = f"the mirror folder {mirror_dir} does not exist"
            log.warning("%s: downloading from upstream", note)
            mirror_dir = None
    lines = []
    for fname, spec in source["files"].items():
        origin = fetch_file(fname, spec, dest_dir / fname, mirror_dir, source=name, mirror_note=note)
        log.info("%s <- %s (sha256 ok)", fname, origin)
        lines.append(f"{spec['sha256']}  {fname}\n")
    return _write_atomic(dest_dir / "SHA256SUMS", "".join(lines))


# --------------------------------------------------------------------------- local (path:) sources


def local_files(path: str, source: str = "") -> dict[str, Path]:
    """The files of a ``path:`` source, name (relative, ``/``-separated) -> file, sorted by name.

    A directory: every file below it (hidden ones left out); a glob (``*``, ``?``, ``[``, ``**``):
    the files it matches, named relative to the directory before the first wildcard; a file: itself."""
    path = os.path.expanduser(str(path))
    if glob.has_magic(path):
        fixed = []
        for part in Path(path).parts:  # the directory before the first wildcard
            if glob.has_magic(part):
                break
            fixed.append(part)
        base = Path(*fixed) if fixed else Path(".")
        found = [Path(p) for p in glob.glob(path, recursive=True)]
    elif Path(path).is_dir():
        base = Path(path)
        found = [p for p in base.rglob("*") if not any(part.startswith(".") for part in p.relative_to(base).parts)]
    else:
        base, found = Path(path).parent, [Path(path)]
    files = {p.relative_to(base).as_posix(): p for p in found if p.is_file()}
    if not files:
        raise SourceUnavailable(
            f"local source {source!r}: path {path!r} matches no file (working directory {os.getcwd()})"
        )
    reserved = sorted(n for n in files if n.split("/")[-1].startswith("SHA256SUMS"))
    if reserved:
        raise ValueError(f"local source {source!r}: {reserved} would overwrite the record of the source; rename it")
    return dict(sorted(files.items()))


def _copy_hashed(src: Path, dest: Path) -> str:
    """Copy ``src`` to ``dest`` atomically; the sha256 of the bytes copied."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    h = hashlib.sha256()
    try:
        with open(src, "rb") as fi, open(tmp, "wb") as fo:
            for block in iter(lambda: fi.read(1 << 20), b""):
                h.update(block)
                fo.write(block)
        tmp.replace(dest)
    finally:
        tmp.unlink(missing_ok=True)
    return h.hexdigest()


def record_local_source(path: str, dest_dir, source: str = "") -> Path:
    """First use of a ``path:`` source: copy its files into ``dest_dir`` and record their sha256
    in ``dest_dir/SHA256SUMS`` (written last)."""
    dest_dir = Path(dest_dir)
    lines = []
    for name, src in local_files(path, source).items():
        digest = _copy_hashed(src, dest_dir / name)
        log.info("%s <- %s (sha256 %s recorded)", name, src, digest)
        lines.append(f"{digest}  {name}\n")
    return _write_atomic(dest_dir / "SHA256SUMS", "".join(lines))


def read_sums(path) -> dict[str, str]:
    """A ``SHA256SUMS`` file: name -> sha256."""
    out = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            digest, name = line.split(None, 1)
            out[name.strip().lstrip("*")] = digest
    return out


def verify_local_source(path: str, record, out, source: str = "") -> Path:
    """Compare the files of a ``path:`` source with the record of their first use; write ``out``
    (the record's lines) when every file is unchanged, otherwise raise naming each change."""
    record = Path(record)
    recorded = read_sums(record)
    now = local_files(path, source)
    problems = []
    for name in sorted(set(recorded) | set(now)):
        if name not in now:
            problems.append(f"{name}: recorded (sha256 {recorded[name]}) but no longer under {path}")
        elif name not in recorded:
            problems.append(f"{name}: new file {now[name]}, not in the record")
        else:
            got = sha256(now[name])
            if got != recorded[name]:
                problems.append(f"{now[name]}: changed: sha256 recorded {recorded[name]}, now {got}")
    if problems:
        raise ChecksumError(
            f"local source {source!r} differs from its record {record} (first use):\n  "
            + "\n  ".join(problems)
            + f"\nIf the change is intended, delete the record (rm {record}): the next run copies "
            "the files again and records the new hashes (and reruns everything made from them)."
        )
    return _write_atomic(Path(out), record.read_text())
