"""The krew plugin (``kubectl krew install allocatable``): its archive and its manifest, made from the package's
own metadata at release time (``.github/workflows/release.yml``)::

    python -m renderer.integrations.krew --out dist/krew \\
        --uri https://github.com/allocatable-dev/allocatable/releases/download/v0.1.0/kubectl-allocatable-v0.1.0.tar.gz

writes ``dist/krew/kubectl-allocatable-v0.1.0.tar.gz`` and ``dist/krew/allocatable.yaml`` (krew names a manifest
after its plugin). The version, the short description (the summary up to its colon), the description and the
homepage are the installed distribution's metadata; the sha256 is the archive's.

What krew installs: krew runs no installer and brings no Python packages, and allocatable needs pydantic's compiled
core, so the archive holds a launcher, ``kubectl-allocatable``, that runs this exact release from PyPI through
``pipx run`` (cached by pipx after the first run), plus the license notice krew's validator looks for. The caveats
say so, and that ``pipx install allocatable`` gives the same ``kubectl allocatable`` without krew.

The archive is byte-for-byte reproducible (sorted members, fixed times and owners, gzip without a time stamp), so
the manifest's sha256 can be checked by rebuilding it. Cost: O(size of the archive).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["API_VERSION", "Metadata", "archive", "launcher", "main", "manifest", "metadata"]

#: krew's pkg/constants CurrentAPIVersion and PluginKind.
API_VERSION = "krew.googlecontainertools.github.com/v1alpha2"
KIND = "Plugin"
PLUGIN = "allocatable"
#: Where the launcher runs: a POSIX shell's ``python3`` (krew's Windows shims would need an .exe).
PLATFORMS = ("darwin", "linux")

_LAUNCHER = '''#!/usr/bin/env python3
"""kubectl-allocatable {version}, installed by krew: runs allocatable {version} from PyPI through pipx."""
import os
import shutil
import sys

VERSION = "{version}"

if sys.version_info < (3, 10):
    sys.exit("kubectl-allocatable: allocatable needs Python 3.10 or later; python3 here is %d.%d" % sys.version_info[:2])
pipx = shutil.which("pipx")
if pipx is None:
    sys.stderr.write(
        "kubectl-allocatable: allocatable " + VERSION + " runs through pipx, which is not on PATH; install pipx "
        "(https://pipx.pypa.io), or install allocatable itself: pipx install allocatable==" + VERSION + "\\n"
    )
    sys.exit(2)
os.execv(pipx, [pipx, "run", "--spec", "allocatable==" + VERSION, "kubectl-allocatable", *sys.argv[1:]])
'''

_LICENSE = """allocatable is licensed under the Apache License, Version 2.0 (SPDX-License-Identifier: Apache-2.0).
You may obtain a copy of the License at https://www.apache.org/licenses/LICENSE-2.0
"""


@dataclass(frozen=True)
class Metadata:
    """What the manifest says about the plugin, from the distribution's core metadata."""

    version: str
    summary: str
    homepage: str


def metadata(distribution: str = "allocatable") -> Metadata:
    """The installed distribution's version, summary and homepage (``Project-URL: Homepage``)."""
    from importlib import metadata as md

    meta = md.metadata(distribution)
    homepage = ""
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "homepage":
            homepage = url.strip()
    return Metadata(version=meta["Version"], summary=meta["Summary"], homepage=homepage)


def launcher(version: str) -> str:
    """The ``kubectl-allocatable`` script of the archive, pinned to ``version``."""
    return _LAUNCHER.format(version=version)


def archive(version: str) -> bytes:
    """The plugin's .tar.gz: ``kubectl-allocatable`` (0755) and ``LICENSE`` (0644), reproducible."""
    members = [("LICENSE", _LICENSE.encode(), 0o644), ("kubectl-allocatable", launcher(version).encode(), 0o755)]
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data, mode in members:
            info = tarfile.TarInfo(name)  # owner root (0), no owner names, time 0: TarInfo's defaults
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def manifest(meta: Metadata, uri: str, sha256: str) -> dict[str, Any]:
    """The krew ``Plugin`` manifest of release ``meta.version`` whose archive is at ``uri``."""
    short = meta.summary.split(":", 1)[0].strip()
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": PLUGIN},
        "spec": {
            "version": f"v{meta.version}",
            "homepage": meta.homepage,
            "shortDescription": short,
            "description": (
                f"{meta.summary}\n\n`kubectl allocatable verify` compares what the live nodes of the current "
                "context report (`kubectl get nodes -o json`) with what the policy repo predicts; every other "
                "allocatable command works the same way under kubectl.\n"
            ),
            "caveats": (
                f"This plugin runs allocatable {meta.version} from PyPI with `pipx run` (the first run downloads it;\n"
                "pipx caches it). It needs python3 (3.10 or later) and pipx on PATH: https://pipx.pypa.io\n"
                f"Without krew, `pipx install allocatable=={meta.version}` gives the same `kubectl allocatable`.\n"
            ),
            "platforms": [
                {
                    "selector": {"matchExpressions": [{"key": "os", "operator": "In", "values": list(PLATFORMS)}]},
                    "uri": uri,
                    "sha256": sha256,
                    "bin": "kubectl-allocatable",
                    "files": [
                        {"from": "kubectl-allocatable", "to": "."},
                        {"from": "LICENSE", "to": "."},
                    ],
                }
            ],
        },
    }


def dump(doc: dict[str, Any]) -> str:
    """The manifest as YAML, multi-line texts as literal blocks (as manifests in krew-index are written)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    Dumper.add_representer(str, text)
    out: str = yaml.dump(doc, Dumper=Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=120)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m renderer.integrations.krew",
        description="Write the krew archive and plugin manifest of the installed allocatable release.",
    )
    parser.add_argument("--out", type=Path, required=True, help="directory to write the archive and manifest into")
    parser.add_argument("--uri", required=True, help="where the release publishes the archive (https://...)")
    args = parser.parse_args(argv)
    if not args.uri.startswith("https://"):
        parser.error("--uri must be an https:// address (krew downloads the archive from it)")
    meta = metadata()
    data = archive(meta.version)
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"kubectl-allocatable-v{meta.version}.tar.gz"
    (args.out / name).write_bytes(data)
    (args.out / f"{PLUGIN}.yaml").write_text(dump(manifest(meta, args.uri, hashlib.sha256(data).hexdigest())))
    sys.stderr.write(f"wrote {args.out / name} and {args.out / (PLUGIN + '.yaml')}\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
