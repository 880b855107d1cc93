import hashlib

import pytest

from analysis.core.sources import ChecksumError, fetch_source


def make_mirror(tmp_path, content=b"hello\n"):
    mirror = tmp_path / "mirror"
    (mirror / "folder").mkdir(parents=True)
    (mirror / "folder" / "a.txt").write_bytes(content)
    return mirror


def test_copy_from_mirror_and_verify(tmp_path):
    mirror = make_mirror(tmp_path)
    src = {
        "mirror_folder": "folder",
        "files": {"a.txt": {"url": None, "sha256": hashlib.sha256(b"hello\n").hexdigest()}},
    }
    manifest = fetch_source(src, tmp_path / "raw", str(mirror))
    assert (tmp_path / "raw" / "a.txt").read_bytes() == b"hello\n"
    assert manifest.read_text().endswith("  a.txt\n")


def test_checksum_mismatch_names_file_and_both_hashes(tmp_path):
    mirror = make_mirror(tmp_path, b"tampered\n")
    want = hashlib.sha256(b"hello\n").hexdigest()
    got = hashlib.sha256(b"tampered\n").hexdigest()
    src = {"mirror_folder": "folder", "files": {"a.txt": {"url": None, "sha256": want}}}
    with pytest.raises(ChecksumError) as err:
        fetch_source(src, tmp_path / "raw", str(mirror))
    assert "a.txt" in str(err.value) and want in str(err.value) and got in str(err.value)
    # nothing half-written, no manifest
    assert not any((tmp_path / "raw").iterdir())


def test_no_url_and_no_mirror_fails_clearly(tmp_path):
    src = {"mirror_folder": "x", "files": {"a.txt": {"url": None, "sha256": "0" * 64}}}
    with pytest.raises(FileNotFoundError, match="a.txt"):
        fetch_source(src, tmp_path / "raw", None)


def test_sources_config_is_complete():
    import yaml

    from conftest import ROOT

    sources = yaml.safe_load((ROOT / "config" / "sources.yaml").read_text())["sources"]
    assert {"wikitext2_raw", "gum_sd", "ontogum", "glue", "ud_ewt", "ptb_wsj_sample", "gap"} <= set(sources)
    for name, src in sources.items():
        for f, spec in src["files"].items():
            assert len(spec["sha256"]) == 64, (name, f)
            assert spec["url"] is None or spec["url"].startswith("https://raw.githubusercontent.com/"), (name, f)


def test_local_files_of_a_directory_a_glob_and_a_file(tmp_path):
    from analysis.core.sources import SourceUnavailable, local_files

    tree = tmp_path / "conll-2012" / "dev"
    for rel in ["bc/cctv/a.v4_gold_conll", "nw/wsj/b.v4_gold_conll", "nw/wsj/b.v4_auto_conll", ".hidden/x"]:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(rel)
    assert list(local_files(str(tree))) == [
        "bc/cctv/a.v4_gold_conll",
        "nw/wsj/b.v4_auto_conll",
        "nw/wsj/b.v4_gold_conll",
    ]
    assert list(local_files(f"{tree}/**/*_gold_conll")) == ["bc/cctv/a.v4_gold_conll", "nw/wsj/b.v4_gold_conll"]
    assert list(local_files(str(tree / "nw/wsj/b.v4_gold_conll"))) == ["b.v4_gold_conll"]
    with pytest.raises(SourceUnavailable, match=r"local source 'x': path .*nothing\*' matches no file"):
        local_files(f"{tree}/nothing*", "x")


def test_local_source_recorded_then_verified(tmp_path):
    import os

    from analysis.core.sources import fetch_source, verify_local_source

    src = tmp_path / "tb"
    src.mkdir()
    (src / "a.conllu").write_text("one\n")
    raw = tmp_path / "raw"
    record = fetch_source({"path": str(src)}, raw, "/no/mirror", name="tb")
    assert (raw / "a.conllu").read_text() == "one\n"
    assert record.read_text() == hashlib.sha256(b"one\n").hexdigest() + "  a.conllu\n"
    os.utime(src / "a.conllu", (1, 1))  # touched, same bytes: accepted
    verified = verify_local_source(str(src), record, raw / "SHA256SUMS.verified", "tb")
    assert verified.read_text() == record.read_text()
    (src / "a.conllu").write_text("two\n")
    (raw / "SHA256SUMS.verified").unlink()
    with pytest.raises(ChecksumError, match="a.conllu: changed"):
        verify_local_source(str(src), record, raw / "SHA256SUMS.verified", "tb")
    assert not (raw / "SHA256SUMS.verified").exists() and record.exists()  # the record stays
