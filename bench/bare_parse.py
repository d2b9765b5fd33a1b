"""The floor every lint figure is compared with: PyYAML's libyaml loader over the same files, nothing else.

    python bench/bare_parse.py DIR

Reads every ``.yaml``/``.yml``/``.json`` file under DIR (hidden entries skipped, as ``allocatable`` skips them)
and builds its documents with ``yaml.load_all(..., Loader=yaml.CSafeLoader)``. Run as a fresh process, like
``allocatable lint``, so both figures include interpreter start-up and imports.
"""

from __future__ import annotations

import os
import sys

import yaml


def main(root: str) -> int:
    documents = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or not name.endswith((".yaml", ".yml", ".json")):
                continue
            with open(os.path.join(dirpath, name), "rb") as fh:
                for _ in yaml.load_all(fh.read(), Loader=yaml.CSafeLoader):
                    documents += 1
    print(documents)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
