"""allocatable: own node capacity from git (CommitClass, reservations, RuntimeClass overhead, node pools)."""

__version__ = "0.1.0"
