"""Measuring and maintenance tools, each run by hand as ``python -m tools.measure.<name>`` from the
repository root (none runs in ``python -m tools.docs``: they run the workflow, a simulation or read
a mirror):

- ``calibration``: the verdict engine on synthetic claims (false-firm rates; writes
  docs/calibration.csv, which tools.docs renders into docs/calibration.md);
- ``seed_calibration``: the seed rule on simulated claims over seeds (size and power; writes
  docs/seed_calibration.csv, rendered into docs/calibration.md alike);
- ``own_calibration``: the verdict engine on the run's own per-document data (size, power, MDE;
  writes docs/own_calibration.csv, rendered into docs/calibration.md and README.md);
- ``seed_reference``: each trained claim's between-seed SD from a 5-seed run (config/seed_reference.csv);
- ``control_reference``: each map claim's between-draw SD of the random-init control from a 3-draw run
  (config/control_reference.csv);
- ``seed_sensitivity``: an overlay with every seed shifted; the flips between two scorecards;
- ``size_benchmark``: the map rules on random BERTs of growing size;
- ``peak_disk``: the peak size of the maps over a run;
- ``gpu_smoke``: the smoke DAG's heavy paths on CUDA against the CPU;
- ``make_sources``: config/sources.yaml from a mirror's SHA256SUMS (its checksums and pinned URLs);
- ``adversary_rule``: Tutek & Snajder's adversaries under Wiegreffe & Pinter's stopping rule, with and
  without the attacked model's regulariser (docs/staying_true_adversary_patience*.csv).
"""
