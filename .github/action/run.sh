#!/usr/bin/env bash
# The steps of the allocatable GitHub Action (action.yml), one sub-command per step, so they can be run and
# tested outside GitHub. Inputs arrive as INPUT_* environment variables (never spliced into the script text);
# results go to $GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY and workflow commands on stdout.
#
#   run.sh base          resolve the base revision, fetching it and (in shallow clones)  → outputs: base
#                        the history down to its merge-base with HEAD
#   run.sh lint          annotations (-o github), counts, the findings in the summary  → outputs: errors, warnings,
#                                                                                        notices, lint-exit, annotations
#   run.sh sarif         SARIF for code scanning                                        → outputs: sarif-file
#   run.sh diff          capacity diff against the base (with nodes-file and pods-file:  → outputs: capacity-changed,
#                        the simulation of the change on that cluster), job summary;     diff-file, pods-pending,
#                        one run writes the markdown, the JSON and (with                  impact-exit,
#                        INPUT_CAPACITY_REPORT) the reviewer's HTML page                  monthly-cost-change,
#                                                                                        cost-exit, html-file
#   run.sh report        the capacity report for the artifact: the diff step's page     → outputs: file
#                        (DIFF_HTML) with a base, else explain -o html
#   run.sh render-check  allocatable render --check (not checked while lint has errors) → outputs: render-exit
#   run.sh verify        allocatable verify on the nodes/pods snapshot files, if given  → outputs: verify-exit,
#                                                                                        nodes-drifted, pods-over
#   run.sh comment       the sticky pull-request comment (opt-in), created or updated   → outputs: comment-url
#   run.sh result        fail the job when lint (per fail-on) or render --check failed
#   run.sh all           the whole action, locally: every step above in action.yml's order, each step's outputs
#                        passed to the next as action.yml passes them; the job summary goes to
#                        $GITHUB_STEP_SUMMARY (default: $TMPDIR/allocatable-summary.md), the exit is result's
#
# Every expansion is quoted, every path and ref reaches a command after `--` (or `--end-of-options`), and values
# echoed into workflow commands are escaped, so no input can become an option, a second command or an annotation.
#
# GitHub's limits (docs/github-action.md): at most 10 annotations of each level per step and 50 per job — the
# `-o github` formats keep to the first themselves, and the lint and verify steps share what the action's own
# messages leave of the second (ALLOCATABLE_GITHUB_ANNOTATIONS); at most 1 MiB of job summary per step — every
# section goes through `summarize`, which cuts it with a line saying what was cut; at most 65,536 characters in a
# comment.
set -uo pipefail
set -f # no input is ever glob-expanded

cmd="${1:?usage: run.sh base|lint|sarif|diff|report|render-check|verify|comment|result|all}"
path="${INPUT_PATH:-policies}"
# The policy directory as a command-line PATH: a directory named "-" is that directory, never standard input.
arg="$path"
[ "$arg" = "-" ] && arg="./-"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
out="${GITHUB_OUTPUT:-/dev/null}"
summary="${GITHUB_STEP_SUMMARY:-/dev/null}"

# Annotations GitHub shows per job, and the most the action writes of its own (one per step at most, outside lint
# and verify): lint and verify get the rest.
JOB_ANNOTATIONS=50
OWN_ANNOTATIONS=8

output() { printf '%s=%s\n' "$1" "$2" >>"$out"; }

# The Python that runs allocatable (the action's venv), for its helper modules.
tool_python() {
  local bin py
  bin="$(dirname -- "$(command -v allocatable)")"
  py="$bin/python3"
  [ -x "$py" ] || py=python3
  printf '%s' "$py"
}

# Write standard input to a file of the repository through allocatable's safe-path layer (renderer/safepath.py),
# run by the Python that runs allocatable: all or nothing, never through a symlink, never into .git/ or .github/.
safe_put() { "$(tool_python)" -m renderer.safepath put "$1"; }

# The action's text helpers (renderer/integrations/github.py): inputs from the environment and stdin only.
gh_helper() { "$(tool_python)" -m renderer.integrations.github "$@"; }

# Standard input, a Markdown section, appended to the job summary within what the step has left of GitHub's 1 MiB
# (cut with a line saying what was cut; then the whole section goes to the log, in a group named $1).
summarize() {
  if [ "$summary" = /dev/null ]; then
    cat >/dev/null
    return 0
  fi
  GITHUB_STEP_SUMMARY="$summary" gh_helper summary "$1"
}

