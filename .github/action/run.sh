#!/usr/bin/env bash
# The steps of the allocatable GitHub Action (action.yml), one sub-command per step, so they can be run and
# tested outside GitHub. Inputs arrive as INPUT_* environment variables (never spliced into the script text);
# results go to $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and workflow commands on stdout.
#
#   run.sh base          resolve the base revision, fetching it and (in shallow clones)  → outputs: base
#                        the history down to its merge-base with HEAD
#   run.sh lint          annotations (-o github), counts, SARIF                         → outputs: errors, warnings,
#                                                                                        notices, lint-exit, sarif-file
#   run.sh diff          capacity diff against the base, appended to the job summary    → outputs: capacity-changed
#   run.sh render-check  allocatable render --check                                     → outputs: render-exit
#   run.sh verify        allocatable verify on the nodes/pods snapshot files, if given  → outputs: verify-exit,
#                                                                                        nodes-drifted, pods-over
#   run.sh result        fail the job when lint (per fail-on) or render --check failed
#
# Every expansion is quoted, every path and ref reaches a command after `--` (or `--end-of-options`), and values
# echoed into workflow commands are escaped, so no input can become an option, a second command or an annotation.
set -uo pipefail
set -f # no input is ever glob-expanded

cmd="${1:?usage: run.sh base|lint|diff|render-check|verify|result}"
path="${INPUT_PATH:-policies}"
# The policy directory as a command-line PATH: a directory named "-" is that directory, never standard input.
arg="$path"
[ "$arg" = "-" ] && arg="./-"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
out="${GITHUB_OUTPUT:-/dev/null}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

output() { printf '%s=%s\n' "$1" "$2" >>"$out"; }

# Write standard input to a file of the repository through allocatable's safe-path layer (renderer/safepath.py),
# run by the Python that runs allocatable: all or nothing, never through a symlink, never into .git/ or .github/.
safe_put() {
  local bin py
  bin="$(dirname -- "$(command -v allocatable)")"
  py="$bin/python3"
  [ -x "$py" ] || py=python3
  "$py" -m renderer.safepath put "$1"
}
have_commit() { git rev-parse --verify --quiet --end-of-options "$1^{commit}" >/dev/null 2>&1; }

# The merge-base of two commit ids, printed, when this clone can tell it: git finds one, and no commit above it on
# either side had its parents cut by a shallow fetch (else an older common ancestor could pose as the merge-base).
exact_merge_base() {
  local mb shallow
  mb="$(git merge-base "$1" "$2" 2>/dev/null)" || return 1
  [ -n "$mb" ] || return 1
  shallow="$(git rev-parse --git-path shallow)"
  if [ -s "$shallow" ] && git rev-list "$1" "$2" "^$mb" | grep -qxF -f "$shallow"; then
    return 1
  fi
  printf '%s' "$mb"
}

# Workflow-command data escaping (GitHub's own rules): % first, then CR and LF.
escape_data() {
  local s="${1//%/%25}"
  s="${s//$'\r'/%0D}"
  printf '%s' "${s//$'\n'/%0A}"
}

# Markdown for the job summary: a value shown in `code`, with no way out of it (backticks, line breaks, pipes).
md_code() {
  local s="${1//\`/\'}"
  s="${s//$'\r'/ }"
  s="${s//$'\n'/ }"
  s="${s//|/\\|}"
  printf '%s%s%s' '`' "$s" '`'
}

