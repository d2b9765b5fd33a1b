"""The verify stage: the capacity model against live nodes (``allocatable verify``).

``snapshot`` reads node and pod dumps item by item, ``compare`` predicts each node's allocatable and compares it
with what the node reports, ``causes`` explains a difference, ``pods`` counts pod requests as the scheduler does,
``result`` is the outcome and its JSON shape, ``formats`` prints it.
"""
