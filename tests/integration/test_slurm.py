"""`launch.cluster --backend=slurm` against a real Slurm (tests/slurm_cluster.py: munged,
slurmctld and one slurmd per network-namespace host; root). The launcher runs on the
cluster's login host, as a user's would."""

import os
import re
import shutil
import sys
import uuid
from typing import List

import pytest

from seed_graph.launch import placement
from tests import helpers
from tests import open_ports
from tests import slurm_cluster

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason='a Slurm of namespace hosts needs root'),
    pytest.mark.skipif(not shutil.which('slurmctld'), reason=(
        'slurm-wlm is not installed: bash scripts/install_cluster_tools.sh')),
]


@pytest.fixture
def cluster(tmp_path):
  with slurm_cluster.SlurmCluster(str(tmp_path / 'slurm')) as running:
    yield running


def _cluster_command(cluster, *args, marker=''):
  return cluster.run([sys.executable, '-m', 'seed_graph.launch.cluster', *args,
                      '--backend=slurm'], cwd=helpers.REPO,
                     env=dict(cluster.env, **{helpers.MARKER_VARIABLE: marker}))


def _job_output(logdir) -> str:
  hosts = logdir / 'hosts'
  return '\n'.join(f'--- {p.name}\n{p.read_text(errors="replace")[-3000:]}'
                   for p in sorted(hosts.glob('*')) if p.suffix in ('.out', '.log'))


def _frames(logdir) -> int:
  metrics = helpers.read_metrics(logdir)
  return metrics[-1]['frames'] if metrics else 0


def _mean_return(logdir) -> float:
  metrics = helpers.read_metrics(logdir)
  return (metrics[-1].get('episode_return') or 0.0) if metrics else 0.0


def _node_state(cluster, node) -> str:
  return cluster.run(['sinfo', '--noheader', '--Node', f'--nodes={node}',
                      '--format=%t']).stdout.strip()


_SLURM_PROCESSES = ('slurmd', 'slurmstepd', 'srun')  # Their ports are Slurm's.
_FINAL_SAVE = '[learner] checkpoint '  # What the learner prints as it stops and saves.


def _learner_log(logdir) -> str:
  path = logdir / 'logs' / 'learner_0.log'
  return path.read_text(errors='replace') if path.exists() else ''


def _minutes_run(cluster, job) -> int:
  """The whole minutes `job` has run (squeue's M:SS, or H:MM:SS)."""
  elapsed = cluster.run(['squeue', '--noheader', f'--jobs={job}', '--format=%M']).stdout
  seconds = 0
  for part in elapsed.strip().split(':'):
    seconds = seconds * 60 + int(part)
  return seconds // 60


def _queued(cluster) -> str:
  return cluster.run(['squeue', '--noheader']).stdout.strip()


def _queued_jobs(cluster) -> List[str]:
  return cluster.run(['squeue', '--noheader', '--format=%i']).stdout.split()


def test_dry_run_writes_a_batch_script_the_real_sbatch_accepts(cluster, tmp_path):
  logdir = tmp_path / 'run'
  result = _cluster_command(cluster, 'up', '--config=cartpole_vtrace', f'--logdir={logdir}',
                            '--dry_run', '--actor_hosts=2', '--time=30',
                            '--partition=main', '--sbatch_line=--comment=seed',
                            '--stop_warning_seconds=300')
  assert result.returncode == 0, result.stderr[-2000:]
  script = (logdir / 'hosts' / 'slurm_job.sh').read_text()
  assert result.stdout.startswith(script)
  assert '#SBATCH --nodes=3' in script and '#SBATCH --comment=seed' in script
  assert '#SBATCH --signal=B:TERM@300' in script and '#SBATCH --time=30' in script
  test = cluster.run(['sbatch', '--test-only', str(logdir / 'hosts' / 'slurm_job.sh')])
  assert test.returncode == 0 and 'to start at' in test.stderr, test.stderr
  assert not _queued(cluster)  # --dry_run and --test-only queue nothing.
  # A bad config fails on the login node, before anything is queued.
  bad = _cluster_command(cluster, 'up', '--config=cartpole_vtrace', f'--logdir={logdir}',
                         '--config.actors.num=-1')
  assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
  assert not _queued(cluster)


def _strangers_are_refused(cluster, logdir) -> None:
  """Every port the program opens, called from the login node without the run's secret:
  the inference edge refuses the caller; the control edge knows no such method. The
  actor hosts open none."""
  plan = placement.Plan.load(str(logdir / 'hosts' / 'plan.json'))
  learner_host = plan.nodes['learner/0']
  ports = {host: open_ports.listening(cluster.network, host, _SLURM_PROCESSES)
           for host in plan.hosts}
  assert all(not ports[h] for h in plan.hosts if h != learner_host), ports
  answers = open_ports.statuses_without_secret(
      cluster.network, 'login', cluster.network.addresses[learner_host], ports[learner_host])
  assert sorted(answers.values()) == ['UNAUTHENTICATED', 'UNIMPLEMENTED'], (answers, ports)


