"""The compiled rules: the board (chains, liberties, ko, hash, area score), the random number
generator every compiled routine takes, and conversions between points and vertices.  The
lowest layer: it imports nothing of Simbal's."""
