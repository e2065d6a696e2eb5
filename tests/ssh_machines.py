"""Machines reached over SSH, for the tests of `launch.cluster --backend=ssh`: network-
namespace hosts of this machine (root), each running its own OpenSSH server (Debian's
openssh-server, scripts/install_cluster_tools.sh) with a host key made for the test and
root's login by a user key made for the test, and an ssh config that names them; plus a
login namespace to run the launcher from. Everything lives under one directory; every
process is killed and every namespace deleted on exit, also after a failure."""

import os
import subprocess
import time
from typing import List, Sequence

from seed_graph.launch.network import netns_hosts

_SSHD_CONFIG = """ListenAddress {address}
Port 22
HostKey {dir}/host_key
PidFile {dir}/sshd.{host}.pid
AuthorizedKeysFile {dir}/user_key.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
"""

_CLIENT_ENTRY = """Host {host}
  HostName {address}
  User root
  IdentityFile {dir}/user_key
  IdentitiesOnly yes
  UserKnownHostsFile {dir}/known_hosts
  StrictHostKeyChecking accept-new
  ConnectTimeout 10
"""


class SshMachines:
  """See the module docstring. `ssh_config` is the client's config file (ssh -F)."""

  def __init__(self, directory: str, machines: Sequence[str] = ('node0', 'node1', 'node2')):
    self.directory, self.machines = str(directory), list(machines)
    self.network = netns_hosts.HostNetwork(['login'] + self.machines)
    self.ssh_config = os.path.join(self.directory, 'ssh_config')
    self._servers: List[subprocess.Popen] = []
    try:
      self._start()
    except Exception:
      self.close()
      raise

  def _start(self):
    d = self.directory
    os.makedirs(d, exist_ok=True)
    for key in ('host_key', 'user_key'):
      subprocess.run(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '', '-f', f'{d}/{key}'],
                     check=True, capture_output=True)
    os.makedirs('/run/sshd', exist_ok=True)  # sshd's privilege separation directory.
    entries = []
    for host in self.machines:
      address = self.network.addresses[host]
      config = os.path.join(d, f'sshd_config.{host}')
      with open(config, 'w') as f:
        f.write(_SSHD_CONFIG.format(address=address, dir=d, host=host))
      log = open(os.path.join(d, f'sshd.{host}.log'), 'w')
      self._servers.append(self.network.run(host, ['/usr/sbin/sshd', '-D', '-e', '-f', config],
                                            stdout=log, stderr=subprocess.STDOUT))
      entries.append(_CLIENT_ENTRY.format(host=host, address=address, dir=d))
    with open(self.ssh_config, 'w') as f:
      f.write('\n'.join(entries))
    deadline = time.monotonic() + 30
    while not all(self.run(['ssh', '-F', self.ssh_config, '-o', 'BatchMode=yes', host,
                            'true'], timeout=20).returncode == 0 for host in self.machines):
      if time.monotonic() > deadline:
        raise RuntimeError(f'the test ssh servers did not answer: {self.logs()}')
      time.sleep(0.5)

  def run(self, argv: Sequence[str], timeout: float = 300,
          **kwargs) -> subprocess.CompletedProcess:
    """A command on the login host."""
    return subprocess.run(self.network.in_namespace('login') + list(argv),
                          capture_output=True, text=True, timeout=timeout, check=False,
                          **kwargs)

  def logs(self) -> str:
    texts = []
    for host in self.machines:
      with open(os.path.join(self.directory, f'sshd.{host}.log'), errors='replace') as f:
        texts.append(f'--- sshd on {host}\n{f.read()[-1500:]}')
    return '\n'.join(texts)

  def close(self):
    self.network.close()  # Kills every process in the namespaces: servers and sessions.
    for server in self._servers:
      if server.poll() is None:
        server.kill()
      server.wait()

  def __enter__(self) -> 'SshMachines':
    return self

  def __exit__(self, *exc):
    self.close()
