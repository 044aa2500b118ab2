"""`python -m cellblade.cli`, as the `cellblade` command."""

import sys

from cellblade.cli import main

sys.exit(main())
