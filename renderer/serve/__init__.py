"""``allocatable serve``: verify on a schedule, keep the result, serve it as Prometheus metrics (docs/serve.md).

A composer like ``renderer.pipeline`` (it composes the pipeline's ``load`` and ``verify_nodes`` cycle after cycle),
and the only package that imports ``prometheus_client``: ``kubeapi`` (the API server through the service account),
``sources`` (where the nodes come from), ``policy`` (the policy directory, reloaded on change), ``metrics`` (the
families), ``service`` (the loop), ``server`` (the HTTP endpoints).
"""
