"""The project's own tools, run from the repository root as modules (``python -m tools.docs``,
``python -m tools.measure.<name>``); not part of the installed package (pyproject.toml ships
``analysis`` only).

- :mod:`tools.docs`: the docs generators, every generated part of README.md and docs/ (one command:
  ``python -m tools.docs [--check]``);
- :mod:`tools.measure`: measuring and maintenance tools run by hand (calibration, seeds, sizes,
  disk, GPU, the sources file).
"""
