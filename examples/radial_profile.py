"""Azimuthal (radial) average of a 2-D image: the mean pixel value in each ring of
unit width around a centre, as used for diffraction patterns, power spectra and
point-spread functions.

Legacy code builds the radius of every pixel once and then, per ring, selects the
pixels with a boolean mask and averages them: `image[mask].mean()` is a selection whose
length depends on the data, feeding a reduction. npxla computes it in a buffer as long
as the image with a run-time count, so the loop over rings stays one XLA loop. Rings
past the image's corners are empty and give NaN, as in NumPy (whose RuntimeWarning for
the empty mean is filtered below for this module only).

Run: python examples/radial_profile.py [--size small|medium|large]
"""
import warnings

import numpy as np

from _harness import Example
from npxla import jit


# NumPy also warns "Mean of empty slice" for the empty rings (npxla gives the same NaN
# without a warning); np.errstate does not cover that one, so silence it for this file only
warnings.filterwarnings("ignore", message="Mean of empty slice", category=RuntimeWarning,
                        module=__name__)


@jit
def radial_profile(image, cy, cx, nbins):
    ny, nx = image.shape
    y, x = np.indices((ny, nx))
    r = np.sqrt((y - cy) ** 2 + (x - cx) ** 2)
    profile = np.zeros(nbins)
    counts = np.zeros(nbins, dtype=np.int64)
    for b in range(nbins):
        mask = (r >= b) & (r < b + 1)
        counts[b] = mask.sum()
        with np.errstate(invalid="ignore"):      # 0 / 0: NaN for an empty ring
            profile[b] = image[mask].mean()
    return profile, counts


def make_inputs(n, rng):
    # a ring pattern plus noise, centred off the middle so that the outer rings are cut
    # off by the edges; at the small size there are 2n bins, the last ones past the far
    # corner and empty (NaN)
    cy, cx = 0.37 * n, 0.58 * n
    y, x = np.indices((n, n))
    r = np.hypot(y - cy, x - cx)
    image = np.cos(r / 3.0) * np.exp(-r / n) + 0.1 * rng.normal(size=(n, n))
    nbins = n // 2 if n > 16 else 2 * n
    return image, cy, cx, nbins


EXAMPLE = Example(radial_profile, make_inputs,
                  sizes={"small": 16, "medium": 256, "large": 1024},
                  rtol=1e-9, atol=1e-12,
                  description="n x n image, mean per unit-width ring")

if __name__ == "__main__":
    EXAMPLE.main()
