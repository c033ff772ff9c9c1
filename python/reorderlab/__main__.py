"""``python -m reorderlab`` = the ``reorderlab`` command."""

from reorderlab.cli import main

if __name__ == "__main__":
    main()