# The policy path must stay inside the repository, symlinks resolved: a pull request could replace it with a
# link to the runner's home directory, and findings quote what they read.
check_path() {
  local top real
  top="$(git rev-parse --show-toplevel 2>/dev/null || pwd -P)"
  if ! real="$(realpath -e -- "$arg" 2>/dev/null)"; then
    echo "::error title=allocatable::path $(escape_data "$path") does not exist in the repository"
    return 1
  fi
  case "$real/" in
  "$top"/*) return 0 ;;
  esac
  echo "::error title=allocatable::path $(escape_data "$path") leads outside the repository (symlinks resolved); refusing to read it"
  return 1
}

case "$cmd" in
base)
  ref="${INPUT_BASE_REF:-}"
  if [ -z "$ref" ]; then
    echo "allocatable: no base-ref (not a pull request): the capacity diff is skipped"
    output base ""
    exit 0
  fi
  # A ref is a branch, tag or commit name: never an option (--upload-pack=...), never a refspec (a:b).
  if [[ "$ref" == -* ]] || ! git check-ref-format "refs/heads/$ref"; then
    echo "::warning title=allocatable::base-ref \"$(escape_data "$ref")\" is not a branch, tag or commit name; the capacity diff is skipped"
    output base ""
    exit 0
  fi
  resolved=""
  for candidate in "origin/$ref" "$ref"; do
    if have_commit "$candidate"; then
      resolved="$candidate"
      break
    fi
  done
  if [ -z "$resolved" ]; then
    # Shallow checkouts (actions/checkout's default) lack the base branch: fetch just its tip.
    if git fetch --quiet --no-tags --depth=1 origin -- "+refs/heads/$ref:refs/remotes/origin/$ref" 2>/dev/null; then
      resolved="origin/$ref"
    elif git fetch --quiet --no-tags --depth=1 origin -- "$ref" 2>/dev/null; then
      resolved="$(git rev-parse --verify --quiet --end-of-options FETCH_HEAD)"
    fi
  fi
  if [ -z "$resolved" ] || ! have_commit "$resolved"; then
    echo "::warning title=allocatable::base revision \"$(escape_data "$ref")\" not found, even after git fetch; the capacity diff is skipped"
    output base ""
    exit 0
  fi
  # allocatable compares with the merge-base of the base and HEAD (as git diff BASE...HEAD does), so that the pull
  # request is not blamed for what the base branch did since. A shallow checkout holds neither side's history:
  # deepen both, step by step (bounded), until the merge-base is there and provably the one.
  tip="$(git rev-parse --verify --end-of-options "$resolved^{commit}")"
  head="$(git rev-parse --verify --quiet HEAD)"
  if [ -z "$head" ]; then
    echo "::error title=allocatable::HEAD is no commit: nothing to compare the base with"
    output base ""
    exit 1
  fi
  want="$tip"
  [ "$resolved" = "origin/$ref" ] && want="+refs/heads/$ref:refs/remotes/origin/$ref"
  fetched=0
  mb="$(exact_merge_base "$tip" "$head")"
  # ALLOCATABLE_DEEPEN_STEPS: the steps (commits per fetch), for tests; 6,260 commits per side in all by default.
  for step in ${ALLOCATABLE_DEEPEN_STEPS:-10 50 200 1000 5000}; do
    [[ "$step" =~ ^[1-9][0-9]{0,5}$ ]] || continue
    [ -n "$mb" ] && break
    [ "$(git rev-parse --is-shallow-repository)" = true ] || break
    if ! git fetch --quiet --no-tags --deepen="$step" origin -- "$want" "$head" 2>/dev/null; then
      break
    fi
    fetched=$((fetched + step))
    tip="$(git rev-parse --verify --end-of-options "$resolved^{commit}")"
    mb="$(exact_merge_base "$tip" "$head")"
  done
  if [ -z "$mb" ]; then
    if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
      why="not within $fetched more commits of history on each side (git fetch --deepen)"
    else
      why="the two histories are unrelated"
    fi
    echo "::error title=allocatable::no merge-base of $(escape_data "$resolved") and HEAD: $why; check out with actions/checkout fetch-depth: 0, or give a base-ref on this branch's history"
    output base ""
    exit 1
  fi
  echo "allocatable: comparing with $resolved at its merge-base with HEAD, ${mb:0:12} ($resolved is at ${tip:0:12})"
  output base "$resolved"
  ;;

lint)
  strict=()
  case "${INPUT_FAIL_ON:-error}" in
  error) ;;
  warning) strict=(--strict) ;;
  *)
    echo "::error title=allocatable::fail-on must be error or warning, got \"$(escape_data "${INPUT_FAIL_ON}")\""
    output lint-exit 2
    exit 0
    ;;
  esac
  if ! check_path; then
    output lint-exit 2
    exit 0
  fi
  base=()
  [ -n "${BASE:-}" ] && base=("--base=$BASE")
  # 1. annotations on the changed lines (workflow commands on stdout); the exit status decides the result.
  allocatable lint -o github "${strict[@]}" "${base[@]}" -- "$arg"
  code=$?
  output lint-exit "$code"
  # 2. counts, from the JSON report.
  json="$tmp/allocatable-lint.json"
  allocatable lint -o json "${base[@]}" -- "$arg" >"$json" 2>/dev/null
  counts="$(
    python3 - "$json" <<'PY'
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
  # 3. SARIF for code scanning (github/codeql-action/upload-sarif): written by the tool's safe-path layer, never
  # through a symlink (file or directory) the pull request committed, never into .git/ or .github/.
  if [ -n "${INPUT_SARIF_FILE:-}" ]; then
    sarif_tmp="$tmp/allocatable-lint.sarif"
    allocatable lint -o sarif "${base[@]}" -- "$arg" >"$sarif_tmp" 2>/dev/null
    if refused="$(safe_put "$INPUT_SARIF_FILE" <"$sarif_tmp" 2>&1)"; then
      output sarif-file "$INPUT_SARIF_FILE"
    else
      echo "::error title=allocatable::$(escape_data "${refused#allocatable: error: }")"
      output sarif-file ""
    fi
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
    echo "$(md_code "$path"): ${errors:-0} errors, ${warnings:-0} warnings, ${notices:-0} notices (fail-on: $(md_code "${INPUT_FAIL_ON:-error}"))"
    echo
  } >>"$summary"
  ;;

diff)
  if [ -z "${BASE:-}" ]; then
    output capacity-changed ""
    exit 0
  fi
  if ! check_path; then
    output capacity-changed ""
    exit 0
  fi
  md="$tmp/allocatable-diff.md"
  if allocatable diff "--base=$BASE" -o markdown -- "$arg" >"$md"; then
    cat -- "$md" >>"$summary"
    changed="$(allocatable diff "--base=$BASE" -o json -- "$arg" |
      python3 -c 'import json,sys; print(str(json.load(sys.stdin)["summary"]["capacityChanged"]).lower())')"
    output capacity-changed "$changed"
    output diff-file "$md"
  else
    echo "::warning title=allocatable::the capacity diff against $(escape_data "$BASE") failed (see the log above)"
    output capacity-changed ""
  fi
  ;;

render-check)
  if ! check_path; then
    output render-exit 2
    exit 0
  fi
  allocatable render --check -- "$arg"
  code=$?
  output render-exit "$code"
  if [ "$code" -ne 0 ]; then
    echo "::error title=allocatable render --check::the rendered output is not current: run $(escape_data "allocatable render $path") and commit the result"
    {
      echo "### allocatable render --check: failed"
      echo
      echo "Run $(md_code "allocatable render $path") and commit the result."
      echo
    } >>"$summary"
  fi
  ;;

verify)
  if ! check_path; then
    output verify-exit 2
    exit 0
  fi
  args=()
  [ -n "${INPUT_NODES_FILE:-}" ] && args+=("--nodes=$INPUT_NODES_FILE")
  [ -n "${INPUT_PODS_FILE:-}" ] && args+=("--pods=$INPUT_PODS_FILE")
  if [ "${#args[@]}" -eq 0 ]; then
    output verify-exit ""
    exit 0
  fi
  [ -n "${INPUT_PODS_FILE:-}" ] && [ -n "${BASE:-}" ] && args+=("--base=$BASE")
  allocatable verify -o github "${args[@]}" -- "$arg"
  code=$?
  output verify-exit "$code"
  json="$tmp/allocatable-verify.json"
  allocatable verify -o json "${args[@]}" -- "$arg" >"$json" 2>/dev/null
  read -r drifted over <<<"$(
    python3 - "$json" <<'PY'
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
  allocatable verify -o markdown "${args[@]}" -- "$arg" >>"$summary" 2>/dev/null
  ;;

result)
  failed=0
  lint_exit="${LINT_EXIT:-}"
  if [ -z "$lint_exit" ]; then
    echo "allocatable: lint did not run"
    failed=1
  elif [ "$lint_exit" != 0 ]; then
    echo "allocatable: lint failed (exit $lint_exit; fail-on: $(escape_data "${INPUT_FAIL_ON:-error}"))"
    failed=1
  fi
  if [ -n "${RENDER_EXIT:-}" ] && [ "$RENDER_EXIT" != 0 ]; then
    echo "allocatable: render --check failed (exit $RENDER_EXIT)"
    failed=1
  fi
  if [ -n "${VERIFY_EXIT:-}" ] && [ "$VERIFY_EXIT" != 0 ]; then
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
