"""Where the memory and the time of one run go, stage by stage.

    python bench/stages.py DIR [lint|explain]

Runs the stages of ``allocatable lint`` (load, capacity model, rules, positions) or ``allocatable explain -o json``
(load, capacity model, the JSON written to /dev/null) in one process and prints, after each, the resident set now,
its peak so far and the CPU seconds so far. A stage whose peak is well above what stays resident afterwards holds
something only while it runs. For what holds the memory, object by object, run it under ``python -X
tracemalloc=1`` and take ``tracemalloc.take_snapshot()`` where needed, or install memray into the bench venv
(never a dependency).
"""

from __future__ import annotations

import gc
import resource
import sys
import time
from pathlib import Path

_START = time.process_time()


def _figures(stage: str) -> None:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    now = pages * resource.getpagesize() / 2**20
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{stage:<10} RSS {now:7.1f} MiB   peak {peak:7.1f} MiB   cpu {time.process_time() - _START:6.2f} s")


def main(root: str, command: str) -> int:
    import renderer.pipeline as pipeline
    from renderer.capacity.pools import build

    _figures("imports")
    gc.disable()  # as the pipeline's stages run
    loaded = pipeline.load([Path(root)])
    _figures("load")
    model = build(loaded.policies)
    _figures("model")
    if command == "lint":
        from renderer.lint.engine import run_rules

        findings = run_rules(loaded, model)
        _figures("rules")
        loaded.finish(findings)
        _figures("positions")
    else:
        from renderer.capacity.explain import Explained
        from renderer.reporters import get

        with open("/dev/null", "w", encoding="utf-8") as out:
            get("explain", "json")(Explained(model, model.pools), out)
        _figures("written")
    return 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in ("lint", "explain")):
        sys.exit("usage: python bench/stages.py DIR [lint|explain]")
    raise SystemExit(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "lint"))
