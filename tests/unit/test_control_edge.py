"""The learner's Courier control edge: its methods, and the run's secret on every call."""

import courier
import portpicker
import pytest

from seed_graph.inference import transport
from seed_graph.nodes.learner import control_edge
from seed_graph.nodes.learner import client as learner_client
from tests import helpers


@pytest.fixture
def learner(tmp_path):
  node = helpers.serving_vtrace_learner(tmp_path)
  yield node
  node.shutdown()


def test_the_control_edge_serves_its_methods_and_checks_the_secret(learner, monkeypatch):
  port = portpicker.pick_unused_port()
  server = control_edge.make_server(learner, port, secret='s3cret')
  server.Start()
  try:
    raw = courier.Client(f'localhost:{port}')
    assert sorted(courier.list_methods(raw)) == [
        'get_hyperparameters', 'get_stats', 'get_weights', 'save', 'set_hyperparameters',
        'set_weights', 'stop']
    stats = raw.get_stats('s3cret')
    assert stats['frames'] == 0 and stats['learner_steps'] == 0
    hyperparameters = raw.get_hyperparameters('s3cret')
    assert set(hyperparameters) == {'learning_rate', 'entropy_cost'}
    for call in (raw.get_stats, lambda: raw.get_stats('wrong'), raw.get_hyperparameters,
                 raw.save, lambda: raw.save('wrong'), raw.stop, lambda: raw.stop(''),
                 raw.get_weights, lambda: raw.set_hyperparameters('', {'entropy_cost': 1.0}),
                 lambda: raw.set_weights('wrong', {}, 'x')):
      with pytest.raises(Exception, match="does not carry the run's secret"):
        call()
    assert not learner.stopping() and helpers.latest_checkpoint(learner.config.logdir) == ''
    # A learner client carries its process's secret.
    monkeypatch.setenv(transport.RUN_SECRET_VARIABLE, 's3cret')
    client = learner_client.LearnerClient(f'localhost:{port}', learner.address)
    assert client.save().startswith(str(learner.config.logdir))
    assert client.get_stats()['frames'] == 0
    # Population-based training's calls, bytes across Courier both ways.
    assert client.get_hyperparameters() == hyperparameters
    client.set_weights(client.get_weights(), 'itself')
    assert client.set_hyperparameters({'entropy_cost': 0.25})['entropy_cost'] == 0.25
    with pytest.raises(Exception, match='unknown hyperparameter'):
      client.set_hyperparameters({'nope': 1.0})  # Fails the caller; the server goes on.
    stats = client.get_stats()
    assert stats['weights_loaded'] == 1 and stats['hyperparameters_set'] == 1
    client.stop()
    assert learner.stopping()
  finally:
    server.Stop()
