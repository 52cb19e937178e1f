"""The real-code corpus's 3-d geometry and forecast scores: **transforms3d** (0.4.2:
rotations as matrices, quaternions, Euler angles and axis-angle pairs; affine
composition and decomposition), **pyrr** (0.10.3: the same for graphics, plus rays,
planes, spheres and their intersection tests) and **properscoring** (0.1: CRPS and
Brier scores; with Numba installed its cores are `@guvectorize` kernels, run here as
their Python in a staged loop, else NumPy fallbacks).

Conversions between representations branch on data (`mat2euler` tests for gimbal
lock, `quat2axangle` for a zero rotation, `mat2quat` picks the largest eigenvector),
which is what these cases exercise; each is given the inputs its docstring describes.
"""
from __future__ import annotations

import importlib

import numpy as np

from tests.realcode.corpus import Built, Case


def _fn(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _angles(rng):
    return tuple(float(v) for v in rng.uniform(-1.2, 1.2, 3))


def _rotation(rng):
    return _fn("transforms3d.euler.euler2mat")(*_angles(rng))


def _quaternion(rng):
    return _fn("transforms3d.quaternions.mat2quat")(_rotation(rng))


def _t3d(name, make):
    return lambda rng: Built(_fn(f"transforms3d.{name}"), make(rng))


def _pyrr(name, make):
    return lambda rng: Built(_fn(f"pyrr.{name}"), make(rng))


def _affine(rng):
    return (_fn("transforms3d.affines.compose")(rng.normal(size=3), _rotation(rng),
                                                rng.uniform(0.5, 2.0, 3)),)


def _gimbal(rng):
    return (_fn("transforms3d.euler.euler2mat")(0.3 * rng.random(), np.pi / 2, 0.1),)


def _ray(rng, origin, towards):
    return _fn("pyrr.ray.create_from_line")(np.array([origin, towards]))


def _plane_hit(rng):
    ray = _ray(rng, [0.1 * rng.random(), 0.0, 5.0], [0.0, 0.2 * rng.random(), 4.0])
    plane = _fn("pyrr.plane.create_from_position")(np.zeros(3), np.array([0.0, 0.0, 1.0]))
    return ray, plane


def _scores(rng):
    return rng.normal(size=12), rng.normal(size=(12, 9))


def _scores_with_nans(rng):
    obs, fc = _scores(rng)
    obs[3], fc[5, 2], fc[7, :] = np.nan, np.nan, np.nan
    return obs, fc


def _ps(name, make):
    return lambda rng: Built(_fn(f"properscoring.{name}"), make(rng))


_T, _R, _S = "transforms3d", "pyrr", "properscoring"
CASES = [
    Case(_T, f"{_T}.euler.euler2mat", _t3d("euler.euler2mat", _angles)),
    Case(_T, f"{_T}.euler.mat2euler", _t3d("euler.mat2euler", lambda r: (_rotation(r),))),
    Case(_T, f"{_T}.euler.mat2euler[gimbal lock]", _t3d("euler.mat2euler", _gimbal)),
    Case(_T, f"{_T}.euler.quat2euler",
         _t3d("euler.quat2euler", lambda r: (_quaternion(r),))),
    Case(_T, f"{_T}.quaternions.mat2quat",
         _t3d("quaternions.mat2quat", lambda r: (_rotation(r),))),
    Case(_T, f"{_T}.quaternions.quat2axangle",
         _t3d("quaternions.quat2axangle", lambda r: (_quaternion(r),))),
    Case(_T, f"{_T}.quaternions.qpow",
         _t3d("quaternions.qpow", lambda r: (_quaternion(r), 1.0 + r.random()))),
    Case(_T, f"{_T}.axangles.mat2axangle",
         _t3d("axangles.mat2axangle", lambda r: (_rotation(r),))),
    Case(_T, f"{_T}.affines.decompose44", _t3d("affines.decompose44", _affine)),
    Case(_T, f"{_T}.taitbryan.mat2euler",
         _t3d("taitbryan.mat2euler", lambda r: (_rotation(r),))),
    Case(_R, f"{_R}.quaternion.slerp",
         _pyrr("quaternion.slerp", lambda r: (_fn("pyrr.quaternion.create_from_eulers")(
             r.uniform(-1, 1, 3)), _fn("pyrr.quaternion.create_from_x_rotation")(
             r.random()), r.random()))),
    Case(_R, f"{_R}.matrix44.create_look_at",
         _pyrr("matrix44.create_look_at", lambda r: (r.normal(size=3) + 5.0, np.zeros(3),
                                                     np.array([0.0, 1.0, 0.0])))),
    Case(_R, f"{_R}.matrix44.inverse",
         _pyrr("matrix44.inverse", lambda r: (_fn("pyrr.matrix44.create_from_eulers")(
             r.uniform(-1, 1, 3)),))),
    Case(_R, f"{_R}.sphere.create_from_points",
         _pyrr("sphere.create_from_points", lambda r: (r.normal(size=(20, 3)),))),
    Case(_R, f"{_R}.aabb.add_points",
         _pyrr("aabb.add_points", lambda r: (np.array([[0.0, 0, 0], [1.0, 1, 1]]),
                                             r.normal(size=(6, 3)) * 2.0))),
    Case(_R, f"{_R}.geometric_tests.ray_intersect_plane",
         _pyrr("geometric_tests.ray_intersect_plane", _plane_hit)),
    Case(_R, f"{_R}.geometric_tests.point_closest_point_on_line_segment",
         _pyrr("geometric_tests.point_closest_point_on_line_segment",
               lambda r: (r.normal(size=3), np.array([[0.0, 0, 0], [0.5, 0, 0]])))),
    Case(_S, f"{_S}.crps_gaussian",
         _ps("crps_gaussian", lambda r: (r.normal(size=12), 0.1, 1.0 + r.random()))),
    Case(_S, f"{_S}.crps_ensemble", _ps("crps_ensemble", _scores)),
    Case(_S, f"{_S}.crps_ensemble[NaNs]", _ps("crps_ensemble", _scores_with_nans)),
    Case(_S, f"{_S}.threshold_brier_score",
         _ps("threshold_brier_score",
             lambda r: _scores_with_nans(r) + (np.array([-0.5, 0.0, 0.5]),))),
    Case(_S, f"{_S}._crps._crps_ensemble_vectorized",
         _ps("_crps._crps_ensemble_vectorized", lambda r: _scores(r) + (r.random((12, 9)),))),
]
