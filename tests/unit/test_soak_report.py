"""benchmarks.soak's memory report (benchmarks/memory_growth.py): each node from its own
first sample in the window (one that starts late, on a busy machine, is still reported), its
growth and its replacements (a new pid)."""

from benchmarks import memory_growth


def _sample(minute, rss, pids):
  return {'minute': minute, 'rss': rss, 'pids': pids}


def test_a_node_that_starts_late_is_reported_from_its_first_sample():
  samples = [_sample(0.0, {'launcher': 100.0}, {'launcher': 1}),
             _sample(0.3, {'launcher': 100.0}, {'launcher': 1}),
             _sample(0.4, {'launcher': 101.0, 'learner/0': 500.0},
                     {'launcher': 1, 'learner/0': 2}),
             _sample(0.6, {'launcher': 101.0, 'learner/0': 550.0},
                     {'launcher': 1, 'learner/0': 2})]
  report = memory_growth.growth_report(samples, base_minute=5.0)  # A short run: from minute 0.3.
  assert set(report) == {'launcher', 'learner/0'}
  assert report['learner/0']['rss_mib_base'] == 500.0
  assert report['learner/0']['growth_percent'] == 10.0
  assert report['learner/0']['replaced'] == 0
  assert report['launcher']['rss_mib_base'] == 100.0


def test_a_replaced_node_counts_its_replacements_and_its_peak():
  samples = [_sample(m, {'learner/0': rss}, {'learner/0': pid})
             for m, rss, pid in ((6, 400.0, 2), (7, 420.0, 2), (8, 300.0, 3), (9, 310.0, 3))]
  report = memory_growth.growth_report(samples, base_minute=5.0)
  assert report['learner/0']['replaced'] == 1
  assert report['learner/0']['projected_24h_percent'] == 5.0  # Its peak over its base.
