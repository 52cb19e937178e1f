"""The real-code acceptance corpus (issue 34): published pure-NumPy packages, unmodified.

Each `Case` names a package (its import name), a callable in it and a setup that builds
NumPy inputs deterministically from `np.random.default_rng(seed)`, outside the jitted
function. A setup returns a `Built`: the target (a function, or `(object, "method")` for
a method on an object the setup made, such as a Kalman filter and its `smooth`), the
positional and keyword arguments. `runner.run_case` runs each case plainly and under
`npxla.jit` on identical copies and compares returns, arguments and `self.__dict__`.

The packages (pinned in setup.cfg's `test` extra): pykalman, simdkalman (Kalman
filters), scikit-fuzzy (fuzzy logic: membership functions, fuzzy arithmetic,
defuzzification, c-means), nolds (nonlinear time-series statistics), PeakUtils (peak
detection and baselines), numdifftools (numerical differentiation), findiff (finite
difference operators), numpy-financial (time value of money) and filterpy (Kalman
filter functions and the `KalmanFilter` class whose `predict`/`update` keep their state
on attributes, g-h filters, discrete Bayes, Gaussian statistics). Functions passed *into* a package (a model for numdifftools, a
transition function for pykalman's unscented filters) are defined in this file.

The functions are called as a user would call them: with their documented arguments,
non-array parameters as Python scalars, and `fit="poly"` for nolds (its default RANSAC
fit needs scikit-learn).
"""
from __future__ import annotations

import dataclasses
import importlib
import warnings
from typing import Any, Callable

import numpy as np


@dataclasses.dataclass
class Built:
    target: Any                  # a function, or (object, "method name")
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Case:
    package: str                 # import name, for importorskip and the report
    name: str                    # the callable, as a user writes it
    setup: Callable[[np.random.Generator], Built]
    seed: int = 0

    @property
    def id(self):
        return self.name

    def build(self, variant=0):
        """The inputs for call `variant` (0: first call, 1: fresh inputs, same shapes)."""
        return self.setup(np.random.default_rng(1000 * self.seed + 17 * variant + 1))


CASES: list[Case] = []


def case(package, name, seed=0):
    def register(setup):
        CASES.append(Case(package, name, setup, seed))
        return setup
    return register


def _mod(name):
    return importlib.import_module(name)


# ---------------------------------------------------------------- PeakUtils

def _peaky(rng, n=200):
    x = np.linspace(0.0, 20.0, n)
    y = (np.exp(-(x - 5.0) ** 2) + 0.6 * np.exp(-(x - 12.0) ** 2 / 2.0) +
         0.8 * np.exp(-(x - 16.0) ** 2 / 0.5) + 0.02 * rng.standard_normal(n) +
         0.05 * x + 0.3)
    return x, y


@case("peakutils", "peakutils.indexes")
def _(rng):
    x, y = _peaky(rng)
    return Built(_mod("peakutils").indexes, (y,), dict(thres=0.3, min_dist=10))


@case("peakutils", "peakutils.baseline")
def _(rng):
    x, y = _peaky(rng)
    return Built(_mod("peakutils").baseline, (y,), dict(deg=2))


@case("peakutils", "peakutils.envelope")
def _(rng):
    x, y = _peaky(rng)
    return Built(_mod("peakutils").envelope, (y,), dict(deg=2))


@case("peakutils", "peakutils.centroid")
def _(rng):
    x, y = _peaky(rng)
    return Built(_mod("peakutils").centroid, (x, y))


@case("peakutils", "peakutils.centroid2")
def _(rng):
    x, y = _peaky(rng)
    return Built(_mod("peakutils").centroid2, (y, x))


@case("peakutils", "peakutils.gaussian")
def _(rng):
    x = np.linspace(-3.0, 3.0, 101)
    return Built(_mod("peakutils").gaussian, (x, 1.5 + rng.random(), 0.2 * rng.random(),
                                               0.5 + rng.random()))


@case("peakutils", "peakutils.gaussian_fit")
def _(rng):
    x = np.linspace(-3.0, 3.0, 61)
    y = 2.0 * np.exp(-(x - 0.3) ** 2 / (2 * 0.7 ** 2)) + 0.01 * rng.standard_normal(61)
    return Built(_mod("peakutils").gaussian_fit, (x, y))


@case("peakutils", "peakutils.interpolate")
def _(rng):
    x, y = _peaky(rng)
    ind = np.array([50, 120, 160])
    return Built(_mod("peakutils").interpolate, (x, y), dict(ind=ind, width=8))


@case("peakutils", "peakutils.prepare.scale")
def _(rng):
    return Built(_mod("peakutils.prepare").scale, (rng.standard_normal(50) * 3.0 + 1.0,),
                 dict(new_range=(-1.0, 1.0)))


