"""The launcher's console: which node lines reach it, the status line on a terminal and
elsewhere, the status text computed from successive `get_stats` answers, and the
reporter that polls them."""

import io
import time

import courier
import portpicker

import seed_graph as sg
from seed_graph.inference import transport
from seed_graph.launch.supervision import console as console_lib
from seed_graph.launch.supervision import status
from tests import helpers


def test_the_filter_shows_warnings_errors_and_whole_tracebacks_only():
  shown = console_lib.ConsoleFilter()
  lines = {
      'I1123 21:01:12.014782 140156690398080 courier_utils.py:120] Binding: get_stats': False,
      'W1123 21:01:20.908315 139795045301120 actor.py:97] actor: edge unavailable': True,
      'E1123 21:01:20.908315 139795045301120 learner.py:9] inference failed': True,
      'WARNING:tensorflow:Value in checkpoint could not be found': True,
      '[learner] frames=11600 learner_steps=72 fps=2307 episode_return=22.49': False,
      'A.L.E: Arcade Learning Environment (version 0.8.1+unknown)': False,
      'Waiting for workers to stop for 120s.': False,
      'CONSOLE: member 1 (return 23) copied member 0 (return 181)': True,  # tell_console
  }
  for line, expected in lines.items():
    assert shown.shows(line) == expected, line
  traceback = ['Traceback (most recent call last):',
               '  File "/x/learner.py", line 3, in run',
               '    self._train(batch)',
               'ValueError: a bad batch']
  assert all(shown.shows(line) for line in traceback)
  assert not shown.shows('[learner] frames=1 learner_steps=1')  # Over after its last line.


def test_a_terminal_keeps_the_status_line_below_printed_lines():
  stream = io.StringIO()
  console = console_lib.Console(stream, interactive=True)
  console.status('0:00:01 | waiting')
  console.node_line('actor/0', 'W1123 21:01:20.9 1 actor.py:97] slow',
                    console_lib.ConsoleFilter())
  console.node_line('actor/0', 'I1123 21:01:20.9 1 actor.py:97] quiet',
                    console_lib.ConsoleFilter())
  console.status('0:00:02 | 5 frames')
  console.end_status()
  text = stream.getvalue()
  assert 'quiet' not in text
  # The line is printed where the status was, and the status drawn again below it;
  # nothing but carriage returns and spaces to do it.
  assert text.endswith('0:00:02 | 5 frames\n')
  screen = text.split('\n')
  assert screen[0].endswith('[actor/0] W1123 21:01:20.9 1 actor.py:97] slow')
  assert '\x1b' not in text


def test_a_line_a_node_wrote_for_the_console_shows_without_its_marker(capsys):
  sg.tell_console('member 1 copied member 0')
  (written,) = capsys.readouterr().out.splitlines()
  stream = io.StringIO()
  console_lib.Console(stream, interactive=False).node_line(
      'controller/0', written, console_lib.ConsoleFilter())
  assert stream.getvalue() == '[controller/0] member 1 copied member 0\n'


def test_elsewhere_each_status_is_a_plain_line():
  stream = io.StringIO()
  console = console_lib.Console(stream, interactive=False)
  console.status('a')
  console.line('[launcher] b')
  console.status('c')
  console.end_status()
  assert stream.getvalue() == 'a\n[launcher] b\nc\n'


def test_the_status_text_from_samples():
  run = status.RunStatus(total_frames=1_000_000, inference_batch_size=64, started=100.0)
  assert run.text(101.0) == '0:00:01 | waiting for the learner'
  base = dict(frames=0, learner_steps=0, inference_rows=0, inference_batches=0,
              episode_return=None, eval_episode_return=None, unroll_queue_size=3)
  run.update(110.0, base)
  assert 'no episode finished yet' in run.text(110.0) and 'return' not in run.text(110.0)
  run.update(120.0, dict(base, frames=50_000, learner_steps=1234, inference_rows=3000,
                         inference_batches=100, episode_return=21.5))
  run.update(160.0, dict(base, frames=250_000, learner_steps=2000, inference_rows=3000,
                         inference_batches=100, episode_return=184.25,
                         eval_episode_return=200.0, restarts_actor=2, waiting_actor=1,
                         replay_size=1440))
  text = run.text(160.0)
  assert text.startswith('0:01:00 | 250k/1M frames (25%) | ')
  assert '5k fps (10 s) 5k (60 s)' in text  # 200k in the 40 s since the sample before
  # the last 10 s; 250k in the 50 s since the first sample.
  assert 'return 184 eval 200' in text
  assert '2,000 steps' in text
  assert 'queue 3' in text and 'replay 1,440 sequences' in text
  assert text.endswith('restarts actor 2 | waiting actor 1')
  assert 'queue 3' in text and 'replay 1,440 sequences' in text and 'restarts actor 2' in text
  run.update(170.0, dict(base, frames=260_000, inference_rows=3600, inference_batches=120))
  assert 'batch 30.0/64' in run.text(170.0)
  assert 'tasks' not in run.text(170.0)
  run.update(171.0, dict(base, **{'episode_return/Pong': 3.5, 'episode_return/Breakout': None}))
  assert '| tasks: Pong 3.5, Breakout - |' in run.text(171.0)


