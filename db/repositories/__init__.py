"""Queries, one module per area. Repositories flush; services decide when to commit."""
