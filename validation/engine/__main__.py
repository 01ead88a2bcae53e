"""``python -m validation.engine`` is the ``redline`` command."""

import sys

from validation.engine.cli import main

sys.exit(main())
