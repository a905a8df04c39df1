import sys

try:  # a Ctrl-C while the toolkit is still being imported is one line too, as ``main`` makes it
    from toolkit.cli import program

    code = program()
except KeyboardInterrupt:
    print("toolkit: interrupted", file=sys.stderr)
    code = 130
sys.exit(code)
