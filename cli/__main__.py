import sys

from cli.arkevo import main

if __name__ == "__main__":
    sys.exit(main())