# ---------------------------------------------------------------- scikit-fuzzy

def _universe(n=101):
    return np.linspace(0.0, 10.0, n)


def _tri(x, a, b, c):
    return np.fmax(np.fmin((x - a) / (b - a), (c - x) / (c - b)), 0.0)


def _fz(name):
    return getattr(_mod("skfuzzy"), name)


def _mf_case(name, params):
    @case("skfuzzy", f"skfuzzy.{name}")
    def _(rng):
        jitter = rng.random() * 0.1
        return Built(_fz(name), (_universe(),) + tuple(p + jitter for p in params))


_mf_case("trimf", (np.array([2.0, 5.0, 8.0]),))
_mf_case("trapmf", (np.array([1.0, 3.0, 6.0, 9.0]),))
_mf_case("gaussmf", (5.0, 1.5))
_mf_case("gauss2mf", (3.0, 1.0, 7.0, 2.0))
_mf_case("gbellmf", (2.0, 3.0, 5.0))
_mf_case("sigmf", (5.0, 2.0))
_mf_case("psigmf", (2.0, 3.0, -2.0, 7.0))
_mf_case("dsigmf", (3.0, 2.0, 7.0, 2.0))
_mf_case("smf", (2.0, 8.0))
_mf_case("zmf", (2.0, 8.0))
_mf_case("pimf", (1.0, 4.0, 6.0, 9.0))
_mf_case("piecemf", (np.array([2.0, 5.0, 8.0]),))


@case("skfuzzy", "skfuzzy.fuzzy_and")
def _(rng):
    x, y = _universe(), np.linspace(2.0, 12.0, 81)
    return Built(_fz("fuzzy_and"), (x, _tri(x, 1, 4 + rng.random(), 8), y, _tri(y, 3, 7, 11)))


@case("skfuzzy", "skfuzzy.fuzzy_or")
def _(rng):
    x, y = _universe(), np.linspace(2.0, 12.0, 81)
    return Built(_fz("fuzzy_or"), (x, _tri(x, 1, 4 + rng.random(), 8), y, _tri(y, 3, 7, 11)))


@case("skfuzzy", "skfuzzy.fuzzy_not")
def _(rng):
    return Built(_fz("fuzzy_not"), (rng.random(64),))


@case("skfuzzy", "skfuzzy.fuzzy_add")
def _(rng):
    x, y = np.linspace(0.0, 4.0, 21), np.linspace(1.0, 5.0, 17)
    return Built(_fz("fuzzy_add"), (x, _tri(x, 0, 2 + rng.random(), 4), y, _tri(y, 1, 3, 5)))


@case("skfuzzy", "skfuzzy.fuzzy_mult")
def _(rng):
    x, y = np.linspace(0.0, 4.0, 21), np.linspace(1.0, 5.0, 17)
    return Built(_fz("fuzzy_mult"), (x, _tri(x, 0, 2 + rng.random(), 4), y, _tri(y, 1, 3, 5)))


@case("skfuzzy", "skfuzzy.interp_membership")
def _(rng):
    x = _universe()
    return Built(_fz("interp_membership"), (x, _tri(x, 2, 5, 8), rng.random() * 10.0))


@case("skfuzzy", "skfuzzy.interp_universe")
def _(rng):
    x = _universe()
    return Built(_fz("interp_universe"), (x, _tri(x, 2, 5, 8), 0.3 + 0.4 * rng.random()))


@case("skfuzzy", "skfuzzy.cartprod")
def _(rng):
    return Built(_fz("cartprod"), (rng.random(7), rng.random(5)))


@case("skfuzzy", "skfuzzy.cartadd")
def _(rng):
    return Built(_fz("cartadd"), (rng.random(7), rng.random(5)))


@case("skfuzzy", "skfuzzy.relation_min")
def _(rng):
    return Built(_fz("relation_min"), (rng.random(6), rng.random(4)))


@case("skfuzzy", "skfuzzy.relation_product")
def _(rng):
    return Built(_fz("relation_product"), (rng.random(6), rng.random(4)))


@case("skfuzzy", "skfuzzy.maxmin_composition")
def _(rng):
    return Built(_fz("maxmin_composition"), (rng.random((3, 5)), rng.random((5, 4))))


@case("skfuzzy", "skfuzzy.maxprod_composition")
def _(rng):
    return Built(_fz("maxprod_composition"), (rng.random((3, 5)), rng.random((5, 4))))


@case("skfuzzy", "skfuzzy.inner_product")
def _(rng):
    return Built(_fz("inner_product"), (rng.random(9), rng.random(9)))


@case("skfuzzy", "skfuzzy.outer_product")
def _(rng):
    return Built(_fz("outer_product"), (rng.random(9), rng.random(9)))