def _lose_an_actor_node(cluster, logdir) -> List[str]:
  """Kills every process of an actor node: training goes on with the other's actors.
  Returns the actor hosts, the lost one first."""
  plan = placement.Plan.load(str(logdir / 'hosts' / 'plan.json'))
  learner_host = plan.nodes['learner/0']
  actor_hosts = sorted(set(plan.hosts) - {learner_host})
  assert sorted(plan.hosts) == cluster.nodes and len(actor_hosts) == 2
  cluster.kill_node(actor_hosts[0])
  # Once Slurm has noticed (SlurmdTimeout) and taken the node out of the job...
  assert helpers.wait_for(lambda: 'down' in _node_state(cluster, actor_hosts[0]), 120), (
      cluster.logs())
  lost_at = _frames(logdir)
  # ...the job goes on, and so does training.
  assert helpers.wait_for(lambda: _frames(logdir) > lost_at + 5_000, 120), (
      _job_output(logdir), cluster.logs())
  status = _cluster_command(cluster, 'status', f'--logdir={logdir}')
  assert status.returncode == 0 and 'RUNNING' in status.stdout, status.stdout
  return actor_hosts


def _stop_in_order(cluster, logdir, lost_host: str) -> None:
  """`stop`: the job's coordinator stops the actor hosts, then the learner's host, which
  saves; then the job leaves the queue by itself."""
  stop = _cluster_command(cluster, 'stop', f'--logdir={logdir}')
  assert stop.returncode == 0, stop.stderr
  assert helpers.wait_for(lambda: not _queued(cluster), 200), (
      _job_output(logdir), cluster.logs())
  output = _job_output(logdir)
  assert 'stopping: actor hosts first, then the learner host' in output, output
  # The lost node's agent went with its step (Slurm killed it); the others stopped
  # cleanly, the learner's host with a Ctrl-C, last.
  assert '[launcher] stopping: Ctrl-C' in output, output
  assert f"agents that failed: {{'{lost_host}': -9}}" in output, output
  assert helpers.latest_checkpoint(logdir)


def _meet_the_time_limit(cluster, logdir) -> None:
  """The site cuts the job's time limit to two or three minutes from now: once --signal's
  two minutes are reached, the job stops in order by itself, the learner saving, before
  the limit would kill it."""
  job = (logdir / 'hosts' / 'slurm_job').read_text().strip()
  saves = _learner_log(logdir).count(_FINAL_SAVE)
  cut = cluster.run(['scontrol', 'update', f'JobId={job}',
                     f'TimeLimit={_minutes_run(cluster, job) + 3}'])
  assert cut.returncode == 0, cut.stderr
  assert helpers.wait_for(lambda: not _queued(cluster), 240), (
      _job_output(logdir), cluster.logs())
  output = (logdir / 'hosts' / f'slurm-{job}.out').read_text(errors='replace')
  assert '[launcher] stopping: Ctrl-C' in output, output[-3000:]
  assert 'agents that failed' not in output and 'TIME LIMIT' not in output, output[-3000:]
  assert _learner_log(logdir).count(_FINAL_SAVE) > saves, _learner_log(logdir)[-3000:]


def _be_preempted(cluster, logdir) -> None:
  """A job of a higher partition (PriorityTier) needs a node: Slurm cancels this one as
  it does by default (PreemptMode=CANCEL, no GraceTime): SIGTERM to every process of
  the job at once, SIGKILL after KillWait (30 s). The learner saves in that time."""
  job = (logdir / 'hosts' / 'slurm_job').read_text().strip()
  saves = _learner_log(logdir).count(_FINAL_SAVE)
  urgent = cluster.run(['sbatch', '--partition=urgent', '--nodes=1', '--wrap=sleep 1',
                        f'--output={logdir.parent}/urgent-%j.out'])
  assert urgent.returncode == 0, urgent.stderr
  assert helpers.wait_for(lambda: job not in _queued_jobs(cluster), 60), (
      _job_output(logdir), cluster.logs())
  output = (logdir / 'hosts' / f'slurm-{job}.out').read_text(errors='replace')
  assert '[launcher] stopping: SIGTERM' in output, output[-3000:]
  assert _learner_log(logdir).count(_FINAL_SAVE) > saves, _learner_log(logdir)[-3000:]
  checkpoint_frames = int(re.findall(r'frames=(\d+)', _learner_log(logdir))[-1])
  assert checkpoint_frames >= _frames(logdir)  # Nothing trained is lost.


