"""Formats of the ``diff`` report: one module per format, each with ``write(result, out)`` for a
:class:`renderer.capacity.diff.DiffResult` (computed in ``renderer.capacity.diff``)."""
