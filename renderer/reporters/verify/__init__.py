"""Formats of the ``verify`` report: one module per format, each with ``write(result, out)`` for a
:class:`renderer.verify.result.VerifyResult`."""
