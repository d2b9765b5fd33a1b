"""``allocatable sizing``: one reservation formula for one machine shape, no policy repo needed."""

from __future__ import annotations

import argparse
import re

NAME = "sizing"
ORDER = 40
HELP = "compute a platform reservation formula (openshift, gke, aks, eks, ...) for one machine shape"
DESCRIPTION = (
    "Compute one platform reservation formula for one machine shape, without a policy repo: the reserved cpu, "
    "memory and ephemeral-storage and the eviction thresholds, formatted as the platform writes them, with every "
    "choice the upstream sources leave open stated as a note."
)
EXIT_CODES = {0: "computed"}
FORMULAS = ("openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks")


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--formula", required=True, metavar="F", help=f"one of: {', '.join(FORMULAS)}")
    parser.add_argument("--cpus", required=True, metavar="N", help="logical CPUs, e.g. 8 or 3.5")
    parser.add_argument("--memory", required=True, metavar="Q", help="memory capacity as a quantity, e.g. 32Gi")
    parser.add_argument("--max-pods", type=int, default=None, metavar="N", help="maxPods (AKS, EKS formulas)")
    from renderer.commands.common import output_choices

    parser.add_argument(
        "-o",
        "--output",
        **output_choices("sizing"),
        default="text",
        help="text (default), json, yaml or jsonpath=TEMPLATE (kubectl's)",
    )


INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
#: A quantity without a suffix or exponent: bytes. Below a mebibyte that is a missing unit, not a machine.
_BARE = re.compile(r"\+?[0-9]+(?:\.[0-9]*)?")
_MEBIBYTE = 1 << 20


def _fits(resource: str, text: str) -> bool:
    """True when ``text`` is a quantity Kubernetes stores: within int64, in millicores for cpu."""
    from renderer.quantity import Quantity, QuantityError

    try:
        q = Quantity.parse(text)
    except QuantityError:
        return False
    return abs(q.milli_value() if resource == "cpu" else q.int_value()) <= INT64_MAX


def _fail(message: str) -> int:
    from renderer.commands.common import error

    return error(message)


def run(args: argparse.Namespace) -> int:
    from decimal import Decimal, InvalidOperation

    from renderer.capacity.formulas import FormulaError, MachineShape, compute
    from renderer.quantity import Quantity, QuantityError

    if args.formula not in FORMULAS:
        return _fail(f'unknown formula "{args.formula}"; choose one of: {", ".join(FORMULAS)}')
    if not _DECIMAL.fullmatch(args.cpus):
        return _fail(f'--cpus "{args.cpus}" is not a number; give logical CPUs such as 8 or 3.5')
    try:
        cpus = Decimal(args.cpus)
    except InvalidOperation:  # pragma: no cover - the pattern admits only plain decimals
        return _fail(f'--cpus "{args.cpus}" is not a number')
    if not cpus.is_finite() or cpus <= 0:
        return _fail(f"--cpus must be a number greater than 0, got {args.cpus}")
    if cpus * 1000 != (cpus * 1000).to_integral_value():  # Kubernetes counts cpu in whole millicores
        return _fail(
            f"--cpus {args.cpus} is not a whole number of millicores (Kubernetes counts cpu in thousandths of a core); "
            "give logical CPUs such as 8, 3.5 or 0.25"
        )
    if cpus * 1000 > INT64_MAX:  # Kubernetes reads cpu in millicores, as an int64
        return _fail(
            f"--cpus {args.cpus} is more than a Kubernetes cpu quantity holds (at most {Decimal(INT64_MAX) / 1000} "
            "cores: millicores are an int64)"
        )
    try:
        memory = Quantity.parse(args.memory)
    except QuantityError as exc:
        return _fail(f"--memory: {exc}")
    if memory.is_negative() or memory.is_zero():
        return _fail(f"--memory must be greater than 0, got {args.memory}")
    if memory.value != memory.value.to_integral_value():  # 1n, 0.5, 1500m: a fraction of a byte
        return _fail(
            f"--memory {args.memory} is not a whole number of bytes ({memory.value:f} bytes); give the machine's memory "
            "with its unit, e.g. 16Gi"
        )
    if memory.value < _MEBIBYTE:  # no machine the kubelet runs on; most often a missing unit
        unit = "has no unit, so it is" if _BARE.fullmatch(args.memory) else "is"
        return _fail(
            f"--memory {args.memory} {unit} {memory.value:f} byte{'s' if memory.value != 1 else ''}, less than a "
            "mebibyte: no machine a kubelet runs on; give the machine's memory with its unit, e.g. 16Gi"
        )
    if args.max_pods is not None and not 1 <= args.max_pods <= INT32_MAX:
        return _fail(
            f"--max-pods must be from 1 to {INT32_MAX} (the kubelet's maxPods is an int32), got {args.max_pods}"
        )
    try:
        result = compute(args.formula, MachineShape(cpus=cpus, memory_bytes=memory.int_value(), max_pods=args.max_pods))
    except FormulaError as exc:
        return _fail(str(exc))
    for label, values in (("systemReserved", result.system_reserved), ("kubeReserved", result.kube_reserved)):
        for resource, text in values.items():
            if not _fits(resource, text):
                return _fail(
                    f"the {result.formula} formula gives {label}.{resource} = {text} for this machine, more than a "
                    "Kubernetes quantity holds (an int64 of bytes, or of millicores for cpu); check --cpus, "
                    "--memory and --max-pods"
                )
    from renderer.commands.common import write
    from renderer.reporters.sizing import Sizing

    write("sizing", args.output, Sizing(result, cpus, memory))
    return 0
