"""The progress bar of the long commands (matches, tournaments, tuning, data, training): tqdm
on stderr, so that stdout keeps the command's own output."""
import sys


class ProgressBar:
    """A tqdm bar on stderr, created at the first progress(done, total) call; work already done
    (a resumed run) is left out of the rate and the ETA."""

    def __init__(self, unit):
        self.unit, self.bar, self.start = unit, None, 0

    def __call__(self, done, total):
        from tqdm import tqdm
        if self.bar is None:
            self.start = done
            self.bar = tqdm(total=total - done, unit=self.unit, file=sys.stderr, dynamic_ncols=True)
        self.bar.n = done - self.start
        self.bar.refresh()

    def close(self):
        if self.bar is not None:
            self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
