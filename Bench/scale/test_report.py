#!/usr/bin/env python3
"""Checks of make scale's report (run by `make test`): the settled rate of a SEND round, which
charges a round with the CPU its daemon spent after it, and the SEND bar judged on it, on
made-up facts."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402


def run(requests, seconds):
    return {"requests": requests, "seconds": seconds, "per_second": requests / seconds,
            "unexpected": 0, "timed_out": False, "failed": False, "first_unexpected": ""}


class SettledRate(unittest.TestCase):
    def test_nothing_after_the_round_keeps_its_rate(self):
        self.assertEqual(report.settled_rate(run(3_000_000, 3.0), 0, 100), 1_000_000)

    def test_work_after_the_round_is_charged_to_it(self):
        # 50 ticks of 10 ms: half a second more for the same requests
        self.assertAlmostEqual(report.settled_rate(run(3_500_000, 3.0), 50, 100), 1_000_000)

    def test_a_round_without_figures_has_none(self):
        self.assertIsNone(report.settled_rate({"requests": 0, "seconds": 0}, 10, 100))


class SendBar(unittest.TestCase):
    """The whole report on the facts of the SEND step alone: the bar's row is judged on the
    settled rates."""

    def verdict(self, big_after_ticks):
        with tempfile.TemporaryDirectory() as raw, tempfile.TemporaryDirectory() as out:
            facts = {"n": 1000000, "send_rounds": 3, "clk_tck": 100}
            for k in (1, 2, 3):
                facts[f"send.small.{k}"] = run(3_000_000, 3.0)
                facts[f"send.small.{k}.cpu_ticks"] = 300
                facts[f"send.small.{k}.settle_ticks"] = 0
                facts[f"send.big.{k}"] = run(2_850_000, 3.0)  # 0.95x as measured
                facts[f"send.big.{k}.cpu_ticks"] = 300
                facts[f"send.big.{k}.settle_ticks"] = big_after_ticks
            with open(os.path.join(raw, "facts.tsv"), "w") as f:
                for key, value in facts.items():
                    f.write(f"{key}\t{json.dumps(value)}\n")
            open(os.path.join(raw, "marks.tsv"), "w").close()
            subprocess.run([sys.executable, "-B", os.path.join(HERE, "report.py"), "--raw", raw,
                            "--out", out], capture_output=True, text=True)
            with open(os.path.join(out, "scale.md")) as f:
                row = next(line for line in f if line.startswith("| SEND to random machines"))
            return row.rstrip(" |\n").rsplit("|", 1)[-1].strip()

    def test_a_daemon_idle_after_its_rounds_passes(self):
        self.assertEqual(self.verdict(0), "PASS")

    def test_a_checkpoint_left_after_each_round_counts(self):
        # 0.5 s of CPU after each 3 s round: 2,850,000 / 3.5 s, 0.81x
        self.assertEqual(self.verdict(50), "FAIL")


if __name__ == "__main__":
    unittest.main()
