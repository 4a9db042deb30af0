"""Every update stored before it is handled, and nothing stored forgotten.

- `durable`: the inbox (`Inbox`): receipts, outcomes, the journal when the database refuses;
- `update_context`: which update the running task is handling (for logs and sent messages);
- `read_cache`: the reads every update repeats (who this user is, whether a person is on).
"""
