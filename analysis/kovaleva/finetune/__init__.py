"""Kovaleva et al. 2019, fine-tuning (rules/kovaleva_finetune.smk): fine-tuning on GLUE, how it changes the maps, disabling heads."""
