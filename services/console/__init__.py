"""What the admin console shows and does; its web layer is bot/console.

- `auth`: one-time login links, browser sessions, CSRF tokens;
- `conversations`: the searchable list and one chat's transcript;
- `dashboard` and `charts`: the `/stats` numbers over time, drawn as SVG;
- `gaps`: the questions the bot could not answer, grouped;
- `faq`: FAQ entries edited in the browser; `resend`: undelivered replies, sent again once;
- `canary`: the arms, their weights, figures and changes, and the audit trail they join;
- `privacy`: phone numbers hidden until asked for (audited).
"""