def test_the_line_sums_up_the_other_learners_of_a_population():
  others = [status.RunStatus(1000, 64, started=0.0) for _ in range(3)]
  others[0].update(1.0, {'frames': 10, 'episode_return': 139.5})
  others[2].update(1.0, {'frames': 10, 'episode_return': 20.0})
  assert status.others_summary([]) == ''
  assert status.others_summary(others) == (
      ' | returns of learner/1 140, learner/2 -, learner/3 20')
  assert status.others_summary(others, shown=2).endswith('learner/2 - ...')


def _stats_of_the_run(stats: dict):
  """A fake `get_stats` that, as the control edge, answers only the run's secret."""
  def get_stats(secret):
    if secret != transport.run_secret():
      raise PermissionError('get_stats: this call does not carry the run\'s secret')
    return stats
  return get_stats


def test_the_reporter_polls_every_learner(monkeypatch):
  monkeypatch.setenv(transport.RUN_SECRET_VARIABLE, 's3cret')
  servers, statuses = [], []
  for k in range(3):
    port = portpicker.pick_unused_port()
    server = courier.Server(port=port)
    server.Bind('get_stats', _stats_of_the_run({'frames': k, 'episode_return': 10.0 * k}))
    server.Start()
    servers.append((f'localhost:{port}', server))
    statuses.append(status.RunStatus(100, 8, started=time.monotonic()))
  stream = io.StringIO()
  reporter = status.StatusReporter(servers[0][0], statuses[0],
                                   console_lib.Console(stream, interactive=False),
                                   plain_seconds=1.0,
                                   others=[(a, s) for (a, _), s in zip(servers[1:],
                                                                       statuses[1:])])
  reporter.start()
  try:
    assert helpers.wait_for(lambda: all(s.stats for s in statuses), 20)
    assert helpers.wait_for(lambda: 'returns of learner/1 10, learner/2 20' in stream.getvalue(),
                            10)
  finally:
    reporter.stop()
    for _, server in servers:
      server.Stop()


def test_the_reporter_hears_a_learner_that_comes_up_late_at_once(monkeypatch):
  monkeypatch.setenv(transport.RUN_SECRET_VARIABLE, 's3cret')
  # A learner that starts 30 s after its launcher (a slow host, a restore). Polling one
  # client, gRPC's reconnect back-off answered only 11-17 s after the learner was up:
  # an actor host could take that learner for gone (launch.host's orphan timeout).
  port = portpicker.pick_unused_port()
  run_status = status.RunStatus(100, 8, started=time.monotonic())
  reporter = status.StatusReporter(f'localhost:{port}', run_status,
                                   console_lib.Console(io.StringIO(), interactive=False))
  reporter.start()
  server = None
  try:
    # 18 s: gRPC's back-off (1 s, x1.6, +-20%) would have tried last at most 17.1 s in
    # and would try next no sooner than 24 s in, 6 s after the learner is up.
    time.sleep(18)
    assert run_status.last_update is None
    server = courier.Server(port=port)
    server.Bind('get_stats', _stats_of_the_run({'frames': 5}))
    server.Start()
    up = time.monotonic()
    assert helpers.wait_for(lambda: run_status.last_update is not None, 20)
    assert run_status.last_update - up < 4
    assert run_status.stats == {'frames': 5}
  finally:
    reporter.stop()
    if server is not None:
      server.Stop()
