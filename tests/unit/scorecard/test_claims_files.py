"""The claims are read from a file per section (config overview.claims): file by file in the listed
order, each file checked on its own and named in any error."""

import pytest
import yaml

from analysis.scorecard.claims import read_claims


def claim(cid: str) -> dict:
    check = {"value": {"table": "t", "column": "v", "agg": "max"}, "op": ">", "threshold": 0}
    words = {"paper": "p", "where": "w", "claim": "c", "paper_value": "1", "criterion": "k", "figure": "f"}
    return {"id": cid, **words, "check": check}


def write(path, *claims):
    path.write_text(yaml.safe_dump({"claims": list(claims)}))
    return path


def test_files_are_read_in_the_order_given(tmp_path):
    a = write(tmp_path / "a.yaml", claim("a.two"), claim("a.one"))
    b = write(tmp_path / "b.yaml", claim("b.one"))
    assert [c["id"] for c in read_claims([b, a])] == ["b.one", "a.two", "a.one"]
    assert [c["id"] for c in read_claims([str(a), str(b)])] == ["a.two", "a.one", "b.one"]
    assert [c["id"] for c in read_claims(a)] == ["a.two", "a.one"]  # one file, as a path


def test_an_error_names_its_file(tmp_path):
    good = write(tmp_path / "good.yaml", claim("x.one"))
    bad = write(tmp_path / "bad.yaml", {**claim("x.two"), "figur": "f"})
    with pytest.raises(ValueError, match=rf"^{bad}: claims/0: Additional properties .*'figur'"):
        read_claims([good, bad])
    again = write(tmp_path / "again.yaml", claim("x.one"))
    with pytest.raises(ValueError, match=rf"^{again}: claim id 'x.one' used twice \(first in {good}\)"):
        read_claims([good, again])
    with pytest.raises(ValueError, match=rf"^{again}: claim id 'x.one' used twice$"):
        read_claims([write(again, claim("x.one"), claim("x.one"))])
