#!/usr/bin/env python3
"""One Markdown summary of ncu's csv (`ncu --csv --page raw --metrics ...`, one file per step of
tests/bench/profile_targets.sh; python3 standard library only, it runs on the device machine).

Each FILE holds the program's output and ncu's messages, then the csv ncu prints when the program
ends. Kernels are grouped into operations by the NVTX range the benchmark opened around the
profiled call (tests/bench/profile_range.hpp: "row label | bytes=B", B the compulsory bytes the
benchmark divides by its time for GB/s, 0 when it counts none); without an NVTX column, by the
order of ncu's "==PROF== Profiling" lines and the "profiled: label" lines the benchmark prints
after each range; failing both, one operation per file. Per operation: the sum of kernel times and of DRAM bytes against the compulsory bytes, and
the DRAM / L2 / SM throughput weighted by kernel time; per kernel: time, DRAM bytes read and
written, DRAM, L2 (lts), L1/shared (l1tex) and SM throughput in % of peak, achieved occupancy,
registers per thread and waves per SM. Reads both ncu layouts: the raw page (one row per kernel,
one column per metric, a units row under the header) and the details page (one row per metric).
Usage: ncu_summary.py [--steps steps.tsv] [--out summary.md] [--top N] FILE...
"""
import argparse
import csv
import os
import re
import sys

TIME = "gpu__time_duration.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
L1 = "l1tex__throughput.avg.pct_of_peak_sustained_active"
SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
REGS = "launch__registers_per_thread"
WAVES = "launch__waves_per_multiprocessor"

# Scale of each unit ncu prints to the base unit (bytes, nanoseconds); ncu's byte prefixes are
# decimal (Kbyte = 1000 bytes), the binary ones are spelled Kibyte.
UNITS = {
    "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "kibyte": 1024.0, "mibyte": 1024.0 ** 2, "gibyte": 1024.0 ** 3,
    "nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9,
    "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9,
}


def number(text, unit=""):
    """ncu's value in base units (thousands separators dropped), or None for n/a and the like."""
    text = (text or "").strip().replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value * UNITS.get((unit or "").strip().lower(), 1.0)


def split_output(path):
    """(the lines before ncu's csv header, the csv rows from the header on): the file holds the
    program's output and ncu's messages, then the csv ncu prints when the program ends."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for at, line in enumerate(lines):
        if line.startswith('"ID"') or line.startswith("ID,"):
            return lines[:at], list(csv.reader(lines[at:]))
    return lines, []


def labels_by_order(messages, count):
    """Labels from the order of the messages, for an ncu that prints no NVTX column: every
    `==PROF== Profiling "kernel"` line belongs to the next "profiled: label" line that
    profile_range.hpp prints when its range closes. None unless exactly `count` kernels."""
    pending, labels = 0, []
    for line in messages:
        if line.startswith("==PROF== Profiling "):
            pending += 1
        elif line.startswith("profiled: "):
            labels += [line[len("profiled: "):].strip()] * pending
            pending = 0
    return labels if len(labels) == count and pending == 0 else None


def nvtx_label(cell):
    """The innermost push/pop range of ncu's NVTX cell ('7  "<default domain>:NAME:none:..."'),
    preferring one that carries profile_range.hpp's "| bytes=" tail; "" when there is none."""
    ranges = []
    for quoted in re.findall(r'"([^"]*)"', cell or "") or [cell or ""]:
        fields = quoted.split(":")
        if len(fields) >= 2 and fields[1].strip() and fields[1].strip() != "none":
            ranges.append(fields[1].strip())
    tagged = [r for r in ranges if "| bytes=" in r]
    return (tagged or ranges or [""])[-1]


def kernels_of(path):
    """[(id, label, kernel, grid, block, {metric: base value})] in launch order."""
    messages, rows = split_output(path)
    if not rows:
        return []
    head = [h.strip() for h in rows[0]]
    col = {h: i for i, h in enumerate(head)}
    nvtx = next((i for i, h in enumerate(head) if "Push/Pop_Range" in h), None)

    def cell(row, name):
        i = col.get(name)
        return row[i] if i is not None and i < len(row) else ""

    out = {}
    if "Metric Name" in col:  # details page: one row per (kernel, metric)
        for row in rows[1:]:
            if not cell(row, "ID").strip().isdigit():
                continue
            k = out.setdefault(int(cell(row, "ID")), [cell(row, "Kernel Name"), cell(row, "Grid Size"),
                                                       cell(row, "Block Size"), {},
                                                       row[nvtx] if nvtx is not None else ""])
            k[3][cell(row, "Metric Name").strip()] = number(cell(row, "Metric Value"),
                                                            cell(row, "Metric Unit"))
    else:  # raw page: a units row, then one row per kernel
        units = rows[1] if len(rows) > 1 and not rows[1][0].strip() else [""] * len(head)
        for row in rows[1:]:
            if not row or not row[0].strip().isdigit():
                continue
            metrics = {h: number(row[i], units[i] if i < len(units) else "")
                       for i, h in enumerate(head) if "__" in h and i < len(row)}
            out[int(row[0])] = [cell(row, "Kernel Name"), cell(row, "Grid Size"),
                                cell(row, "Block Size"), metrics,
                                row[nvtx] if nvtx is not None and nvtx < len(row) else ""]
    kernels = [(i, nvtx_label(k[4]), k[0], k[1], k[2], k[3]) for i, k in sorted(out.items())]
    if not any(k[1] for k in kernels):
        by_order = labels_by_order(messages, len(kernels))
        if by_order:
            kernels = [(k[0], label) + k[2:] for k, label in zip(kernels, by_order)]
    return kernels


