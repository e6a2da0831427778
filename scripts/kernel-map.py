#!/usr/bin/env python3
"""The kernel map: which subsystem a kernel function belongs to, from kernel trees.

    scripts/kernel-map.py build TREE... -o analyzer/classify/kernel_map.txt.zst
    scripts/kernel-map.py check INDEX TREE [--sample N]
    scripts/kernel-map.py modules INDEX TREE... -o INDEX

`build` reads each TREE (a kernel source directory, or a tarball such as Debian's
/usr/src/linux-source-6.12.tar.xz), finds the functions defined in its C files (a careful
pass over the text, not a compiler: kernel style puts a definition's name at the start of
a line and its body's brace at the start of a later one), maps each file to its
MAINTAINERS section (F:, N: and X: patterns, the most specific match wins, as
scripts/get_maintainer.pl ranks them) and the section to a short subsystem name that
reads well in a wait group's name ("md", "btrfs", "nfsd", "workqueue"). Trees are merged:
a function of any of them is in the map, with the subsystem of the tree given last where
it moved (so that functions renamed across versions are found under both names).

The map is kept small: functions that cannot be on a blocked task's stack are left out
(inline functions, __init/__exit code, headers), and where every function whose name
starts with a prefix ("btrfs_", "xfs_") is in one subsystem, the prefix stands for them
and only the exceptions are listed. It is written as text (format below) compressed with
zstd, and says how it was made: the trees, their versions and this command.

`check` tests an index against one of the trees it was made from: a sample of its
functions must be defined in that tree in a file of the section the index names, and
every entry's subsystem must be one the tree's MAINTAINERS gives some file of.

Format (one record a line, fields separated by one space; '#' lines say how it was made):
    S <short> <section title>     a subsystem; later lines refer to it by its index (0...)
    P <prefix> <index>            functions starting with <prefix> (longest prefix wins)
    F <function> <index>          a function (wins over any prefix)
    M <module> <index>            a module whose name does not say its subsystem (a frame's
                                  [module] tag), of those the trees can build as modules
"""
import argparse
import collections
import fnmatch
import io
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile

FORMAT = "hangscope-kernel-map 1"

# Directories whose own name says nothing: the subsystem is named by the one above.
GENERIC_DIRS = {"core", "common", "lib", "src", "host", "shared", "generic", "base", "client",
                "busses", "codecs", "controller", "controllers", "supply", "display", "hw",
                "device", "drivers", "platform", "include"}
# Subsystem names that read better otherwise (the server of fs/smb/ is ksmbd).
RENAMED = {"fs": "vfs", "nfs_common": "nfs", "fscache": "netfs", "server": "ksmbd"}
# Directories whose files are each a subsystem of their own (kernel/workqueue.c is
# "workqueue", kernel/freezer.c "freezer"); elsewhere a file's directory names it.
FILE_NAMED_DIRS = {"kernel"}
# Files whose MAINTAINERS sections are too broad or too narrow to name a wait well.
SKIP_SECTIONS = {"THE REST"}

# A definition's first line: its name at the start of the line (kernel style puts the type
# on the line before: "static ssize_t\npipe_write(...)") or after its type on the same line
# ("struct page *alloc_pages(...)").
DEF_START = re.compile(r"^(?!(?:typedef|return|if|else|for|while|do|switch|case|goto|extern|"
                       r"asm|__asm__)\b)(?:[A-Za-z_][^;={}#]*?\b)?([A-Za-z_]\w*)\s*\(")
MACRO_DEF = re.compile(r"^(?:SYSCALL_DEFINE\d|COMPAT_SYSCALL_DEFINE\d)\((\w+)")
SKIP_SPECIFIERS = re.compile(r"\b(?:inline|__always_inline|__init|__exit|__initdata|"
                             r"__meminit|__ref|__cpuinit|__devinit)\b")
NOT_NAMES = {"if", "for", "while", "switch", "return", "sizeof", "typeof", "__typeof__",
             "defined", "__attribute__", "__section", "__aligned", "ALIGN", "EXPORT_SYMBOL",
             "EXPORT_SYMBOL_GPL", "MODULE_LICENSE", "module_init", "module_exit",
             "__printf", "__acquires", "__releases", "__must_hold", "__cold"}


