#!/usr/bin/env python3
"""Tests of the soak's tick analysis (scripts/soak.py `analyse`), run by `make test`: a ticker
that goes silent, starts late or skips ticks must count as missing them, or `make soak` passes
without having timed anything."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak import analyse  # noqa: E402

PERIOD = 0.1


def ticks(first, last, late=lambda k: 0.0):
    """Arrivals of a 100 ms ticker started at 0, for ticks `first` to `last` (tick k due at
    k periods), each `late(k)` seconds late, none during a burst."""
    return [(k * PERIOD + late(k), False) for k in range(first, last + 1)]


class AnalyseTests(unittest.TestCase):
    def test_a_steady_ticker_misses_nothing(self):
        lateness, missed = analyse(ticks(1, 99, lambda k: 0.002 * (k % 3)), PERIOD, 0.0, 10.0)
        self.assertEqual(missed, 0)
        self.assertEqual(len(lateness), 99)
        self.assertAlmostEqual(max(value for value, _ in lateness), 0.004, places=6)

    def test_a_silent_ticker_missed_every_tick(self):
        self.assertEqual(analyse([], PERIOD, 0.0, 10.0), ([], 99))

    def test_a_ticker_that_stops_missed_the_rest(self):
        _, missed = analyse(ticks(1, 30), PERIOD, 0.0, 10.0)
        self.assertEqual(missed, 69)

    def test_a_late_start_and_a_gap_are_missed_ticks(self):
        arrivals = ticks(11, 40) + ticks(44, 99)
        _, missed = analyse(arrivals, PERIOD, 0.0, 10.0)
        self.assertEqual(missed, 10 + 3)

    def test_the_last_period_is_grace(self):
        # The tick due at 9.9 s has a period left to arrive when the run ends at 10 s.
        _, missed = analyse(ticks(1, 98), PERIOD, 0.0, 10.0)
        self.assertEqual(missed, 0)


if __name__ == "__main__":
    unittest.main()
