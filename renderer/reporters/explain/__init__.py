"""Formats of the ``explain`` report: one module per format, each with ``write(explained, out)`` for a
:class:`renderer.capacity.explain.Explained` (the data is built in ``renderer.capacity.explain``)."""
