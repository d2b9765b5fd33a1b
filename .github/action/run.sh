#!/usr/bin/env bash
# The steps of the allocatable GitHub Action (action.yml), one sub-command per step, so they can be run and
# tested outside GitHub. Inputs arrive as INPUT_* environment variables (never spliced into the script text);
# results go to $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and workflow commands on stdout.
#
#   run.sh base          resolve (and fetch, in shallow clones) the base revision      → outputs: base
#   run.sh lint          annotations (-o github), counts, SARIF                         → outputs: errors, warnings,
#                                                                                        notices, lint-exit, sarif-file
#   run.sh diff          capacity diff against the base, appended to the job summary    → outputs: capacity-changed
#   run.sh render-check  allocatable render --check                                     → outputs: render-exit
#   run.sh verify        allocatable verify on the nodes/pods snapshot files, if given  → outputs: verify-exit,
#                                                                                        nodes-drifted, pods-over
#   run.sh result        fail the job when lint (per fail-on) or render --check failed
set -uo pipefail

cmd="${1:?usage: run.sh base|lint|diff|render-check|verify|result}"
path="${INPUT_PATH:-policies}"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
out="${GITHUB_OUTPUT:-/dev/null}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

output() { printf '%s=%s\n' "$1" "$2" >>"$out"; }
have_commit() { git rev-parse --verify --quiet "$1^{commit}" >/dev/null 2>&1; }

case "$cmd" in
base)
  ref="${INPUT_BASE_REF:-}"
  if [ -z "$ref" ]; then
    echo "allocatable: no base-ref (not a pull request): the capacity diff is skipped"
    output base ""
    exit 0
  fi
  resolved=""
  for candidate in "origin/$ref" "$ref"; do
    if have_commit "$candidate"; then resolved="$candidate"; break; fi
  done
  if [ -z "$resolved" ]; then
    # Shallow checkouts (actions/checkout's default) lack the base branch: fetch just its tip.
    if git fetch --quiet --no-tags --depth=1 origin "+refs/heads/$ref:refs/remotes/origin/$ref" 2>/dev/null; then
      resolved="origin/$ref"
    elif git fetch --quiet --no-tags --depth=1 origin "$ref" 2>/dev/null; then
      resolved="$(git rev-parse FETCH_HEAD)"
    fi
  fi
  if [ -z "$resolved" ] || ! have_commit "$resolved"; then
    echo "::warning title=allocatable::base revision \"$ref\" not found, even after git fetch; the capacity diff is skipped"
    output base ""
    exit 0
  fi
  echo "allocatable: comparing with $resolved ($(git rev-parse --short=12 "$resolved"))"
  output base "$resolved"
  ;;

lint)
  strict=()
  case "${INPUT_FAIL_ON:-error}" in
  error) ;;
  warning) strict=(--strict) ;;
  *)
    echo "::error title=allocatable::fail-on must be error or warning, got \"${INPUT_FAIL_ON}\""
    output lint-exit 2
    exit 0
    ;;
  esac
  base=()
  [ -n "${BASE:-}" ] && base=(--base "$BASE")
  # 1. annotations on the changed lines (workflow commands on stdout); the exit status decides the result.
  allocatable lint "$path" -o github "${strict[@]}" "${base[@]}"
  code=$?
  output lint-exit "$code"
  # 2. counts, from the JSON report.
  json="$tmp/allocatable-lint.json"
  allocatable lint "$path" -o json "${base[@]}" >"$json" 2>/dev/null
  counts="$(python3 - "$json" <<'PY'
import json, sys
try:
    findings = json.load(open(sys.argv[1], encoding="utf-8")).get("findings", [])
except (OSError, ValueError):
    findings = []
