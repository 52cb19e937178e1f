"""Fuzzer regression (seed 1000006 of the slow campaign): mismatch:result:value."""
import numpy as np

def f(y):
    s1 = 0
    for i4 in range(3):
        y[y >= 0] = y[y >= 0]
        y[i4:3] *= y[0]
    return (y, s1)


def ARGS():
    return [np.array([[-1.158103295782663, -0.7605633588236905, 0.42610332536368517, -0.6114029567885434], [-1.4721222202681459, 0.5860777559266609, 0.8438006096842497, 0.9408332631615723], [-0.0749403675253732, 0.33384680439679676, 2.670050097904569, 0.027759515680958725], [1.1052787476106702, -0.4174893083039418, 1.2595923568084657, -0.044483883920521085]], dtype=np.float64)]


EXPECTED_BUG = 'mismatch:result:value'
KNOWN = None
