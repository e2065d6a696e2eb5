"""Configuration: config keys and their schema (`schema.py`: imports nothing else of the
project, so every layer, the algorithms included, declares keys with it), the copy a run
keeps (`record.py`), functions named by import string (`import_strings.py`) and the
environment ids a config gives each node (`id_ranges.py`)."""