@case("skfuzzy", "skfuzzy.fuzzy_similarity")
def _(rng):
    return Built(_fz("fuzzy_similarity"), (rng.random(12), rng.random(12)), dict(mode="min"))


@case("skfuzzy", "skfuzzy.contrast")
def _(rng):
    return Built(_fz("contrast"), (rng.random((8, 8)),), dict(amount=0.3))


@case("skfuzzy", "skfuzzy.sigmoid")
def _(rng):
    return Built(_fz("sigmoid"), (rng.random(30), 2.0))


@case("skfuzzy", "skfuzzy.modus_ponens")
def _(rng):
    return Built(_fz("modus_ponens"), (rng.random(5), rng.random(4), rng.random(5)))


for _mode in ("centroid", "bisector", "mom", "som", "lom"):
    @case("skfuzzy", f"skfuzzy.defuzz[{_mode}]")
    def _(rng, _mode=_mode):
        x = _universe()
        mfx = np.fmax(_tri(x, 1, 3 + rng.random(), 6) * 0.6, _tri(x, 4, 7, 9))
        return Built(_fz("defuzz"), (x, mfx, _mode))


@case("skfuzzy", "skfuzzy.centroid")
def _(rng):
    x = _universe()
    return Built(_fz("centroid"), (x, _tri(x, 1, 3 + 2 * rng.random(), 9)))


@case("skfuzzy", "skfuzzy.dcentroid")
def _(rng):
    x = _universe()
    return Built(_fz("dcentroid"), (x, _tri(x, 1, 3 + 2 * rng.random(), 9), 2.0))


@case("skfuzzy", "skfuzzy.lambda_cut")
def _(rng):
    return Built(_fz("lambda_cut"), (rng.random(40), 0.5))


@case("skfuzzy", "skfuzzy.lambda_cut_boundaries")
def _(rng):
    x = _universe()
    return Built(_fz("lambda_cut_boundaries"), (x, _tri(x, 1, 3 + 2 * rng.random(), 9), 0.5))


@case("skfuzzy", "skfuzzy.cmeans")
def _(rng):
    data = np.concatenate([rng.normal(0.0, 0.5, (2, 30)), rng.normal(3.0, 0.5, (2, 30))], 1)
    u0 = rng.random((2, 60))
    u0 /= u0.sum(axis=0)
    return Built(_fz("cmeans"), (data, 2, 2.0, 1e-5, 50), dict(init=u0))


@case("skfuzzy", "skfuzzy.cmeans_predict")
def _(rng):
    data = np.concatenate([rng.normal(0.0, 0.5, (2, 10)), rng.normal(3.0, 0.5, (2, 10))], 1)
    cntr = np.array([[0.0, 0.0], [3.0, 3.0]]) + 0.1 * rng.random((2, 2))
    u0 = rng.random((2, 20))
    u0 /= u0.sum(axis=0)
    return Built(_fz("cmeans_predict"), (data, cntr, 2.0, 1e-5, 50), dict(init=u0))


@case("skfuzzy", "skfuzzy.nmse")
def _(rng):
    a = rng.random((16, 16))
    return Built(_fz("nmse"), (a, a + 0.05 * rng.standard_normal((16, 16))))


@case("skfuzzy", "skfuzzy.addval")
def _(rng):
    return Built(_fz("addval"), (np.sort(rng.random(2)), np.sort(rng.random(2))))


@case("skfuzzy", "skfuzzy.multval")
def _(rng):
    return Built(_fz("multval"), (np.sort(rng.random(2)) - 0.5, np.sort(rng.random(2))))


@case("skfuzzy", "skfuzzy.divval")
def _(rng):
    return Built(_fz("divval"), (np.sort(rng.random(2)), np.sort(rng.random(2)) + 1.0))


@case("skfuzzy", "skfuzzy.scaleval")
def _(rng):
    return Built(_fz("scaleval"), (1.0 + rng.random(), np.sort(rng.random(2))))


# ---------------------------------------------------------------- nolds

def _series(rng, n=256):
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    for i in range(1, n):              # an AR(1) series
        x[i] = 0.6 * x[i - 1] + e[i]
    return x


def _logistic(rng, n=300):
    x = np.empty(n)
    x[0] = 0.1 + 0.8 * rng.random()
    for i in range(1, n):
        x[i] = 3.9 * x[i - 1] * (1.0 - x[i - 1])
    return x


def _nl(name):
    return getattr(_mod("nolds"), name)


@case("nolds", "nolds.sampen")
def _(rng):
    return Built(_nl("sampen"), (_series(rng, 200),), dict(emb_dim=2))


@case("nolds", "nolds.hurst_rs")
def _(rng):
    return Built(_nl("hurst_rs"), (_series(rng, 256),), dict(fit="poly"))


@case("nolds", "nolds.dfa")
def _(rng):
    return Built(_nl("dfa"), (_series(rng, 256),), dict(fit_exp="poly"))