# The number of annotations (workflow commands ::error/::warning/::notice) in file $1, outside the stretches where
# commands are stopped (::stop-commands::TOKEN … ::TOKEN::).
count_annotations() {
  awk 'stop != "" { if ($0 == "::" stop "::") stop = ""; next }
       /^::stop-commands::/ { stop = substr($0, 18); next }
       /^::(error|warning|notice)[ :]/ { n++ }
       END { print n + 0 }' "$1"
}

# A whole number from a step output, else $2.
number_or() {
  case "$1" in
  '' | *[!0-9]* | ??????????*) printf '%s' "$2" ;;
  *) printf '%s' "$((10#$1))" ;;
  esac
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
    output annotations 1
    exit 0
    ;;
  esac
  if ! check_path; then
    output lint-exit 2
    output annotations 1
    exit 0
  fi
  base=()
  [ -n "${BASE:-}" ] && base=("--base=$BASE")
  # 1. annotations on the changed lines (workflow commands on stdout), within GitHub's limits: the github format
  # writes at most 10 of each level, errors first, and says what it left out; the exit status decides the result.
  annotated="$tmp/allocatable-lint.github"
  ALLOCATABLE_GITHUB_ANNOTATIONS="$((JOB_ANNOTATIONS - OWN_ANNOTATIONS))" \
    allocatable lint -o github "${strict[@]}" "${base[@]}" -- "$arg" >"$annotated"
  code=$?
  cat -- "$annotated"
  output lint-exit "$code"
  output annotations "$(count_annotations "$annotated")"
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
  case "$code" in
  0) verdict="passed" ;;
  1) verdict="failed" ;;
  *) verdict="could not run (invalid input or usage error, exit $code)" ;;
  esac
  # 3. the job summary: the verdict and every finding (what the annotations left out is here).
  {
    echo "### allocatable lint: $verdict"
    echo
    echo "$(md_code "$path"): ${errors:-0} errors, ${warnings:-0} warnings, ${notices:-0} notices (fail-on: $(md_code "${INPUT_FAIL_ON:-error}"))"
    echo
    if [ "$((${errors:-0} + ${warnings:-0} + ${notices:-0}))" -gt 0 ]; then
      allocatable lint -o markdown "${base[@]}" -- "$arg" 2>/dev/null
      echo
    fi
  } | summarize "allocatable lint: every finding"
  ;;

sarif)
  # SARIF for code scanning (github/codeql-action/upload-sarif): written by the tool's safe-path layer, never
  # through a symlink (file or directory) the pull request committed, never into .git/ or .github/. A step of its
  # own, so its one error cannot push one of lint's ten out of what GitHub shows.
  if [ -z "${INPUT_SARIF_FILE:-}" ] || ! check_path >/dev/null; then
    output sarif-file "" # a path that does not exist: the lint step said so
    exit 0
  fi
  base=()
  [ -n "${BASE:-}" ] && base=("--base=$BASE")
  sarif_tmp="$tmp/allocatable-lint.sarif"
  allocatable lint -o sarif "${base[@]}" -- "$arg" >"$sarif_tmp" 2>/dev/null
  if refused="$(safe_put "$INPUT_SARIF_FILE" <"$sarif_tmp" 2>&1)"; then
    output sarif-file "$INPUT_SARIF_FILE"
  else
    echo "::error title=allocatable::$(escape_data "${refused#allocatable: error: }")"
    output sarif-file ""
  fi
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
  # With both snapshot files, the diff simulates the change on that cluster (docs/impact.md): the pods it leaves
  # Pending per pool and the nodes the autoscaler would add. Exit 1 then says more pods go newly Pending than
  # impact.maxNewPendingPods allows; 2 is a usage or input error.
  snapshot=()
  if [ -n "${INPUT_NODES_FILE:-}" ] && [ -n "${INPUT_PODS_FILE:-}" ]; then
    snapshot=("--nodes=$INPUT_NODES_FILE" "--pods=$INPUT_PODS_FILE")
  fi
  # One run, three formats (the simulation runs once): the markdown on stdout, the JSON for the outputs and, when
  # the capacity report is wanted, the reviewer's page (docs/diff.md#several-formats-from-one-run).
  json="$tmp/allocatable-diff.json"
  html=""
  more=("--json-output=$json")
  if [ -n "${INPUT_CAPACITY_REPORT:-}" ]; then
    html="$tmp/allocatable-capacity-report/capacity.html"
    mkdir -p -- "$(dirname -- "$html")"
    more+=("--html-output=$html")
  fi
  allocatable diff "--base=$BASE" "${snapshot[@]}" "${more[@]}" -o markdown -- "$arg" >"$md"
  code=$?
  if [ "$code" -le 1 ]; then
    summarize "allocatable diff: the whole report" <"$md"
    read -r changed pending cost cost_failed <<<"$(
      python3 - "$json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
except (OSError, ValueError):
    doc = {}
impact = doc.get("impact") or {}
cost = doc.get("cost") or {}
print(
    str(doc.get("summary", {}).get("capacityChanged", "")).lower() or "-",
    impact.get("summary", {}).get("newPending", "-"),
    cost.get("monthlyChange") or "-",
    "1" if cost.get("failed") else "0",
)
PY
    )"
    output capacity-changed "${changed#-}"
    output diff-file "$md"
    output html-file "$html"
    # With pricing in .allocatable.yaml (docs/cost.md): what the change adds to the monthly bill, and whether it is
    # more than impact.maxMonthlyCostIncrease allows.
    output monthly-cost-change "${cost#-}"
    output cost-exit "$cost_failed"
    if [ "${#snapshot[@]}" -gt 0 ]; then
      output pods-pending "${pending#-}"
      output impact-exit "$code"
    fi
  else
    echo "::warning title=allocatable::the capacity diff against $(escape_data "$BASE") failed (see the log above)"
    output capacity-changed ""
    output html-file ""
  fi
  ;;