# ------------------------------------------------------------------ reading a tree

def build_files(name):
    """What makes the modules: MAINTAINERS, the Makefiles and Kconfig files (which options
    can be modules)."""
    return (name in ("MAINTAINERS", "Makefile", "Kbuild") or name == "Kconfig"
            or name.startswith("Kconfig."))


def wanted(name):
    """The files of a tree the map is made from: C files and the build files."""
    return name.endswith(".c") or build_files(name)


class Tree:
    """A kernel tree: a directory, or a tarball read member by member."""

    def __init__(self, path, wanted=wanted):
        self.path = path
        self.files = {}  # relative path -> text, of the files `wanted` takes
        self.names = set()  # the relative path of every file, read or not
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs.sort()  # the same order on every machine
                for n in sorted(names):
                    full = os.path.join(root, n)
                    rel = os.path.relpath(full, path)
                    self.names.add(rel)
                    if wanted(n):
                        with open(full, "rb") as f:
                            self.files[rel] = f.read().decode("utf-8", "replace")
        else:
            with tarfile.open(path) as tar:
                for m in tar:
                    if not m.isfile():
                        continue
                    rel = m.name.split("/", 1)[1] if "/" in m.name else m.name
                    self.names.add(rel)
                    if wanted(os.path.basename(rel)):
                        self.files[rel] = tar.extractfile(m).read().decode("utf-8", "replace")
        if "MAINTAINERS" not in self.files:
            sys.exit(f"kernel-map: {path}: no MAINTAINERS file: not a kernel tree")

    def version(self):
        fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)[ \t]*=[ \t]*(\S*)",
                                 self.files.get("Makefile", ""), re.M))
        return "{}.{}.{}{}".format(fields.get("VERSION", "?"), fields.get("PATCHLEVEL", "?"),
                                   fields.get("SUBLEVEL", "?"), fields.get("EXTRAVERSION", ""))


# ------------------------------------------------------------------ functions

