"""Running the CLI without privileges, for the tests whose files must fail to read or write.

Permission bits do not stop root: CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH bypass them. When the tests run as root,
the CLI subprocess is started through util-linux's ``setpriv`` with every capability dropped (bounding, inheritable
and ambient sets emptied, and the ``noroot`` securebit so that exec does not grant them back). It keeps uid 0, so it
still reaches the test venv and the checkout wherever they are (a clone under a private ``mktemp -d`` or ``/root``,
which another user could not enter), while the kernel checks the permission bits of the files the test chmod-ed as
it would for any owner. Not root: the subprocess runs as the current user, for whom the same chmod is enough.
"""

from __future__ import annotations

import os
import shutil


def drop_privileges() -> list[str]:
    """The command prefix that runs a command without privileges (empty when not root)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:  # pragma: no cover - util-linux is part of every Debian/Ubuntu base image
        raise RuntimeError("running as root needs setpriv (util-linux) to drop privileges for this test")
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--securebits=+noroot", "--"]
