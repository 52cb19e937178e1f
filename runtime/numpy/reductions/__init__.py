"""Reductions and statistics: sums and extremes, cumulative functions, statistics,
histograms, sorting, covariance, and their bounded-extent forms (`bounded`: reductions,
`bounded_functions`: sorting, order statistics, differences, ...)."""
