from __future__ import annotations

import re
from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register

#: Handlers that run each pod in a VM or a user-space kernel: Kata Containers (kata, kata-qemu, kata-clh,
#: kata-fc, ...), gVisor (runsc, runsc-kvm, gvisor), Firecracker-based runtimes (firecracker, fc, *-fc) and other
#: VM monitors used as CRI handlers.
SANDBOX_HANDLER = re.compile(
    r"^kata|(^|-)(runsc|gvisor|firecracker|fc|clh|cloud-hypervisor|qemu|dragonball|stratovirt|crosvm)(-|$)"
)


@register
class SandboxWithoutOverhead(Rule):
    """
    ## What it does
    Reports a RuntimeClass whose handler is a sandbox — Kata Containers (`kata*`), gVisor (`runsc*`, `gvisor`),
    Firecracker (`firecracker`, `fc`, `*-fc`) or another VM monitor (`clh`, `qemu`, `dragonball`, …) — but that
    has no `overhead.podFixed`, or only zero values in it.

    ## Why is this bad?
    A sandboxed pod runs a guest kernel, an agent and a VM monitor (or gVisor's Sentry and Gofer) that no
    container requests. Without pod overhead the scheduler, ResourceQuota and the pod's cgroup ignore that cost:
    a node packed with such pods runs out of memory while the scheduler believes it has room, and the kubelet
    evicts or the kernel OOM-kills.

    ## Example
    ```yaml
    kind: RuntimeClass
    metadata: {name: kata}
    handler: kata-qemu
    ```

    ## Use instead
    ```yaml
    kind: RuntimeClass
    metadata: {name: kata}
    handler: kata-qemu
    overhead:
      podFixed: {cpu: 250m, memory: 160Mi}
    ```

    ## Fix
    Add `overhead.podFixed` with the measured cost of one sandbox (the runtime's own RuntimeClass examples are a
    starting point: kata-deploy ships 250m/160Mi for kata-qemu). Pod overhead is immutable on existing pods, so
    it applies to pods created afterwards.
    """

    code = "AL211"
    name = "sandbox-without-overhead"
    severity = "warning"
    summary = "a sandboxed RuntimeClass (kata, gVisor, Firecracker, ...) has no overhead.podFixed"

    # Complexity: O(RuntimeClasses).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rc in ctx.load.policies.runtime_classes:
            handler = rc.model.handler
            if not SANDBOX_HANDLER.search(handler):
                continue
            pod_fixed = rc.model.overhead.podFixed if rc.model.overhead else None
            if pod_fixed and any(not q.is_zero() for q in pod_fixed.values()):
                continue
            yield self.finding(
                f'sandboxed handler "{handler}" without pod overhead: the scheduler ignores what each sandbox uses',
                source=rc.source,
                obj=rc.ref,
                field_path=("overhead", "podFixed") if rc.model.overhead else ("handler",),
                hint="add overhead.podFixed: the measured cpu and memory of one sandbox",
            )