report)
  # The capacity report attached as an artifact: in a pull request (a base), the reviewer's page of the change
  # (`diff -o html`: before -> after bars per pool and, with nodes-file and pods-file, the simulation's impact
  # table), written by the diff step's own run (DIFF_HTML: no second simulation); on a push, the policies as they
  # are (`explain -o html`). Exit 1 of diff (pods newly Pending) still writes the page: the Result step decides.
  file="$tmp/allocatable-capacity-report/capacity.html"
  mkdir -p -- "$(dirname -- "$file")"
  if ! check_path >/dev/null; then # the lint step has said why
    output file ""
    exit 0
  fi
  if [ -n "${BASE:-}" ]; then
    # the diff step's page; when it wrote none, its own warning said why
    code=2
    if [ -n "${DIFF_HTML:-}" ] && [ -f "$DIFF_HTML" ]; then
      file="$DIFF_HTML"
      code=0
    fi
  else
    allocatable explain -o html -- "$arg" >"$file"
    code=$?
  fi
  if [ "$code" -le 1 ]; then
    output file "$file"
  else
    echo "::warning title=allocatable::the capacity report could not be written (see the log above)"
    output file ""
  fi
  ;;

render-check)
  if ! check_path; then
    output render-exit 2
    exit 0
  fi
  verdict_file="$tmp/allocatable-render-check.log"
  allocatable render --check -- "$arg" 2>"$verdict_file"
  code=$?
  cat -- "$verdict_file" >&2
  lint_errors="$(number_or "${LINT_ERRORS:-}" 0)"
  if [ "$code" -ne 0 ] && { [ "$lint_errors" -gt 0 ] || [ "${LINT_EXIT:-}" = 2 ]; }; then
    # render refuses while lint reports errors: nothing was compared, and the lint step shows the findings, so
    # this step neither repeats them nor claims the output is stale (render --check says so in one line).
    output render-exit ""
    if [ "${LINT_EXIT:-}" = 2 ]; then
      why="the policies do not validate"
    else
      why="lint reports $lint_errors error$([ "$lint_errors" -ne 1 ] && echo s)"
    fi
    echo "allocatable render --check: not checked: $why, see the lint step"
    {
      echo "### allocatable render --check: not checked"
      echo
      echo "Not checked: $why (see the lint step). \`allocatable render\` refuses while they are there, so the rendered output was not compared."
      echo
    } | summarize "allocatable render --check"
    exit 0
  fi
  output render-exit "$code"
  if [ "$code" -ne 0 ]; then
    # render's own last line says what failed (the files that differ and the command to run, or why it could not
    # render): never a reason the action guesses.
    said="$(tail -n 1 -- "$verdict_file")"
    echo "::error title=allocatable render --check::$(escape_data "${said:-render --check failed (exit $code)}")"
    {
      echo "### allocatable render --check: failed"
      echo
      md_code "${said:-exit $code}"
      printf '\n\n'
    } | summarize "allocatable render --check"
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
  # On a pull request the snapshot is the cluster as it runs the base: nodes that match the base's prediction await
  # the change (not drift), and pods are compared with the base too.
  [ -n "${BASE:-}" ] && args+=("--base=$BASE")
  # What is left of the job's 50 annotations after lint's and the action's own.
  left=$((JOB_ANNOTATIONS - OWN_ANNOTATIONS - $(number_or "${LINT_ANNOTATIONS:-}" 0)))
  [ "$left" -lt 0 ] && left=0
  ALLOCATABLE_GITHUB_ANNOTATIONS="$left" allocatable verify -o github "${args[@]}" -- "$arg"
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
print(sum(1 for n in doc.get("nodes", []) if not n.get("match") and not n.get("matchesBase")), sum(1 for p in doc.get("pods", []) if not p.get("fits")))
PY
  )"
  output nodes-drifted "${drifted:-}"
  output pods-over "$([ -n "${INPUT_PODS_FILE:-}" ] && echo "${over:-}")"
  allocatable verify -o markdown "${args[@]}" -- "$arg" 2>/dev/null | summarize "allocatable verify: the whole report"
  ;;

