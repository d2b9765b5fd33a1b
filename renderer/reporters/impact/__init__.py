"""Formats of the ``impact`` report: one module per format, each with ``write(report, out)`` for a
:class:`renderer.impact.report.ImpactReport` (the re-packing simulation of ``diff --nodes/--pods`` and
``verify --nodes --pods``). ``text`` and ``markdown`` also give the section the diff and verify reports embed."""
