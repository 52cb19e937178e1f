"""N-body gravity: velocity Verlet over several time steps (all-pairs forces).

Run: python examples/nbody.py [--size small|medium|large]
"""
import numpy as np

from _harness import Example
from npxla import jit


def accelerations(pos, mass, eps):
    """Softened all-pairs gravitational acceleration (G = 1)."""
    diff = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]       # diff[i, j] = pos[j] - pos[i]
    dist2 = (diff ** 2).sum(axis=-1) + eps ** 2
    inv_d3 = dist2 ** -1.5
    return (diff * (mass[np.newaxis, :] * inv_d3)[:, :, np.newaxis]).sum(axis=1)


@jit
def nbody(pos, vel, mass, dt, steps, eps=1e-2):
    acc = accelerations(pos, mass, eps)
    for step in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = accelerations(pos, mass, eps)
        vel += 0.5 * dt * acc
    kinetic = 0.5 * np.sum(mass * np.sum(vel ** 2, axis=1))
    return pos, vel, kinetic


def make_inputs(n, rng):
    pos = rng.normal(size=(n, 3))
    vel = 0.1 * rng.normal(size=(n, 3))
    mass = rng.uniform(0.5, 1.5, n) / n
    return pos, vel, mass, 1e-3, 20


EXAMPLE = Example(nbody, make_inputs, sizes={"small": 16, "medium": 256, "large": 1024},
                  rtol=1e-9, atol=1e-12,
                  description="velocity Verlet, 20 steps, n bodies")

if __name__ == "__main__":
    EXAMPLE.main()
