"""Plots of a device check report (gpu/device-check.sh): lookup rate and latency per batch size,
the two GPU figures of the SAIL slides, one line per structure.

    python3 gpu/plot.py REPORT.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(report_path, png_path):
    runs = json.load(open(report_path))["runs"]
    fig, (rate_ax, lat_ax) = plt.subplots(1, 2, figsize=(13, 4.8))
    for run in runs:
        rows = run["batches"]
        sizes = [r["batch"] for r in rows]
        line = rate_ax.plot(sizes, [r["kernel_lookups_per_s"] / 1e9 for r in rows], marker="o",
                            label=f'{run["label"]} kernel only')[0]
        rate_ax.plot(sizes, [r["pipelined_lookups_per_s"] / 1e9 for r in rows], marker="x",
                     linestyle="--", color=line.get_color(), label=f'{run["label"]} with transfers')
        lat_ax.plot(sizes, [r["latency_s"] * 1e6 for r in rows], marker="o", color=line.get_color(),
                    label=run["label"])
    gpu = runs[0]["gpu"] if runs else "GPU"
    rate_ax.set(xscale="log", yscale="log", xlabel="batch size (addresses)",
                ylabel="G lookups/s", title=f"Lookup rate vs batch size ({gpu})")
    lat_ax.set(xscale="log", yscale="log", xlabel="batch size (addresses)",
               ylabel="µs per batch (copy in, kernel, copy out)",
               title="Latency of one batch vs batch size")
    for ax in (rate_ax, lat_ax):
        ax.set_xscale("log", base=2)
        ax.grid(True, which="both", alpha=0.3)
    rate_ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    lat_ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
