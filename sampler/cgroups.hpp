// A task's cgroup, and the container it belongs to when the cgroup path follows the
// naming of a known container runtime.
#pragma once

#include <string>
#include <string_view>

namespace hangscope::sampler {

// The path to record from /proc/<pid>/task/<tid>/cgroup: the unified (v2) path, or on a
// v1 or hybrid system the first controller path that is not the root ("/" when none).
std::string cgroup_path(std::string_view cgroup_file);

// Whether `cgroup` is the cgroup `selected` or one below it (record --cgroup): whole
// path components, so that /system.slice/docker-1 does not select docker-12's tasks.
bool in_cgroup(std::string_view cgroup, std::string_view selected);

// "docker:<64 hex>", "containerd:<id>", "cri-o:<id>", "podman:<id>", "kubepods:<id>"
// (a pod's container whose runtime the path does not name), or "" when the path names
// no container. Handles the cgroupfs and systemd drivers' layouts:
//   /docker/<id>                 /system.slice/docker-<id>.scope
//   /kubepods/burstable/pod<uid>/<id>
//   /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod<uid>.slice/cri-containerd-<id>.scope
//   /machine.slice/libpod-<id>.scope     /system.slice/crio-<id>.scope
std::string container_of(std::string_view cgroup);

}  // namespace hangscope::sampler
