"""The planned learner restart's trigger (`seed_graph.nodes.learner.planned_restart`): the first
checkpoint sets the baseline, a restart is due once memory has grown the given percent."""

from seed_graph.nodes.learner import planned_restart


def test_a_restart_is_due_once_memory_has_grown_the_given_percent():
  sizes = iter([400, 410, 419, 420, 500])
  bound = planned_restart.MemoryBound(5.0, read_bytes=lambda: next(sizes) * 2**20)
  assert bound.check() is None and bound.baseline == 400 * 2**20  # The baseline.
  assert bound.check() is None  # +2.5%
  assert bound.check() is None  # +4.75%
  reason = bound.check()  # +5%
  assert reason == ('resident memory 420 MiB, 5.0% over its 400 MiB at the first '
                    'checkpoint (logging.memory_restart_percent=5, '
                    'memory_restart_min_mib=0)')


def test_a_restart_also_waits_for_the_growth_in_mib():
  sizes = iter([800, 880, 1055, 1056])  # +10% after the warm-up, then past 256 MiB.
  bound = planned_restart.MemoryBound(5.0, min_bytes=256 * 2**20,
                                      read_bytes=lambda: next(sizes) * 2**20)
  assert bound.check() is None and bound.check() is None and bound.check() is None
  assert bound.check().startswith('resident memory 1056 MiB, 32.0% over its 800 MiB')


def test_zero_means_never():
  bound = planned_restart.MemoryBound(0.0, read_bytes=lambda: 1 / 0)  # Never even reads.
  assert bound.check() is None and bound.check() is None


def test_it_reads_this_process_by_default():
  assert planned_restart.resident_bytes() > 10 * 2**20
