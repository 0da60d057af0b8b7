#!/usr/bin/env python3
"""Checks of report.py's verdicts on made-up samples (run by `make test`, `make report-tests`)."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("report", os.path.join(HERE, "report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)


def write_samples(directory, name, metric, values):
    path = os.path.join(directory, f"Current_run.MillraceBenchmarks.{name}.{metric}.histogram.samples.tsv")
    with open(path, "w") as f:
        f.write(metric + "\n" + "\n".join(str(v) for v in values) + "\n")


def guarded_row(paired):
    """The guarded row for a data row of 40 ns and a table row of 20 ns an input (2×, apart),
    with `paired` (thousandths) as every paired iteration's ratio, or no paired benchmark."""
    with tempfile.TemporaryDirectory() as directory:
        write_samples(directory, "auth:millrace-data", "wallClock", [40_000] * 9)
        write_samples(directory, "auth:millrace-table", "wallClock", [20_000] * 9)
        if paired is not None:
            write_samples(directory, "auth:millrace-data_paired", "pairedRatio", [paired] * 9)
        benches = report.read_samples(directory)
    counts = {"paths": {"auth:millrace-data": {"instructions_per_op": 300.0},
                        "auth:millrace-table": {"instructions_per_op": 214.0}}}
    rows = report.inprocess_budgets(benches, counts)
    return next(r for r in rows if r["kind"] == "guarded")


class GuardedRow(unittest.TestCase):
    def test_paired_median_decides(self):
        row = guarded_row(1_440)
        self.assertAlmostEqual(row["ratio"], 1.44)
        self.assertAlmostEqual(row["apart_ratio"], 2.0)
        self.assertEqual(row["result"], "PASS")

    def test_paired_median_above_the_budget_fails(self):
        self.assertIn("time ratio", guarded_row(1_510)["failed"])

    def test_without_the_paired_benchmark_the_p50s_decide(self):
        row = guarded_row(None)
        self.assertAlmostEqual(row["ratio"], 2.0)
        self.assertIn("time ratio", row["failed"])


if __name__ == "__main__":
    unittest.main()
