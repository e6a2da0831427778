// A small kernel-like git repository made by the tests of --suspects: a Makefile naming a
// version, kernel/, and a few files of fs/ whose functions are the frames of two blocked
// stacks (an fsync waiting for a jbd2 commit under an overlayfs copy-up, a copy-up
// waiting for the rename lock). Its history between the tags v6.6 and v6.12 holds what
// a kernel's does to such functions: bodies changed, a function added beside a new call
// of it, a function renamed (and changed before under its old name), a function moved
// to another file unchanged, a static function of the same name changed in another
// file, a change on a side branch merged back, and a change to a file no frame is in.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/run.hpp"

namespace hangscope::testing {

// The stacks the repository's functions explain, as `cat /proc/PID/stack` prints them
// (the copy-up frames with the compiler's suffixes), a blank line between tasks.
inline const char* kKernelRepoStacks =
    "[<0>] jbd2_log_wait_commit+0x107/0x150\n"
    "[<0>] jbd2_journal_force_commit+0x9c/0xc0\n"
    "[<0>] ext4_sync_file+0x278/0x310\n"
    "[<0>] ovl_sync_file+0x2f/0x50\n"
    "[<0>] ovl_copy_up_metadata.isra.0+0x455/0x4b0\n"
    "\n"
    "[<0>] lock_rename+0x29/0x50\n"
    "[<0>] do_sync.constprop.0+0x10/0x20\n"
    "[<0>] ovl_copy_up_flags+0x84c/0x12e0\n"
    "[<0>] vfs_mkdir+0x1aa/0x260\n"
    "[<0>] do_mkdirat+0xb9/0x240\n";

class KernelRepo {
 public:
  explicit KernelRepo(std::string dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    git({"init", "-q", "-b", "master"});
    write("Makefile", "VERSION = 6\nPATCHLEVEL = 6\nSUBLEVEL = 0\nEXTRAVERSION =\n");
    write("kernel/exit.c", "void do_exit(long code)\n{\n\tfor (;;)\n\t\t;\n}\n");
    write("fs/jbd2/journal.c", journal("jbd2_wait_commit_old", "0", "journal->j_flags |= 1;"));
    write("fs/ext4/fsync.c", fsync("force the commit"));
    write("fs/ext4/inode.c", "int ext4_write_begin(void)\n{\n\treturn 0;\n}\n");
    write("fs/overlayfs/copy_up.c", copy_up(false, false));
    write("fs/namei.c", namei(true, "NULL"));
    commit("Linux 6.6");
    git({"tag", "v6.6"});

    write("fs/jbd2/journal.c", journal("jbd2_wait_commit_old", "-EIO", "journal->j_flags |= 1;"));
    ids_["c0"] = commit("jbd2: a commit wait fails until it is seen");
    write("fs/namei.c", namei(true, "lookup_create(name)"));
    ids_["c_pre"] = commit("namei: mkdirat looks the parent up once");
    write("fs/ext4/fsync.c", fsync("force the commit: the journal holds the metadata"));
    ids_["c1"] = commit("ext4: say why fsync forces a commit");
    git({"checkout", "-q", "-b", "side"});
    write("fs/overlayfs/copy_up.c", copy_up(false, true));
    ids_["s1"] = commit("ovl: copy-up checks its flags");
    git({"checkout", "-q", "master"});
    write("fs/overlayfs/copy_up.c", copy_up(true, false));
    ids_["c2"] = commit("ovl: fsync after metadata copy-up");
    git({"merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side"});
    ids_["merge"] = rev("HEAD");
    write("fs/jbd2/journal.c", journal("jbd2_log_wait_commit", "-EIO", "journal->j_flags |= 1;"));
    ids_["c3"] = commit("jbd2: rename jbd2_wait_commit_old to jbd2_log_wait_commit");
    write("fs/namei.c", namei(false, ""));
    write("fs/mkdir.c", mkdirat("lookup_create(name)"));
    ids_["c4"] = commit("fs: move do_mkdirat to fs/mkdir.c");
    write("fs/jbd2/journal.c", journal("jbd2_log_wait_commit", "-EIO", "journal->j_flags |= 2;"));
    ids_["c5"] = commit("jbd2: do_sync sets the second flag");
    write("fs/ext4/inode.c", "int ext4_write_begin(void)\n{\n\treturn 1;\n}\n");
    ids_["c6"] = commit("ext4: write_begin says it began");
    write("Makefile", "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n");
    commit("Linux 6.12");
    git({"tag", "v6.12"});
  }

  const std::string& dir() const { return dir_; }
  // The commit made by a step of the history above: "c0" ... "c6", "s1", "merge".
  const std::string& id(const std::string& step) const { return ids_.at(step); }

