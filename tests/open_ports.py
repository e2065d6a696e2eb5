"""What a stranger on a host's network finds open: the TCP ports listening in a
network-namespace host (`netns_hosts.HostNetwork`), and what each says to an inference
call without the run's secret. Used by the multi-host tests of every backend."""

import subprocess
import sys
from typing import Dict, Iterable, Sequence, Set

from seed_graph.launch.network import netns_hosts
from tests import helpers


def listening(network: netns_hosts.HostNetwork, host: str,
              site_processes: Sequence[str] = ()) -> Set[int]:
  """The TCP ports something listens on in `host`'s namespace, but for those of the
  processes named in `site_processes` (the site's, such as `sshd`, `slurmd` or `srun`)."""
  ss = network.run(host, ['ss', '-ltnpH'], stdout=subprocess.PIPE, text=True)
  lines = [line for line in ss.communicate(timeout=60)[0].splitlines() if line.strip()]
  return {int(line.split()[3].rsplit(':', 1)[1]) for line in lines
          if not any(f'(("{name}"' in line for name in site_processes)}


def statuses_without_secret(network: netns_hosts.HostNetwork, host: str, address: str,
                            ports: Iterable[int]) -> Dict[str, str]:
  """{port: the gRPC status} of an inference call without the secret to each of
  `address`'s `ports`, from `host`."""
  probe = network.run(host, [sys.executable, '-c', helpers.INFERENCE_PROBE, address, '',
                             *map(str, ports)],
                      cwd=helpers.REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True)
  output, errors = probe.communicate(timeout=120)
  assert probe.returncode == 0, errors[-2000:]
  return helpers.probe_statuses(output)
