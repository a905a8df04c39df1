import sys

from toolkit.report import main

sys.exit(main())
