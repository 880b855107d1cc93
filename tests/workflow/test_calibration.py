"""tools/measure/calibration.py: the verdict engine on synthetic claims whose truth is known, small."""

import pandas as pd

from tools.docs.calibration_table import markdown
from tools.docs.page_block import markers
from tools.measure import calibration


def test_calibration_separates_the_old_readings_from_the_new():
    table = calibration.calibrate(datasets=40, resamples=100).set_index("shape")
    assert len(table) == len(calibration.SHAPES) and set(table["engine"]) == {"now", "as before"}
    wrong = table["wrong_holds"] + table["wrong_does_not_hold"]
    # choosing the best of three tied heads on the scored data flatters it; on the other fold it does not
    assert table.loc["three heads tied at it, best chosen in-sample", "wrong_holds"] >= 0.1
    assert wrong["three heads tied at it, best chosen on the other fold"] <= 0.05
    # resampling clustered units one by one is firm far too often; by cluster far less
    assert wrong["15 clusters' units resampled one by one"] > 2 * wrong["60 clusters resampled by cluster"]
    # a control drawn like the model never reads as support
    assert table.loc["a control equal to the model", "wrong_holds"] <= 0.1


def test_the_docs_table_is_the_tools_output(tmp_path):
    page = tmp_path / "p.md"
    begin, end = markers("calibration")
    page.write_text(f"x\n{begin}\nold\n{end}\n")
    csv = tmp_path / "c.csv"
    args = ["--datasets", "10", "--resamples", "50", "--page", str(page), "--csv", str(csv)]
    assert calibration.main(args) == 0
    assert (
        "| a value on its threshold, 199 degrees of freedom | now |" in page.read_text()
        and csv.read_text().startswith("shape,engine")
    )
    assert calibration.main([*args, "--check"]) == 0
    # what python -m tools.docs checks the page against: the same table, rendered from the csv alone
    assert f"{begin}\n{markdown(pd.read_csv(csv))}\n{end}" in page.read_text()
    page.write_text(page.read_text().replace("now", "then"))
    assert calibration.main([*args, "--check"]) == 1


def test_the_seed_table_is_the_tools_output(tmp_path):
    from tools.docs.calibration_table import seed_markdown
    from tools.measure import seed_calibration

    page = tmp_path / "p.md"
    begin, end = markers("seed-calibration")
    page.write_text(f"x\n{begin}\nold\n{end}\n")
    csv = tmp_path / "s.csv"
    assert seed_calibration.main(["--datasets", "4", "--resamples", "30", "--page", str(page), "--csv", str(csv)]) == 0
    table = pd.read_csv(csv)
    assert len(table) == len(seed_calibration.ENGINES) * len(seed_calibration.TRUTHS)
    # what python -m tools.docs checks the page against: the same table, rendered from the csv alone
    assert f"{begin}\n{seed_markdown(table)}\n{end}" in page.read_text()
    assert "| 3 seeds as a random effect (now) | 3 | 0 |" in page.read_text()
