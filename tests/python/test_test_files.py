# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The Python test files themselves: run directly (`python3 tests/python/test_x.py`), a file
runs the tests defined before its `if __name__ == "__main__":` guard only, so a class added
below the guard ran under `make test`'s discovery but not so (test_explore's Driver,
test_plan's OnePassKnob, test_vperm's VpermLint were)."""

import ast
import glob
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def _is_main_guard(node) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


class MainGuardLast(unittest.TestCase):
    def test_no_definition_after_the_main_guard(self):
        late = []
        for path in sorted(glob.glob(os.path.join(HERE, "test_*.py"))):
            with open(path, encoding="utf-8") as handle:
                body = ast.parse(handle.read(), path).body
            guard = next((i for i, node in enumerate(body) if _is_main_guard(node)), None)
            if guard is None:
                continue
            late += [f"{os.path.basename(path)}: {node.name}" for node in body[guard + 1:]
                     if isinstance(node, (ast.ClassDef, ast.FunctionDef))]
        self.assertEqual(late, [], "defined after the `if __name__ == \"__main__\"` guard")


if __name__ == "__main__":
    unittest.main()