def _lose_the_learners_node(cluster, logdir, marker: str) -> None:
  """Every process of the learner's node dies. Slurm takes the node out of the job and
  keeps the actor nodes (--no-kill); their agents stop once the learner has not answered
  for --orphan_timeout_seconds, and the first to stop cancels the job. Nothing of the
  program is left, and the newest checkpoint reads whole."""
  job = (logdir / 'hosts' / 'slurm_job').read_text().strip()
  plan = placement.Plan.load(str(logdir / 'hosts' / 'plan.json'))
  cluster.kill_node(plan.nodes['learner/0'])
  assert helpers.wait_for(lambda: job not in _queued_jobs(cluster), 150), (
      _job_output(logdir), cluster.logs())
  # Cancelled by an actor host's step (seed_graph.launch.slurm.step), not at a time limit.
  shown = cluster.run(['scontrol', 'show', 'job', job]).stdout
  assert 'JobState=CANCELLED' in shown, shown
  assert helpers.wait_for(lambda: not helpers.marked_processes(marker), 60), (
      cluster.logs())
  # TensorFlow reads it; imported here, not for every test this worker collects.
  from seed_graph.nodes.learner import checkpoints  # pylint: disable=g-import-not-at-top
  directory = logdir / 'checkpoints'
  newest = sorted((p.name.split('.')[0] for p in directory.glob('ckpt-*.index')),
                  key=lambda name: int(name.split('-')[1]))[-1]
  assert checkpoints.damage(str(directory / newest)) is None


def test_trains_across_nodes_through_lost_nodes_a_stop_its_time_limit_and_a_preemption(
    cluster, tmp_path):
  logdir, marker = tmp_path / 'run', uuid.uuid4().hex
  common = ('--config=cartpole_vtrace', f'--logdir={logdir}', '--actor_hosts=2',
            '--config.logging.interval_seconds=1', '--config.logging.checkpoint_interval_seconds=5',
            '--config.total_environment_frames=1000000000')
  try:
    up = _cluster_command(cluster, 'up', *common, marker=marker)
    assert up.returncode == 0 and 'submitted job' in up.stdout, up.stderr[-2000:]
    assert helpers.wait_for(lambda: _frames(logdir) > 5_000, 240), (
        _job_output(logdir), cluster.logs())
    _strangers_are_refused(cluster, logdir)
    lost_host, kept_host = _lose_an_actor_node(cluster, logdir)
    _stop_in_order(cluster, logdir, lost_host)
    stopped_at = _frames(logdir)
    cluster.revive_node(lost_host)
    # `up` again with the same logdir resumes...
    again = _cluster_command(cluster, 'up', *common, '--time=30', marker=marker)
    assert again.returncode == 0 and 'resuming from' in again.stdout, again.stdout
    assert helpers.wait_for(lambda: _frames(logdir) > stopped_at + 5_000, 240), (
        _job_output(logdir), cluster.logs())
    resumed = [m for m in helpers.read_metrics(logdir) if m['frames'] > stopped_at]
    assert resumed[0]['frames'] < stopped_at + 5_000  # No restart from zero.
    # Across the three hosts, a lost one and a restart, it learns as on one machine
    # (the learning tier's target: a mean training return of 450).
    assert helpers.wait_for(lambda: _mean_return(logdir) >= 450, 300), (
        helpers.read_metrics(logdir)[-1], _job_output(logdir))
    _meet_the_time_limit(cluster, logdir)
    logs = _cluster_command(cluster, 'logs', f'--logdir={logdir}')
    assert logs.returncode == 0 and f'{kept_host}.log' in logs.stdout
    # Once more, until a job of a higher priority takes its nodes.
    stopped_at = _frames(logdir)
    assert _cluster_command(cluster, 'up', *common, marker=marker).returncode == 0
    assert helpers.wait_for(lambda: _frames(logdir) > stopped_at + 2_000, 240), (
        _job_output(logdir), cluster.logs())
    _be_preempted(cluster, logdir)
    # Once more, until the learner's node fails.
    stopped_at = _frames(logdir)
    assert _cluster_command(cluster, 'up', *common, '--orphan_timeout_seconds=10',
                            marker=marker).returncode == 0
    assert helpers.wait_for(lambda: _frames(logdir) > stopped_at + 2_000, 240), (
        _job_output(logdir), cluster.logs())
    _lose_the_learners_node(cluster, logdir, marker)
  finally:
    for process in helpers.marked_processes(marker):
      process.kill()
