"""The shop's own files: products and customers as CSV, orders as JSON lines.

Reading a file gives typed records (or every problem, each with its line and field);
writing records gives back the same format, so an export re-imports to the same data.
"""
