"""The learner, in its parts: the node (`node.py`) and its control edge
(`control_edge.py`), the process shell around an algorithm (`shell.py`), the
per-environment recurrent state and episode statistics (`agent_states.py`), checkpoints
(`checkpoints.py`), metrics and the progress log (`metrics.py`), per-task returns
(`task_statistics.py`), the hooks population training uses (`tuning.py`) and the
planned restart that bounds its memory (`planned_restart.py`)."""
