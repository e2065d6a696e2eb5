"""The lifecycle of a node process: it stops when its launcher is gone
(`launcher_watch.py`), a node stops the whole program (`program_stop.py`), and restart
counts are kept beside the run (`restarts.py`), and a node writes a line for the person at
the launcher's console (`console_notes.py`)."""
