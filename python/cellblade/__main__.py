"""`python -m cellblade` is the `cellblade` command."""

from cellblade.cli import main

raise SystemExit(main())