def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# The kernel's blocking primitives, as a function that sleeps calls them: a function
# can be the first caller above a wait on a stack only if it calls one of these, or a
# static function of its own file that does (inlined into it, or a frame of its own).
SLEEPS = re.compile(r"\b(?:mutex_lock\w*|mutex_trylock_recursive|down|down_\w+|"
                    r"percpu_down_\w+|rt_mutex_lock\w*|ww_mutex_lock\w*|"
                    r"wait_for_completion\w*|wait_event\w*|wait_var_event\w*|"
                    r"___wait_var_event|wait_on_bit\w*|out_of_line_wait_on_bit\w*|"
                    r"__wait_on_bit\w*|schedule|schedule_timeout\w*|io_schedule\w*|"
                    r"schedule_hrtimeout\w*|schedule_preempt_disabled|msleep\w*|ssleep|"
                    r"usleep_range\w*|fsleep|lock_page\w*|__lock_page\w*|folio_lock\w*|"
                    r"__folio_lock\w*|folio_wait_\w+|wait_on_page_\w+|lock_buffer|"
                    r"__lock_buffer|wait_on_buffer|__wait_on_buffer|flush_work|"
                    r"flush_workqueue|__flush_workqueue|flush_delayed_work|drain_workqueue|"
                    r"cancel_work_sync|cancel_delayed_work_sync|synchronize_rcu\w*|"
                    r"synchronize_srcu\w*|synchronize_net|rcu_barrier\w*|"
                    r"prepare_to_wait\w*|wait_woken|kthread_stop|inode_lock\w*|"
                    r"inode_dio_wait|filemap_write_and_wait\w*|filemap_fdatawait\w*|"
                    r"sb_start_\w+|mmap_read_lock\w*|mmap_write_lock\w*|lock_sock\w*|"
                    r"rtnl_lock\w*|freezable_schedule\w*|try_to_freeze|console_lock|"
                    r"wait_on_inode|swait_event\w*|kthread_park|"
                    r"blk_mq_freeze_queue\w*|blk_execute_rq|submit_bio_wait|"
                    r"sync_dirty_buffer|__sync_dirty_buffer|sync_filesystem|"
                    r"wait_for_stable_page|wb_wait_for_completion|"
                    r"stop_machine\w*|get_user_pages\w*|pin_user_pages\w*|"
                    r"copy_from_user|copy_to_user|get_user|put_user)\s*\(")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def functions_of(text):
    """The functions a C file defines that can be frames of a blocked task's stack:
    those that call a blocking primitive, or a static function of the file that does.
    Inline, __init and __exit functions are left out (no frame of their own on a
    running kernel's stack), but their waits count for their callers."""
    lines = strip_comments(text).split("\n")
    defs = []  # (name, kept, body)
    i = 0
    in_define = False
    while i < len(lines):
        line = lines[i]
        if in_define or line.startswith("#"):
            in_define = line.rstrip().endswith("\\")
            i += 1
            continue
        macro = MACRO_DEF.match(line)
        m = macro or DEF_START.match(line)
        if not m or line[0].isspace():
            i += 1
            continue
        # The declaration runs to its first ';' or '{': a definition when the brace
        # comes first, at the start of a line (kernel style) or after the ')'.
        head = [line]
        j = i
        while ";" not in head[-1] and "{" not in head[-1] and j + 1 < len(lines) and j - i < 12:
            j += 1
            head.append(lines[j])
        text_head = " ".join(head)
        brace = text_head.find("{")
        semi = text_head.find(";")
        paren = text_head.find("(")
        is_def = brace >= 0 and (semi < 0 or brace < semi) and ")" in text_head[:brace]
        if not is_def or (not macro and "=" in text_head[:brace]):
            i = j + 1
            continue
        # The body: to the first '}' at the start of a line.
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        body = "\n".join(lines[j:k])
        name = ("__do_sys_" + m.group(1)) if macro else m.group(1)
        # Its specifiers: before the name, on the line before where the name starts one.
        specifiers = text_head[:paren]
        if m.start(1) == 0 and i > 0:
            specifiers = lines[i - 1] + " " + specifiers
        kept = macro is not None or (name not in NOT_NAMES and
                                     not SKIP_SPECIFIERS.search(specifiers))
        if name not in NOT_NAMES:
            defs.append((name, kept, body))
        i = k + 1
    sleeping = {name for name, _kept, body in defs if SLEEPS.search(body)}
    calls = {name: set(CALL.findall(body)) for name, _kept, body in defs}
    changed = True
    while changed:
        changed = False
        for name, _kept, _body in defs:
            if name not in sleeping and calls[name] & sleeping:
                sleeping.add(name)
                changed = True
    return [name for name, kept, _body in defs if kept and name in sleeping], \
        [name for name, kept, _body in defs if kept]


# ------------------------------------------------------------------ MAINTAINERS

class Section:
    def __init__(self, title):
        self.title = title
        self.files = []     # F: patterns
        self.excludes = []  # X: patterns
        self.regexes = []   # N: patterns


def parse_maintainers(text):
    sections = []
    started = False
    cur = None
    for line in text.split("\n"):
        if not started:
            started = line.startswith("Maintainers List") or line.startswith("3C59X")
            if line.startswith("3C59X"):
                cur = Section(line.strip())
                sections.append(cur)
            continue
        if not line.strip():
            cur = None
            continue
        m = re.match(r"^([A-Z]):\s*(.*)$", line)
        if m and cur is not None:
            tag, value = m.group(1), m.group(2).strip()
            if tag == "F":
                cur.files.append(value)
            elif tag == "X":
                cur.excludes.append(value)
            elif tag == "N":
                cur.regexes.append(re.compile(value))
        elif not m and not line.startswith(" ") and not line.startswith("\t"):
            if cur is None and line[:1].isalnum():
                cur = Section(line.strip())
                sections.append(cur)
    return [s for s in sections if s.title not in SKIP_SECTIONS]


def pattern_matches(pattern, path):
    """get_maintainer.pl's file_match_pattern: a directory matches what is below it; a
    pattern with '*' or '?' is a glob whose '*' stays within one directory."""
    if pattern.endswith("/"):
        return path.startswith(pattern)
    if any(c in pattern for c in "*?["):
        if pattern.count("/") != path.count("/"):
            return False
        return fnmatch.fnmatchcase(path, pattern)
    return path == pattern or path.startswith(pattern + "/")


