import sys

from npxla.transpiler.lint.command import main

sys.exit(main())