@case("nolds", "nolds.corr_dim")
def _(rng):
    return Built(_nl("corr_dim"), (_logistic(rng, 200), 3), dict(fit="poly"))


@case("nolds", "nolds.lyap_r")
def _(rng):
    return Built(_nl("lyap_r"), (_logistic(rng, 300),),
                 dict(emb_dim=4, lag=1, min_tsep=10, trajectory_len=10, fit="poly"))


@case("nolds", "nolds.lyap_e")
def _(rng):
    return Built(_nl("lyap_e"), (_logistic(rng, 300),), dict(emb_dim=4, matrix_dim=2))


@case("nolds", "nolds.mfhurst_b")
def _(rng):
    return Built(_nl("mfhurst_b"), (_series(rng, 256),), dict(qvals=[1, 2], dists=[1, 2, 4, 8]))


@case("nolds", "nolds.logarithmic_n")
def _(rng):
    return Built(_nl("logarithmic_n"), (4, 100 + int(rng.integers(0, 3)), 1.2))


@case("nolds", "nolds.logmid_n")
def _(rng):
    return Built(_nl("logmid_n"), (200 + int(rng.integers(0, 3)),), dict(ratio=0.25, nsteps=10))


@case("nolds", "nolds.logarithmic_r")
def _(rng):
    return Built(_nl("logarithmic_r"), (0.1 + 0.01 * rng.random(), 2.0, 1.1))


@case("nolds", "nolds.expected_rs")
def _(rng):
    return Built(_nl("expected_rs"), (50 + int(rng.integers(0, 3)),))


@case("nolds", "nolds.rowwise_chebyshev")
def _(rng):
    return Built(_nl("rowwise_chebyshev"), (rng.random(3), rng.random((20, 3))))


@case("nolds", "nolds.rowwise_euclidean")
def _(rng):
    return Built(_nl("rowwise_euclidean"), (rng.random(3), rng.random((20, 3))))


@case("nolds", "nolds.measures.delay_embedding")
def _(rng):
    return Built(_mod("nolds.measures").delay_embedding, (_series(rng, 60), 3), dict(lag=2))


# ---------------------------------------------------------------- simdkalman

def _sk_model(rng):
    A = np.array([[1.0, 1.0], [0.0, 1.0]])
    Q = np.diag([0.01, 0.001]) * (1.0 + rng.random())
    H = np.array([[1.0, 0.0]])
    R = np.array([[0.5 + rng.random()]])
    return A, Q, H, R


def _sk_state(rng, n=4):
    m = rng.standard_normal((n, 2, 1))
    L = rng.standard_normal((n, 2, 2)) * 0.3
    P = L @ np.swapaxes(L, 1, 2) + np.eye(2)
    return m, P


def _sk_prim(name):
    return getattr(_mod("simdkalman.primitives"), name)


@case("simdkalman", "simdkalman.primitives.predict")
def _(rng):
    A, Q, H, R = _sk_model(rng)
    m, P = _sk_state(rng)
    return Built(_sk_prim("predict"), (m, P, A, Q))


@case("simdkalman", "simdkalman.primitives.update")
def _(rng):
    A, Q, H, R = _sk_model(rng)
    m, P = _sk_state(rng)
    return Built(_sk_prim("update"), (m, P, H, R, rng.standard_normal((4, 1, 1))))


@case("simdkalman", "simdkalman.primitives.update_with_nan_check")
def _(rng):
    A, Q, H, R = _sk_model(rng)
    m, P = _sk_state(rng)
    y = rng.standard_normal((4, 1, 1))
    y[1] = np.nan
    return Built(_sk_prim("update_with_nan_check"), (m, P, H, R, y))


@case("simdkalman", "simdkalman.primitives.smooth")
def _(rng):
    A, Q, H, R = _sk_model(rng)
    m, P = _sk_state(rng)
    ms, Ps = _sk_state(rng)
    return Built(_sk_prim("smooth"), (m, P, A, Q, ms, Ps))


@case("simdkalman", "simdkalman.primitives.predict_observation")
def _(rng):
    A, Q, H, R = _sk_model(rng)
    m, P = _sk_state(rng)
    return Built(_sk_prim("predict_observation"), (m, P, H, R))


def _sk_filter(rng):
    A, Q, H, R = _sk_model(np.random.default_rng(5))     # the object: same every call
    kf = _mod("simdkalman").KalmanFilter(state_transition=A, process_noise=Q,
                                         observation_model=H, observation_noise=R)
    data = np.cumsum(rng.standard_normal((3, 30)), axis=1)
    data[0, 7] = np.nan
    return kf, data


@case("simdkalman", "simdkalman.KalmanFilter.smooth")
def _(rng):
    kf, data = _sk_filter(rng)
    return Built((kf, "smooth"), (data,))


