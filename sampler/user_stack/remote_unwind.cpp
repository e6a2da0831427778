#include "remote_unwind.hpp"

#include <fmt/format.h>
#include <libunwind-ptrace.h>
#include <libunwind.h>

// Exported by libunwind-x86_64 (libunwind-generic) but not declared by its headers: the
// binary search over an .eh_frame_hdr table that the target maps (read through the
// address space's access_mem), as libunwind's own remote lookups use it.
extern "C" int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
                                                  unw_dyn_info_t* di, unw_proc_info_t* pi,
                                                  int need_unwind_info, void* arg);

namespace hangscope::user_stack {

namespace {

// DWARF exception-header pointer encodings used by .eh_frame_hdr.
constexpr uint8_t kEhPeUdata4 = 0x03, kEhPeSdata4 = 0x0b, kEhPeDatarel = 0x30;

// What the accessors see: the target, and whether a lookup of unwind tables failed
// during the current step (then libunwind's x86-64 step fell back to frame pointers).
struct AccessorArg {
  TargetMemory* mem = nullptr;
  // The registers of the frame the cursor starts from: the leaf's, or after a step by
  // frame pointer, the three that step knows.
  const StartRegisters* regs = nullptr;
  bool lookup_failed = false;
};

AccessorArg& arg_of(void* p) { return *static_cast<AccessorArg*>(p); }

int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t* pi, int need, void* p) {
  AccessorArg& a = arg_of(p);
  a.lookup_failed = true;
  const Mapping* m = find_mapping(a.mem->maps(), ip);
  if (!m || !m->executable) return -UNW_ENOINFO;
  TargetMemory::Mapped mapped = a.mem->binary_at(*m);
  if (!mapped.binary) return -UNW_ENOINFO;
  const ElfImage& img = mapped.binary->image();
  if (img.eh_frame_hdr_size() < 12) return -UNW_ENOINFO;
  // .eh_frame_hdr: version, eh_frame_ptr encoding, fde_count encoding, table encoding,
  // eh_frame_ptr, fde_count, then the sorted (initial location, FDE) table, both
  // relative to the header itself (datarel, sdata4): the one form libunwind searches.
  uint8_t hdr[12];
  if (!img.read_vaddr(img.eh_frame_hdr_vaddr(), hdr, sizeof hdr)) return -UNW_ENOINFO;
  uint8_t ptr_format = hdr[1] & 0x0f;
  if (hdr[0] != 1 || (ptr_format != kEhPeUdata4 && ptr_format != kEhPeSdata4) ||
      hdr[2] != kEhPeUdata4 || hdr[3] != (kEhPeDatarel | kEhPeSdata4))
    return -UNW_ENOINFO;
  uint32_t fde_count;
  std::memcpy(&fde_count, hdr + 8, 4);
  uint64_t start = mapped.bias + img.text_start(), end = mapped.bias + img.text_end();
  if (fde_count == 0 || ip < start || ip >= end) return -UNW_ENOINFO;
  unw_dyn_info_t di{};
  di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
  di.start_ip = start;
  di.end_ip = end;
  di.u.rti.segbase = mapped.bias + img.eh_frame_hdr_vaddr();
  di.u.rti.table_data = di.u.rti.segbase + sizeof hdr;
  di.u.rti.table_len = uint64_t{fde_count} * 8 / sizeof(unw_word_t);
  int ret = _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need, p);
  if (ret >= 0) a.lookup_failed = false;
  return ret;
}

// libunwind frees the unwind info of .eh_frame lookups itself (put_unwind_info is only
// called for dynamically registered procedures, which a remote target has none of).
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void* p) {
  if (write) return -UNW_EINVAL;
  return arg_of(p).mem->read(addr, val, sizeof *val) ? 0 : -UNW_EINVAL;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* val, int write, void* p) {
  const StartRegisters& r = *arg_of(p).regs;
  if (write || reg < 0 || reg > UNW_X86_64_RIP || !r.known[reg]) return -UNW_EBADREG;
  *val = r.value[reg];
  return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EBADREG; }

int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }

int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) {
  return -UNW_ENOINFO;  // frames are named afterwards, from the cached symbol tables
}

