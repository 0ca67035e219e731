# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
import sys

from .cli import main

sys.exit(main())