@case("simdkalman", "simdkalman.KalmanFilter.predict")
def _(rng):
    kf, data = _sk_filter(rng)
    return Built((kf, "predict"), (data, 5))


@case("simdkalman", "simdkalman.KalmanFilter.compute")
def _(rng):
    kf, data = _sk_filter(rng)
    return Built((kf, "compute"), (data, 3), dict(filtered=True, likelihoods=True))


@case("simdkalman", "simdkalman.KalmanFilter.predict_next")
def _(rng):
    kf, data = _sk_filter(rng)
    m, P = _sk_state(rng, 3)
    return Built((kf, "predict_next"), (m, P))


@case("simdkalman", "simdkalman.KalmanFilter.update")
def _(rng):
    kf, data = _sk_filter(rng)
    m, P = _sk_state(rng, 3)
    return Built((kf, "update"), (m, P, rng.standard_normal((3, 1, 1))))


# ---------------------------------------------------------------- pykalman

def _pk_filter(rng_obj=None, **extra):
    rng_obj = np.random.default_rng(7) if rng_obj is None else rng_obj
    KF = _mod("pykalman").KalmanFilter
    return KF(transition_matrices=np.array([[1.0, 1.0], [0.0, 1.0]]),
              observation_matrices=np.array([[1.0, 0.0]]),
              transition_covariance=0.01 * np.eye(2),
              observation_covariance=np.array([[0.5]]),
              initial_state_mean=np.zeros(2),
              initial_state_covariance=np.eye(2) * (1.0 + rng_obj.random()), **extra)


def _pk_obs(rng, n=25):
    return np.cumsum(rng.standard_normal(n))[:, None] + 0.3 * rng.standard_normal((n, 1))


@case("pykalman", "pykalman.KalmanFilter.filter")
def _(rng):
    return Built((_pk_filter(), "filter"), (_pk_obs(rng),))


@case("pykalman", "pykalman.KalmanFilter.smooth")
def _(rng):
    return Built((_pk_filter(), "smooth"), (_pk_obs(rng),))


@case("pykalman", "pykalman.KalmanFilter.loglikelihood")
def _(rng):
    return Built((_pk_filter(), "loglikelihood"), (_pk_obs(rng),))


@case("pykalman", "pykalman.KalmanFilter.filter_update")
def _(rng):
    return Built((_pk_filter(), "filter_update"),
                 (rng.standard_normal(2), np.eye(2) * (1.0 + rng.random()),
                  np.array([rng.standard_normal()])))


@case("pykalman", "pykalman.KalmanFilter.em")
def _(rng):
    return Built((_pk_filter(em_vars=["transition_covariance", "observation_covariance"]),
                  "em"), (_pk_obs(rng),), dict(n_iter=2))


def _ukf_transition(state, noise):
    return np.array([state[0] + 0.1 * state[1], 0.95 * state[1]]) + noise


def _ukf_observation(state, noise):
    return np.array([np.sin(state[0]) + state[1]]) + noise


def _aukf_transition(state):
    return np.array([state[0] + 0.1 * state[1], 0.95 * state[1]])


def _aukf_observation(state):
    return np.array([np.sin(state[0]) + state[1]])


def _ukf(additive=False):
    mod = _mod("pykalman")
    if additive:
        return mod.AdditiveUnscentedKalmanFilter(
            _aukf_transition, _aukf_observation, 0.01 * np.eye(2), np.array([[0.2]]),
            np.zeros(2), np.eye(2))
    return mod.UnscentedKalmanFilter(
        _ukf_transition, _ukf_observation, 0.01 * np.eye(2), np.array([[0.2]]),
        np.zeros(2), np.eye(2))


@case("pykalman", "pykalman.UnscentedKalmanFilter.filter")
def _(rng):
    return Built((_ukf(), "filter"), (_pk_obs(rng, 15),))


@case("pykalman", "pykalman.UnscentedKalmanFilter.smooth")
def _(rng):
    return Built((_ukf(), "smooth"), (_pk_obs(rng, 15),))


@case("pykalman", "pykalman.AdditiveUnscentedKalmanFilter.filter")
def _(rng):
    return Built((_ukf(True), "filter"), (_pk_obs(rng, 15),))


@case("pykalman", "pykalman.AdditiveUnscentedKalmanFilter.filter_update")
def _(rng):
    return Built((_ukf(True), "filter_update"),
                 (rng.standard_normal(2), np.eye(2) * (1.0 + rng.random()),
                  np.array([rng.standard_normal()])))


# ---------------------------------------------------------------- numdifftools

def _rosen(x):
    return (1.0 - x[0]) ** 2 + 105.0 * (x[1] - x[0] ** 2) ** 2


def _vecfun(x):
    return np.array([x[0] * x[1], np.sin(x[0]) + x[1] ** 3])


