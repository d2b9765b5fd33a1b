"""Integrations with the tools around a policy repo: the pre-commit hook's roots (``hooks``) and the files of a new
policy repo (``scaffold``, ``allocatable init``)."""
