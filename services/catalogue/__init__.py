"""The shop's products as customers ask about them.

- `stock`: stock answers, worded only from the product records;
- `words`: the words of a stock question that name a thing;
- `options`: sizes and colours asked for and offered;
- `memory`: the products a chat talked about last, for a question that names none.
"""
