"""Trained agents shipped with seed_graph: `<name>.json` (config, where it came from) and
`<name>.npz` (its weights), made and read by `seed_graph.launch.pretrained`."""
