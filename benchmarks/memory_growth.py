"""What benchmarks.soak reports of its memory samples (each `{'minute', 'rss': {node:
MiB}, 'pids': {node: pid}}`): each node's growth from a base minute on, its slope, its
replacements, and the peaks. Apart from soak.py so that tests import it without soak's
command-line flags (absl allows a flag name once per process)."""


def growth_report(samples, base_minute: float) -> dict:
  """Per process, from its first sample at `base_minute` on: RSS then and at the end, the
  growth between them, the slope of its RSS, how often it was replaced (a planned or
  crash restart: a new pid), and its growth projected over 24 hours."""
  base_minute = min(base_minute, samples[-1]['minute'] / 2)  # Short trial runs.
  window = [s for s in samples if s['minute'] >= base_minute]
  report = {}
  for name in sorted(window[-1]['rss']):
    # A node that started late (a slow start-up, on a busy machine) is taken from its
    # first sample: leaving it out would report a run without its learner.
    base = next(s['rss'][name] for s in window if name in s['rss'])
    report[name] = {'rss_mib_base': round(base, 1),
                    'rss_mib_end': round(window[-1]['rss'][name], 1),
                    'growth_percent': round(100 * (window[-1]['rss'][name] / base - 1), 1),
                    **projection(name, window, base)}
  return report


def projection(name: str, window, base: float) -> dict:
  """The slope (MiB/hour) of `name`'s RSS in its longest stretch as one process, and its
  growth over `base` projected to 24 hours: that slope carried on, or, if the process was
  replaced in the window (its growth restarts from the start), the highest it reached."""
  stretches, pid = [], None
  for sample in window:
    if name not in sample['rss']:
      continue
    if sample.get('pids', {}).get(name) != pid or not stretches:
      stretches.append([])
      pid = sample.get('pids', {}).get(name)
    stretches[-1].append((sample['minute'] / 60, sample['rss'][name]))
  longest = max(stretches, key=len)
  slope = _least_squares_slope(longest)
  if len(stretches) > 1:
    peak = max(rss for stretch in stretches for _, rss in stretch)
    projected = 100 * (peak / base - 1)
  else:
    projected = 100 * slope * 24 / base
  return {'slope_mib_per_hour': round(slope, 2), 'replaced': len(stretches) - 1,
          'projected_24h_percent': round(projected, 1)}


def _least_squares_slope(points) -> float:
  if len(points) < 2:
    return 0.0
  mean_x = sum(x for x, _ in points) / len(points)
  mean_y = sum(y for _, y in points) / len(points)
  spread = sum((x - mean_x) ** 2 for x, _ in points)
  return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def peaks(samples) -> dict:
  """The highest RSS (MiB) of each process, and of all of them in one sample."""
  by_node = {}
  for sample in samples:
    for name, rss in sample['rss'].items():
      by_node[name] = max(by_node.get(name, 0.0), rss)
  return {'total_rss_mib': round(max((sum(s['rss'].values()) for s in samples), default=0), 1),
          'rss_mib_by_node': {name: round(rss, 1) for name, rss in sorted(by_node.items())}}
