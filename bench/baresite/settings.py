"""The production settings plus one bare view, for the benchmarks only (never deployed).

bench/section_rps.py and bench/section_cpu.py serve the site with these settings so that they can
compare a section with the cheapest page Django can send through the same middleware.
"""

from mathmachine.web.settings.production import *  # noqa: F403

ROOT_URLCONF = "bench.baresite.urls"
