#!/usr/bin/env bash
# Installs what the multi-host tests run for real, from Debian's packages: Slurm
# (slurm-wlm: slurmctld, slurmd and the client commands) and munge, its authentication
# (tests/slurm_cluster.py), and OpenSSH's server and client (tests/ssh_machines.py); the
# tests start their own daemons in network namespaces, none is started here. Root with
# apt-get only; anyone else gets a note, and those tests skip.
# Safe to run again: with everything there it returns at once.
set -euo pipefail
missing=()
for tool in slurmctld slurmd sbatch munged; do
  command -v "$tool" >/dev/null || missing=(slurm-wlm munge)
done
for tool in /usr/sbin/sshd ssh ssh-keygen; do
  command -v "$tool" >/dev/null || missing+=(openssh-server openssh-client)
done
[[ ${#missing[@]} -eq 0 ]] && exit 0
if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  echo "install_cluster_tools: ${missing[*]} missing and not root with apt-get: the Slurm" \
       "and SSH tests will skip" >&2
  exit 0
fi
echo "install_cluster_tools: installing ${missing[*]} (apt-get)" >&2
apt-get update -qq >/dev/null
# policy-rc.d-less machines would start the daemons with a default configuration: the
# packages' services are not wanted here (the tests start their own), so none start.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