def specificity(pattern):
    literal = re.split(r"[*?\[]", pattern)[0]
    return (literal.count("/"), len(literal))


class FileMap:
    """Each C file's section, by its most specific F: (or N:) pattern."""

    def __init__(self, sections):
        self.sections = sections
        # By the first directory of a pattern, so that a file is tested against few.
        self.by_top = collections.defaultdict(list)
        for s in sections:
            for p in s.files:
                self.by_top[p.split("/", 1)[0]].append((p, s))

    def section_of(self, path):
        best = None
        top = path.split("/", 1)[0]
        for p, s in self.by_top.get(top, []):
            if not pattern_matches(p, path):
                continue
            if any(pattern_matches(x, path) for x in s.excludes):
                continue
            key = specificity(p)
            if best is None or key > best[0]:
                best = (key, p, s)
        if best is None:
            for s in self.sections:
                if any(r.search(path) for r in s.regexes):
                    return s, path
            return None, None
        return best[2], best[1]


def short_name(pattern, path):
    """A subsystem's short name from the pattern that put a file in its section."""
    parts = pattern.rstrip("/").split("/")
    is_file = not pattern.endswith("/") and "." in parts[-1]
    while parts and any(c in parts[-1] for c in "*?["):
        parts = parts[:-1]
        is_file = False
    if is_file:
        directory = parts[:-1]
        if len(directory) == 1 and directory[0] in FILE_NAMED_DIRS:
            return RENAMED.get(parts[-1].split(".")[0], parts[-1].split(".")[0]).replace("_", "-")
        parts = directory
    # A pattern that is a directory above the file's own (drivers/ for drivers/md/x.c):
    # the file's directory below it names it, if the pattern names nothing.
    while parts and parts[-1] in GENERIC_DIRS:
        parts = parts[:-1]
    if not parts:
        parts = path.split("/")[:-1] or ["kernel"]
    name = parts[-1]
    return RENAMED.get(name, name).replace("_", "-")


# ------------------------------------------------------------------ building

OBJ_LINE = re.compile(r"^obj-(m|\$\(CONFIG_([A-Za-z0-9_]+)\))\s*[+:]?=\s*(.*)$")
PART_LINE = re.compile(r"^([A-Za-z0-9_-]+)-(?:y|objs|\$\([A-Z0-9_]+\))\s*[+:]?=\s*(.*)$")
CONFIG_LINE = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")
TYPE_LINE = re.compile(r"^\s*(bool|tristate|def_bool|def_tristate|int|hex|string)\b")


def tristate_options(files):
    """The options of the Kconfig files that can be built as modules (tristate): an
    object of "obj-$(CONFIG_X)" is a module only if X is one."""
    out = set()
    for rel, text in files.items():
        if not os.path.basename(rel).startswith("Kconfig"):
            continue
        option = None
        for line in text.split("\n"):
            m = CONFIG_LINE.match(line)
            if m:
                option = m.group(1)
                continue
            m = TYPE_LINE.match(line)
            if m and option:
                if m.group(1) in ("tristate", "def_tristate"):
                    out.add(option)
                option = None
    return out


def modules_of(files, names):
    """Each module a Makefile (or Kbuild) builds, with the C file of its first object:
    "obj-$(CONFIG_BLK_DEV_MD) += md-mod.o" and "md-mod-y += md.o ..." make md_mod of
    drivers/md/md.c (module names are written with '_', as the kernel and its stack dumps
    show them). Only objects that can be modules: those of obj-m, and of obj-$(CONFIG_X)
    where X is tristate; obj-y and the objects of bool options are built in, and a frame
    of theirs never has a module tag. `names`: the tree's files, read or not."""
    tristate = tristate_options(files)
    out = {}
    for rel, text in files.items():
        if os.path.basename(rel) not in ("Makefile", "Kbuild") or rel in ("Makefile", "Kbuild"):
            continue
        directory = os.path.dirname(rel)
        text = re.sub(r"\\\n", " ", text)
        parts = {}
        objects = []
        for line in text.split("\n"):
            m = OBJ_LINE.match(line)
            if m:
                if m.group(1) == "m" or m.group(2) in tristate:
                    objects += [w[:-2] for w in m.group(3).split() if w.endswith(".o")]
                continue
            m = PART_LINE.match(line)
            if m:
                parts.setdefault(m.group(1), []).extend(
                    w[:-2] for w in m.group(2).split() if w.endswith(".o"))
        for obj in objects:
            first = parts.get(obj, [obj])
            source = os.path.join(directory, (first[0] if first else obj) + ".c")
            if source in names:
                out.setdefault(obj.replace("-", "_"), source)
    return out


