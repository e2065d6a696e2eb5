"""The batch script of `launch.cluster up --backend=slurm`: each option a user gives
becomes the `#SBATCH` line Slurm expects, and the job runs the coordinator in place."""

from seed_graph.launch.slurm import batch_script
from seed_graph.launch.slurm import commands


def _sbatch_lines(script: str):
  return [line[len('#SBATCH '):] for line in script.splitlines()
          if line.startswith('#SBATCH ')]


def test_the_options_a_slurm_user_gives_become_sbatch_lines():
  options = batch_script.SlurmOptions(actor_hosts=4, cpus_per_host=16, learner_gpus=2,
                                      partition='gpu', account='lab', qos='high',
                                      time='1-00:00:00', extra_lines=('--mail-type=END',))
  script = batch_script.batch_script(options, '/shared/run', '/home/u/seed graph',
                                     ['/venv/bin/python', '-m', 'seed_graph.launch.slurm.job'])
  lines = _sbatch_lines(script)
  assert '--nodes=5' in lines and '--cpus-per-task=16' in lines  # Learner + 4 actor hosts.
  assert '--ntasks-per-node=1' in lines and '--no-kill' in lines
  assert '--signal=B:TERM@120' in lines and '--output=/shared/run/hosts/slurm-%j.out' in lines
  for line in ('--gres=gpu:2', '--partition=gpu', '--account=lab', '--qos=high',
               '--time=1-00:00:00', '--mail-type=END'):
    assert line in lines
  # sbatch reads #SBATCH lines only before the first command.
  body = script.splitlines()
  first_command = next(i for i, line in enumerate(body) if line and not line.startswith('#'))
  assert not [line for line in body[first_command:] if line.startswith('#SBATCH')]
  assert "cd '/home/u/seed graph'" in script  # Quoted for the shell.
  assert script.rstrip().endswith('exec /venv/bin/python -m seed_graph.launch.slurm.job')


def test_options_left_out_ask_slurm_for_nothing():
  lines = _sbatch_lines(batch_script.batch_script(batch_script.SlurmOptions(), '/r', '/c',
                                                  ['python']))
  assert not [l for l in lines if l.startswith(('--gres', '--partition', '--account',
                                                '--qos', '--time'))]


def test_the_job_gets_the_config_and_its_overrides_as_the_launcher_had_them():
  command = commands.job_command('atari_vtrace', ['env.game=Pong', 'seed=1'], '/r', 21000,
                                 'examples.population:make_program', 45.0)
  assert command[1:] == ['-m', 'seed_graph.launch.slurm.job', '--config=atari_vtrace',
                         '--logdir=/r', '--base_port=21000', '--orphan_timeout_seconds=45',
                         '--config.env.game=Pong', '--config.seed=1',
                         '--program=examples.population:make_program']