def _nd(name):
    return getattr(_mod("numdifftools"), name)


@case("numdifftools", "numdifftools.Derivative")
def _(rng):
    return Built((_nd("Derivative")(np.exp, n=1), "__call__"), (0.5 + rng.random(),))


@case("numdifftools", "numdifftools.Gradient")
def _(rng):
    return Built((_nd("Gradient")(_rosen), "__call__"), (rng.random(2),))


@case("numdifftools", "numdifftools.Jacobian")
def _(rng):
    return Built((_nd("Jacobian")(_vecfun), "__call__"), (rng.random(2),))


@case("numdifftools", "numdifftools.Hessian")
def _(rng):
    return Built((_nd("Hessian")(_rosen), "__call__"), (rng.random(2),))


@case("numdifftools", "numdifftools.Hessdiag")
def _(rng):
    return Built((_nd("Hessdiag")(_rosen), "__call__"), (rng.random(2),))


@case("numdifftools", "numdifftools.directionaldiff")
def _(rng):
    return Built(_nd("directionaldiff"), (_rosen, rng.random(2), np.array([1.0, 2.0])))


@case("numdifftools", "numdifftools.dea3")
def _(rng):
    v = np.cumsum(1.0 / np.arange(1, 4) ** 2) + 0.01 * rng.random()
    return Built(_nd("dea3"), (v[0], v[1], v[2]))


@case("numdifftools", "numdifftools.fornberg.fd_weights")
def _(rng):
    return Built(_mod("numdifftools.fornberg").fd_weights,
                 (np.linspace(-1.0, 1.0, 5) + 0.01 * rng.random(5), 0.0), dict(n=2))


@case("numdifftools", "numdifftools.fornberg.fd_weights_all")
def _(rng):
    return Built(_mod("numdifftools.fornberg").fd_weights_all,
                 (np.linspace(-1.0, 1.0, 5) + 0.01 * rng.random(5), 0.0), dict(n=2))


@case("numdifftools", "numdifftools.fornberg.fd_derivative")
def _(rng):
    x = np.linspace(0.0, 1.0, 21)
    return Built(_mod("numdifftools.fornberg").fd_derivative,
                 (np.sin(x * (1.0 + rng.random())), x), dict(n=1, m=2))


# ---------------------------------------------------------------- findiff

def _grid2(rng, n=24):
    x = np.linspace(0.0, 1.0, n)
    X, Y = np.meshgrid(x, x, indexing="ij")
    return x, np.sin(3.0 * X) * np.cos(2.0 * Y) + 0.01 * rng.random((n, n))


@case("findiff", "findiff.coefficients")
def _(rng):
    return Built(_mod("findiff").coefficients, (2,), dict(acc=4))


@case("findiff", "findiff.Diff.__call__")
def _(rng):
    x, f = _grid2(rng)
    return Built((_mod("findiff").Diff(0, x[1] - x[0], acc=4), "__call__"), (f,))


@case("findiff", "findiff.FinDiff.__call__")
def _(rng):
    x, f = _grid2(rng)
    with warnings.catch_warnings():                  # FinDiff: deprecated, still published
        warnings.simplefilter("ignore", DeprecationWarning)
        op = _mod("findiff").FinDiff(1, x[1] - x[0], 2)
    return Built((op, "__call__"), (f,))


@case("findiff", "findiff.Laplacian.__call__")
def _(rng):
    x, f = _grid2(rng)
    h = x[1] - x[0]
    return Built((_mod("findiff").Laplacian(h=[h, h]), "__call__"), (f,))


@case("findiff", "findiff.Gradient.__call__")
def _(rng):
    x, f = _grid2(rng)
    h = x[1] - x[0]
    return Built((_mod("findiff").Gradient(h=[h, h]), "__call__"), (f,))


@case("findiff", "findiff.coefs.coefficients_non_uni")
def _(rng):
    coords = np.sort(rng.random(12))
    return Built(_mod("findiff.coefs").coefficients_non_uni, (1, 2, coords, 5))



# ---------------------------------------------------------------- numpy-financial

def _npf(name):
    return getattr(_mod("numpy_financial"), name)


@case("numpy_financial", "numpy_financial.fv")
def _(rng):
    return Built(_npf("fv"), (0.05 / 12, 10 * 12, -100.0 - rng.random(), -100.0))


@case("numpy_financial", "numpy_financial.pv")
def _(rng):
    return Built(_npf("pv"), (0.05 / 12, 10 * 12, -100.0 - rng.random(), 15692.93))


@case("numpy_financial", "numpy_financial.pmt")
def _(rng):
    return Built(_npf("pmt"), (0.075 / 12, 12 * 15, 200000.0 + 1000 * rng.random()))


