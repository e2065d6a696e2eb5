"""The Atari suite's page (`benchmarks.atari_report`, `benchmarks.atari_page`) from run
directories written here: a row per setting (a config, or a named variant with its
overrides), a command for each setting, an unfinished run's too, and the anchor's frames
and wall-clock where a run reached it."""

import json

from benchmarks import atari_plot
from benchmarks import atari_report


def _run(root, directory, seed, returns, variant='', overrides=(), launches=None,
         budget=2_000_000, config='atari_cleanrl_vtrace', eval_returns=()):
  """A Pong run (finished at 2M frames by default): a record every 0.5M frames, a minute
  apart, the evaluator's return in the first `len(eval_returns)` of them."""
  run = root / 'Pong' / directory
  run.mkdir(parents=True)
  suite = {'config': config, 'overrides': list(overrides),
           'game': 'Pong', 'seed': seed, 'frames': budget,
           'launches': launches or [{'commit': 'abc1234', 'time': '2026-11-26 02:00'}]}
  if variant:
    suite['variant'] = variant
  (run / atari_report.SUITE_FILE).write_text(json.dumps(suite))
  records = [{'frames': 500_000 * (i + 1), 'episode_return': r, 'wall_time': 60.0 * (i + 1)}
             for i, r in enumerate(returns)]
  for record, eval_return in zip(records, eval_returns):
    record['eval_episode_return'] = eval_return
  (run / 'metrics.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in records))


def test_each_setting_is_a_row_of_its_own_with_its_command(tmp_path):
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5])
  _run(root, 'seed1', 1, [-20.0, -5.0, 18.0, 19.5])
  _run(root, 'epochs2-seed0', 0, [-21.0, -15.0, 5.0, 12.0], 'epochs2',
       ['learner.epochs=2'])
  _run(root, 'epochs1-seed0', 0, [-21.0, -19.0], 'epochs1', ['learner.epochs=1'])
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  rows = [line for line in page.splitlines() if line.startswith('| Pong |')]
  assert rows[0].startswith('| Pong | atari_cleanrl_vtrace | 2 | 2M | 20.00 ± 0.71 |')
  assert '| 1 of 2: 2.0M | 0.07 h |' in rows[0]  # Seed 0 reached 20.36 at its 4th minute.
  assert rows[1].startswith('| Pong | atari_cleanrl_vtrace epochs2 | 1 | 2M | 12.00 ± 0.00 |')
  assert ('--games=Pong --seeds=0 --frames=2000000 --variant=epochs2 '
          '--config.learner.epochs=2') in page
  assert '--games=Pong --seeds=0,1 --frames=2000000\n' in page
  # An unfinished run has no row of its own but a line under every run, and its command.
  assert '| Pong | atari_cleanrl_vtrace epochs1 | 0 | 1.00M of 2M (unfinished) |' in page
  assert '--variant=epochs1 --config.learner.epochs=1' in page
  runs = json.loads((tmp_path / 'page' / 'atari.json').read_text())['runs']
  assert sorted((r['variant'], r['seed']) for r in runs) == [('', 0), ('', 1), ('epochs2', 0)]
  assert (tmp_path / 'page' / 'atari.png').stat().st_size > 0


def test_an_unfinished_run_that_reached_the_anchor_shows_when_on_its_row(tmp_path):
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-20.0, 20.5, 20.6], budget=4_000_000)  # 20.5 at 1M, 2 minutes.
  _run(root, 'seed1', 1, [-20.0, -19.0], budget=4_000_000)
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  assert '| 1.50M of 4M (unfinished) | 20.60 | - | - | 1.0M, 0.03 h | 0.05 h |' in page
  assert '| 1.00M of 4M (unfinished) | -19.00 | - | - | - | 0.03 h |' in page


