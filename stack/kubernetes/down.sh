#!/usr/bin/env bash
# Stop the single-node cluster (`make cluster-down`) and undo what it did to the host: every
# process it started (by pid file) and every container, the mounts, network namespaces, veths,
# the bridge, the kubelet's cgroups, the iptables chains and ipsets of kube-proxy, kube-router,
# the kubelet and the CNI plugins, the sysctls the kubelet changed, and the host paths the
# components created. Kept for the next start: certificates, etcd's data, containerd's images.
# Exits non-zero, naming it, if anything of the cluster is left.
set -uo pipefail
. "$(dirname "$0")/env.sh"

[ -d "$K8S_STATE" ] || { echo "cluster-down: nothing to stop (no $K8S_STATE)"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "cluster-down: run as root" >&2; exit 1; }
say() { echo "[cluster-down] $*"; }

stop() { # NAME: TERM, then KILL after 10 s; only the pid we started
  local file="$PIDS/$1.pid" pid
  [ -f "$file" ] || return 0
  pid="$(cat "$file")"
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    say "stopped $1 ($pid)"
  fi
  rm -f "$file"
}

# Our containerd's shims and the containers under them: processes whose arguments are
# `-address <our socket>` (the NUL between them is in no grep's own command line), and processes
# in the kubelet's pod cgroups (created by this cluster only).
our_shims() { grep -l -a -P -- "-address\\x00\\Q$CONTAINERD_SOCK\\E\\x00" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3; }
pod_processes() { cat /sys/fs/cgroup/pids/kubepods/cgroup.procs $(find /sys/fs/cgroup/pids/kubepods -mindepth 1 -name cgroup.procs 2>/dev/null) 2>/dev/null | sort -u; }

# iptables/ip6tables: delete every rule that jumps to one of our chains, then our chains
# (KUBE-*: kube-proxy, kube-router, the kubelet; CNI-*: the portmap plugin; TRACETAX-K8S-*:
# up.sh's FORWARD accept for the bridge). Docker's stay.
clean_iptables() {
  local cmd=$1 table chain
  command -v "$cmd" >/dev/null || return 0
  for table in filter nat mangle raw; do
    "$cmd-save" -t "$table" 2>/dev/null | grep -E '^-A ' | grep -E -- '-j (KUBE-|CNI-|TRACETAX-K8S-)|-g (KUBE-|CNI-|TRACETAX-K8S-)' | grep -vE '^-A (KUBE-|CNI-|TRACETAX-K8S-)' |
      while read -r rule; do eval "$cmd -t $table -D ${rule#-A }" 2>/dev/null; done
    for chain in $("$cmd-save" -t "$table" 2>/dev/null | sed -n 's/^:\(\(KUBE-\|CNI-\|TRACETAX-K8S-\)[^ ]*\).*/\1/p'); do "$cmd" -t "$table" -F "$chain" 2>/dev/null; done
    for chain in $("$cmd-save" -t "$table" 2>/dev/null | sed -n 's/^:\(\(KUBE-\|CNI-\|TRACETAX-K8S-\)[^ ]*\).*/\1/p'); do "$cmd" -t "$table" -X "$chain" 2>/dev/null; done
  done
}

# 1. the node agents, each cleaning its own rules first
stop kube-router
[ -x "$KUBE_ROUTER_BIN" ] && "$KUBE_ROUTER_BIN" --cleanup-config >>"$LOGS/kube-router.log" 2>&1
stop kube-proxy
[ -x "$K8S_BIN/kube-proxy" ] && "$K8S_BIN/kube-proxy" --cleanup >>"$LOGS/kube-proxy.log" 2>&1
stop kubelet

# 2. containers: killed through containerd while it runs, then whatever is left by pid
if [ -f "$PIDS/containerd.pid" ] && kill -0 "$(cat "$PIDS/containerd.pid")" 2>/dev/null; then
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks kill -s SIGKILL "$id" >/dev/null 2>&1; done
  sleep 0.5
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do ctr_k8s tasks delete -f "$id" >/dev/null 2>&1; done
  for id in $(ctr_k8s containers ls -q 2>/dev/null); do ctr_k8s containers rm "$id" >/dev/null 2>&1; done