unw_accessors_t cached_table_accessors() {
  unw_accessors_t acc{};
  acc.find_proc_info = find_proc_info;
  acc.put_unwind_info = put_unwind_info;
  acc.get_dyn_info_list_addr = get_dyn_info_list_addr;
  acc.access_mem = access_mem;
  acc.access_reg = access_reg;
  acc.access_fpreg = access_fpreg;
  acc.resume = resume;
  acc.get_proc_name = get_proc_name;
  return acc;
}

// The mapping a stack pointer may move within: the thread's stack mapping, and the
// writable mappings right above it when the kernel split the stack into several.
struct StackBounds {
  uint64_t low = 0, high = 0;
};

StackBounds stack_bounds(const std::vector<Mapping>& maps, uint64_t sp) {
  const Mapping* m = find_mapping(maps, sp);
  if (!m || !m->writable) return {};
  StackBounds b{m->start, m->end};
  for (const Mapping* next = find_mapping(maps, b.high);
       next && next->writable && next->start == b.high; next = find_mapping(maps, b.high))
    b.high = next->end;
  return b;
}

std::string where(TargetMemory& mem, uint64_t ip) {
  const Mapping* m = find_mapping(mem.maps(), ip);
  if (!m) return fmt::format("0x{:x}", ip);
  TargetMemory::Mapped b = mem.binary_at(*m);
  if (b.binary) return fmt::format("{}+0x{:x}", b.binary->name(), ip - b.bias);
  return fmt::format("{}+0x{:x}", m->name().empty() ? "anon" : m->name(), ip - m->start);
}

// Whether the binary at `ip` has an unwind-table entry for it (looked up in the cached
// binaries, as libunwind would). For a return address, the call before it is looked up.
bool has_unwind_entry(unw_addr_space_t lookup_as, AccessorArg& arg, uint64_t ip, bool leaf) {
  unw_proc_info_t pi{};
  bool failed_before = arg.lookup_failed;
  bool found = find_proc_info(lookup_as, leaf ? ip : ip - 1, &pi, 0, &arg) >= 0;
  arg.lookup_failed = failed_before;
  return found;
}

// One step by frame pointer, for code without unwind tables: the frame's rbp points at
// the caller's saved rbp, with the return address above it. The step only stands when
// rbp is known and lies on the stack above the frame's stack pointer.
bool frame_pointer_step(unw_cursor_t& cursor, TargetMemory& mem, const StackBounds& stack,
                        uint64_t sp, StartRegisters& regs, std::string& why) {
  unw_word_t rbp = 0;
  if (unw_get_reg(&cursor, UNW_X86_64_RBP, &rbp) < 0) {
    why = "no unwind table, and the frame pointer is unknown,";
    return false;
  }
  uint64_t saved[2];
  if (rbp < sp || rbp % 8 != 0 || rbp + sizeof saved > stack.high ||
      !mem.read(rbp, saved, sizeof saved)) {
    why = fmt::format("no unwind table, and rbp 0x{:x} is no frame pointer,", rbp);
    return false;
  }
  regs = StartRegisters{};
  regs.set(UNW_X86_64_RBP, saved[0]);
  regs.set(UNW_X86_64_RIP, saved[1]);
  regs.set(UNW_X86_64_RSP, rbp + sizeof saved);
  return true;
}

