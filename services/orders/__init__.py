"""Orders and shipments, for the customer who owns them.

- `shipping`: order and shipment answers;
- `cancellation`: "can I cancel order X?", from the order's status and the shop's policy.
"""
