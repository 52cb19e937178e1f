"""jit(f, shard=...): programs split over devices by XLA's SPMD partitioner.

The spec checks and the one-device mesh run here; the programs over 8 simulated CPU
devices run in one subprocess (`sharding_cases.py`: XLA fixes the device count when JAX
starts), whose records the tests below read.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from npxla import jit
from npxla.runtime.xla.sharding import collectives

HERE = os.path.dirname(os.path.abspath(__file__))


def total(x, w):
    return np.sum(x * w)


def scaled(x, k):
    return x * k


def printing(x):
    print(x)
    return x


# --- in this process (one CPU device) -----------------------------------------------------
def test_one_device_mesh_matches_numpy_and_annotates_the_module():
    x, w = np.arange(12.0).reshape(4, 3), np.ones(3)
    f = jit(total, shard={"x": 0}, device="cpu")
    assert f(x, w) == total(x, w)
    lowered = f.lower(x, w)
    text = lowered.as_text()
    assert 'sdy.sharding = #sdy.sharding<mesh<["devices"=1]>, [{"devices"}, {}]>' in text
    assert "mhlo.num_partitions = 1" in text
    assert "HloModule" in lowered.as_text("hlo")
    assert lowered.collectives() == {}


def test_mutated_argument_and_scalar_results_come_back_as_numpy_gives_them():
    def bump(x):
        x[1:] += 1.0
        return x.sum(), float(x[0])
    x = np.zeros(8)
    s, first = jit(bump, shard={"x": 0}, device="cpu")(x)
    assert isinstance(s, np.float64) and s == 7.0 and first == 0.0
    np.testing.assert_array_equal(x, [0, 1, 1, 1, 1, 1, 1, 1])


def test_collectives_are_read_from_hlo_text():
    hlo = """
  %all-reduce = f64[] all-reduce(%a), channel_id=1
  %ag.1 = f64[64]{0} all-gather(%b), channel_id=2
  %cp = f64[2]{0} collective-permute-start(%c), channel_id=3
  %x = f64[2]{0} add(%all-reduce, %y)"""
    assert collectives(hlo) == {"all-reduce": 1, "all-gather": 1, "collective-permute": 1}


@pytest.mark.parametrize("options,error,match", [
    (dict(shard={"y": 0}), ValueError, r"'y', which is not a parameter of total\n"
                                       r"hint: parameters: x, w"),
    (dict(shard=[0]), TypeError, "shard= must be a dict"),
    (dict(shard={"x": 1.5}), TypeError, "a layout is an axis"),
    (dict(shard={"x": ("data",)}), ValueError, "names mesh axis 'data' but no mesh="),
    (dict(shard={"x": ("data",)}, mesh={"rows": 2}), ValueError,
     "'data' is not an axis of mesh"),
    (dict(shard={"x": ("a", "a")}, mesh={"a": 1}), ValueError, "uses mesh axis 'a' twice"),
    (dict(shard={"x": 0}, mesh={"a": 0}), ValueError, "sizes are positive ints"),
    (dict(shard={"x": 0}, mesh=[1]), TypeError, "mesh= must be a dict"),
    (dict(mesh={"a": 1}), ValueError, "mesh= names device axes for shard=, which is not"),
    (dict(shard={"w": 0}, static_argnames="w"), ValueError, "'w', a static argument"),
])
def test_spec_errors_at_jit_time(options, error, match):
    with pytest.raises(error, match=match):
        jit(total, **options)


@pytest.mark.parametrize("fn,options,args,error,match", [
    (scaled, dict(shard={"k": 0}), (np.ones(4), 2.0), TypeError,
     "argument 'k' is a Python scalar, and only arrays can be split"),
    (scaled, dict(shard={"x": 0}), ([1.0, 2.0], 2.0), TypeError, "argument 'x' is a list"),
    (scaled, dict(shard={"x": 0}), (np.float64(1.0), 2.0), TypeError,
     "is a float64, and only arrays"),
    (scaled, dict(shard={"x": 0}), (np.array(1.0), 2.0), ValueError, "is 0-dimensional"),
    (scaled, dict(shard={"x": 2}), (np.ones((2, 2)), 2.0), ValueError,
     "has 2 axes, so it has no axis 2\nhint: use an axis from 0 to 1"),
    (scaled, dict(shard={"x": ("d", None, None)}, mesh={"d": 1}), (np.ones(2), 2.0),
     ValueError, "3 entries for an argument with 1 axes"),
    (total, dict(shard={"x": 0}, mesh={"d": 4}, device="cpu"), (np.ones(4), 1.0),
     ValueError, r"needs 4 devices, but there are 1 cpu device\(s\)\nhint: .*count=N"),
    (printing, dict(shard={"x": 0}), (np.ones(4),), ValueError,
     "print inside a function split over devices"),
])
def test_refusals_at_call_time(fn, options, args, error, match):
    with pytest.raises(error, match=match):
        jit(fn, **options)(*args)


def test_a_sharded_parameter_left_to_its_default_is_refused():
    def f(x, y=None):
        return x if y is None else x + y
    with pytest.raises(ValueError, match="does not pass it"):
        jit(f, shard={"y": 0})(np.ones(3))


def test_a_sharded_array_parameter_left_to_its_default_is_passed():
    """An array default is passed as an argument when left out (read at every call),
    so it can be split like any other."""
    def f(x, y=np.arange(4.0)):
        return x + y
    np.testing.assert_array_equal(jit(f, shard={"y": 0})(np.ones(4)), f(np.ones(4)))


# --- over 8 simulated devices, in a subprocess ------------------------------------------
@pytest.fixture(scope="module")
def cases():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", NPXLA_CACHE_DIR="off", NPXLA_DEVICE="cpu")
    out = subprocess.run([sys.executable, os.path.join(HERE, "sharding_cases.py"), "cases",
                          "8"], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


PROGRAMS = ["reduction", "matmul_rows", "matmul_inner", "matmul_mesh_2d", "stencil",
            "stencil_concat", "stencil_where", "while", "uneven"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_eight_devices_agree_with_numpy_and_one_device(cases, name):
    record = cases[name]
    assert record["devices"] == 8
    assert record["vs_numpy"] < 1e-12 and record["vs_single_device"] < 1e-12, record
    assert record["arguments_vs_numpy"] == 0.0      # the stencil writes its argument


@pytest.mark.parametrize("name,present,absent", [
    ("reduction", {"all-reduce"}, {"all-gather"}),            # partial sums combined
    ("matmul_rows", set(), {"all-reduce", "all-gather"}),     # rows are independent
    ("matmul_inner", {"all-reduce"}, set()),                  # split contraction
    ("stencil", {"collective-permute"}, set()),               # the halo
    ("stencil_where", {"collective-permute"}, {"all-gather", "all-reduce"}),
    ("while", {"all-reduce"}, set()),                         # the loop condition's max
])
def test_xla_inserts_the_collectives(cases, name, present, absent):
    seen = set(cases[name]["collectives"])
    assert present <= seen and not absent & seen, cases[name]["collectives"]


def test_uneven_axis_is_split_fewer_ways_with_a_warning(cases):
    (message,) = cases["uneven"]["warnings"]
    assert "axis 0 of argument 'x' has 10 elements, which do not divide over 8 devices: " \
           "XLA splits it 2 way(s)" in message
    assert cases["reduction"]["warnings"] == []


def test_device_output_is_a_sharded_jax_array_that_can_be_passed_back(cases):
    assert cases["device_output"] == {"type": "jaxlib", "devices": 8, "vs_numpy": 0.0}


def test_run_time_checks_raise_the_numpy_exception(cases):
    record = cases["run_time_check"]
    assert record["ok"] == 6.0 and record["raised"] == "IndexError"
    assert "index 40 is out of bounds for axis 0 with size 16" in record["message"]
