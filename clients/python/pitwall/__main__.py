"""``python -m pitwall sync DIR``: see :func:`pitwall.main`."""

import sys

from pitwall import main

sys.exit(main())
