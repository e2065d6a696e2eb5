"""Examples a user would write: an environment of their own (random_walk), programs of
their own (population, many_tasks). Not installed with the package: they run from a
checkout (or a copy in your own directory)."""
