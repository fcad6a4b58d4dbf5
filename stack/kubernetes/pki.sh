#!/usr/bin/env bash
# Certificates, keys and kubeconfigs of the single-node cluster, generated with openssl into
# $K8S_STATE/pki at its first start (never committed; `make cluster-clean` deletes them).
# Every component authenticates with its own client certificate: RBAC (Node,RBAC) decides what
# it may do, and the kubelet accepts only the apiserver's certificate (webhook authorization).
set -euo pipefail
. "$(dirname "$0")/env.sh"

[ -f "$PKI/.complete" ] && exit 0
rm -rf "$PKI" && mkdir -p "$PKI" && chmod 700 "$PKI"
cd "$PKI"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }

# cert NAME SUBJECT [SAN [USAGES]]: a certificate for NAME.key signed by the cluster CA; with SAN
# a server certificate (USAGES default serverAuth), without a client one
cert() {
  local name=$1 subject=$2 san=${3:-} usages=${4:-serverAuth} ext
  key "$name"
  ext="$(mktemp)"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    if [ -n "$san" ]; then echo "extendedKeyUsage=$usages"; echo "subjectAltName=$san"; else echo "extendedKeyUsage=clientAuth"; fi
  } >"$ext"
  openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 365 -sha256 \
    -extfile "$ext" -out "$name.crt" 2>/dev/null
  rm -f "$name.csr" "$ext"
}

# kubeconfig NAME: $K8S_STATE/NAME.kubeconfig authenticating with pki/NAME.{crt,key}
kubeconfig() {
  cat >"$K8S_STATE/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: tracetax
  cluster:
    server: https://$NODE_IP:$APISERVER_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: $1
  user:
    client-certificate: $PKI/$1.crt
    client-key: $PKI/$1.key
contexts:
- name: tracetax
  context: {cluster: tracetax, user: $1}
current-context: tracetax
EOF
  chmod 600 "$K8S_STATE/$1.kubeconfig"
}

key ca
openssl req -x509 -new -key ca.key -subj "/CN=tracetax-cluster-ca" -days 365 -sha256 \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.crt 2>/dev/null

# etcd listens on loopback with TLS and client certificates: another local user cannot read the
# cluster's Secrets from it. Its one member talks to itself with the same certificate.
cert etcd "/CN=etcd" "IP:127.0.0.1,DNS:localhost" serverAuth,clientAuth
cert apiserver-etcd-client "/CN=kube-apiserver-etcd-client"
cert apiserver "/CN=kube-apiserver" \
  "IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.$CLUSTER_DOMAIN"
cert kubelet-serving "/CN=$NODE_NAME" "IP:$NODE_IP,DNS:$NODE_NAME"
# the apiserver's identity towards the kubelet (logs, exec, port-forward): bound to
# system:kubelet-api-admin by up.sh
cert apiserver-kubelet-client "/CN=kube-apiserver-kubelet-client"

cert admin "/O=system:masters/CN=tracetax-admin"
cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"
cert controller-manager "/CN=system:kube-controller-manager"
cert scheduler "/CN=system:kube-scheduler"
cert kube-proxy "/CN=system:kube-proxy"
cert kube-router "/CN=system:kube-router"
for user in admin kubelet controller-manager scheduler kube-proxy kube-router; do kubeconfig "$user"; done

# service account tokens: signed by the apiserver with sa.key, verified with sa.pub
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.key 2>/dev/null
openssl pkey -in sa.key -pubout -out sa.pub
chmod 600 ./*.key
touch .complete
echo "cluster certificates written to $PKI"
