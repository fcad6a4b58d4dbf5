"""Rate schedules of the open-model loads ((seconds, rate) steps, run by tracetax.engine.rate_steps)
that keep a load's request times from holding one fixed offset against another grid.

An open-model load at a fixed rate sends on a fixed grid. Against another fixed grid (a second
load at the same rate, the kernel's scheduler tick, a sampler's 100 Hz timer) the offset between
the two is set by when the load started and holds for the whole phase. Whatever depends on that
offset is then decided once per phase, by chance:
- two services side by side: whether one's requests land just after the other's (and find the
  core awake, or wait behind it) moved an A/A pair's CPU per request by 10% and its p50 by 18%
  (sd of the log ratio) from one pair of loads to the next (docs/studies/pairing);
- a CPU profiler: Go's pprof and the kernel's CPU timers act on the scheduler tick, so a service
  that wakes for each request and sleeps again is sampled only when its requests happen to
  straddle a tick. At 500 req/s (whole requests per tick at 100 or 250 Hz, whole ticks per
  request at 1,000) the Go demo's 4 s profile held 0 to 19 samples of the same 0.2 s of CPU,
  by when the load started; at 501 req/s, 9 to 16.

A rate a step off the grid's makes the schedules slide past one another through every offset.
"""

from __future__ import annotations

# One request per second faster or slower slides through every offset against a grid of the same
# rate once a second ...
STEP_RPS = 1.0
# ... and never more than this share of the rate apart, so that a low rate's load stays its own.
MAX_STEP_FRACTION = 0.01

Schedule = list[tuple[float, float]]


def step(rate: float) -> float:
    """How far apart (req/s) two loads near `rate` run so that their schedules slide."""
    return min(STEP_RPS, rate * MAX_STEP_FRACTION)


def staggered(count: int, rate: float, seconds: float, round_index: int) -> list[Schedule]:
    """The schedules of `count` loads started together at `rate` for `seconds`: a step apart from
    one another, centred on `rate` (the phase's load stays the spec's), and mirrored at half time,
    so that over the phase each load runs at `rate` on average and, of any two, each is the faster
    one for half of it (the faster of two loads costs its service a few percent more CPU per
    request). The positions rotate each round, so that which configurations are neighbours
    changes too."""
    if count == 1:
        return [[(seconds, rate)]]
    offsets = [step(rate) * ((index + round_index) % count - (count - 1) / 2) for index in range(count)]
    return [[(seconds / 2, rate + offset), (seconds / 2, rate - offset)] for offset in offsets]


def sliding(rate: float, seconds: float) -> Schedule:
    """One load at `rate` on average that slides against any fixed grid: a step faster for the
    first half, a step slower for the second. Two halves, because a user's rate a step up may
    itself sit on a grid (499 + 1 = two requests per tick of a 250 Hz kernel); the other half then
    does not."""
    return [(seconds / 2, rate + step(rate)), (seconds / 2, rate - step(rate))]
