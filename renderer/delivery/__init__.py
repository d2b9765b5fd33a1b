"""Delivery: git revisions, diffs between them, scaffolding for new policy repos."""
