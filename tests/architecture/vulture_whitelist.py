"""Names vulture cannot see used, each group with the reason (``tests/architecture/test_dead_code.py``).

Not an allow-list of dead code: every name here is read, by something vulture does not follow.
"""

# ruff: noqa
# mypy: ignore-errors

# Record and schema fields: declared for the policy's shape (pydantic validates them, schemas/ documents them,
# Finding positions point into them) whether or not a stage reads them.
apiVersion
effect
tolerationSeconds
kubeletVersion
osImage
kernelVersion
containerRuntimeVersion
operatingSystem
architecture
evictionSoft
evictionSoftGracePeriod
systemReservedCgroup
kubeReservedCgroup
cgroupDriver
podPidsLimit
model_config

# Fields of the view objects the explain page's Jinja template reads (renderer/reporters/explain/templates/).
text_x
labelled
marker
reserved_from

# decimal.Context attribute set for exact arithmetic.
prec

# The heading order every rule's docs follow: tests and the docs generator check rule docstrings against it.
DOC_HEADINGS

# Reader API: a git blob as a Source (used by the tests; git trees are materialised today).
of_bytes

# The reader's item-at-a-time entries (renderer.loading.events.iter_list_items, jsonscan.iter_json_list_items): a
# List item read from a single-object document says so.
whole_document

# Dead at this commit, in files a parallel branch is rewriting (render/output.py: hardening): left for that branch to
# use or remove, so the merge stays theirs.
previous_files

# renderer/impact's result API (its own tests read them; its reporter lands with the impact report type).
unresolvable
allocatable_units
largest_over_estimate_mib

# Operation counters of the AL103 overlap search, which tests read to bound its work (tests/rules/test_selector_cost.py,
# tests/fuzz/test_doors_fuzz.py).
work
tasks

# The text-stream interface the checked standard streams stand in for (renderer/stdio.py): print() and libraries call it.
writelines

# Console scripts of pyproject.toml ([project.scripts]): called by the installed `kubectl-allocatable` launcher.
kubectl_main

# Named only in the source of the compiled validators, which renderer/models/schema/compile.py writes as text.
NotKept

# http.server's hooks and settings (renderer/serve/server.py): the standard library calls do_<METHOD> and
# log_message, and reads the class attributes of the handler and the server.
protocol_version
server_version
sys_version
do_GET
do_HEAD
do_DELETE
do_OPTIONS
do_PATCH
do_POST
do_PUT
log_message
daemon_threads
allow_reuse_address
address_family