@case("numpy_financial", "numpy_financial.nper")
def _(rng):
    return Built(_npf("nper"), (0.07 / 12, -150.0 - rng.random(), 8000.0))


@case("numpy_financial", "numpy_financial.ipmt")
def _(rng):
    return Built(_npf("ipmt"), (0.0824 / 12, np.arange(12) + 1, 12, 2500.0 + rng.random()))


@case("numpy_financial", "numpy_financial.ppmt")
def _(rng):
    return Built(_npf("ppmt"), (0.0824 / 12, np.arange(12) + 1, 12, 2500.0 + rng.random()))


@case("numpy_financial", "numpy_financial.npv")
def _(rng):
    return Built(_npf("npv"), (0.08, np.array([-40000.0, 5000, 8000, 12000, 30000]) +
                                100 * rng.random(5)))


@case("numpy_financial", "numpy_financial.irr")
def _(rng):
    return Built(_npf("irr"), (np.array([-100.0, 39, 59, 55, 20]) + rng.random(5),))


@case("numpy_financial", "numpy_financial.mirr")
def _(rng):
    return Built(_npf("mirr"), (np.array([-4500.0, -800, 800, 800, 600, 600, 800, 800, 700,
                                          3000]) + rng.random(10), 0.08, 0.055))


@case("numpy_financial", "numpy_financial.rate")
def _(rng):
    return Built(_npf("rate"), (10, 0.0, -3500.0 - rng.random(), 10000.0))


# ---------------------------------------------------------------- filterpy

def _fp(module, name):
    return getattr(_mod(f"filterpy.{module}"), name)


def _fp_model(rng):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    Q = np.array([[0.25, 0.5], [0.5, 1.0]]) * 0.01 * (1.0 + rng.random())
    H = np.array([[1.0, 0.0]])
    R = np.array([[0.5 + rng.random()]])
    return F, Q, H, R


def _fp_kf(rng_obj=None):
    rng_obj = np.random.default_rng(11) if rng_obj is None else rng_obj
    kf = _mod("filterpy.kalman").KalmanFilter(dim_x=2, dim_z=1)
    kf.F, kf.Q, kf.H, kf.R = _fp_model(rng_obj)
    kf.x = np.array([[0.0], [1.0]])
    kf.P = np.eye(2) * 10.0
    return kf


@case("filterpy", "filterpy.kalman.predict")
def _(rng):
    F, Q, H, R = _fp_model(rng)
    return Built(_fp("kalman", "predict"), (rng.standard_normal((2, 1)), np.eye(2), F, Q))


@case("filterpy", "filterpy.kalman.update")
def _(rng):
    F, Q, H, R = _fp_model(rng)
    return Built(_fp("kalman", "update"),
                 (rng.standard_normal((2, 1)), np.eye(2), rng.standard_normal((1, 1)), R, H))


@case("filterpy", "filterpy.kalman.batch_filter")
def _(rng):
    F, Q, H, R = _fp_model(rng)
    n = 12
    zs = [np.array([[v]]) for v in np.cumsum(rng.standard_normal(n))]
    return Built(_fp("kalman", "batch_filter"),
                 (np.zeros((2, 1)), np.eye(2), zs, [F] * n, [Q] * n, [H] * n, [R] * n))


@case("filterpy", "filterpy.kalman.rts_smoother")
def _(rng):
    F, Q, H, R = _fp_model(rng)
    n = 10
    Xs = rng.standard_normal((n, 2, 1))
    L = rng.standard_normal((n, 2, 2)) * 0.3
    Ps = L @ np.swapaxes(L, 1, 2) + np.eye(2)
    return Built(_fp("kalman", "rts_smoother"), (Xs, Ps, [F] * n, [Q] * n))


@case("filterpy", "filterpy.kalman.KalmanFilter.predict")
def _(rng):
    return Built((_fp_kf(), "predict"))


@case("filterpy", "filterpy.kalman.KalmanFilter.update")
def _(rng):
    return Built((_fp_kf(), "update"), (np.array([[rng.standard_normal()]]),))


@case("filterpy", "filterpy.kalman.KalmanFilter.batch_filter")
def _(rng):
    zs = [np.array([[v]]) for v in np.cumsum(rng.standard_normal(10))]
    return Built((_fp_kf(), "batch_filter"), (zs,))


@case("filterpy", "filterpy.kalman.KalmanFilter.rts_smoother")
def _(rng):
    n = 8
    Xs = rng.standard_normal((n, 2, 1))
    L = rng.standard_normal((n, 2, 2)) * 0.3
    Ps = L @ np.swapaxes(L, 1, 2) + np.eye(2)
    return Built((_fp_kf(), "rts_smoother"), (Xs, Ps))


@case("filterpy", "filterpy.common.Q_discrete_white_noise")
def _(rng):
    return Built(_fp("common", "Q_discrete_white_noise"), (3,),
                 dict(dt=0.1 + 0.01 * rng.random(), var=2.0, block_size=2))


