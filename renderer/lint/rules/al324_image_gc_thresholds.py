from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register

DEFAULT_HIGH, DEFAULT_LOW = 85, 80


@register
class ImageGcThresholds(Rule):
    """
    ## What it does
    Reports `kubelet.imageGCHighThresholdPercent` or `kubelet.imageGCLowThresholdPercent` that is not an integer
    or lies outside 0–100, and a low threshold that is not below the high one (the kubelet's defaults, 85 and
    80, fill in the one not set).

    ## Why is this bad?
    Image garbage collection starts at the high threshold and frees images until disk use is below the low one.
    The kubelet rejects a configuration where that cannot work (`imageGCLowThresholdPercent
    (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85`)
    and does not start.

    ## Example
    ```yaml
    kubelet:
      imageGCLowThresholdPercent: 90
    ```

    ## Use instead
    ```yaml
    kubelet:
      imageGCHighThresholdPercent: 95
      imageGCLowThresholdPercent: 90
    ```

    ## Fix
    Keep both within 0–100 and the low threshold below the high one.
    """

    code = "AL324"
    name = "image-gc-thresholds"
    severity = "error"
    summary = "image GC thresholds are not integers in 0-100, or low is not below high"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            high = view.get("imageGCHighThresholdPercent")
            low = view.get("imageGCLowThresholdPercent")
            if high is None and low is None:
                continue
            values: dict[str, int] = {}
            bad_range = False
            for name, got, flag, default in (
                ("imageGCHighThresholdPercent", high, "--image-gc-high-threshold", DEFAULT_HIGH),
                ("imageGCLowThresholdPercent", low, "--image-gc-low-threshold", DEFAULT_LOW),
            ):
                if got is None:
                    values[name] = default
                    continue
                if not isinstance(got.value, int) or isinstance(got.value, bool):
                    bad_range = True
                    yield self.finding(
                        f"the kubelet cannot read {name}: expected an integer percentage, got {got.value!r}",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=got.path,
                        hint="write a whole number between 0 and 100, without quotes",
                    )
                    continue
                values[name] = got.value
                if not 0 <= got.value <= 100:
                    bad_range = True
                    yield self.finding(
                        f"the kubelet refuses to start: {name} ({flag}) {got.value} must be between 0 and 100, "
                        "inclusive",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=got.path,
                        hint="use a percentage between 0 and 100",
                    )
            if bad_range:
                continue
            h, lo = values["imageGCHighThresholdPercent"], values["imageGCLowThresholdPercent"]
            if lo >= h:
                at = low if low is not None else high
                assert at is not None
                yield self.finding(
                    f"the kubelet refuses to start: imageGCLowThresholdPercent (--image-gc-low-threshold) {lo} must "
                    f"be less than imageGCHighThresholdPercent (--image-gc-high-threshold) {h}",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=at.path,
                    hint="keep the low threshold below the high one",
                )
