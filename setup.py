"""The optional C engine of Twirkle's random playouts; all other metadata is in pyproject.toml.

`arena.games.twirkle._engine` plays whole turns of a random playout much faster than
Python (arena/games/twirkle/fast.py explains how it is used). It is optional: where
no C compiler is found the build goes on without it, and Twirkle plays in pure Python.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "arena.games.twirkle._engine",
            sources=["arena/games/twirkle/_engine.c"],
            optional=True,
        )
    ]
)
