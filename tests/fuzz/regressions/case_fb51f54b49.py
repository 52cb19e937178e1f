"""Fuzzer regression (seed 40360): crash:RuntimeError:fuzz:np=ValueError."""
import numpy as np

def f(n):
    if not n < 0.1:
        raise ValueError('fuzz')
    raise RuntimeError('fuzz')


def ARGS():
    return [2]


EXPECTED_BUG = 'crash:RuntimeError:fuzz:np=ValueError'
KNOWN = None

# a data-dependent raise, then an unconditional one: the first must win
