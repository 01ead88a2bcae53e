import sys

from redline_client.cli import main

sys.exit(main(prog="python -m redline_client"))
