#!/usr/bin/env python3
"""Checks of report.py's verdicts on made-up samples (run by `make test`)."""
import importlib.util
import json
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


def inprocess_row(subject, peer, times, paired, counts):
    """The row of `subject`, timed at times[0] ns against `peer`'s times[1] ns an input (apart),
    with `paired` (thousandths) as every paired iteration's ratio, or no paired benchmark."""
    with tempfile.TemporaryDirectory() as directory:
        write_samples(directory, subject, "wallClock", [times[0] * 1_000] * 9)
        write_samples(directory, peer, "wallClock", [times[1] * 1_000] * 9)
        if paired is not None:
            write_samples(directory, subject + "_paired", "pairedRatio", [paired] * 9)
        benches = report.read_samples(directory)
    rows = report.inprocess_budgets(benches, {"paths": counts})
    return next(r for r in rows if r["figure"] == subject)


def guarded_row(paired):
    """The guarded row: a data row of 40 ns against a table row of 20 ns (2×, apart)."""
    return inprocess_row("auth:millrace-data", "auth:millrace-table", (40, 20), paired,
                         {"auth:millrace-data": {"instructions_per_op": 300.0},
                          "auth:millrace-table": {"instructions_per_op": 214.0}})


def dispatch_row(paired):
    """The auth table machine's dispatch row: 100 ns against the ring's 20 ns (5×, apart)."""
    return inprocess_row("auth:millrace-table", "auth:ring-switch", (100, 20), paired,
                         {"auth:millrace-table": {"instructions_per_op": 214.0, "ceiling": 250.0}})


class PairedRowChecks:
    """The verdict of a row timed in pairs: `row(paired)` makes it, `passing` and `failing` are
    paired medians (thousandths) below and above its budget, `apart` the ratio of its p50s."""

    def test_paired_median_decides(self):
        row = self.row(self.passing)
        self.assertAlmostEqual(row["ratio"], self.passing / 1000)
        self.assertAlmostEqual(row["apart_ratio"], self.apart)
        self.assertEqual(row["result"], "PASS")

    def test_paired_median_above_the_budget_fails(self):
        self.assertIn("time ratio", self.row(self.failing)["failed"])

    def test_without_the_paired_benchmark_the_p50s_decide(self):
        row = self.row(None)
        self.assertAlmostEqual(row["ratio"], self.apart)
        self.assertIn("time ratio", row["failed"])


class GuardedRow(PairedRowChecks, unittest.TestCase):
    row = staticmethod(guarded_row)
    passing, failing, apart = 1_440, 1_510, 2.0


class DispatchRow(PairedRowChecks, unittest.TestCase):
    row = staticmethod(dispatch_row)
    passing, failing, apart = 3_900, 4_100, 5.0


def rtt_row(paired_rounds, errors=0, peer_errors=0, other_cpu_rounds=(), other_cpu_errors=0):
    """The judged 1-client row (durability batched) for a SEND of 8 µs against an echo PING of
    5 µs (1.6×, apart), with one paired run per ratio in `paired_rounds` (and one with the
    client on another CPU per ratio in `other_cpu_rounds`), read back from the files
    socket-bench.sh writes."""
    with tempfile.TemporaryDirectory() as directory:
        rows = ["server\tcommand\tclients\tpipeline\trequests\tround\tfile\tserver_cpu_ns"]

        def run(server, command, clients, round_, data):
            name = f"{clients}-{server}-{round_}.json"
            with open(os.path.join(directory, name), "w") as f:
                json.dump(data, f)
            rows.append(f"{server}\t{command}\t{clients}\t1\t1000\t{round_}\t{name}\t")

        run("echo", "PING", "rtt", 1, {"percentiles": {"50": 5_000}})
        run("millraced-batched", "SEND t flip", "rtt", 1, {"percentiles": {"50": 8_000}, "errors": 0})
        for kind, rounds, errs, peer_errs in (("rtt-paired", paired_rounds, errors, peer_errors),
                                              ("rtt-paired-apart", other_cpu_rounds, other_cpu_errors, 0)):
            for i, ratio in enumerate(rounds):
                run("millraced-batched", "SEND t flip", kind, i + 1,
                    {"percentiles": {"50": 8_000}, "errors": errs if i == 0 else 0,
                     "peer": {"percentiles": {"50": 6_000}, "errors": peer_errs if i == 0 else 0},
                     "paired": {"block": 2000, "pairs": 50, "ratio_p25": ratio - 0.05,
                                "ratio_p50": ratio, "ratio_p75": ratio + 0.05}})
        with open(os.path.join(directory, "socket.tsv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        sock = report.read_socket(directory)
    rows = report.socket_budgets(sock, ["echo", "millraced-batched"])
    return next(r for r in rows if r["kind"] == "rtt")


class RoundTripRow(unittest.TestCase):
    def test_median_paired_round_decides(self):
        row = rtt_row([1.40, 1.25, 1.20])
        self.assertAlmostEqual(row["ratio"], 1.25)
        self.assertAlmostEqual(row["apart_ratio"], 1.6)
        self.assertEqual(row["result"], "PASS")

    def test_paired_ratio_above_the_budget_fails(self):
        self.assertIn("time ratio", rtt_row([1.35, 1.31, 1.50])["failed"])

    def test_error_replies_in_any_round_fail(self):
        # the erring round is not the median one (1.40 of 1.40, 1.25, 1.20)
        for errors, peer_errors in ((3, 0), (0, 3)):
            row = rtt_row([1.40, 1.25, 1.20], errors=errors, peer_errors=peer_errors)
            self.assertIn("error replies", row["failed"])
            self.assertEqual(row["result"], "FAIL (error replies)")

    def test_the_client_on_another_cpu_is_shown_not_judged(self):
        # 1.03× there does not pass a row that fails on one CPU, and 2.0× does not fail one
        # that passes; the median of its rounds is shown.
        row = rtt_row([1.35, 1.40, 1.45], other_cpu_rounds=[1.02, 1.03, 1.05])
        self.assertAlmostEqual(row["other_cpu_ratio"], 1.03)
        self.assertIn("client on another CPU, paired: 1.03×", row["peer"])
        self.assertIn("time ratio", row["failed"])
        row = rtt_row([1.25], other_cpu_rounds=[2.0])
        self.assertAlmostEqual(row["other_cpu_ratio"], 2.0)
        self.assertEqual(row["result"], "PASS")

    def test_error_replies_with_the_client_on_another_cpu_fail(self):
        row = rtt_row([1.25], other_cpu_rounds=[1.03], other_cpu_errors=2)
        self.assertEqual(row["result"], "FAIL (error replies)")

    def test_without_a_paired_run_the_p50s_decide(self):
        row = rtt_row([])
        self.assertAlmostEqual(row["ratio"], 1.6)
        self.assertIn("time ratio", row["failed"])


if __name__ == "__main__":
    unittest.main()
