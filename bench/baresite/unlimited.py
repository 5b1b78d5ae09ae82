"""The production settings with the widgets' route limits lifted, for bench/lab_latency.py only
(never deployed).

That benchmark measures what an attention-lab call costs, not how often one learner may make
one: each of its phases sends 200 requests as one buyer, over the 120 a minute a learner may
(learning/route_limits.py), so under the production limits most of them were answered 429 in a
millisecond and the figures meant nothing. The limits on calls in flight and the per-process
slots stay as in production.
"""

from mathmachine.web.settings.production import *  # noqa: F403

ROUTE_LIMITS = {"learner": 1_000_000, "address": 1_000_000}
