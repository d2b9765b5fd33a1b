"""``kubelet/<pool>.yaml``: a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) per NodePool.

Rendered for every NodePool that one ReservationPolicy selects, except OpenShift pools (their kubelet is
configured through the KubeletConfig of their MachineConfigPool, see the openshift-* targets), pools with a
``spec.delivery`` (their settings travel in an EC2NodeClass, a KubeadmConfigTemplate, a nodeadm NodeConfig or a
platform's own API, see the targets of those names) and pools of a platform whose nodes read no KubeletConfiguration
file a user supplies (``kubelet_file = False`` in their platform module): for those the stage says so (AL812)
instead of writing a file nothing reads. Nodes from the
inventory (``kubectl get nodes`` output) get no file of their own: they are observations of nodes whose node group
is described by a NodePool, and a file per node name would change with every node replacement.

The file is meant for the node bootstrap (kubeadm ``--config``, EKS nodeadm ``kubelet.config``, a
``/etc/kubernetes/kubelet.conf.d`` drop-in): it holds only what the policy decides, reserved values computed for
the pool's size included, and leaves every other field to the platform.
"""

from __future__ import annotations

from renderer import platforms
from renderer.capacity.kubeletfields import kubelet_fields
from renderer.render.codes import NoKubeletFile, NotRenderable
from renderer.render.target import Output, RenderContext, Target, register

API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"


@register
class KubeletConfigurationTarget(Target):
    name = "kubelet"
    summary = "KubeletConfiguration per NodePool (kubelet/<pool>.yaml), for the node bootstrap"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        outputs: list[Output] = []
        for pc in ctx.model.pools:
            policy = pc.policy
            if pc.pool.origin != "NodePool" or platforms.get(pc.pool.platform).machine_config_pools or policy is None:
                continue
            if pc.pool.delivery is not None:
                continue  # delivered by the target of its delivery (karpenter, nodeadm, gke-system-config, ...)
            platform = platforms.effective(pc.pool, ctx.model.policies.settings)
            if not platform.kubelet_file:
                # a file nothing reads would look delivered: say so for the pool instead
                ctx.report(
                    NoKubeletFile,
                    f"{pc.pool.ref}: nothing is rendered for it: {platform.no_kubelet_file}",
                    pc.pool.source,
                    pc.pool.ref,
                    ("spec", "platform"),
                    hint=f"add spec.delivery ({', '.join(sorted(platform.deliveries))}) to the NodePool",
                )
                continue
            problem = ctx.reporter(NotRenderable, policy.source, policy.ref)
            doc = {"apiVersion": API_VERSION, "kind": KIND, **kubelet_fields(pc, policy.model.spec, problem)}
            outputs.append(
                Output(
                    path=f"kubelet/{pc.pool.name}.yaml",
                    documents=(doc,),
                    sources=(ctx.pool_source(pc), ctx.source(policy.source, policy.ref)),
                    cluster=False,
                    # how this platform's nodes take the file (renderer/platforms/<name>.py render_notes)
                    notes=() if platform.fallback else platform.render_notes,
                )
            )
        return outputs
