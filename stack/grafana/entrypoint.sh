#!/bin/sh
# Grafana's entrypoint in compose.yml: anonymous access only while Grafana is published on
# loopback, then the image's own entrypoint ("$@", /run.sh).
#
# GRAFANA_PUBLISHED_ON is the host address compose publishes Grafana's port on (BIND_ADDRESS in
# .env). On 127.0.0.0/8, ::1 or localhost only the people on this machine reach it: anonymous
# viewers (Explore included) keep the local loop short. Anywhere else anyone on the network
# would read every trace, log and metric, so anonymous access is off and the admin password
# must come from GRAFANA_ADMIN_PASSWORD (GF_SECURITY_ADMIN_PASSWORD), not Grafana's "admin".
# scripts/check-packaging.sh runs this script for both cases.
set -eu

case "${GRAFANA_PUBLISHED_ON:-}" in
  127.* | ::1 | "[::1]" | localhost) published_on_loopback=yes ;;
  *) published_on_loopback=no ;;
esac

if [ "$published_on_loopback" = yes ]; then
  export GF_AUTH_ANONYMOUS_ENABLED=true
  export GF_AUTH_ANONYMOUS_ORG_ROLE=Viewer
  export GF_USERS_VIEWERS_CAN_EDIT=true
else
  if [ -z "${GF_SECURITY_ADMIN_PASSWORD:-}" ]; then
    echo "grafana: published on '${GRAFANA_PUBLISHED_ON:-all interfaces}' (BIND_ADDRESS), beyond loopback, so anonymous access is off and an admin password is required: set GRAFANA_ADMIN_PASSWORD in the environment of \`docker compose up\`, or publish on BIND_ADDRESS=127.0.0.1." >&2
    exit 64
  fi
  export GF_AUTH_ANONYMOUS_ENABLED=false
  export GF_USERS_VIEWERS_CAN_EDIT=false
fi
exec "$@"