def subsystem_of_file(fmap, rel):
    """A C file's subsystem: the short name and title of its MAINTAINERS section; for a
    file of no section but THE REST (kernel/exit.c, kernel/kthread.c, ipc/), its path's
    name by the same rules, titled by the path ("kernel/exit.c", "ipc/")."""
    section, pattern = fmap.section_of(rel)
    if section is not None:
        return short_name(pattern, rel), section.title
    directory = os.path.dirname(rel)
    return short_name(rel, rel), rel if directory in FILE_NAMED_DIRS else directory + "/"


def read_tree(path):
    """The tree, and its functions: name -> (short, section title, file, can be a caller
    of a wait). A name defined in files of two subsystems (static functions of drivers)
    is left out: it cannot say which one a frame is."""
    tree = Tree(path)
    fmap = FileMap(parse_maintainers(tree.files["MAINTAINERS"]))
    functions = {}
    for rel, text in tree.files.items():
        if not rel.endswith(".c") or rel.startswith(("tools/", "samples/", "scripts/",
                                                      "Documentation/", "usr/")):
            continue
        short, title = subsystem_of_file(fmap, rel)
        sleeping, defined = functions_of(text)
        sleeping = set(sleeping)
        for name in defined:
            old = functions.get(name)
            if old is None:
                functions[name] = (short, title, rel, name in sleeping)
            elif old[0] != short:
                functions[name] = (None, None, None, False)
            elif name in sleeping and not old[3]:
                functions[name] = (short, title, rel, True)
    modules = {}
    for module, rel in modules_of(tree.files, tree.names).items():
        modules[module] = subsystem_of_file(fmap, rel)
    return tree, {k: v for k, v in functions.items() if v[0] is not None}, modules


def module_subsystem(module):
    """The subsystem a module's own name says, as KernelMap::subsystem_of reads it."""
    for tail in ("_mod", "-mod"):
        if len(module) > len(tail) and module.endswith(tail):
            module = module[:-len(tail)]
    return module.replace("_", "-")


def prefixes(name):
    """The prefixes that may stand for a function: up to its first and second '_' (not
    the name's last character) that hold two characters besides underscores ("md_",
    "md_bitmap_"). KernelMap::subsystem_of (kernel_map.cpp) finds the same ones."""
    out = []
    for i in range(1, len(name) - 1):
        if name[i] == "_" and len(name[:i + 1].strip("_")) >= 2:
            out.append(name[:i + 1])
            if len(out) == 2:
                break
    return out


def compress(entries, callers, min_count=8, min_share=0.95):
    """Prefix rules where a prefix's functions (all of `entries`, so that a rule also
    names functions of other versions) are nearly all in one subsystem; the functions of
    `callers` the rules would misname, or that none covers, listed one by one."""
    by_prefix = collections.defaultdict(collections.Counter)
    for name, short in entries.items():
        for p in prefixes(name):
            by_prefix[p][short] += 1
    rules = {}
    for p, counts in by_prefix.items():
        short, n = counts.most_common(1)[0]
        total = sum(counts.values())
        if total >= min_count and n >= min_share * total:
            rules[p] = short
    # A longer prefix that says the same as a shorter one is not needed.
    for p in sorted(rules, key=len, reverse=True):
        for q in prefixes(p + "x"):
            if q != p and rules.get(q) == rules[p]:
                del rules[p]
                break
    listed = {}
    for name in callers:
        by_rule = None
        for p in reversed(prefixes(name)):
            if p in rules:
                by_rule = rules[p]
                break
        if by_rule != entries[name]:
            listed[name] = entries[name]
    return rules, listed


