# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The license is on everything: LICENSE and both texts exist, and every tracked
source file (and every generated file) carries the SPDX line as its first comment
-- the first line, or the second after a `#!` line.

Exempt, by rule and not by name: the license texts themselves, JSON files (data with
no comment syntax: mca/baseline.json, generator/tuning.json, gen/manifest.json) and
tests/vectors/ (third-party test data under its own licenses, see its SOURCES.md) and
the binary fuzz inputs of tests/fuzz/corpus/ (their README.md states their license).
The file list is `git ls-files` in a checkout, else every file under the tree.
"""

import os
import subprocess
import unittest

from repo import REPO

SPDX = "SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause"
EXEMPT_DIRS = ("tests/vectors/", "tests/fuzz/corpus/", "LICENSES/", ".git/", "build/")
EXEMPT_FILES = {"LICENSE"}
# The first comment in each syntax.
COMMENT_FORMS = [f"# {SPDX}", f"; {SPDX}", f"/* {SPDX} */", f"{{#- {SPDX} -#}}",
                 f"<!-- {SPDX} -->"]


def project_files():
    try:
        out = subprocess.run(["git", "-C", REPO, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), REPO)
                 for d, _, names in os.walk(REPO) for f in names]
    return sorted(f for f in files
                  if not f.startswith(EXEMPT_DIRS) and f not in EXEMPT_FILES
                  and not f.endswith(".json") and "/build" not in f
                  and not f.startswith("build-") and "__pycache__" not in f)


def first_comment(path):
    with open(os.path.join(REPO, path), encoding="utf-8", errors="replace") as f:
        lines = f.read(4096).splitlines()
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    return lines[0] if lines else ""


class License(unittest.TestCase):
    def test_license_files(self):
        text = open(os.path.join(REPO, "LICENSE"), encoding="utf-8").read()
        self.assertIn(SPDX, text)
        apache = open(os.path.join(REPO, "LICENSES", "Apache-2.0.txt"), encoding="utf-8").read()
        self.assertIn("Apache License\n                           Version 2.0, January 2004", apache)
        bsd = open(os.path.join(REPO, "LICENSES", "BSD-2-Clause.txt"), encoding="utf-8").read()
        self.assertIn("Redistributions in binary form must reproduce", bsd)
        self.assertNotIn("Neither the name", bsd)   # that clause is BSD-3's

    def test_every_source_file_has_the_spdx_line(self):
        files = project_files()
        self.assertGreater(len(files), 100)   # the listing found the tree
        missing = [f for f in files if first_comment(f) not in COMMENT_FORMS]
        self.assertEqual(missing, [], "files whose first comment is not the SPDX line")

    def test_every_generated_file_starts_with_it(self):
        generated = [f for f in project_files() if f.startswith("gen/")]
        self.assertGreater(len(generated), 30)
        for f in generated:
            with self.subTest(file=f):
                self.assertIn(first_comment(f), COMMENT_FORMS)

    def test_vectors_carry_their_provenance(self):
        vectors = os.path.join(REPO, "tests", "vectors")
        self.assertTrue(os.path.isfile(os.path.join(vectors, "SOURCES.md")))
        for upstream_license in ("wycheproof/LICENSE", "google-hctr2/LICENSE", "botan/license.txt"):
            self.assertTrue(os.path.isfile(os.path.join(vectors, "orig", upstream_license)),
                            upstream_license)


if __name__ == "__main__":
    unittest.main()