fi
stop containerd
for pid in $(pod_processes) $(our_shims); do kill -9 "$pid" 2>/dev/null; done
stop kube-scheduler
stop kube-controller-manager
stop kube-apiserver
stop etcd
sleep 0.5

# 3. mounts: our state dir's (volumes, rootfs, shm) and the CRI's network namespaces, deepest first
for mount_point in $(awk '{print $2}' /proc/self/mounts | grep -E "^$K8S_STATE/|^/run/netns/cni-" | sort -r); do
  umount "$mount_point" 2>/dev/null || umount -l "$mount_point"
done
rm -f /run/netns/cni-* 2>/dev/null

# 4. network: veths on our bridge (gone with their namespace, normally), the bridge, iptables, ipsets
for veth in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do ip link del "$veth"; done
ip link del "$BRIDGE" 2>/dev/null
clean_iptables iptables
clean_iptables ip6tables
for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|kube-router-|inet6:KUBE-)'); do ipset destroy "$set" 2>/dev/null; done

# 5. the kubelet's cgroups (deepest first), the runtime state that died with the processes
for hierarchy in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
  [ -d "$hierarchy" ] && find "$hierarchy" -depth -type d -exec rmdir {} \; 2>/dev/null
done
rm -rf "$K8S_STATE/kubelet" "$K8S_STATE/containerd/state" "$K8S_STATE/run" "$K8S_STATE/cni/ipam" "$K8S_STATE/pod-logs"

# 6. the host as it was before the first start: sysctls, and paths the components created
host="$K8S_STATE/host-before"
if [ -f "$host/.complete" ]; then
  while IFS='=' read -r key value; do
    [ -n "$key" ] && [ "$(sysctl -n "$key" 2>/dev/null)" != "$value" ] && sysctl -q -w "$key=$value" && say "restored $key=$value"
  done <"$host/sysctl.txt"
  while read -r state path; do
    [ "$state" = absent ] && [ -e "$path" ] && rm -rf "$path" && say "removed $path (created by the cluster)"
  done <"$host/paths.txt"
  rm -rf "$host"
fi

# 7. what is left is a fault: name it
left=()
for name in etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet kube-proxy kube-router; do
  [ -f "$PIDS/$name.pid" ] && left+=("process $name")
done
[ -n "$(our_shims)" ] && left+=("containerd shims: $(our_shims | tr '\n' ' ')")
[ -n "$(pod_processes)" ] && left+=("pod processes: $(pod_processes | tr '\n' ' ')")
grep -qE " $K8S_STATE/| /run/netns/cni-" /proc/self/mounts && left+=("mounts: $(awk '{print $2}' /proc/self/mounts | grep -E "^$K8S_STATE/|^/run/netns/cni-" | tr '\n' ' ')")
ip link show "$BRIDGE" >/dev/null 2>&1 && left+=("bridge $BRIDGE")
ip -o link show type veth 2>/dev/null | grep -q "master $BRIDGE" && left+=("veths on $BRIDGE")
iptables-save 2>/dev/null | grep -qE '^:(KUBE-|CNI-|TRACETAX-K8S-)' && left+=("iptables chains: $(iptables-save | sed -n 's/^:\(\(KUBE-\|CNI-\|TRACETAX-K8S-\)[^ ]*\).*/\1/p' | tr '\n' ' ')")
ip6tables-save 2>/dev/null | grep -qE '^:(KUBE-|CNI-|TRACETAX-K8S-)' && left+=("ip6tables chains")
ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1 && left+=("cgroups: $(ls -d /sys/fs/cgroup/*/kubepods | tr '\n' ' ')")
if [ ${#left[@]} -gt 0 ]; then
  printf 'cluster-down: left behind: %s\n' "${left[@]}" >&2
  exit 1
fi
say "stopped; nothing left behind (certificates, etcd data and images stay in $K8S_STATE)"
