"""What admins read: `/stats`, `csbot stats`, the conversation record and its views.

- `figures`: the one definition of each figure (a percentile, an "I don't know", a hand-off),
  used by `/stats`, the console's dashboard, the per-arm figures and replay;
- `stats`: the period's numbers (`collect_stats`);
- `conversation_log`: the record of every inbound message, what the bot made of it, what it sent;
- `views`: how logs read in Telegram and the shell.
"""