def test_a_launch_made_with_other_overrides_than_the_runs_setting_says_so(tmp_path):
  # Started as a variant, then the preset took on its override: the run is the preset's.
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5], launches=[
      {'commit': 'abc1234', 'time': '2026-11-26 02:00',
       'overrides': ['network.initialization=orthogonal']},
      {'commit': 'def5678', 'time': '2026-11-26 03:00', 'overrides': []}])
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  assert '`abc1234 with network.initialization=orthogonal, def5678` | - |' in page


def test_a_run_shows_the_cpu_kinds_its_launches_trained_on(tmp_path):
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5], launches=[
      {'commit': 'abc1234', 'time': '2026-11-26 02:00'},
      {'commit': 'def5678', 'time': '2026-11-26 03:00', 'cpu': 'AMD EPYC 9B14 (AVX512-BF16)'},
      {'commit': 'def5678', 'time': '2026-11-26 04:00', 'cpu': 'Intel(R) Xeon(R) (AMX)'},
      {'commit': 'def5678', 'time': '2026-11-26 05:00', 'cpu': 'AMD EPYC 9B14 (AVX512-BF16)'}])
  _run(root, 'seed1', 1, [-20.0, 0.0, 19.0, 20.5])
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  assert '| ?, AVX512-BF16, AMX | `abc1234, def5678` |' in page
  assert '| - | `abc1234` |' in page  # Seed 1 recorded none.
  runs = json.loads((tmp_path / 'page' / 'atari.json').read_text())['runs']
  assert runs[0]['cpus'] == ['unrecorded', 'AMD EPYC 9B14 (AVX512-BF16)',
                             'Intel(R) Xeon(R) (AMX)']


def test_runs_recorded_on_the_page_but_not_under_the_root_stay(tmp_path):
  # A first machine writes the page; a second has only its own new run, and seed 1's
  # logdir, which supersedes the page's record of it.
  first, second, page = tmp_path / 'first', tmp_path / 'second', tmp_path / 'page'
  _run(first, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5])
  _run(first, 'seed1', 1, [-20.0, -5.0])
  atari_report.write(str(first), str(page))
  _run(second, 'seed1', 1, [-20.0, -5.0, 18.0, 19.5])
  atari_report.write(str(second), str(page))
  record = json.loads((page / 'atari.json').read_text())
  assert [(r['seed'], r['final_return']) for r in record['runs']] == [(1, 19.5), (0, 20.5)]
  assert record['unfinished'] == []
  assert record['runs'][1]['curve'] == [[500000, -20.0], [1000000, 0.0], [1500000, 19.0],
                                        [2000000, 20.5]]
  rows = [l for l in (page / 'atari.md').read_text().splitlines() if l.startswith('| Pong |')]
  assert rows[0].startswith('| Pong | atari_cleanrl_vtrace | 2 | 2M | 20.00 ± 0.71 |')


def test_a_seed_run_again_at_another_budget_is_a_row_of_its_own(tmp_path):
  # The page was written when presets were named by their path in the checkout; the
  # seed is then trained again, from nothing, to twice the budget, on another machine.
  first, second, page = tmp_path / 'first', tmp_path / 'second', tmp_path / 'page'
  _run(first, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5], config='configs/atari_cleanrl_vtrace.py')
  atari_report.write(str(first), str(page))
  _run(second, 'seed0', 0, [-20.0, -10.0, 0.0, 10.0, 15.0, 19.0, 20.0, 21.0],
       budget=4_000_000, launches=[{'commit': 'fed9876', 'time': '2026-11-28 00:00'}])
  atari_report.write(str(second), str(page))
  record = json.loads((page / 'atari.json').read_text())
  assert sorted((r['budget'], r['config']) for r in record['runs']) == [
      (2_000_000, 'atari_cleanrl_vtrace'), (4_000_000, 'atari_cleanrl_vtrace')]
  rows = [l for l in (page / 'atari.md').read_text().splitlines() if l.startswith('| Pong |')]
  assert rows[0].startswith('| Pong | atari_cleanrl_vtrace | 1 | 2M | 20.50 ± 0.00 |')
  assert rows[1].startswith('| Pong | atari_cleanrl_vtrace | 1 | 4M | 21.00 ± 0.00 |')


