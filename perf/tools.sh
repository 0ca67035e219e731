#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# Makes sure gnuplot is there for the charts of make bench and make explore (never
# needed by make test).  Quiet when it is; as root installs the Debian package
# gnuplot-nox; otherwise exits 2 naming it.  Same pattern as tests/tools.sh.
set -u

command -v gnuplot >/dev/null 2>&1 && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "perf/tools.sh: missing: gnuplot; install the Debian package gnuplot-nox" >&2
    echo "    sudo apt-get install -y gnuplot-nox" >&2
    exit 2
fi

echo "perf/tools.sh: missing: gnuplot; installing gnuplot-nox" >&2
apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y gnuplot-nox >&2 \
    || { echo "perf/tools.sh: apt-get failed" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "perf/tools.sh: still no gnuplot" >&2; exit 2; }
