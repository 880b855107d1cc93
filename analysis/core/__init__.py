"""The spine: sources, prepared inputs, corpus readers, GLUE, models, extraction, storage and word-level maps.

Imports nothing from the other subpackages of ``analysis``."""