def test_the_page_keeps_at_most_its_number_of_points_of_a_curve(tmp_path):
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [float(i) for i in range(4)])
  run = atari_report.read_runs(str(root))[0]
  long_run = {**run, 'curve': [(i, float(i)) for i in range(1, 1001)]}
  curve = atari_report.sparse(long_run, points=100)['curve']
  assert len(curve) == 100 and curve[-1] == [1000, 1000.0] and curve[0] == [10, 10.0]


def test_an_unfinished_seed_does_not_cut_its_settings_curve_short():
  finished = [(0, 0.0), (1_000_000, 10.0), (2_000_000, 20.0)]
  unfinished = [(0, 2.0), (500_000, 7.0)]
  grid, mean, low, high = atari_plot.seeds_curve([finished, unfinished], points=5)
  assert list(grid) == [0, 500_000, 1_000_000, 1_500_000, 2_000_000]
  assert list(mean) == [1.0, 6.0, 10.0, 15.0, 20.0]  # Past 0.5M, the finished run alone.
  assert list(low) == [0.0, 5.0, 10.0, 15.0, 20.0]
  assert list(high) == [2.0, 7.0, 10.0, 15.0, 20.0]


def _evaluated(run, checkpoint, newest, mean, std, episodes=10):
  """`launch.eval`'s eval.json for `checkpoint`, and `newest` as the run's newest."""
  (run / 'checkpoints').mkdir(exist_ok=True)
  (run / 'checkpoints' / 'checkpoint').write_text(f'model_checkpoint_path: "{newest}"\n')
  (run / 'eval.json').write_text(json.dumps({
      'checkpoint': str(run / 'checkpoints' / checkpoint), 'learner_steps': 9,
      'epsilon': 0.01, 'episodes': episodes, 'mean_return': mean, 'std_return': std,
      'results': []}))


def test_the_final_checkpoints_games_are_the_evaluated_return(tmp_path):
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-20.0, 0.0, 19.0, 15.0], eval_returns=[-20.0, 3.0, 20.0, 21.0])
  _run(root, 'seed1', 1, [-20.0, -5.0, 18.0, 19.5], eval_returns=[-21.0, 19.0])  # Its last.
  _run(root, 'seed2', 2, [-20.0, -5.0, 18.0, 19.0])
  _evaluated(root / 'Pong' / 'seed0', 'ckpt-7', 'ckpt-7', 20.5, 0.81)
  _evaluated(root / 'Pong' / 'seed1', 'ckpt-7', 'ckpt-7', 19.5, 1.2, episodes=4)
  _evaluated(root / 'Pong' / 'seed2', 'ckpt-5', 'ckpt-7', -21.0, 0.0)  # An older one's.
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  summary = next(line for line in page.splitlines() if line.startswith('| Pong | atari'))
  assert summary.startswith('| Pong | atari_cleanrl_vtrace | 3 | 2M | 17.83 ± 2.47 '
                            '| 20.00 ± 0.71 (2 seeds) | 20.00 ± 1.41 |')
  assert '| Pong | atari_cleanrl_vtrace | 0 | 2.00M | 15.00 | 20.50 ± 0.81 (10) | 21.00 |' in page
  assert '| Pong | atari_cleanrl_vtrace | 1 | 2.00M | 19.50 | 19.50 ± 1.20 (4) | 19.00 |' in page
  assert '| Pong | atari_cleanrl_vtrace | 2 | 2.00M | 19.00 | - | - |' in page
  runs = json.loads((tmp_path / 'page' / 'atari.json').read_text())['runs']
  assert [r['evaluated'] and r['evaluated']['episodes'] for r in runs] == [10, 4, None]
  assert [r['final_eval_return'] for r in runs] == [21.0, 19.0, None]