comment)
  # The sticky pull-request comment (docs/github-action.md): one per pull request and policy path, found by its
  # hidden first line, created once when the change moves capacity and then updated in place. Never fails the job:
  # a token that may not write (a fork's pull request) gets a notice, any other failure a warning.
  case "${INPUT_COMMENT:-false}" in
  true) ;;
  false | "") exit 0 ;;
  *)
    echo "::warning title=allocatable::comment must be true or false, got \"$(escape_data "${INPUT_COMMENT}")\"; no comment"
    exit 0
    ;;
  esac
  read -r repo number <<<"$(gh_helper pull-request)"
  if [ -z "${number:-}" ]; then
    echo "allocatable: not a pull request event: no comment"
    exit 0
  fi
  if [ -z "${BASE:-}" ] || [ -z "${CAPACITY_CHANGED:-}" ] || [ -z "${DIFF_FILE:-}" ]; then
    echo "allocatable: no capacity diff (no base revision, or the diff failed): no comment"
    exit 0
  fi
  token="${INPUT_GITHUB_TOKEN:-}"
  if [ -z "$token" ]; then
    echo "::notice title=allocatable::no github-token: the pull request comment is skipped (the job summary has the report)"
    exit 0
  fi
  api="${GITHUB_API_URL:-https://api.github.com}"
  api="${api%/}"
  response="$tmp/allocatable-comment.response"
  headers="$tmp/allocatable-comment.headers"
  payload="$tmp/allocatable-comment.json"
  # One request: METHOD URL [BODY-FILE]; prints the HTTP status (000 when there was no answer). The token goes
  # to curl on standard input (a config line), never on its command line; the URL comes after `--`; no redirect is
  # followed (a token is never sent to another host).
  request() {
    local data=() retry=()
    [ -n "${3:-}" ] && data=(--header "Content-Type: application/json" --data-binary "@$3")
    [ "$1" = GET ] && retry=(--retry 2) # never a second POST after an answer that was lost
    printf 'header = "Authorization: Bearer %s"\n' "$token" |
      curl --config - --silent --show-error --proto =https,http --max-time 30 "${retry[@]}" \
        --request "$1" --header "Accept: application/vnd.github+json" --header "X-GitHub-Api-Version: 2022-11-28" \
        --user-agent allocatable-action --dump-header "$headers" --output "$response" --write-out '%{http_code}' \
        "${data[@]}" -- "$2" 2>/dev/null || true
  }
  # A failed request: a notice when the token may not write (403: a fork's pull request, or no
  # `pull-requests: write`), else a warning; never a failure of the job.
  give_up() {
    local said
    said="$(gh_helper api-message <"$response" 2>/dev/null)"
    if [ "$1" = 403 ]; then
      echo "::notice title=allocatable::the pull request comment was not written: the token may not write to pull requests (a pull request from a fork gets a read-only token; otherwise grant pull-requests: write). The capacity diff is in the job summary.$([ -n "$said" ] && printf ' GitHub said: %s' "$(escape_data "$said")")"
    else
      echo "::warning title=allocatable::the pull request comment could not be $2 (HTTP $1$([ -n "$said" ] && printf ': %s' "$(escape_data "$said")")); the capacity diff is in the job summary"
    fi
    exit 0
  }
  case "$token" in
  *[!A-Za-z0-9_.-]*)
    echo "::warning title=allocatable::github-token has characters no GitHub token has; no comment"
    exit 0
    ;;
  esac
  # 1. Our comment, if there is one: every page of the listing (100 a page, at most 100 pages).
  url="$api/repos/$repo/issues/$number/comments?per_page=100"
  existing=""
  pages=0
  while [ -n "$url" ] && [ "$pages" -lt 100 ]; do
    status="$(request GET "$url")"
    [ "$status" = 200 ] || give_up "$status" read
    existing="$(gh_helper find-comment <"$response")"
    [ -n "$existing" ] && break
    url="$(GITHUB_API_URL="$api" gh_helper next-page <"$headers")"
    pages=$((pages + 1))
  done
  # 2. The body: the diff (or "no change"), the lint summary, within 65,536 characters.
  gh_helper comment-body >"$payload"
  if [ -z "$existing" ]; then
    if [ "$CAPACITY_CHANGED" != true ]; then
      echo "allocatable: the change does not move capacity: no comment"
      exit 0
    fi
    status="$(request POST "$api/repos/$repo/issues/$number/comments" "$payload")"
    [ "$status" = 201 ] || give_up "$status" created
    echo "allocatable: pull request comment created"
  else
    status="$(request PATCH "$api/repos/$repo/issues/comments/$existing" "$payload")"
    [ "$status" = 200 ] || give_up "$status" updated
    echo "allocatable: pull request comment updated in place"
  fi
  output comment-url "$(python3 -c 'import json,sys
