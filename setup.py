"""seed_graph: SEED RL (central inference, V-trace, R2D2) as Launchpad program graphs."""

import setuptools

setuptools.setup(
    name='seed_graph',
    version='0.1.0',
    description='SEED RL as declarative Launchpad program graphs.',
    # dm-launchpad 0.5.2 ships wheels up to 3.10 only. 3.8 is the learner host's on a
    # Cloud TPU VM (the tpu-vm-tf-2.8.x runtime): requirements/constraints-py38.txt.
    python_requires='>=3.8,<3.11',
    packages=setuptools.find_packages(include=('seed_graph', 'seed_graph.*')),
    package_data={'seed_graph.launch': ['cloud/*.sh'],
                  'seed_graph.pretrained': ['*.json', '*.npz']},
    install_requires=[
        'absl-py',
        'dm-env==1.6',
        'dm-launchpad==0.5.2',
        'dm-reverb==0.7.2',
        'dm-sonnet==2.0.2',
        'dm-tree',
        'grpcio==1.85.0; python_version >= "3.10"',
        'grpcio==1.70.0; python_version < "3.10"',  # The newest with 3.8 wheels.
        'matplotlib==3.8.4; python_version >= "3.10"',  # launch.plot; 3.9 needs numpy >= 1.23.
        'matplotlib==3.7.5; python_version < "3.10"',  # The newest with 3.8 wheels.
        'gymnasium==1.4.0; python_version >= "3.10"',
        'gymnasium==1.1.1; python_version < "3.10"',  # The newest with 3.8 wheels.
        'ale-py==0.12.1; python_version >= "3.10"',
        'ale-py==0.10.1; python_version < "3.10"',  # The newest with 3.8 wheels.
        # env.backend='envpool' (Atari stepped in C++ threads); 0.8.4 is the last wheel
        # for 3.10, and the TPU VM's 3.8 learner host steps no environments.
        'envpool==0.8.4; python_version >= "3.10"',
        'ml-collections',
        'numpy==1.22.4',
        'opencv-python-headless<4.12',
        'portpicker',
        'protobuf<3.20',
        'psutil',
        'tensorflow==2.8.4',
    ],
    extras_require={'test': ['pytest', 'pytest-xdist', 'hypothesis', 'py-spy']},
)
