"""The spine: sources, prepared inputs, corpus readers, models, extraction, storage and word-level maps.

Imports nothing from the other subpackages of ``analysis``."""
