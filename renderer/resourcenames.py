"""Resource names as Kubernetes classifies them (stdlib only): which names are extended resources.

An extended resource (``nvidia.com/gpu``, ``amd.com/gpu``, ``example.com/dongle``) is a domain-prefixed name outside
the ``kubernetes.io`` domain, as k8s.io/kubernetes ``pkg/apis/core/helper`` ``IsExtendedResourceName`` decides: not
a native name (one without ``/``, or with ``kubernetes.io/`` in it), not starting with ``requests.`` (the quota
convention), and ``requests.<name>`` a qualified name (an optional DNS-subdomain prefix of at most 253 characters,
``/``, a name part of at most 63). Its quantities are whole numbers (``IsIntegerResourceName``: "must be an
integer"), the kubelet reserves none of it (``status.allocatable`` is what the device plugin reports healthy), and
the scheduler counts it per name (NodeResourcesFit). Cost: one qualified-name check per distinct name.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from renderer.labels import label_key_problem

__all__ = ["INTEGER_MSG", "is_extended"]

_REQUESTS_PREFIX: Final = "requests."
_NATIVE_DOMAIN: Final = "kubernetes.io/"
#: apimachinery's wording for a non-integer quantity of an integer resource (``isIntegerErrorMsg``).
INTEGER_MSG: Final = "must be an integer"


@lru_cache(maxsize=1 << 10)
def is_extended(name: str) -> bool:
    """True for an extended resource name (see the module docstring)."""
    if "/" not in name or _NATIVE_DOMAIN in name or name.startswith(_REQUESTS_PREFIX):
        return False
    return label_key_problem(_REQUESTS_PREFIX + name) is None
