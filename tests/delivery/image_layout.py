"""Run inside fresh mount and network namespaces by tests/delivery/test_argocd_image.py: argocd/Dockerfile's final
stage laid out on this machine (no Docker engine), then the plugin's commands run the way the sidecar runs them.

Given one JSON argument (see ``Config``), it

1. builds the image's tree: a directory of the test mounted on the parent of the Dockerfile's ``VIRTUAL_ENV`` (what
   the host keeps there mounted into it), a virtual environment made there with the wheel, the cache directory made
   as the Dockerfile's ``install -d`` makes it;
2. runs the Dockerfile's ``RUN`` instructions after ``USER`` (warming the validators cache), as that user, with the
   image's environment only;
3. makes every mount read-only except the volume standing for ``cmp-tmp`` (a directory of the test, mounted on
   itself and left writable, ``TMPDIR`` too), with no network (the namespace has no interface up);
4. runs the plugin's ``discover`` and ``generate`` commands there, as the image's user, without capabilities and
   without ``HOME``, plus two probes that must fail: a write into the image and a connection out.

It prints one JSON object: what each step returned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Config:
    wheel: str
    python: str  # the interpreter the image's venv is made from
    dependencies: list[str]  # site-packages directories holding the wheel's dependencies
    env: dict[str, str]  # the Dockerfile's ENV of the final stage
    user: str  # its USER, uid[:gid]
    cache_owner: str  # owner of its `install -d -o OWNER -g GROUP` cache directory, as uid:gid
    cache_mode: str
    warm: list[str]  # its RUN instructions after USER
    workdir: str
    image_root: str  # a directory of the test, mounted on the parent of VIRTUAL_ENV
    cmp_tmp: str  # the writable volume; the application's checkout is in it
    app: str
    discover: list[str]
    generate: list[str]
    argocd_env: dict[str, str]
    as_root: bool  # real root: the image's user is switched to; else (a user namespace) its uid 0 runs


def run(argv: list[str], **kw: Any) -> dict[str, Any]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False, **kw)
    return {"argv": argv, "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def must(step: dict[str, Any]) -> dict[str, Any]:
    if step["code"] != 0:
        print(json.dumps({"failed": step}))
        sys.exit(3)
    return step


def as_user(c: Config, uid: str, gid: str) -> list[str]:
    """setpriv: no capabilities (so no permission bits are bypassed), the image's user when real root."""
    prefix = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--securebits=+noroot"]
    if c.as_root:
        prefix += [f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
    return [*prefix, "--"]


def main() -> None:
    c = Config(**json.loads(sys.argv[1]))
    out: dict[str, Any] = {}
    venv = Path(c.env["VIRTUAL_ENV"])
    uid, _, gid = c.user.partition(":")
    gid = gid or uid
    owner_uid, _, owner_gid = c.cache_owner.partition(":")
    if not c.as_root:  # a user namespace maps only the test's own uid, as 0
        uid = gid = owner_uid = owner_gid = "0"

    # 1. The image's tree.
    # What the host keeps in that directory (a CI runner's Python under /opt/hostedtoolcache) stays reachable: each
    # entry is mounted into the image's tree before the tree replaces the directory.
    host = Path(c.image_root + ".host")
    host.mkdir()
    must(run(["mount", "--bind", str(venv.parent), str(host)]))
    for entry in sorted(os.listdir(host)):
        if entry == venv.name:
            continue
        target = Path(c.image_root, entry)
        if (host / entry).is_dir():
            target.mkdir()
        else:
            target.touch()
        must(run(["mount", "--bind", str(host / entry), str(target)]))
    must(run(["mount", "--rbind", c.image_root, str(venv.parent)]))
    must(run([c.python, "-m", "venv", str(venv)]))
    must(run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", c.wheel]))
    purelib = must(
        run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    )
    Path(purelib["stdout"].strip(), "zz-dependencies.pth").write_text("\n".join(c.dependencies) + "\n")
    cache = c.env["ALLOCATABLE_CACHE_DIR"]
    # The image's user must read the interpreter and the dependencies this machine lends the image; where they sit
    # in a directory only their owner may enter (a checkout under /root, a private mktemp -d), uid 0 runs instead,
    # still without capabilities.
    probe = "python -c 'import renderer, pydantic_core'"  # looked up on PATH, as the image's commands are
    readable = run([*as_user(c, uid, gid), "/bin/sh", "-c", probe], env=c.env, cwd="/")
    if readable["code"] != 0:
        uid = gid = owner_uid = owner_gid = "0"
        out["user_note"] = "the image's user cannot read this machine's interpreter: uid 0 without capabilities runs"
    must(run(["install", "-d", "-o", owner_uid, "-g", owner_gid, "-m", c.cache_mode, cache]))

    # 2. RUN after USER, as the image's user, with the image's environment (sh -c, as a Dockerfile's shell form).
    for command in c.warm:
        out.setdefault("warm", []).append(
            must(run([*as_user(c, uid, gid), "/bin/sh", "-c", command], env=c.env, cwd="/"))
        )

    # 3. The sidecar's file system: read-only but for cmp-tmp; no network (this namespace has none).
    must(run(["mount", "--bind", c.cmp_tmp, c.cmp_tmp]))
    skip = ("/proc", "/sys", "/dev")
    with open("/proc/self/mountinfo") as info:
        points = [line.split()[4] for line in info]
    for point in points:
        if point == c.cmp_tmp or point.startswith(skip) or point.startswith(c.cmp_tmp + "/"):
            continue
        run(["mount", "-o", "remount,bind,ro", point])  # some (already read-only) may refuse: checked below
    env = {**c.env, **c.argocd_env, "TMPDIR": c.cmp_tmp, "PYTHONPROFILEIMPORTTIME": "1"}
    env.pop("HOME", None)
    user = as_user(c, uid, gid)

    # 4. The plugin, as argocd-cmp-server runs it: the command array, in the application's checkout.
    out["discover"] = run([*user, *c.discover], env=env, cwd=c.app)
    out["generate"] = run([*user, *c.generate], env=env, cwd=c.app)
    probe = (
        "import socket, sys\n"
        f"try:\n    open({str(venv / 'written-at-run-time')!r}, 'w')\nexcept OSError as e:\n    print('write', e.errno)\n"
        "try:\n    socket.create_connection(('192.0.2.1', 443), timeout=2)\nexcept OSError as e:\n    print('net', e.errno)\n"
    )
    out["probes"] = run([*user, str(venv / "bin" / "python"), "-c", probe], env=env, cwd=c.app)
    out["uid"] = run([*user, "id", "-u"], env=env)["stdout"].strip()
    out["home"] = run([*user, "/bin/sh", "-c", 'printf %s "${HOME-unset}"'], env=env)["stdout"]
    out["run_uid"] = uid
    out["cache_files"] = sorted(os.listdir(cache))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
