"""Coreference corpora (Clark et al. sec. 4.3): CoNLL-2012 ``*_conll`` files and OntoGUM.

- :mod:`.document`: the document model (mentions, documents) and the coreference cells;
- :mod:`.conll2012`, :mod:`.ontogum`: the CoNLL-2012 and OntoGUM readers, into that model;
- :mod:`.mentions`: mention head words (tree or head rule), types and agreement features;
- :mod:`.windows`: each document's first ``max_len`` word pieces (the paper's), or overlapping
  windows over whole documents, as prepared records;
- :mod:`.readers`: the registered readers ``conll2012`` and ``ontogum``.
"""

from analysis.core.corpora.coref import readers  # noqa: F401  (registers the readers)
