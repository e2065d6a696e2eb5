"""seed_graph: SEED RL (central inference, V-trace, R2D2) as Launchpad program graphs."""
