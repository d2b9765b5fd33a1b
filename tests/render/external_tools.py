"""Real tools for the delivery tests: kubectl's kustomize (Components need kustomize v3.7+, so v4+ is asked for) and
Karpenter's EC2NodeClass model from npm (@kubernetes-models/karpenter, generated from aws/karpenter-provider-aws's
Go types). Both are installed by .ci/run; outside CI a test that needs a missing one is skipped."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

from support import tools

_NODE_SCRIPT = """
const base = process.argv[1];
const { EC2NodeClass } = await import(base + "/karpenter.k8s.aws/v1/EC2NodeClass.js");
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const out = [];
for (const d of JSON.parse(Buffer.concat(chunks).toString("utf8"))) {
  try { new EC2NodeClass(d).validate(); out.push(null); } catch (e) { out.push(String(e.message)); }
}
console.log(JSON.stringify(out));
"""


def _missing(what: str) -> None:
    tools.missing(what, "see .ci/run")


def kubectl() -> str:
    """A kubectl whose kustomize knows Components (v4 or later)."""
    binary = tools.which("kubectl")
    if binary is None:
        _missing("kubectl")
    assert binary is not None
    out = subprocess.run([binary, "version", "--client"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"Kustomize Version: v(\d+)", out)
    if found is None or int(found.group(1)) < 4:
        _missing("a kubectl with kustomize v4 or later")
    return binary


def kustomize(directory: Path) -> list[dict[str, Any]]:
    out = subprocess.run([kubectl(), "kustomize", str(directory)], capture_output=True, text=True, check=False)
    assert out.returncode == 0, f"kubectl kustomize {directory} failed: {out.stderr}"
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def karpenter_models() -> str:
    base = os.environ.get("ALLOCATABLE_KARPENTER_MODELS")
    node = tools.which("node")
    if not base or not Path(base, "karpenter.k8s.aws/v1/EC2NodeClass.js").is_file() or node is None:
        _missing("node with @kubernetes-models/karpenter (ALLOCATABLE_KARPENTER_MODELS)")
    assert base is not None
    return base


def npm_ec2nodeclass_errors(objects: list[dict[str, Any]]) -> list[str | None]:
    """One entry per object: None when @kubernetes-models/karpenter accepts it, else its error message."""
    base = karpenter_models()
    out = subprocess.run(
        ["node", "--input-type=module", "-e", _NODE_SCRIPT, Path(base).resolve().as_uri()],
        input=json.dumps(objects),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    result: list[str | None] = json.loads(out.stdout)
    return result
