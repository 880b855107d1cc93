"""Raw inputs: download from upstream by URL, or copy from a local mirror, always
checking every file's sha256. Nothing half-written is left behind."""

from __future__ import annotations

import hashlib
import logging
import shutil
import urllib.request
from pathlib import Path

log = logging.getLogger(__name__)


class ChecksumError(ValueError):
    pass


def sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(url: str, dest: Path, timeout: float = 60) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as r, open(dest, "wb") as f:
        shutil.copyfileobj(r, f)


def fetch_file(name: str, spec: dict, dest: Path, mirror_dir: Path | None) -> str:
    """Copy ``name`` from ``mirror_dir`` (when it has it) or download ``spec['url']``
    into ``dest``, verify ``spec['sha256']``; returns where it came from."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        if mirror_dir is not None and (mirror_dir / name).is_file():
            origin = str(mirror_dir / name)
            shutil.copyfile(mirror_dir / name, tmp)
        elif spec.get("url"):
            origin = spec["url"]
            _download(spec["url"], tmp)
        else:
            raise FileNotFoundError(
                f"{name}: no upstream URL (the file is rebuilt in the mirror) and no mirror has it "
                f"(looked in {mirror_dir}); set 'mirror' in the config or ATTN_MIRROR"
            )
        got = sha256(tmp)
        if got != spec["sha256"]:
            raise ChecksumError(f"{name} from {origin}: sha256 mismatch: expected {spec['sha256']}, got {got}")
        tmp.replace(dest)
        return origin
    finally:
        tmp.unlink(missing_ok=True)


def fetch_source(source: dict, dest_dir, mirror: str | None) -> Path:
    """Fetch every file of a source (``files: {name: {url, sha256}}``, ``mirror_folder``)
    into ``dest_dir``; write ``dest_dir/SHA256SUMS`` last. Returns its path."""
    dest_dir = Path(dest_dir)
    mirror_dir = None
    if mirror:
        mirror_dir = Path(mirror) / source.get("mirror_folder", "")
        if not mirror_dir.is_dir():
            log.warning("mirror folder %s not found: downloading from upstream", mirror_dir)
            mirror_dir = None
    lines = []
    for name, spec in source["files"].items():
        origin = fetch_file(name, spec, dest_dir / name, mirror_dir)
        log.info("%s <- %s (sha256 ok)", name, origin)
        lines.append(f"{spec['sha256']}  {name}\n")
    manifest = dest_dir / "SHA256SUMS"
    tmp = manifest.with_name("SHA256SUMS.part")
    tmp.write_text("".join(lines))
    tmp.replace(manifest)
    return manifest