try:
    u = json.load(open(sys.argv[1], encoding="utf-8")).get("html_url", "")
except (OSError, ValueError, AttributeError):
    u = ""
print(u if isinstance(u, str) and u.isprintable() and u.startswith("http") else "")' "$response")"
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
  if [ "${IMPACT_EXIT:-}" = 1 ]; then
    echo "allocatable: the change leaves more pods newly Pending than impact.maxNewPendingPods allows (see the capacity diff in the job summary)"
    failed=1
  fi
  if [ "${COST_EXIT:-}" = 1 ]; then
    echo "allocatable: the change adds more to the monthly bill than impact.maxMonthlyCostIncrease allows, or adds nodes no price covers (see the capacity diff in the job summary)"
    failed=1
  fi
  if [ -n "${VERIFY_EXIT:-}" ] && [ "$VERIFY_EXIT" != 0 ]; then
    echo "allocatable: verify found nodes that differ from the policies or pods that do not fit (exit $VERIFY_EXIT)"
    failed=1
  fi
  exit "$failed"
  ;;

all)
  # What action.yml does, run where you are (docs/github-action.md, "Run it locally"): the inputs are the same
  # INPUT_* variables; each step writes its outputs to a file of its own, read back and passed on as `env:` does.
  self="${BASH_SOURCE[0]}"
  export INPUT_CAPACITY_REPORT="${INPUT_CAPACITY_REPORT-allocatable-capacity-report}" # action.yml's default
  export GITHUB_STEP_SUMMARY="${GITHUB_STEP_SUMMARY:-$tmp/allocatable-summary.md}"
  : >"$GITHUB_STEP_SUMMARY"
  outputs="$(mktemp "$tmp/allocatable-outputs.XXXXXX")"
  trap 'rm -f -- "$outputs"' EXIT
  step() {
    : >"$outputs"
    echo "== $1"
    GITHUB_OUTPUT="$outputs" bash "$self" "$1"
  }
  # The last value a step wrote for NAME (names are the fixed words of this script, never input).
  value() { sed -n "s/^$1=//p" "$outputs" | tail -n 1; }
  step base
  BASE="$(value base)"
  export BASE
  step lint
  LINT_EXIT="$(value lint-exit)" LINT_ERRORS="$(value errors)" LINT_WARNINGS="$(value warnings)"
  LINT_NOTICES="$(value notices)" LINT_ANNOTATIONS="$(value annotations)"
  export LINT_EXIT LINT_ERRORS LINT_WARNINGS LINT_NOTICES LINT_ANNOTATIONS
  step sarif
  if [ -n "$BASE" ]; then
    step diff
    DIFF_FILE="$(value diff-file)" CAPACITY_CHANGED="$(value capacity-changed)" IMPACT_EXIT="$(value impact-exit)"
    COST_EXIT="$(value cost-exit)" DIFF_HTML="$(value html-file)"
    export DIFF_FILE CAPACITY_CHANGED IMPACT_EXIT COST_EXIT DIFF_HTML
  fi
  if [ "${INPUT_RENDER_CHECK:-false}" = true ]; then
    step render-check
    RENDER_EXIT="$(value render-exit)"
    export RENDER_EXIT
  fi
  step verify
  VERIFY_EXIT="$(value verify-exit)"
  export VERIFY_EXIT
  if [ "${INPUT_COMMENT:-false}" != false ]; then
    step comment
  fi
  if [ -n "$INPUT_CAPACITY_REPORT" ]; then
    step report
  fi
  echo "== result (the job summary is in $GITHUB_STEP_SUMMARY)"
  GITHUB_OUTPUT="$outputs" bash "$self" result
  ;;

*)
  echo "run.sh: unknown step \"$cmd\"" >&2
  exit 2
  ;;
esac
