#!/usr/bin/env bash
# Persistent volumes for the single-node cluster, which has no storage provisioner: a default
# StorageClass of `local` volumes and a pool of PersistentVolumes, each a directory under
# $K8S_STATE/volumes owned by root as a fresh disk would be (the kubelet applies a pod's fsGroup).
# Run by up.sh and after a chart is uninstalled: a volume whose claim was deleted (Released) is
# wiped and offered again, as a provisioner's Delete policy would.
set -euo pipefail
. "$(dirname "$0")/env.sh"

POOL_SIZE=${TRACETAX_K8S_VOLUMES:-8}

{
  cat <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Retain
EOF
  for i in $(seq -w 1 "$POOL_SIZE"); do
    dir="$K8S_STATE/volumes/pv-$i"
    mkdir -p "$dir" && chmod 755 "$dir"
    cat <<EOF
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: local-pv-$i
spec:
  capacity: {storage: 20Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: local
  local: {path: $dir}
  nodeAffinity:
    required:
      nodeSelectorTerms:
        - matchExpressions:
            - {key: kubernetes.io/hostname, operator: In, values: [$NODE_NAME]}
EOF
  done
} | kubectl apply -f - >/dev/null

# Released: its claim is gone. Wipe the data and make it Available again.
for pv in $(kubectl get pv -o jsonpath='{range .items[?(@.status.phase=="Released")]}{.metadata.name}{"\n"}{end}'); do
  dir="$(kubectl get pv "$pv" -o jsonpath='{.spec.local.path}')"
  case "$dir" in "$K8S_STATE"/volumes/pv-*) find "$dir" -mindepth 1 -delete && chown root:root "$dir" && chmod 755 "$dir" ;; esac
  kubectl patch pv "$pv" --type json -p '[{"op": "remove", "path": "/spec/claimRef"}]' >/dev/null
  echo "volume $pv wiped and available again"
done
