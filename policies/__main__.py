"""`python -m policies counts [SIZES...]`: the number of weights of each feature set per board size;
`python -m policies write-shipped [DIR]`: (re)write the shipped handcrafted weight files."""
import sys

from policies.builtin import write_shipped
from policies.features import main as print_counts

if __name__ == "__main__":
    command, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("counts", [])
    if command == "counts":
        print_counts(args)
    elif command == "write-shipped":
        for path in write_shipped(args[0] if args else "weights"):
            print(path)
    else:
        sys.exit(__doc__)