@case("filterpy", "filterpy.common.Q_continuous_white_noise")
def _(rng):
    return Built(_fp("common", "Q_continuous_white_noise"), (3,),
                 dict(dt=0.1 + 0.01 * rng.random(), spectral_density=2.0))


def _ukf_fx(x, dt):
    return np.array([x[0] + dt * x[1], x[1]])


def _ukf_hx(x):
    return x[:1]


def _ukf_track(zs):
    """filterpy's UnscentedKalmanFilter made inside the jitted function: its __init__
    allocates the sigma-point arrays that predict() then fills (`self.sigmas_f[i] =
    fx(s, dt)`)."""
    kalman = _mod("filterpy.kalman")
    points = kalman.MerweScaledSigmaPoints(2, alpha=0.1, beta=2.0, kappa=1.0)
    ukf = kalman.UnscentedKalmanFilter(dim_x=2, dim_z=1, dt=1.0, fx=_ukf_fx, hx=_ukf_hx,
                                       points=points)
    ukf.x = np.array([0.0, 0.0])
    ukf.P *= 10.0
    ukf.R *= 0.5
    ukf.Q = np.eye(2) * 0.01
    out = np.zeros((len(zs), 2))
    for i in range(len(zs)):
        ukf.predict()
        ukf.update(zs[i])
        out[i] = ukf.x
    return out


@case("filterpy", "filterpy.kalman.UnscentedKalmanFilter[made in the call]")
def _(rng):
    return Built(_ukf_track, (np.cumsum(rng.standard_normal((8, 1)), axis=0),))


def _through(f, *args):
    return f(*args)


@case("filterpy", "filterpy.kalman.MerweScaledSigmaPoints.sigma_points[through a lambda]")
def _(rng):
    """A lambda made outside the jitted function calls the method: refused while lambdas
    ran unconverted (the method's scipy cholesky met traced arrays)."""
    points = _mod("filterpy.kalman").MerweScaledSigmaPoints(3, alpha=0.1, beta=2.0,
                                                            kappa=0.0)
    a = rng.random((3, 3))
    return Built(_through, (lambda x, P: points.sigma_points(x, P), rng.random(3),
                            a @ a.T + 3.0 * np.eye(3)))


@case("filterpy", "filterpy.common.order_by_derivative")
def _(rng):
    return Built(_fp("common", "order_by_derivative"), (rng.random((2, 2)), 2, 3))


@case("filterpy", "filterpy.common.kinematic_state_transition")
def _(rng):
    return Built(_fp("common", "kinematic_state_transition"), (2, 0.1 + 0.01 * rng.random()))


@case("filterpy", "filterpy.discrete_bayes.normalize")
def _(rng):
    return Built(_fp("discrete_bayes", "normalize"), (rng.random(10),))


@case("filterpy", "filterpy.discrete_bayes.update")
def _(rng):
    return Built(_fp("discrete_bayes", "update"), (rng.random(10), rng.random(10)))


@case("filterpy", "filterpy.stats.gaussian")
def _(rng):
    return Built(_fp("stats", "gaussian"), (np.linspace(-3.0, 3.0, 21), rng.random(), 1.5))


@case("filterpy", "filterpy.stats.mul")
def _(rng):
    return Built(_fp("stats", "mul"), (rng.random(), 1.0 + rng.random(), rng.random(), 2.0))


@case("filterpy", "filterpy.stats.mahalanobis")
def _(rng):
    return Built(_fp("stats", "mahalanobis"),
                 (rng.standard_normal(2), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])))


@case("filterpy", "filterpy.stats.multivariate_gaussian")
def _(rng):
    return Built(_fp("stats", "multivariate_gaussian"),
                 (rng.standard_normal(2), np.zeros(2), np.array([[2.0, 0.3], [0.3, 1.0]])))


@case("filterpy", "filterpy.stats.multivariate_multiply")
def _(rng):
    return Built(_fp("stats", "multivariate_multiply"),
                 (rng.standard_normal(2), np.eye(2) * 2.0, rng.standard_normal(2),
                  np.array([[2.0, 0.3], [0.3, 1.0]])))


@case("filterpy", "filterpy.gh.GHFilter.update")
def _(rng):
    f = _mod("filterpy.gh").GHFilter(x=0.0, dx=1.0, dt=1.0, g=0.8, h=0.2)
    return Built((f, "update"), (1.0 + rng.random(),))


@case("filterpy", "filterpy.gh.GHFilter.batch_filter")
def _(rng):
    f = _mod("filterpy.gh").GHFilter(x=0.0, dx=1.0, dt=1.0, g=0.8, h=0.2)
    return Built((f, "batch_filter"), (np.arange(10.0) + rng.random(10),))
