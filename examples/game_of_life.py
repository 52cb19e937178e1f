"""Conway's Game of Life on a torus: neighbour counts from shifted copies of the
board (np.roll), several generations.

Run: python examples/game_of_life.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


@jit
def game_of_life(board, generations):
    for _ in range(generations):
        neighbours = (np.roll(board, 1, axis=0) + np.roll(board, -1, axis=0)
                      + np.roll(board, 1, axis=1) + np.roll(board, -1, axis=1)
                      + np.roll(np.roll(board, 1, axis=0), 1, axis=1)
                      + np.roll(np.roll(board, 1, axis=0), -1, axis=1)
                      + np.roll(np.roll(board, -1, axis=0), 1, axis=1)
                      + np.roll(np.roll(board, -1, axis=0), -1, axis=1))
        board = ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(np.int8)
    return board


def make_inputs(n, rng):
    return (rng.random((n, n)) < 0.3).astype(np.int8), 50


EXAMPLE = Example(game_of_life, make_inputs, sizes={"small": 16, "medium": 512, "large": 2048},
                  exact=True, description="50 generations on an n x n torus")

if __name__ == "__main__":
    EXAMPLE.main()
