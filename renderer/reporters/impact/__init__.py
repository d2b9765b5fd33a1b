"""Formats of the ``impact`` report (what a change does to the fleet, ``renderer.impact``): one module per format,
found by its file name, each with ``write(result, out)``; none yet. A format added here needs its golden test
(``tests/reporters/test_registry.py`` says which)."""
