#!/bin/sh
# slurmd_host.sh CONF NODE: start slurmd for NODE on this test host (run
# through fy_netns_exec.sh). `ip netns exec` gave the host a sysfs of its
# own without the cgroup mounts slurmd reads: mount this machine's
# hierarchies again (v2 when it has a unified one, else v1).
if ! mountpoint -q /sys/fs/cgroup; then
  if [ "$(stat -f -c %T /proc/1/root/sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
    mount -t cgroup2 cgroup2 /sys/fs/cgroup
  else
    mount -t tmpfs cgroup /sys/fs/cgroup
    for c in $(awk -F: '$2 != "" {print $2}' /proc/self/cgroup); do
      case $c in
        name=*) d=${c#name=}; o="none,$c" ;;
        *) d=$c; o=$c ;;
      esac
      mkdir -p "/sys/fs/cgroup/$d" && mount -t cgroup -o "$o" cgroup "/sys/fs/cgroup/$d" 2>/dev/null
    done
  fi
fi
# Slurm's pmix plugin names its directories in TmpFS by job and step, and
# the test hosts share the file system: give each host's slurmd (in the
# mount namespace `ip netns exec` made for it) a TmpFS of its own.
tmpfs="$(dirname "$1")/pmix"
mkdir -p "$tmpfs-$2" && mount --bind "$tmpfs-$2" "$tmpfs"
SLURM_CONF=$1 exec slurmd -N "$2"
