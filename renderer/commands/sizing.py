"""``allocatable sizing``: one reservation formula for one machine shape, no policy repo needed."""

from __future__ import annotations

import argparse
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from decimal import Decimal

    from renderer.capacity.formulas import MachineShape
    from renderer.quantity import Quantity

NAME = "sizing"
ORDER = 40
HELP = "compute a reservation formula (a platform's, or a policy's own) for one machine shape"
DESCRIPTION = (
    "Compute one reservation formula for one machine shape, without a policy repo: a platform's (--formula; "
    "`allocatable platforms` lists them) or the autoSizing of a ReservationPolicy file (--policy, e.g. a custom "
    "formula, see docs/formulas.md). Prints the reserved cpu, memory and ephemeral-storage and the eviction "
    "thresholds, formatted as the platform writes them, with the arithmetic and every choice the upstream sources "
    "leave open stated as a note."
)
EXIT_CODES = {0: "computed"}


def _formula_names() -> tuple[str, ...]:
    from renderer import platforms

    return platforms.formula_names()


def register(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--formula", metavar="F", choices=_formula_names(), help=f"one of: {', '.join(_formula_names())}"
    )
    which.add_argument(
        "--policy",
        metavar="FILE",
        default=None,
        help="a ReservationPolicy file: compute its autoSizing (formula or custom)",
    )
    parser.add_argument("--cpus", required=True, metavar="N", help="logical CPUs, e.g. 8 or 3.5")
    parser.add_argument(
        "--memory", required=True, metavar="Q", help="memory capacity (MemTotal) as a quantity, e.g. 32Gi"
    )
    parser.add_argument(
        "--machine-memory", metavar="Q", default=None, help="the memory the machine type is sold as (default: --memory)"
    )
    parser.add_argument(
        "--ephemeral-storage", metavar="Q", default=None, help="ephemeral-storage capacity, for formulas that read it"
    )
    parser.add_argument("--max-pods", type=int, default=None, metavar="N", help="maxPods (AKS, EKS formulas)")
    parser.add_argument(
        "--eni-max-pods", type=int, default=None, metavar="N", help="EKS: the instance's ENI-limited maxPods"
    )
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


def _machine(args: argparse.Namespace) -> tuple[MachineShape, Decimal, Quantity]:
    """The machine the arguments describe, with its cpus and memory as given; raises ``UsageError`` (one line)."""
    from decimal import Decimal, InvalidOperation

    from renderer.capacity.formulas import MachineShape
    from renderer.loading.files import UsageError
    from renderer.quantity import Quantity, QuantityError

    if not _DECIMAL.fullmatch(args.cpus):
        raise UsageError(f'--cpus "{args.cpus}" is not a number; give logical CPUs such as 8 or 3.5')
    try:
        cpus = Decimal(args.cpus)
    except InvalidOperation:  # pragma: no cover - the pattern admits only plain decimals
        raise UsageError(f'--cpus "{args.cpus}" is not a number') from None
    if not cpus.is_finite() or cpus <= 0:
        raise UsageError(f"--cpus must be a number greater than 0, got {args.cpus}")
    if cpus * 1000 != (cpus * 1000).to_integral_value():  # Kubernetes counts cpu in whole millicores
        raise UsageError(
            f"--cpus {args.cpus} is not a whole number of millicores (Kubernetes counts cpu in thousandths of a core); "
            "give logical CPUs such as 8, 3.5 or 0.25"
        )
    if cpus * 1000 > INT64_MAX:  # Kubernetes reads cpu in millicores, as an int64
        raise UsageError(
            f"--cpus {args.cpus} is more than a Kubernetes cpu quantity holds (at most {Decimal(INT64_MAX) / 1000} "
            "cores: millicores are an int64)"
        )
    try:
        memory = Quantity.parse(args.memory)
    except QuantityError as exc:
        raise UsageError(f"--memory: {exc}") from None
    if memory.is_negative() or memory.is_zero():
        raise UsageError(f"--memory must be greater than 0, got {args.memory}")
    if memory.value != memory.value.to_integral_value():  # 1n, 0.5, 1500m: a fraction of a byte
        raise UsageError(
            f"--memory {args.memory} is not a whole number of bytes ({memory.value:f} bytes); give the machine's memory "
            "with its unit, e.g. 16Gi"
        )
    if memory.value < _MEBIBYTE:  # no machine the kubelet runs on; most often a missing unit
        unit = "has no unit, so it is" if _BARE.fullmatch(args.memory) else "is"
        raise UsageError(
            f"--memory {args.memory} {unit} {memory.value:f} byte{'s' if memory.value != 1 else ''}, less than a "
            "mebibyte: no machine a kubelet runs on; give the machine's memory with its unit, e.g. 16Gi"
        )
    for option, value in (("--max-pods", args.max_pods), ("--eni-max-pods", args.eni_max_pods)):
        if value is not None and not 1 <= value <= INT32_MAX:
            raise UsageError(f"{option} must be from 1 to {INT32_MAX} (the kubelet's maxPods is an int32), got {value}")
    sizes: dict[str, int | None] = {}
    for option, text in (("--machine-memory", args.machine_memory), ("--ephemeral-storage", args.ephemeral_storage)):
        if text is None:
            sizes[option] = None
            continue
        try:
            q = Quantity.parse(text)
        except QuantityError as exc:
            raise UsageError(f"{option}: {exc}") from None
        if q.is_negative() or q.is_zero():
            raise UsageError(f"{option} must be greater than 0, got {text}")
        sizes[option] = q.int_value()
    shape = MachineShape(
        cpus=cpus,
        memory_bytes=memory.int_value(),
        max_pods=args.max_pods,
        machine_memory_bytes=sizes["--machine-memory"],
        eni_max_pods=args.eni_max_pods,
        ephemeral_storage_bytes=sizes["--ephemeral-storage"],
    )
    return shape, cpus, memory


def run(args: argparse.Namespace) -> int:
    from renderer.commands.common import EXIT_USAGE, emit_load
    from renderer.pipeline import sizing

    given: list[tuple[Decimal, Quantity]] = []

    def machine() -> MachineShape:
        shape, cpus, memory = _machine(args)
        given.append((cpus, memory))
        return shape

    sized = sizing(machine, formula=args.formula, policy=args.policy)
    if sized.result is None:
        assert sized.load is not None
        emit_load(sized.load, "sizing")
        return EXIT_USAGE
    result = sized.result
    cpus, memory = given[0]
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