def build(args):
    merged = {}   # function -> short
    callers = set()
    modules = {}  # module -> short
    titles = collections.defaultdict(collections.Counter)  # short -> section titles
    made_of = []
    for path in args.trees:
        tree, functions, tree_modules = read_tree(path)
        for module, (short, title) in tree_modules.items():
            modules[module] = short
            titles[short][title] += 1
        base = os.path.basename(path.rstrip("/")).split(".tar")[0]
        package = subprocess.run(["dpkg-query", "-W", "-f=${Version}", base], check=False,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
        made_of.append(f"{base} {tree.version()}" + (f" (Debian {package})" if package else ""))
        for name, (short, title, _rel, sleeps) in functions.items():
            merged[name] = short
            if sleeps:
                callers.add(name)
            titles[short][title] += 1
        print(f"kernel-map: {path}: {tree.version()}, {len(functions)} functions",
              file=sys.stderr)
    rules, listed = compress(merged, callers)
    # A module is listed only where its own name does not say its subsystem.
    modules = {m: s for m, s in modules.items() if s != module_subsystem(m)}
    shorts = sorted(set(rules.values()) | set(listed.values()) | set(modules.values()))
    index = {s: i for i, s in enumerate(shorts)}
    out = io.StringIO()
    out.write(f"# {FORMAT}\n")
    out.write(f"# trees: {'; '.join(made_of)}\n")
    out.write(f"# command: scripts/kernel-map.py build {' '.join(os.path.basename(t.rstrip('/')) for t in args.trees)} -o {os.path.basename(args.output)}\n")
    out.write(f"# functions: {len(merged)}, {len(callers)} that can wait; {len(listed)} listed, "
              f"the others by {len(rules)} prefixes\n")
    # A short name's title: the section most of its functions are in ("scsi" is the SCSI
    # SUBSYSTEM, not the first driver section found under drivers/scsi/).
    for s in shorts:
        out.write(f"S {s} {titles[s].most_common(1)[0][0]}\n")
    for p in sorted(rules):
        out.write(f"P {p} {index[rules[p]]}\n")
    for name in sorted(listed):
        out.write(f"F {name} {index[listed[name]]}\n")
    for name in sorted(modules):
        out.write(f"M {name} {index[modules[name]]}\n")
    data = write_bytes(args.output, out.getvalue().encode())
    print(f"kernel-map: {args.output}: {len(shorts)} subsystems, {len(rules)} prefixes, "
          f"{len(listed)} functions and {len(modules)} modules listed, {len(data)} bytes",
          file=sys.stderr)


def modules(args):
    """The module step of `build` on a map made before it: keeps the module records of
    INDEX that some TREE can build as a module (obj-m, or obj-$(CONFIG_X) with X
    tristate), reading only the trees' Makefiles and Kconfig files (a minute, where
    `build` reads every C file for an hour). What `build` writes passes unchanged."""
    can_be = set()
    for path in args.trees:
        tree = Tree(path, wanted=build_files)
        can_be.update(modules_of(tree.files, tree.names))
    data = read_bytes(args.index)
    lines = data.decode().split("\n")
    kept = [line for line in lines if not line.startswith("M ") or line.split(" ")[1] in can_be]
    dropped = len(lines) - len(kept)
    if dropped:
        trees = " ".join(os.path.basename(t.rstrip("/")).split(".tar")[0] for t in args.trees)
        note = (f"# modules: those the trees can build as modules: scripts/kernel-map.py "
                f"modules {os.path.basename(args.index)} {trees} "
                f"-o {os.path.basename(args.output)}")
        last = max(i for i, line in enumerate(kept) if line.startswith("#"))
        kept.insert(last + 1, note)
    write_bytes(args.output, "\n".join(kept).encode())
    print(f"kernel-map: {args.output}: {dropped} modules dropped, "
          f"{sum(line.startswith('M ') for line in kept)} kept", file=sys.stderr)


# ------------------------------------------------------------------ checking

def read_bytes(path):
    """A map's text, from a .zst file or plain."""
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-d", "-q", "-c"], input=data, check=True,
                              stdout=subprocess.PIPE).stdout
    return data


