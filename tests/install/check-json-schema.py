"""check-json-schema.py HANGSCOPE SCHEMA FIXTURES

The JSON of `hangscope report -f json` and `hangscope diff -f json` on real fixtures,
validated against docs/json-schema.json (JSON Schema draft 2020-12) with Debian's
python3-jsonschema. Exit 0 when every document is valid, 1 when one is not (each
error named by document and path), 77 when python3-jsonschema is not installed (1 under HANGSCOPE_REQUIRE_LIVE=1).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
except ImportError:
    # As tests/support/skip.sh: a failure where everything is meant to be installed.
    why = "python3-jsonschema is not installed (scripts/install-deps.sh installs it)"
    if os.environ.get("HANGSCOPE_REQUIRE_LIVE") == "1":
        print("FAILED (HANGSCOPE_REQUIRE_LIVE=1 and this test cannot run here): " + why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)

hangscope, schema_path, fixtures = sys.argv[1:4]

# One input of every format, and diffs compared by threads and by shares.
REPORTS = [
    ["capture/storm-overlayfs-ext4.capture"],
    ["capture/storm-v2-context.capture"],
    ["capture/user-stacks-blocker.capture"],
    ["proc-stack/lkml-6.12-overlayfs-jbd2.txt"],
    ["kernel-log/hung-task-6.18-uffd.dmesg.log"],
    ["kernel-log/hung-task-6.15-abba-mutex.written.log"],
    ["crash/crash-8.0-bt-a-ps-m.written.txt"],
    ["perf/fio-dio-6.9-perf-6.9-cycles.written.txt"],
    ["perf/spin-6.18-perf-6.1-cpu-clock.txt.zst"],
    ["folded/storm-6.18-hangscope.folded"],
    ["proc-stack/lkml-6.12-overlayfs-jbd2.txt", "capture/storm-sigkill.capture"],
]
DIFFS = [
    ("capture/storm-sigkill.capture", "capture/storm-overlayfs-ext4.capture"),
    ("proc-stack/lkml-6.12-overlayfs-jbd2.txt", "capture/storm-overlayfs-ext4.capture"),
    ("two-kernels/storm-6.1.0-57-cloud-amd64.capture", "two-kernels/storm-6.18.44-fc-v782.capture"),
    # on-CPU profiles: the on_cpu part by share of CPU
    ("perf/spin-6.18-perf-6.1-cpu-clock.txt.zst", "perf/spin-mappers-6.18-perf-6.1-cpu-clock.txt"),
]


def output(args, ok=(0,)):
    r = subprocess.run([hangscope] + args, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"{' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


with open(schema_path) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

documents = []
for inputs in REPORTS:
    documents.append((" ".join(inputs), output(["report", "-f", "json"] + [f"{fixtures}/{i}" for i in inputs])))
for base, target in DIFFS:
    documents.append((f"diff {base} {target}",
                      output(["diff", "-f", "json", "--base", f"{fixtures}/{base}", "--target", f"{fixtures}/{target}"])))
# With --fail-if-grows, for git bisect run: its exit code is the decision (0, 1 or 125).
base, target = DIFFS[2]
documents.append(("diff --fail-if-grows",
                  output(["diff", "-f", "json", "--fail-if-grows", "jbd2:*=0.5", "--fail-if-grows", "nothing:*",
                          "--base", f"{fixtures}/{base}", "--target", f"{fixtures}/{target}"], ok=(0, 1, 125))))
# Several runs a side: the run-to-run variance moderated across the groups.
runs = [f"{fixtures}/capture/storm-run-{i}.capture.zst" for i in range(1, 5)]
documents.append(("diff of runs", output(["diff", "-f", "json", "--base"] + runs[:2] + ["--target"] + runs[2:])))
base, target = DIFFS[3]  # on-CPU groups checked in share points of CPU
documents.append(("diff --fail-if-grows on CPU",
                  output(["diff", "-f", "json", "--fail-if-grows", "mm:*=1",
                          "--base", f"{fixtures}/{base}", "--target", f"{fixtures}/{target}"], ok=(0, 1, 125))))

# --suspects with two source trees made here: a function whose body differs between them.
with tempfile.TemporaryDirectory() as trees:
    for name, extra in (("old", ""), ("new", "\tovl_sync_file(temp);\n")):
        os.makedirs(f"{trees}/{name}/kernel")
        os.makedirs(f"{trees}/{name}/fs/overlayfs")
        with open(f"{trees}/{name}/Makefile", "w") as f:
            f.write("VERSION = 6\nPATCHLEVEL = %s\nSUBLEVEL = 0\n" % (6 if name == "old" else 12))
        with open(f"{trees}/{name}/fs/overlayfs/copy_up.c", "w") as f:
            f.write("static int ovl_copy_up_metadata(struct dentry *temp)\n{\n" + extra + "\treturn 0;\n}\n")
    env = dict(os.environ, XDG_CACHE_HOME=f"{trees}/cache")
    r = subprocess.run([hangscope, "report", "-f", "json", f"{fixtures}/proc-stack/lkml-6.12-overlayfs-jbd2.txt",
                        "--suspects", "--kernel-src", f"{trees}/old", f"{trees}/new"],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"report --suspects: exit {r.returncode}: {r.stderr}")
    documents.append(("report --suspects", json.loads(r.stdout)))

failed = 0
kinds = set()
for name, doc in documents:
    errors = list(validator.iter_errors(doc))
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{name}: {where}: {e.message}")
    if errors:
        print(f"{name}: {len(errors)} errors against {schema_path}: describe new fields there "
              "(and raise schema_version in render.hpp and the schema if old fields changed)")
    failed += bool(errors)
    kinds.add(doc.get("kind"))

# The documents exercise the schema: graphs with edges, deadlocks, diffs with rows, the
# context's values per group.
def count(key, kind):
    return sum(len(d.get("graph", {}).get(key, [])) if kind == "report" else len(d.get(key, []))
               for _, d in documents if d.get("kind") == kind)

for what, n in (("graph edges", count("edges", "report")), ("deadlocks", count("deadlocks", "report")),
                ("diff stacks", count("stacks", "diff")), ("divergences", count("divergences", "diff")),
                ("growth checks", sum(len(d.get("fail_if_grows", {}).get("checks", [])) for _, d in documents)),
                ("suspects", sum(len(d.get("suspects", {}).get("suspects", [])) for _, d in documents)),
                ("context values", sum(len(g["values"]) for _, d in documents if d.get("kind") == "report"
                                       for g in d["context"]["groups"]))):
    if n == 0:
        print(f"no {what} in any document: the fixtures no longer exercise that part of the schema")
        failed += 1
if kinds != {"report", "diff"}:
    print(f"kinds seen: {sorted(map(str, kinds))}")
    failed += 1

# The schema is strict: a field it does not describe, a wrong version or a wrong type
# is an error, so that the test above would see them.
report = next(d for _, d in documents if d["kind"] == "report")
for change, doc in (("an undescribed field", {**report, "extra": 1}),
                    ("another schema_version", {**report, "schema_version": report["schema_version"] + 1}),
                    ("a group weight that is not a count", None)):
    if doc is None:
        doc = copy.deepcopy(report)
        doc["groups"][0]["weight"] = "many"
    if validator.is_valid(doc):
        print(f"the schema accepts {change}")
        failed += 1

print(f"{len(documents)} documents checked against {schema_path}, {failed} failed")
sys.exit(1 if failed else 0)
