"""The site plus a bare view, for the benchmarks (settings.py, urls.py); never deployed."""

BARE = "/bench/bare/"  # the bare view's path
