#!/usr/bin/env python3
"""make-kernel-history.py OLD NEW REPO: a git repository whose history goes from the tree OLD
(tag vOLD) to the tree NEW (tag vNEW) one changed file a commit, the commits of each
directory (two levels) on a topic branch of its own, branched from the mainline a few
merges back and merged into it with a merge commit, as kernel pull requests are."""
import hashlib, os, subprocess, sys

old, new, repo = sys.argv[1:4]

def files(root):
    out = {}
    for d, dirs, fs in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith('.')]
        for f in fs:
            p = os.path.join(d, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            out[os.path.relpath(p, root)] = p
    return out

def version(root):
    v = {}
    for line in open(os.path.join(root, "Makefile")):
        for k in ("VERSION", "PATCHLEVEL"):
            if line.startswith(k + " ="):
                v[k] = line.split("=")[1].strip()
    return "v%s.%s" % (v["VERSION"], v["PATCHLEVEL"])

a, b = files(old), files(new)
changed = []
for path in sorted(set(a) | set(b)):
    if path in a and path in b:
        if os.path.getsize(a[path]) == os.path.getsize(b[path]):
            if open(a[path], 'rb').read() == open(b[path], 'rb').read():
                continue
    changed.append(path)
print(f"{len(a)} files before, {len(b)} after, {len(changed)} changed", file=sys.stderr)

subprocess.run(["git", "init", "-q", "-b", "master", repo], check=True)
fi = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet"], stdin=subprocess.PIPE)
w = fi.stdin.write
mark = [0]
def blob(path):
    mark[0] += 1
    data = open(path, 'rb').read()
    w(b"blob\nmark :%d\ndata %d\n" % (mark[0], len(data)) + data + b"\n")
    return mark[0]
t = [1500000000]
def commit(ref, msg, frm, merge, mods):
    mark[0] += 1
    t[0] += 60
    m = msg.encode()
    w(b"commit %s\nmark :%d\nauthor A U Thor <a@example.org> %d +0000\n"
      b"committer A U Thor <a@example.org> %d +0000\ndata %d\n%s\n"
      % (ref.encode(), mark[0], t[0], t[0], len(m), m))
    if frm: w(b"from :%d\n" % frm)
    if merge: w(b"merge :%d\n" % merge)
    for op, path, bm in mods:
        if op == 'M': w(b"M 100644 :%d %s\n" % (bm, path.encode()))
        else: w(b"D %s\n" % path.encode())
    w(b"\n")
    return mark[0]

base_mods = [('M', p, blob(a[p])) for p in sorted(a)]
head = commit("refs/heads/master", "Linux " + version(old), None, None, base_mods)
w(b"reset refs/tags/%s\nfrom :%d\n\n" % (version(old).encode(), head))
topics = {}
for p in changed:
    topics.setdefault("/".join(p.split("/")[:2]), []).append(p)
merges = [head]
for n, (topic, paths) in enumerate(sorted(topics.items())):
    start = merges[max(0, len(merges) - 4)]  # branched a few merges back
    tip = start
    done = []
    for p in paths:
        mod = ('M', p, blob(b[p])) if p in b else ('D', p, 0)
        tip = commit("refs/heads/topic", f"{topic}: update {p}", tip, None, [mod])
        done.append(mod)
    head = commit("refs/heads/master", f"Merge branch '{topic}'", merges[-1], tip, done)
    merges.append(head)
w(b"reset refs/tags/%s\nfrom :%d\n\n" % (version(new).encode(), head))
fi.stdin.close()
sys.exit(fi.wait())
