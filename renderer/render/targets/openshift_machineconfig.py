"""``openshift/<machineConfigPool>/machineconfig.yaml``: MachineConfig ``99-<pool>-allocatable-node-sizing``.

Rendered only where the KubeletConfig cannot own ``/etc/node-sizing-enabled.env``: the policy sets auto-sizing
fallbacks, or enables auto sizing on the control plane (see renderer/capacity/openshift_sizing.py and docs/openshift.md).
The file content comes from a sandboxed Jinja2 template; the Ignition config carries it as an RFC 2397 data URL,
mode 420 (0644), overwrite true, Ignition spec version ``render.ignitionVersion``.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from renderer.capacity.openshift_sizing import ENV_FILE, EnvValues, machineconfig_name
from renderer.render.codes import NotRenderable
from renderer.render.openshift_pools import McpRender, openshift_pools
from renderer.render.target import MANAGED_BY, Output, RenderContext, Target, register
from renderer.render.templating import TemplateValueError, render_text

API_VERSION = "machineconfiguration.openshift.io/v1"
ROLE_LABEL = "machineconfiguration.openshift.io/role"
MODE_0644 = 0o644  # Ignition wants the mode as a decimal integer: 420


def env_file(env: EnvValues) -> str:
    return render_text(
        "node-sizing-enabled.env.j2",
        enabled=env.enabled,
        memory=env.memory,
        cpu=env.cpu,
        ephemeral_storage=env.ephemeral_storage,
    )


def data_url(text: str) -> str:
    """RFC 2397 ``data:`` URL with percent-encoding (every byte outside the unreserved set is escaped)."""
    return "data:," + urllib.parse.quote(text.encode("utf-8"), safe="")


def ignition_config(version: str, files: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "ignition": {"version": version},
        "storage": {
            "files": [
                {"path": path, "mode": MODE_0644, "overwrite": True, "contents": {"source": data_url(text)}}
                for path, text in files
            ]
        },
    }


def _negative(env: EnvValues) -> list[str]:
    return [v for v in (env.cpu, env.memory, env.ephemeral_storage) if v.startswith("-")]


@register
class OpenShiftMachineConfigTarget(Target):
    name = "openshift-machineconfig"
    summary = "MachineConfig 99-<pool>-allocatable-node-sizing where auto sizing needs fallbacks or the control plane"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        outputs: list[Output] = []
        for group in openshift_pools(ctx):
            env = group.machineconfig_env
            if env is None:
                continue
            text = self._env_text(ctx, group, env)
            if text is None:
                continue
            doc = {
                "apiVersion": API_VERSION,
                "kind": "MachineConfig",
                "metadata": {
                    "name": machineconfig_name(group.mcp),
                    "labels": {**MANAGED_BY, ROLE_LABEL: group.mcp},
                },
                "spec": {"config": ignition_config(ctx.settings.ignitionVersion, [(ENV_FILE, text)])},
            }
            sources = list(group.sources)
            settings = ctx.settings_source()
            if settings is not None:
                sources.append(settings)
            outputs.append(
                Output(path=f"openshift/{group.mcp}/machineconfig.yaml", documents=(doc,), sources=tuple(sources))
            )
        return outputs

    @staticmethod
    def _env_text(ctx: RenderContext, group: McpRender, env: EnvValues) -> str | None:
        policy = group.pools[0].pc.policy
        assert policy is not None
        bad = _negative(env)
        if bad:
            ctx.report(
                NotRenderable,
                f"auto-sizing fallback {', '.join(bad)} is negative; a reservation cannot be negative",
                policy.source,
                policy.ref,
                ("spec", "autoSizing", "fallback"),
            )
            return None
        try:
            return env_file(env)
        except TemplateValueError as exc:
            ctx.report(NotRenderable, str(exc), policy.source, policy.ref, ("spec", "autoSizing", "fallback"))
            return None
