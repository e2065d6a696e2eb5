"""Every gcloud command `launch.cluster` would run (`up`, a restart, `status`, `logs`,
`stop`, `down`) is accepted by the installed Google Cloud CLI's parser.

Each runs for real, with no account, an empty configuration directory and a scratch home
(gcloud's ssh and scp make a key there), inside a network namespace with nothing but a
down loopback, so nothing can leave the machine: a command gcloud can parse stops at
"You do not currently have an active account selected"; one it cannot parse fails with
"unrecognized arguments" or "Invalid value" first."""

from concurrent import futures
import os
import shlex
import shutil
import subprocess
import sys

import pytest

from tests import helpers

_WHERE = ['--project=my-project', '--zone=europe-west4-a', '--run_id=pong1']
_UP = ['up', '--config=atari_vtrace', '--logdir=runs/pong1', *_WHERE,
       '--actor_hosts=2', '--learner_accelerator=v3-8', '--config.actors.num=4']
_ACCEPTED = 'You do not currently have an active account selected'


def _gcloud_commands(*args):
  result = subprocess.run([sys.executable, '-m', 'seed_graph.launch.cluster', *args,
                           '--dry_run'], cwd=helpers.REPO, capture_output=True, text=True,
                          timeout=120)
  assert result.returncode == 0, result.stderr[-2000:]
  return [shlex.split(line) for line in result.stdout.splitlines()
          if line.startswith('gcloud ')]


def _refusal(home, command):
  """gcloud's refusal of `command`, or None if its parser accepted it. Each command has
  its own home and configuration: gcloud writes both (ssh keys, databases)."""
  (home / 'config').mkdir(parents=True)
  env = dict(os.environ, HOME=str(home), CLOUDSDK_CONFIG=str(home / 'config'),
             CLOUDSDK_CORE_CHECK_GCE_METADATA='false',
             CLOUDSDK_CORE_DISABLE_USAGE_REPORTING='true',
             CLOUDSDK_CORE_DISABLE_PROMPTS='true')
  result = subprocess.run(['unshare', '--net', *command], env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
  if _ACCEPTED not in result.stderr:
    return f'{shlex.join(command)}\n  -> {result.stderr.strip()[:500]}'
  return None


def test_the_cloud_cli_parses_every_command_of_the_cluster_launcher(tmp_path):
  if not shutil.which('gcloud'):
    pytest.skip('the Google Cloud CLI (gcloud) is not installed')
  if subprocess.run(['unshare', '--net', 'true'], capture_output=True).returncode:
    pytest.skip('no network namespace to be had here (unshare --net needs root)')
  launches = [_UP, [*_UP, '--spot'], [*_UP, '--restart_host=cpu1'],
              *[[verb, *_WHERE] for verb in ('status', 'logs', 'stop', 'down')]]
  # Two at a time: each is mostly a Python start-up on one core.
  with futures.ThreadPoolExecutor(max_workers=2) as pool:
    commands = [c for listed in pool.map(lambda args: _gcloud_commands(*args), launches)
                for c in listed]
    commands = list({shlex.join(c): c for c in commands}.values())  # Each once.
    assert len(commands) >= 20
    refused = [r for r in pool.map(_refusal, [tmp_path / f'home{i}' for i in
                                              range(len(commands))], commands) if r]
  assert not refused, '\n'.join(refused)