def test_a_seed_started_again_from_nothing_is_named_once_in_its_command(tmp_path):
  # The seed's earlier run, whose logdir is gone, stays on the page beside the new one.
  root = tmp_path / 'runs'
  _run(root, 'seed0', 0, [-21.0, -20.5], budget=4_000_000,
       launches=[{'commit': 'abc1234', 'time': '2026-11-26 02:00'}])
  atari_report.write(str(root), str(tmp_path / 'page'))
  (root / 'Pong' / 'seed0').rename(tmp_path / 'gone')
  _run(root, 'seed0', 0, [-21.0], budget=4_000_000,
       launches=[{'commit': 'def5678', 'time': '2026-11-27 02:00'}])
  atari_report.write(str(root), str(tmp_path / 'page'))
  page = (tmp_path / 'page' / 'atari.md').read_text()
  assert '| 0 | 1.00M of 4M (unfinished)' in page and '| 0 | 0.50M of 4M (unfinished)' in page
  assert '--games=Pong --seeds=0 --frames=4000000\n' in page


def test_each_algorithms_runs_have_a_json_of_their_own(tmp_path):
  root, page = tmp_path / 'runs', tmp_path / 'page'
  _run(root, 'seed0', 0, [-20.0, 0.0, 19.0, 20.5])
  _run(root, 'r2d2-seed0', 0, [-21.0, -10.0], config='atari_cleanrl_r2d2')
  atari_report.write(str(root), str(page))
  vtrace = json.loads((page / 'atari.json').read_text())
  r2d2 = json.loads((page / 'r2d2.json').read_text())
  assert vtrace['algorithm'] == 'vtrace' and r2d2['algorithm'] == 'r2d2'
  assert [r['config'] for r in vtrace['runs']] == ['atari_cleanrl_vtrace']
  assert [r['config'] for r in r2d2['unfinished']] == ['atari_cleanrl_r2d2']
  # A record written before runs named their algorithm goes to its algorithm's JSON.
  (root / 'Pong' / 'r2d2-seed0').rename(tmp_path / 'gone')
  for run in r2d2['unfinished']:
    del run['algorithm']
  (page / 'atari.json').write_text(json.dumps(
      {'runs': vtrace['runs'], 'unfinished': r2d2['unfinished']}))
  (page / 'r2d2.json').unlink()
  atari_report.write(str(root), str(page))
  r2d2 = json.loads((page / 'r2d2.json').read_text())
  assert [r['config'] for r in r2d2['unfinished']] == ['atari_cleanrl_r2d2']
  assert not json.loads((page / 'atari.json').read_text())['unfinished']
  assert '| Pong | atari_cleanrl_r2d2 | 0 | 1.00M of 2M (unfinished)' in (
      page / 'atari.md').read_text()


def test_a_seed_trained_again_to_the_same_budget_counts_once_by_its_newest_run(tmp_path):
  root, output = tmp_path / 'runs', tmp_path / 'page'
  _run(root, 'seed0', 0, [-21.0, 0.0, 10.0, 14.0],
       launches=[{'commit': 'abc1234', 'time': '2026-11-26 02:00'}])
  atari_report.write(str(root), str(output))
  (root / 'Pong' / 'seed0').rename(tmp_path / 'gone')  # Recorded on the page only.
  _run(root, 'seed0', 0, [-21.0, 5.0, 19.0, 20.5],
       launches=[{'commit': 'def5678', 'time': '2026-12-05 02:00'}])
  _run(root, 'seed1', 1, [-21.0, 0.0, 18.0, 19.5])
  atari_report.write(str(root), str(output))
  page = (output / 'atari.md').read_text()
  assert '| Pong | atari_cleanrl_vtrace | 2 | 2M | 20.00 ± 0.71 |' in page
  assert '| Pong | atari_cleanrl_vtrace | 0 | 2.00M | 14.00 |' in page  # Still listed.
  # Its JSON keeps both, the older one first as recorded.
  runs = json.loads((output / 'atari.json').read_text())['runs']
  assert sorted(run['final_return'] for run in runs if run['seed'] == 0) == [14.0, 20.5]
