"""Linux network namespaces standing in for hosts (root only): what
`launch.cluster up --backend=netns` runs a program on, and the multi-host tests use.

`HostNetwork(names)` makes one namespace per host, each with a veth link to a bridge
that lives in a namespace of its own (so the test's own namespace gets no interface and
no route), addresses 10.200.0.1, .2, ... in host order, and loopback up. `run(host,
argv)` starts a process inside a host; `cut(host)` takes its link down without closing
any connection (a host that vanished), `restore(host)` brings it back. `close()` kills
every process left in the namespaces and deletes them, also after a failure.
"""

import subprocess
import uuid
from typing import Dict, List


def _ip(*args: str):
  subprocess.run(['ip', *args], check=True, capture_output=True, text=True)


class HostNetwork:
  """See the module docstring. Use as a context manager."""

  def __init__(self, hosts: List[str]):
    tag = uuid.uuid4().hex[:6]
    self._bridge = f'sg{tag}-sw'
    self.namespaces: Dict[str, str] = {h: f'sg{tag}-{i}' for i, h in enumerate(hosts)}
    self.addresses = {h: f'10.200.0.{i + 1}' for i, h in enumerate(hosts)}
    self._links = {h: (f'sg{tag}h{i}', f'sg{tag}s{i}') for i, h in enumerate(hosts)}
    self._made: List[str] = []
    try:
      self._build()
    except Exception:
      self.close()
      raise

  def _build(self):
    _ip('netns', 'add', self._bridge)
    self._made.append(self._bridge)
    _ip('-n', self._bridge, 'link', 'add', 'br0', 'type', 'bridge')
    _ip('-n', self._bridge, 'link', 'set', 'br0', 'up')
    for host, namespace in self.namespaces.items():
      _ip('netns', 'add', namespace)
      self._made.append(namespace)
      inside, switch_side = self._links[host]
      _ip('link', 'add', inside, 'netns', namespace, 'type', 'veth', 'peer', 'name',
          switch_side, 'netns', self._bridge)
      _ip('-n', self._bridge, 'link', 'set', switch_side, 'master', 'br0', 'up')
      _ip('-n', namespace, 'addr', 'add', f'{self.addresses[host]}/24', 'dev', inside)
      _ip('-n', namespace, 'link', 'set', inside, 'up')
      _ip('-n', namespace, 'link', 'set', 'lo', 'up')

  def in_namespace(self, host: str) -> List[str]:
    """The command prefix that runs a command inside `host`."""
    return ['ip', 'netns', 'exec', self.namespaces[host]]

  def run(self, host: str, argv: List[str], **popen_kwargs) -> subprocess.Popen:
    return subprocess.Popen(self.in_namespace(host) + list(argv), **popen_kwargs)

  def pids(self, host: str) -> List[int]:
    result = subprocess.run(['ip', 'netns', 'pids', self.namespaces[host]],
                            capture_output=True, text=True, check=False)
    return [int(pid) for pid in result.stdout.split()]

  def cut(self, host: str):
    _ip('-n', self._bridge, 'link', 'set', self._links[host][1], 'down')

  def restore(self, host: str):
    _ip('-n', self._bridge, 'link', 'set', self._links[host][1], 'up')

  def close(self):
    for namespace in reversed(self._made):
      pids = subprocess.run(['ip', 'netns', 'pids', namespace], capture_output=True,
                            text=True, check=False).stdout.split()
      if pids:
        subprocess.run(['kill', '-9', *pids], check=False, capture_output=True)
      subprocess.run(['ip', 'netns', 'del', namespace], check=False, capture_output=True)
    self._made = []

  def __enter__(self) -> 'HostNetwork':
    return self

  def __exit__(self, *exc):
    self.close()
