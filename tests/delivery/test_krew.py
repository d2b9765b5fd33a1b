"""The krew plugin: the manifest and archive ``python -m renderer.integrations.krew`` writes, checked by krew's
published rules, and the launcher the archive holds.

The rules, from kubernetes-sigs/krew (commit 65de93ccbe5764fed2fbe7c4b61ed33ef2dba0db):
- ``internal/index/validation/validate.go``, ``ValidatePlugin`` / ``validatePlatform`` / ``validateFiles`` /
  ``validateSelector``: apiVersion ``krew.googlecontainertools.github.com/v1alpha2`` and kind ``Plugin``
  (``pkg/constants``); a name matching ``^[\\w-]+$`` that is no Windows device name and equals metadata.name; a
  short description without line breaks; at least one platform; a version ``internal/installation/semver.Parse``
  accepts (a ``v`` then a semantic version, k8s.io/apimachinery ``version.ParseSemantic``); per platform a uri, a
  sha256 matching ``^[a-f0-9]{64}$`` (lower case only), a bin, files either absent or each with from and to, a
  selector that is set, not empty, keyed only by os and arch, with no matchLabels/matchExpressions present but empty.
- ``cmd/validate-krew-manifest/main.go`` (what krew-index CI runs on every manifest): the file is ``<name>.yaml``;
  every platform's selector matches a supported os/arch and no two platforms match the same one; installing the
  archive for each gives the bin, and a license file.
No registry package implements these rules (krew ships them only as Go code); they are applied here as written.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import re
import stat
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from renderer.integrations import krew

URI = "https://github.com/allocatable-dev/allocatable/releases/download/v0.1.0/kubectl-allocatable-v0.1.0.tar.gz"
WINDOWS_FORBIDDEN = {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)), *(f"LPT{i}" for i in range(1, 10))}
# validate-krew-manifest's os/arch list.
SUPPORTED = [
    *(("windows", a) for a in ("386", "amd64", "arm64")),
    *(("linux", a) for a in ("386", "amd64", "arm", "arm64", "ppc64le")),
    *(("darwin", a) for a in ("386", "amd64", "arm64")),
]
# k8s.io/apimachinery/pkg/util/version: a dotted number, then -pre-release and +build parts; ParseSemantic wants
# exactly three components and no leading zeros.
_VERSION = re.compile(
    r"^([0-9]+(?:\.[0-9]+)*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


class Invalid(Exception):
    pass


def parse_version(text: str) -> None:
    if not text.startswith("v"):
        raise Invalid(f"version {text!r} must start with v")
    m = _VERSION.match(text[1:])
    if m is None:
        raise Invalid(f"version {text!r} is not a semantic version")
    parts = m.group(1).split(".")
    if len(parts) != 3:
        raise Invalid(f"version {text!r} needs major.minor.patch")
    if any(len(p) > 1 and p.startswith("0") for p in parts):
        raise Invalid(f"version {text!r} has a zero-prefixed component")


def validate_selector(sel: Any) -> None:
    if sel is None:
        raise Invalid("nil selector is not supported")
    labels, exprs = sel.get("matchLabels"), sel.get("matchExpressions")
    if labels is None and not exprs:
        raise Invalid("empty selector is not supported")
    keys = list(labels or {}) + [e["key"] for e in exprs or []]
    for key in keys:
        if key not in ("os", "arch"):
            raise Invalid(f"key {key!r} not supported")
    if labels is not None and len(labels) == 0:
        raise Invalid("matchLabels specified but empty")
    if exprs is not None and len(exprs) == 0:
        raise Invalid("matchExpressions specified but empty")


def validate_platform(p: dict[str, Any]) -> None:
    if not p.get("uri"):
        raise Invalid("uri has to be set")
    if not p.get("sha256"):
        raise Invalid("sha256 has to be set")
    if not re.fullmatch(r"[a-f0-9]{64}", p["sha256"]):
        raise Invalid("sha256 must match ^[a-f0-9]{64}$")
    if not p.get("bin"):
        raise Invalid("bin has to be set")
    files = p.get("files")
    if files is not None:
        if len(files) == 0:
            raise Invalid("files has to be unspecified or non-empty")
        for op in files:
            if not op.get("from") or not op.get("to"):
                raise Invalid("from and to have to be set")
    validate_selector(p.get("selector"))


def validate_plugin(name: str, doc: dict[str, Any]) -> None:
    if doc.get("apiVersion") != krew.API_VERSION:
        raise Invalid("unsupported apiVersion")
    if doc.get("kind") != "Plugin":
        raise Invalid("kind must be Plugin")
    if not re.fullmatch(r"[\w-]+", name) or name.upper() in WINDOWS_FORBIDDEN:
        raise Invalid(f"plugin name {name!r} not allowed")
    if doc.get("metadata", {}).get("name") != name:
        raise Invalid("metadata.name must be the plugin name")
    spec = doc.get("spec", {})
    short = spec.get("shortDescription") or ""
    if not short:
        raise Invalid("should have a short description")
    if "\r" in short or "\n" in short:
        raise Invalid("no line breaks in the short description")
    if not spec.get("platforms"):
        raise Invalid("should have a platform")
    if not spec.get("version"):
        raise Invalid("should have a version")
    parse_version(spec["version"])
    for p in spec["platforms"]:
        validate_platform(p)


def matches(sel: dict[str, Any], labels: dict[str, str]) -> bool:
    """metav1.LabelSelector semantics for the os/arch labels."""
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        value, op, values = labels.get(e["key"]), e["operator"], e.get("values") or []
        if (
            (op == "In" and value not in values)
            or (op == "NotIn" and value in values)
            or (op == "Exists" and value is None)
            or (op == "DoesNotExist" and value is not None)
        ):
            return False
    return True


def validate_manifest_file(path: Path, archive: bytes) -> None:
    """validate-krew-manifest: the file name, ValidatePlugin, os/arch coverage, and an install of each platform."""
    if path.suffix != ".yaml":
        raise Invalid("manifest must be a .yaml file")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    validate_plugin(path.stem, doc)
    seen: dict[tuple[str, str], int] = {}
    for i, p in enumerate(doc["spec"]["platforms"]):
        hits = [pair for pair in SUPPORTED if matches(p["selector"], {"os": pair[0], "arch": pair[1]})]
        if not hits:
            raise Invalid(f"platform {i} matches no supported os/arch")
        for pair in hits:
            if pair in seen:
                raise Invalid(f"platforms {seen[pair]} and {i} both match {pair}")
            seen[pair] = i
        install(p, archive)


def install(platform: dict[str, Any], archive: bytes) -> dict[str, bytes]:
    """What krew's installer leaves: the archive (sniffed as gzip) unpacked, ``files`` moved, bin present and
    executable, and a license file among what was installed."""
    if hashlib.sha256(archive).hexdigest() != platform["sha256"]:
        raise Invalid("sha256 does not match the archive")
    if archive[:2] != b"\x1f\x8b":
        raise Invalid("not a gzip archive")
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        contents = {name: tar.extractfile(m).read() for name, m in members.items()}  # type: ignore[union-attr]
    installed: dict[str, bytes] = {}
    modes: dict[str, int] = {}
    for op in platform.get("files") or [{"from": "*", "to": "."}]:
        for name in members:
            if fnmatch.fnmatch(name, op["from"]):
                target = os.path.normpath(os.path.join(op["to"], os.path.basename(name)))
                installed[target], modes[target] = contents[name], members[name].mode
    if platform["bin"] not in installed or not modes[platform["bin"]] & stat.S_IXUSR:
        raise Invalid(f"bin {platform['bin']} is not installed as an executable")
    if not any(n.lower().startswith(("license", "licence")) for n in installed):
        raise Invalid("no license file installed")
    return installed


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("krew")
    assert krew.main(["--out", str(out), "--uri", URI]) == 0
    return out


def _manifest(out: Path) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((out / "allocatable.yaml").read_text(encoding="utf-8"))
    return doc


def test_the_generated_manifest_passes_krews_rules(released: Path) -> None:
    meta = krew.metadata()
    archive = (released / f"kubectl-allocatable-v{meta.version}.tar.gz").read_bytes()
    validate_manifest_file(released / "allocatable.yaml", archive)
    spec = _manifest(released)["spec"]
    assert spec["version"] == f"v{meta.version}"  # the package's version, with krew's v
    assert spec["homepage"] == meta.homepage != ""
    assert spec["shortDescription"] == "Own node capacity from git"
    assert spec["platforms"][0]["uri"] == URI


def test_the_archive_is_reproducible(released: Path) -> None:
    meta = krew.metadata()
    assert krew.archive(meta.version) == (released / f"kubectl-allocatable-v{meta.version}.tar.gz").read_bytes()


BROKEN: list[tuple[str, Any]] = [
    ("apiVersion", lambda d: d.update(apiVersion="krew.googlecontainertools.github.com/v1alpha1")),
    ("kind", lambda d: d.update(kind="Plugins")),
    ("name", lambda d: d["metadata"].update(name="Allocatable")),
    ("short description", lambda d: d["spec"].update(shortDescription="")),
    ("line break", lambda d: d["spec"].update(shortDescription="a\nb")),
    ("version without v", lambda d: d["spec"].update(version="0.1.0")),
    ("two-part version", lambda d: d["spec"].update(version="v0.1")),
    ("zero-prefixed", lambda d: d["spec"].update(version="v0.01.0")),
    ("no platforms", lambda d: d["spec"].update(platforms=[])),
    (
        "upper-case sha256",
        lambda d: d["spec"]["platforms"][0].update(sha256=d["spec"]["platforms"][0]["sha256"].upper()),
    ),
    ("short sha256", lambda d: d["spec"]["platforms"][0].update(sha256="abc")),
    ("no bin", lambda d: d["spec"]["platforms"][0].pop("bin")),
    ("empty files", lambda d: d["spec"]["platforms"][0].update(files=[])),
    ("file without to", lambda d: d["spec"]["platforms"][0]["files"][0].pop("to")),
    ("selector key", lambda d: d["spec"]["platforms"][0].update(selector={"matchLabels": {"distro": "debian"}})),
    ("empty matchLabels", lambda d: d["spec"]["platforms"][0].update(selector={"matchLabels": {}})),
    ("nil selector", lambda d: d["spec"]["platforms"][0].pop("selector")),
    ("no os/arch", lambda d: d["spec"]["platforms"][0].update(selector={"matchLabels": {"os": "plan9"}})),
    ("overlap", lambda d: d["spec"]["platforms"].append(dict(d["spec"]["platforms"][0]))),
    ("sha256 of another archive", lambda d: d["spec"]["platforms"][0].update(sha256="0" * 64)),
    ("bin not in archive", lambda d: d["spec"]["platforms"][0].update(bin="kubectl-other")),
    ("license not installed", lambda d: d["spec"]["platforms"][0]["files"].pop()),
]


@pytest.mark.parametrize(("what", "breaks"), BROKEN, ids=[w for w, _ in BROKEN])
def test_the_rules_reject_a_broken_manifest(what: str, breaks: Any, released: Path, tmp_path: Path) -> None:
    doc = _manifest(released)
    breaks(doc)
    path = tmp_path / "allocatable.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    archive = next(released.glob("*.tar.gz")).read_bytes()
    with pytest.raises(Invalid):
        validate_manifest_file(path, archive)


def test_the_file_must_be_named_after_the_plugin(released: Path, tmp_path: Path) -> None:
    archive = next(released.glob("*.tar.gz")).read_bytes()
    for name in ("other.yaml", "allocatable.yml"):
        (tmp_path / name).write_text((released / "allocatable.yaml").read_text(encoding="utf-8"), encoding="utf-8")
        with pytest.raises(Invalid):
            validate_manifest_file(tmp_path / name, archive)


def _launcher(tmp_path: Path) -> Path:
    script = tmp_path / "kubectl-allocatable"
    script.write_text(krew.launcher("0.1.0"), encoding="utf-8")
    script.chmod(0o755)
    return script


def test_the_launcher_runs_the_pinned_release_through_pipx(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pipx = bin_dir / "pipx"
    pipx.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n", encoding="utf-8")
    pipx.chmod(0o755)
    env = {"PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, str(_launcher(tmp_path)), "verify", "--context", "prod"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        '["run", "--spec", "allocatable==0.1.0", "kubectl-allocatable", "verify", "--context", "prod"]'
    )


def test_the_launcher_without_pipx_says_what_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = subprocess.run(
        [sys.executable, str(_launcher(tmp_path)), "verify"],
        capture_output=True,
        text=True,
        env={"PATH": str(empty)},
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert "pipx" in proc.stderr and "pipx install allocatable==0.1.0" in proc.stderr


def test_the_uri_must_be_https(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        krew.main(["--out", str(tmp_path), "--uri", "http://example.com/x.tar.gz"])
    assert exc.value.code == 2
