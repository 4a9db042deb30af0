"""Upserting the shop's files into csbot's tables by natural key, and reading them back out.

Each kind reads what is there in one query, works out what is new, changed or the same,
and writes only the difference with executemany statements, inside the caller's
transaction: the caller commits (or, for a dry run, rolls back) the whole file at once.
"""