  // The tree of a tag, written out as a source tree (no history).
  void export_tree(const std::string& tag, const std::string& to) const {
    std::filesystem::create_directories(to);
    run({"sh", "-c", "git -C '" + dir_ + "' archive " + tag + " | tar -x -C '" + to + "'"});
  }

 private:
  static std::string journal(const std::string& wait, const std::string& err,
                             const std::string& flag) {
    return "#include <linux/jbd2.h>\n\nint " + wait +
           "(journal_t *journal, tid_t tid)\n{\n\tint err = " + err +
           ";\n\n\twait_event(journal->j_wait_done_commit, "
           "!tid_gt(tid, journal->j_commit_sequence));\n\treturn err;\n}\n\n"
           "int jbd2_journal_force_commit(journal_t *journal)\n{\n"
           "\ttid_t tid = journal->j_commit_request;\n\n\treturn " +
           wait + "(journal, tid);\n}\n\nstatic void do_sync(journal_t *journal)\n{\n\t" + flag +
           "\n}\n";
  }
  static std::string fsync(const std::string& comment) {
    return "int ext4_sync_file(struct file *file, loff_t start, loff_t end, int datasync)\n{\n"
           "\tjournal_t *journal = EXT4_SB(file->f_inode->i_sb)->s_journal;\n\n\t/* " +
           comment + " */\n\treturn jbd2_journal_force_commit(journal);\n}\n";
  }
  static std::string copy_up(bool fsync, bool flags) {
    std::string s = "static void do_sync(struct dentry *dentry)\n{\n\tdentry->d_flags |= 1;\n}\n\n";
    if (fsync)
      s += "static int ovl_sync_file(struct path *path)\n{\n\tstruct file *file = "
           "ovl_open(path);\n\n\treturn vfs_fsync(file, 0);\n}\n\n";
    s += "static int ovl_copy_up_metadata(struct ovl_copy_up_ctx *c, struct dentry *temp)\n{\n"
         "\tint err;\n\n\terr = ovl_set_attr(c->dentry, temp, &c->stat);\n";
    if (fsync) s += "\tif (!err)\n\t\terr = ovl_sync_file(&c->upperpath);\n";
    s += "\treturn err;\n}\n\nint ovl_copy_up_flags(struct dentry *dentry, int flags)\n{\n"
         "\tint err = 0;\n\n";
    if (flags) s += "\tif (flags & ~OVL_COPY_UP_MASK)\n\t\treturn -EINVAL;\n";
    s += "\tdo_sync(dentry);\n\tlock_rename(dentry, dentry->d_parent);\n\treturn err;\n}\n";
    return s;
  }
  static std::string mkdirat(const std::string& lookup) {
    return "int do_mkdirat(int dfd, struct filename *name, umode_t mode)\n{\n"
           "\tstruct dentry *dentry = " +
           lookup + ";\n\n\treturn vfs_mkdir(NULL, dentry, mode);\n}\n";
  }
  static std::string namei(bool with_mkdirat, const std::string& lookup) {
    std::string s =
        "struct dentry *lock_rename(struct dentry *p1, struct dentry *p2)\n{\n"
        "\tmutex_lock(&p1->d_sb->s_vfs_rename_mutex);\n\treturn NULL;\n}\n\n"
        "int vfs_mkdir(struct inode *dir, struct dentry *dentry, umode_t mode)\n{\n"
        "\treturn dir->i_op->mkdir(dir, dentry, mode);\n}\n";
    if (with_mkdirat) s += "\n" + mkdirat(lookup);
    return s;
  }

  void write(const std::string& path, const std::string& text) {
    std::filesystem::path p = std::filesystem::path(dir_) / path;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  RunResult git(std::vector<std::string> args) {
    std::vector<std::string> all = {
        "env",
        "GIT_AUTHOR_NAME=A U Thor",
        "GIT_AUTHOR_EMAIL=author@example.org",
        "GIT_COMMITTER_NAME=A U Thor",
        "GIT_COMMITTER_EMAIL=author@example.org",
        "GIT_AUTHOR_DATE=2024-01-0" + std::to_string(1 + step_ % 9) + "T12:00:00Z",
        "GIT_COMMITTER_DATE=2024-01-0" + std::to_string(1 + step_ % 9) + "T12:00:00Z",
        "git",
        "-C",
        dir_};
    all.insert(all.end(), args.begin(), args.end());
    return run(all);
  }
  std::string rev(const std::string& what) {
    std::string out = git({"rev-parse", what}).out;
    return out.substr(0, out.find('\n'));
  }
  std::string commit(const std::string& subject) {
    ++step_;
    git({"add", "-A"});
    git({"commit", "-q", "-m", subject});
    return rev("HEAD");
  }

  std::string dir_;
  std::map<std::string, std::string> ids_;
  int step_ = 0;
};

}  // namespace hangscope::testing
