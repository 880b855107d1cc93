"""Clark, Khandelwal, Levy, Manning 2019, "What Does BERT Look At?": one sub-package per rules/clark_<section>.smk."""
