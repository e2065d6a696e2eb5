"""The replay node: a Launchpad `ReverbNode` that also stops by itself when its launcher
dies (`seed_graph.launcher_watch`).

`ReplayNode(make_tables, make_checkpointer)`: both are called in the node's process.
Its handle dereferences, in other nodes, to a `reverb.Client` (Launchpad's own handle).
"""

from typing import Callable, List

import launchpad as lp
import reverb

from seed_graph import launcher_watch


class ReplayNode(lp.ReverbNode):
  """See the module docstring."""

  def __init__(self, make_tables: Callable[[], List[reverb.Table]],
               make_checkpointer: Callable[[], reverb.checkpointers.CheckpointerBase]):
    super().__init__(make_tables, checkpoint_ctor=make_checkpointer)

  def run(self):
    launcher_watch.watch()
    super().run()
