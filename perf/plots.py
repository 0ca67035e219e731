# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""PNG charts through gnuplot (Debian gnuplot-nox; perf/tools.sh installs it).

Each chart writes <name>.dat and <name>.gp next to <name>.png, so it can be redrawn or
restyled by hand.  Functions return None when the PNG was written, else the reason.
"""

import os
import shutil
import subprocess

GNUPLOT = "gnuplot"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', "'") + '"'


def _terminal(height: int = 700) -> str:
    return f"set terminal pngcairo size 1400,{height} font 'sans,10' noenhanced"


# Bar labels are rotated by 40 degrees: each character takes about 0.3 of a line of the
# bottom margin (sin 40 x a 9-point character's width over a 10-point line), so the
# margin is made from the longest label; 7 lines, the old fixed margin, cut a label
# after about 23 characters (the default's "*" and UNROLL were lost).
LABEL_LINES_PER_CHAR = 0.32
LINE_PIXELS = 17


def bar_margin(labels) -> int:
    """The bottom margin, in lines, that shows the longest rotated label whole."""
    longest = max((len(label) for label in labels), default=0)
    return max(7, int(LABEL_LINES_PER_CHAR * longest + 0.999) + 2)


def _run(path: str, script: str):
    if shutil.which(GNUPLOT) is None:
        return "gnuplot not found (Debian gnuplot-nox; perf/tools.sh installs it as root)"
    script_path = path[:-4] + ".gp"
    with open(script_path, "w", encoding="utf-8") as handle:
        handle.write(script)
    result = subprocess.run([GNUPLOT, script_path], capture_output=True, text=True)
    if result.returncode != 0 or not os.path.exists(path):
        return f"gnuplot failed: {result.stderr.strip()[:300]}"
    return None


def bar_chart(path, title, ylabel, series, rows):
    """Clustered bars: one cluster per row (row[0] is its label), one bar per series."""
    if not rows:
        return "nothing to plot"
    data_path = path[:-4] + ".dat"
    with open(data_path, "w", encoding="utf-8") as handle:
        handle.write("label " + " ".join(_quote(s) for s in series) + "\n")
        for row in rows:
            handle.write(_quote(row[0]) + " " + " ".join(f"{v:.4f}" for v in row[1:]) + "\n")
    columns = ", ".join(
        f"{_quote(data_path)} using {i + 2}:xtic(1) title columnheader({i + 2})"
        for i in range(len(series)))
    margin = bar_margin(row[0] for row in rows)
    script = "\n".join([
        _terminal(700 + LINE_PIXELS * (margin - 7)), f"set output {_quote(path)}",
        f"set title {_quote(title)}",
        f"set ylabel {_quote(ylabel)}", "set style data histograms",
        "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
        "set boxwidth 0.9", "set key outside right top", "set grid ytics",
        "set xtics rotate by -40 font 'sans,9'", f"set bmargin {margin}", "set yrange [0:*]",
        f"plot {columns}", ""])
    return _run(path, script)


def line_chart(path, title, panels):
    """Side-by-side panels of GB/s against message length (log scale).

    panels: [(panel title, {series name: [(length, GB/s), ...]}, ceiling GB/s or None)];
    the ceiling is drawn as a horizontal dashed line."""
    if not panels:
        return "nothing to plot"
    lines = [_terminal(), f"set output {_quote(path)}",
             f"set multiplot layout 1,{len(panels)} title {_quote(title)}",
             "set logscale x 2", "set xlabel 'message length (bytes)'", "set ylabel 'GB/s'",
             "set grid", "set key right bottom box opaque", "set yrange [0:*]", "set format x '%g'"]
    for index, (panel_title, series, ceiling) in enumerate(panels):
        data_path = f"{path[:-4]}.{index}.dat"
        with open(data_path, "w", encoding="utf-8") as handle:
            for name, points in series.items():
                handle.write(f"# {name}\n")
                for length, value in sorted(points):
                    handle.write(f"{length} {value:.4f}\n")
                handle.write("\n\n")
        plots = [f"{_quote(data_path)} index {i} with linespoints lw 2 title {_quote(name)}"
                 for i, name in enumerate(series)]
        if ceiling:
            plots.append(f"{ceiling:.4f} with lines dt 2 lw 2 lc rgb 'black' "
                         f"title {_quote(f'AES-round ceiling {ceiling:.1f} GB/s')}")
        lines += [f"set title {_quote(panel_title)}", "plot " + ", ".join(plots)]
    lines += ["unset multiplot", ""]
    return _run(path, "\n".join(lines))
