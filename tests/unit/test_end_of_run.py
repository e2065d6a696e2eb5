"""The launcher's last line: how far the run got, what it scored, what was saved and what
to run next."""

import json

from seed_graph.launch.runs import end_of_run


def _run(tmp_path, frames, checkpoint='ckpt-7'):
  (tmp_path / 'metrics.jsonl').write_text(json.dumps(
      {'frames': frames, 'episode_return': 488.25, 'eval_episode_return': 500.0}) + '\n')
  if checkpoint:
    (tmp_path / 'checkpoints').mkdir()
    (tmp_path / 'checkpoints' / 'checkpoint').write_text(
        f'model_checkpoint_path: "{checkpoint}"\nall_model_checkpoint_paths: "ckpt-6"\n')
  return str(tmp_path)


def test_a_finished_run_says_what_it_scored_and_how_to_evaluate_it(tmp_path):
  logdir = _run(tmp_path, 500_224)
  assert end_of_run.summary(logdir, 500_000) == (
      f'finished: 500k frames, return 488.2, eval 500; checkpoint {logdir}/checkpoints/'
      f'ckpt-7; evaluate and film it: python -m seed_graph.launch.eval --logdir={logdir} '
      f'--video={logdir}/films')


def test_a_stopped_run_says_where_it_stopped_and_that_the_command_resumes(tmp_path):
  logdir = _run(tmp_path, 123_456)
  assert end_of_run.summary(logdir, 500_000) == (
      f'stopped at 123k of 500k frames, return 488.2, eval 500; saved {logdir}/'
      'checkpoints/ckpt-7; the same command resumes it')


def test_a_resumed_run_says_from_which_checkpoint(tmp_path):
  logdir = _run(tmp_path, 123_456)
  assert end_of_run.resuming(logdir) == (
      f'resuming from {logdir}/checkpoints/ckpt-7 (its last metrics: 123k frames)')
  assert end_of_run.resuming(str(tmp_path / 'new')) is None


def test_a_run_that_saved_nothing_says_so(tmp_path):
  assert end_of_run.summary(_run(tmp_path, 1_000, checkpoint=None), 500_000).startswith(
      'stopped before the learner saved a checkpoint')