// Walks from the registers that `first` (with `first_arg`) gives, or with our own
// accessors when `first` is null. Steps by frame pointer always continue with our own.
Walk walk(const unw_accessors_t* first, void* first_arg, AccessorArg& arg, TargetMemory& mem,
          UnwindDeadline deadline, size_t max_frames) {
  Walk w;
  static const unw_accessors_t ours = cached_table_accessors();
  unw_accessors_t acc = first ? *first : ours, lacc = ours;
  unw_addr_space_t as = unw_create_addr_space(&acc, 0);
  unw_addr_space_t lookup_as = unw_create_addr_space(&lacc, 0);
  if (!as || !lookup_as) {
    if (as) unw_destroy_addr_space(as);
    if (lookup_as) unw_destroy_addr_space(lookup_as);
    w.why = "unw_create_addr_space failed";
    return w;
  }
  // No caching: an address space lives for one walk, and libunwind guards its caches
  // with a signal mask change (two system calls) on every lookup.
  unw_set_caching_policy(as, UNW_CACHE_NONE);
  unw_set_caching_policy(lookup_as, UNW_CACHE_NONE);
  unw_cursor_t cursor;
  int ret = unw_init_remote(&cursor, as, first ? first_arg : &arg);
  unw_word_t ip = 0, sp = 0;
  if (ret < 0 || unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 ||
      unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0) {
    w.why = fmt::format("no registers: {}", unw_strerror(ret < 0 ? ret : -UNW_EBADREG));
    unw_destroy_addr_space(as);
    unw_destroy_addr_space(lookup_as);
    return w;
  }
  StackBounds stack = stack_bounds(mem.maps(), sp);
  StartRegisters fp_regs;  // the registers a frame-pointer step found
  bool via_fp = false;
  for (;;) {
    // Each frame must run code of an executable mapping, on the thread's stack, with a
    // stack pointer above the previous frame's: anything else is not a frame.
    const Mapping* code = find_mapping(mem.maps(), ip);
    if (!code || !code->executable) {
      w.why = fmt::format("0x{:x} is not in executable memory", ip);
      break;
    }
    if (sp < stack.low || sp >= stack.high || (!w.frames.empty() && sp <= w.frames.back().sp)) {
      w.why = fmt::format("stack pointer 0x{:x} left the stack at {}", sp, where(mem, ip));
      break;
    }
    w.frames.push_back({ip, sp, via_fp});
    if (w.frames.size() >= max_frames) {
      w.why = fmt::format("more than {} frames", max_frames);
      break;
    }
    if (UnwindClock::now() >= deadline) {
      w.why = "deadline reached";
      break;
    }
    if (!has_unwind_entry(lookup_as, arg, ip, w.frames.size() == 1)) {
      // The tables give out here: step by frame pointer, and go on from the caller
      // with a cursor that knows only what that step found.
      std::string why;
      if (!frame_pointer_step(cursor, mem, stack, sp, fp_regs, why)) {
        w.why = fmt::format("{} at {}", why, where(mem, ip));
        break;
      }
      arg.regs = &fp_regs;
      if (unw_init_remote(&cursor, lookup_as, &arg) < 0) {
        w.why = "cannot go on after a frame-pointer step";
        break;
      }
      via_fp = true;
    } else {
      arg.lookup_failed = false;
      ret = unw_step(&cursor);
      if (ret == 0) {
        w.outcome = UnwindOutcome::complete;
        break;
      }
      if (ret < 0) {
        w.why = fmt::format("{} at {}", unw_strerror(ret), where(mem, ip));
        break;
      }
      // With our accessors, a failed lookup here means libunwind stepped by its own
      // frame-chain guess: kept only if the checks above pass, and marked.
      via_fp = arg.lookup_failed;
    }
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0) {
      w.why = "registers lost";
      break;
    }
    if (ip == 0) {  // an undefined return address ends the chain
      w.outcome = UnwindOutcome::complete;
      break;
    }
  }
  unw_destroy_addr_space(as);
  unw_destroy_addr_space(lookup_as);
  if (w.outcome == UnwindOutcome::complete) w.why.clear();
  return w;
}

}  // namespace

Walk walk_with_cached_tables(TargetMemory& mem, const StartRegisters& regs, UnwindDeadline deadline,
                             size_t max_frames) {
  AccessorArg arg;
  arg.mem = &mem;
  arg.regs = &regs;
  return walk(nullptr, nullptr, arg, mem, deadline, max_frames);
}

Walk walk_with_libunwind_ptrace(int tid, TargetMemory& mem, UnwindDeadline deadline,
                                size_t max_frames) {
  AccessorArg arg;
  arg.mem = &mem;
  void* upt = _UPT_create(tid);
  if (!upt) {
    Walk w;
    w.why = "_UPT_create failed";
    return w;
  }
  Walk w = walk(&_UPT_accessors, upt, arg, mem, deadline, max_frames);
  _UPT_destroy(upt);
  return w;
}

}  // namespace hangscope::user_stack
