// What the block devices under blocked tasks stand on (docs/sampler.md, "Causes off the
// stack"): a loop device's backing file (/sys/block/loopN/loop/backing_file) and the file
// system holding it (its type and block device, from the sampler's own mountinfo), and
// the devices a stacked device (md, dm) is made of (/sys/block/<name>/slaves). A device
// is read once, when a recorded task first names it (its file's device, or a loop
// worker's name "kworker/u8:0+loop1"), and so are the devices found under it; the
// capture's end line names them all (capture_format.hpp, BlockDeviceField), so that the
// analyzer follows a wait on a loop device to the file system of its backing file.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "hangscope/capture_format.hpp"
#include "hangscope/round_sink.hpp"
#include "mount_table.hpp"

namespace hangscope::sampler {

// "kworker/u8:0+loop1" -> "loop1": the loop device a busy loop worker serves (its
// workqueue is named after it); "" for any other name.
std::string_view loop_device_of_worker(std::string_view comm);

class BlockDevices {
 public:
  BlockDevices(std::string proc_root, std::string sys_root = "/sys");
  // A device a recorded task waits on ("loop1"): read once, with what it stands on.
  void note(std::string_view device);
  // The end line's fields: every device read that stands on something.
  TextFields end_fields() const;
  const std::map<std::string, capture_format::BlockDeviceField, std::less<>>& devices() const {
    return devices_;
  }

 private:
  void read(const std::string& device, int depth);
  std::string proc_root_, sys_root_;
  MountTable mounts_;
  std::map<std::string, capture_format::BlockDeviceField, std::less<>> devices_;
};

}  // namespace hangscope::sampler
