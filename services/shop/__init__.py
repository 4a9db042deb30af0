"""The shop's own data and rules.

- `sources`: where answers read customers, orders and products (csbot's tables, or the shop's
  API over HTTP), behind one interface;
- `files`: the shop's CSV and JSON-lines files, read into typed records and written back;
- `sync`: those records upserted into csbot's tables by natural key;
- `policy`: the shop's rules as configuration; `money`, `phone`: prices and phone numbers in
  one form; `identity`: linking a Telegram account to a customer by a shared contact.
"""
