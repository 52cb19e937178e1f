"""np.fft, and np.interp / np.convolve / np.correlate / np.polyval, with the bounded-extent
forms of np.interp and np.convolve (`bounded`)."""
