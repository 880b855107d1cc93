"""The docs generators: every generated part of README.md and docs/, in one marker form
(``<!-- <name>:begin -->`` ... ``<!-- <name>:end -->``, and the inline claim span
``<!-- claim:ID[@GROUP][:TERM] [FORMAT] -->...<!-- /claim -->``), written or checked in one go by
``python -m tools.docs [--check]`` (``__main__.py``). How the markers work: tools/docs/README.md."""
