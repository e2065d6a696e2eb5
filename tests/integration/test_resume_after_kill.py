"""A run ended outright (every process SIGKILLed at once, as when its machine goes away)
and launched again with the same command resumes from its newest periodic checkpoint:
its frames, learner steps and learning-rate schedule go on from there, and it ends at its
budget with its learning rate decayed to about zero, as a run never stopped does."""

import signal
import uuid

import psutil

from tests import helpers

_BUDGET = 24_000
_FLAGS = [*helpers.SMALL_VTRACE_FLAGS, f'--config.total_environment_frames={_BUDGET}',
          '--config.logging.checkpoint_interval_seconds=2']


def _learning_rate(record) -> float:
  return record['learning_rate_applied']


def _trained(records):
  """The records written after a training step (the first after a start has none)."""
  return [r for r in records if 'learning_rate_applied' in r]


def test_a_killed_run_resumes_its_frames_steps_and_schedule(tmp_path):
  killed = tmp_path / 'killed'
  marker = uuid.uuid4().hex
  launcher = helpers.start_launch(killed, marker, *_FLAGS)
  try:
    assert helpers.wait_for(lambda: helpers.read_metrics(killed) and helpers.read_metrics(
        killed)[-1]['frames'] > _BUDGET // 2, 240), helpers.launch_output(killed)
    assert (killed / 'checkpoints' / 'checkpoint').exists()
  finally:
    # Nothing gets to save: the launcher and every node at once.
    for process in [psutil.Process(launcher.pid), *helpers.marked_processes(marker)]:
      try:
        process.send_signal(signal.SIGKILL)
      except psutil.NoSuchProcess:
        pass
    launcher.wait()
  psutil.wait_procs(helpers.marked_processes(marker), timeout=60)
  before = helpers.read_metrics(killed)

  resumed_end = helpers.train_to_the_end(killed, *_FLAGS, config='cartpole_vtrace')
  after = helpers.read_metrics(killed)[len(before):]
  # No gap and no fresh start: the first record after the restart (the checkpoint's
  # counters) is within a checkpoint interval of the last one before the kill, either
  # side (a checkpoint may be up to a logging interval newer than the last record).
  assert abs(after[0]['frames'] - before[-1]['frames']) <= 3_000, (before[-1], after[0])
  assert abs(after[0]['learner_steps'] - before[-1]['learner_steps']) <= 100
  assert after[0]['frames'] > before[-1]['frames'] // 2
  # The schedule goes on from the checkpoint: killed halfway, the run was at about half
  # its top rate (2e-3); a restarted schedule would be back at the top.
  top = _learning_rate(_trained(before)[0])
  assert abs(_learning_rate(_trained(after)[0]) - _learning_rate(_trained(before)[-1])) <= (
      0.2 * top)
  # And it ends where a run never stopped ends: at its budget (the learner stops within a
  # step of it), at the bottom of the schedule, which decays linearly to 0 there.
  assert _BUDGET <= resumed_end['frames'] <= _BUDGET + 2_000, resumed_end
  assert _learning_rate(_trained(after)[-1]) <= 0.05 * top, _trained(after)[-1]