def short(kernel, width=70):
    """The kernel's name without return type, namespaces and template arguments' bulk."""
    name = re.sub(r"^void ", "", kernel.strip())
    name = re.sub(r"\(anonymous namespace\)::|<unnamed>::", "", name)
    name = re.sub(r"\b[A-Za-z_]\w*::", "", name)
    name = re.sub(r"\((?:[^()]|\([^()]*\))*\)$", "", name)  # the parameter list
    if len(name) > width:  # CUB's policy types: the kernel's own name says more
        name = re.sub(r"<.*>", "<...>", name, count=1)
    return name if len(name) <= width else name[: width - 3] + "..."


def fmt(value, digits=1):
    return "-" if value is None else f"{value:,.{digits}f}"


def weighted(kernels, metric):
    """The metric averaged over the kernels, weighted by their time."""
    total = sum(k[5].get(TIME) or 0 for k in kernels)
    if total <= 0:
        return None
    parts = [(k[5].get(metric), k[5].get(TIME) or 0) for k in kernels]
    if all(v is None for v, _ in parts):
        return None
    return sum((v or 0) * t for v, t in parts) / total


def dram_peak(kernels):
    """The device's DRAM peak in bytes per ns (GB/s) as ncu's own percentages imply it: the
    median over the kernels that keep DRAM busy of bytes / time / (% of peak)."""
    peaks = sorted(((v.get(READ) or 0) + (v.get(WRITE) or 0)) / v[TIME] / (v[DRAM] / 100)
                   for v in (k[5] for k in kernels)
                   if (v.get(DRAM) or 0) > 20 and (v.get(TIME) or 0) > 0)
    return peaks[len(peaks) // 2] if peaks else None


def hint(ops_time, dram_bytes, compulsory, dram_pct, l2_pct, sm_pct, top):
    """One line on where the time goes (a reading aid; the numbers are what to quote)."""
    ratio = dram_bytes / compulsory if compulsory else None
    top_name, top_share, top_waves = top
    if ops_time < 20e3:
        return f"{ops_time / 1e3:.1f} us of kernels in all: launch and latency bound"
    words = []
    if ratio is not None:
        words.append(f"moves {ratio:.2f}x the compulsory bytes")
    if dram_pct is not None:
        words.append(f"at {dram_pct:.0f}% of DRAM peak")
    line = " ".join(words) if words else "no DRAM reading"
    if dram_pct is not None and dram_pct >= 70:
        line += (": DRAM bound; the limit is the traffic (passes, extra bytes), not the kernels"
                 if ratio is not None and ratio > 1.3 else ": DRAM bound")
    else:
        units = [(v, n) for v, n in ((l2_pct, "L2"), (sm_pct, "SM")) if v is not None]
        if units:
            busiest = max(units)
            line += f"; busiest unit {busiest[1]} at {busiest[0]:.0f}%"
        if top_waves is not None and top_waves < 1:
            line += f"; top kernel under one wave ({top_waves:.2f})"
    return line + f"; top kernel {top_name} {100 * top_share:.0f}% of the time"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--steps", help="steps.tsv of profile_targets.sh (step, exit status, seconds)")
    ap.add_argument("--out", default="-")
    ap.add_argument("--top", type=int, default=12, help="kernels listed per operation, by time")
    a = ap.parse_args()

    ops = {}  # (step, label) -> kernels, in first-seen order
    problems = []
    for path in a.files:
        step = os.path.splitext(os.path.basename(path))[0]
        try:
            kernels = kernels_of(path)
        except (OSError, csv.Error) as e:
            problems.append(f"{step}: {e}")
            continue
        if not kernels:
            problems.append(f"{step}: no kernel rows in {os.path.basename(path)} (see its end)")
        for k in kernels:
            ops.setdefault((step, k[1] or step), []).append(k)

    out = []
    out.append("# ncu profiles of the speed targets\n")
    out.append("One profiled call per operation (tests/bench/profile_targets.sh); ncu serialises "
               "the kernels and flushes the caches before each, so kernel times sum to at most "
               "the call's time and DRAM bytes are cold-L2 bytes. *compulsory*: the bytes the "
               "benchmark divides by its time for GB/s (- where it counts none). Throughputs are "
               "% of peak, weighted by kernel time per operation.\n")
    if a.steps and os.path.exists(a.steps):
        out.append("| step | exit | seconds |\n|---|---:|---:|")
        with open(a.steps) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if len(p) >= 3:
                    note = " (timed out)" if p[1] in ("124", "137") else ""
                    out.append(f"| {p[0]} | {p[1]}{note} | {p[2]} |")
        out.append("")
    for p in problems:
        out.append(f"- {p}")
    if problems:
        out.append("")

    peak = dram_peak([k for kernels in ops.values() for k in kernels])
    out.append("## Operations\n")
    if peak:
        out.append(f"DRAM peak implied by ncu's percentages: {peak:,.0f} GB/s. *us at peak*: the "
                   "time the DRAM bytes the kernels moved / the compulsory bytes take at that "
                   "peak (no kernel design moving the same bytes beats the first).\n")
    out.append("| step | operation | kernels | kernel us | us at peak: moved / compulsory | "
               "DRAM MB (r+w) | compulsory MB | DRAM / compulsory | DRAM GB/s | DRAM % | L2 % | "
               "SM % | reading |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    details = []
    for (step, label), kernels in ops.items():
        name, compulsory = label, None
        m = re.match(r"^(.*?)\s*\|\s*bytes=([0-9.]+)\s*$", label)
        if m:
            name, compulsory = m.group(1), float(m.group(2)) or None
        name = name.replace("|", "/")  # the label's separators would split the table's cells
        t = sum(k[5].get(TIME) or 0 for k in kernels)
        dram = sum((k[5].get(READ) or 0) + (k[5].get(WRITE) or 0) for k in kernels)
        dram_pct, l2_pct, sm_pct = (weighted(kernels, x) for x in (DRAM, L2, SM))
        top = max(kernels, key=lambda k: k[5].get(TIME) or 0)
        top_info = (short(top[2], 40), (top[5].get(TIME) or 0) / t if t else 0, top[5].get(WAVES))
        ratio = dram / compulsory if compulsory else None
        floor = (f"{fmt(dram / peak / 1e3)} / {fmt(compulsory / peak / 1e3 if compulsory else None)}"
                 if peak else "-")
        out.append(f"| {step} | {name} | {len(kernels)} | {fmt(t / 1e3)} | {floor} | {fmt(dram / 1e6)} | "
                   f"{fmt(compulsory / 1e6 if compulsory else None)} | {fmt(ratio, 2)} | "
                   f"{fmt(dram / t if t else None, 0)} | {fmt(dram_pct, 0)} | {fmt(l2_pct, 0)} | "
                   f"{fmt(sm_pct, 0)} | {hint(t, dram, compulsory, dram_pct, l2_pct, sm_pct, top_info)} |")
        details.append((step, name, kernels, t))

    out.append("\n## Kernels per operation\n")
    for step, name, kernels, t in details:
        out.append(f"### {step}: {name}\n")
        out.append("| # | kernel | grid | block | us | % of op | DRAM read MB | DRAM write MB | "
                   "DRAM % | L2 % | L1 % | SM % | occupancy % | regs | waves |")
        out.append("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        listed = sorted(kernels, key=lambda k: -(k[5].get(TIME) or 0))[: a.top]
        keep = {k[0] for k in listed}
        for k in kernels:
            if k[0] not in keep:
                continue
            v = k[5]
            kt = v.get(TIME) or 0
            out.append(f"| {k[0]} | {short(k[2])} | {k[3]} | {k[4]} | {fmt(kt / 1e3)} | "
                       f"{fmt(100 * kt / t if t else None, 0)} | {fmt((v.get(READ) or 0) / 1e6)} | "
                       f"{fmt((v.get(WRITE) or 0) / 1e6)} | {fmt(v.get(DRAM), 0)} | "
                       f"{fmt(v.get(L2), 0)} | {fmt(v.get(L1), 0)} | {fmt(v.get(SM), 0)} | "
                       f"{fmt(v.get(OCC), 0)} | {fmt(v.get(REGS), 0)} | {fmt(v.get(WAVES), 2)} |")
        rest = [k for k in kernels if k[0] not in keep]
        if rest:
            rt = sum(k[5].get(TIME) or 0 for k in rest)
            rd = sum((k[5].get(READ) or 0) + (k[5].get(WRITE) or 0) for k in rest)
            out.append(f"| | {len(rest)} more kernels | | | {fmt(rt / 1e3)} | "
                       f"{fmt(100 * rt / t if t else None, 0)} | {fmt(rd / 1e6)} (r+w) | | | | | | | | |")
        out.append("")

    text = "\n".join(out) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