def write_bytes(path, data):
    """Writes a map's text, compressed where the name ends in .zst; returns what it wrote.
    The frame says its size (hangscope's reader needs it), which zstd knows of a pipe only
    when told."""
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-19", "-q", "-c", f"--stream-size={len(data)}"],
                              input=data, check=True,
                              stdout=subprocess.PIPE).stdout
    with open(path, "wb") as f:
        f.write(data)
    return data


def read_index(path):
    data = read_bytes(path)
    shorts, rules, listed, header = [], {}, {}, []
    for line in data.decode().split("\n"):
        if line.startswith("#"):
            header.append(line)
        elif line.startswith("S "):
            shorts.append(line.split(" ", 2)[1])
        elif line.startswith("P "):
            _, p, i = line.split(" ")
            rules[p] = shorts[int(i)]
        elif line.startswith("F "):
            _, n, i = line.split(" ")
            listed[n] = shorts[int(i)]
    return header, rules, listed


def unpacked(tree, into):
    """A directory of the tree: itself, or the tarball's C files and MAINTAINERS
    unpacked into `into`."""
    if os.path.isdir(tree):
        return tree
    subprocess.run(["tar", "-xf", tree, "-C", into, "--wildcards", "--no-anchored",
                    "*.c", "MAINTAINERS", "Makefile"], check=True)
    (top,) = os.listdir(into)
    return os.path.join(into, top)


def check(args):
    """A sample of the index against the tree: each sampled function is defined in a
    file whose section's short name is the one the index gives (found with grep, so
    that only the files that hold the sample are read)."""
    header, rules, listed = read_index(args.index)
    if not header or header[0] != f"# {FORMAT}":
        sys.exit(f"kernel-map: {args.index}: not a kernel map ({FORMAT})")
    with tempfile.TemporaryDirectory(prefix="kernel-map-") as tmp:
        root = unpacked(args.tree, tmp)
        with open(os.path.join(root, "Makefile"), encoding="utf-8", errors="replace") as f:
            fields = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL)[ \t]*=[ \t]*(\S*)",
                                     f.read(), re.M))
        version = "{VERSION}.{PATCHLEVEL}.{SUBLEVEL}".format(**fields)
        if not any(f" {version}" in line for line in header):
            sys.exit(f"kernel-map: {args.index} was not made from {version}: {header[1]}")
        rng = random.Random(args.seed)
        sample = rng.sample(sorted(listed), min(args.sample, len(listed)))
        names = os.path.join(tmp, "names")
        with open(names, "w") as f:
            f.write("\n".join(sample) + "\n")
        found = subprocess.run(["grep", "-rlwF", "-f", names, "--include=*.c", root],
                               stdout=subprocess.PIPE, check=False).stdout.decode().split()
        with open(os.path.join(root, "MAINTAINERS"), encoding="utf-8", errors="replace") as f:
            fmap = FileMap(parse_maintainers(f.read()))
        seen = collections.defaultdict(set)  # function -> short names of its files
        wanted = set(sample)
        for path in found:
            rel = os.path.relpath(path, root)
            short, _title = subsystem_of_file(fmap, rel)
            with open(path, encoding="utf-8", errors="replace") as f:
                _sleeping, defined = functions_of(f.read())
            for name in wanted.intersection(defined):
                seen[name].add(short)
    # A sampled function this tree does not define is of the other tree (renamed).
    here = [n for n in sample if n in seen]
    bad = [n for n in here if listed[n] not in seen[n]]
    print(f"kernel-map: {args.index} against {args.tree} ({version}): {len(sample)} listed "
          f"functions sampled, {len(here)} defined in this tree, {len(bad)} in another subsystem")
    for n in bad[:20]:
        print(f"  {n}: the index says {listed[n]}, the tree {sorted(seen[n])}")
    if len(here) < len(sample) // 2 or bad:
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("trees", nargs="+")
    b.add_argument("-o", "--output", required=True)
    c = sub.add_parser("check")
    c.add_argument("index")
    c.add_argument("tree")
    c.add_argument("--sample", type=int, default=300)
    c.add_argument("--seed", type=int, default=42)
    m = sub.add_parser("modules")
    m.add_argument("index")
    m.add_argument("trees", nargs="+")
    m.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    {"build": build, "check": check, "modules": modules}[args.command](args)


if __name__ == "__main__":
    main()