n = {s: sum(1 for f in findings if f.get("severity") == s) for s in ("error", "warning", "info")}
print(n["error"], n["warning"], n["info"])
PY
)"
  read -r errors warnings notices <<<"$counts"
  output errors "${errors:-0}"
  output warnings "${warnings:-0}"
  output notices "${notices:-0}"
  # 3. SARIF for code scanning (github/codeql-action/upload-sarif).
  if [ -n "${INPUT_SARIF_FILE:-}" ]; then
    mkdir -p "$(dirname "$INPUT_SARIF_FILE")"
    allocatable lint "$path" -o sarif "${base[@]}" >"$INPUT_SARIF_FILE" 2>/dev/null
    output sarif-file "$INPUT_SARIF_FILE"
  else
    output sarif-file ""
  fi
  case "$code" in
  0) verdict="passed" ;;
  1) verdict="failed" ;;
  *) verdict="could not run (invalid input or usage error, exit $code)" ;;
  esac
  {
    echo "### allocatable lint: $verdict"
    echo
    echo "\`$path\`: ${errors:-0} errors, ${warnings:-0} warnings, ${notices:-0} notices (fail-on: ${INPUT_FAIL_ON:-error})"
    echo
  } >>"$summary"
  ;;

diff)
  if [ -z "${BASE:-}" ]; then
    output capacity-changed ""
    exit 0
  fi
  md="$tmp/allocatable-diff.md"
  if allocatable diff --base "$BASE" "$path" -o markdown >"$md"; then
    cat "$md" >>"$summary"
    changed="$(allocatable diff --base "$BASE" "$path" -o json |
      python3 -c 'import json,sys; print(str(json.load(sys.stdin)["summary"]["capacityChanged"]).lower())')"
    output capacity-changed "$changed"
    output diff-file "$md"
  else
    echo "::warning title=allocatable::the capacity diff against $BASE failed (see the log above)"
    output capacity-changed ""
  fi
  ;;

render-check)
  allocatable render --check "$path"
  code=$?
  output render-exit "$code"
  if [ "$code" -ne 0 ]; then
    echo "::error title=allocatable render --check::the rendered output is not current: run \`allocatable render $path\` and commit the result"
    {
      echo "### allocatable render --check: failed"
      echo
      echo "Run \`allocatable render $path\` and commit the result."
      echo
    } >>"$summary"
  fi
  ;;

verify)
  args=()
  [ -n "${INPUT_NODES_FILE:-}" ] && args+=(--nodes "$INPUT_NODES_FILE")
  [ -n "${INPUT_PODS_FILE:-}" ] && args+=(--pods "$INPUT_PODS_FILE")
  if [ "${#args[@]}" -eq 0 ]; then
    output verify-exit ""
    exit 0
  fi
  [ -n "${INPUT_PODS_FILE:-}" ] && [ -n "${BASE:-}" ] && args+=(--base "$BASE")
  allocatable verify "$path" "${args[@]}" -o github
  code=$?
  output verify-exit "$code"
  json="$tmp/allocatable-verify.json"
  allocatable verify "$path" "${args[@]}" -o json >"$json" 2>/dev/null
  read -r drifted over <<<"$(python3 - "$json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
except (OSError, ValueError):
    doc = {}
print(sum(1 for n in doc.get("nodes", []) if not n.get("match")), sum(1 for p in doc.get("pods", []) if not p.get("fits")))
PY
)"
  output nodes-drifted "${drifted:-}"
  output pods-over "$([ -n "${INPUT_PODS_FILE:-}" ] && echo "${over:-}")"
  allocatable verify "$path" "${args[@]}" -o markdown >>"$summary" 2>/dev/null
  ;;

result)
  failed=0
  lint_exit="${LINT_EXIT:-}"
  if [ -z "$lint_exit" ]; then
    echo "allocatable: lint did not run"
    failed=1
  elif [ "$lint_exit" -ne 0 ]; then
    echo "allocatable: lint failed (exit $lint_exit; fail-on: ${INPUT_FAIL_ON:-error})"
    failed=1
  fi
  if [ -n "${RENDER_EXIT:-}" ] && [ "$RENDER_EXIT" -ne 0 ]; then
    echo "allocatable: render --check failed (exit $RENDER_EXIT)"
    failed=1
  fi
  if [ -n "${VERIFY_EXIT:-}" ] && [ "$VERIFY_EXIT" -ne 0 ]; then
    echo "allocatable: verify found nodes that differ from the policies or pods that do not fit (exit $VERIFY_EXIT)"
    failed=1
  fi
  exit "$failed"
  ;;

*)
  echo "run.sh: unknown step \"$cmd\"" >&2
  exit 2
  ;;
esac
